#pragma once
// The CUDA state of PoissonProblem (complete here so both of its source files can own it):
// fields uploaded once, the assembler and the device matrix and RHS.
#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"
#include "manufactured_poisson.hpp"

namespace foehn::examples {

struct PoissonProblem::Device {
  Stream stream;
  fe::CudaAssembler assembler;
  DeviceArray<double> tensor, source, rhs;
  fe::DeviceBlockCsrMatrix values;

  Device(const TetMesh& mesh, const std::vector<double>& tensor_host,
         const std::vector<double>& source_host)
      : assembler(mesh, stream),
        tensor(tensor_host.size(), stream),
        source(source_host.size(), stream),
        rhs(mesh.node_count(), stream),
        values(assembler.create_matrix<fe::DiffusionOperator>()) {
    tensor.copy_from_host_async(tensor_host, stream);
    source.copy_from_host_async(source_host, stream);
  }
};

}  // namespace foehn::examples
