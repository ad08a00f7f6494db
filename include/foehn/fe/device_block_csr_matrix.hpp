#pragma once
// Block-CSR values in device memory, and where a device assembly writes. Backend-neutral (no
// CUDA header): used by the CUDA assembler, the PETSc hand-off and callers holding device
// memory of their own.
#include <cstddef>

#include "foehn/runtime/device_array.hpp"

namespace foehn::fe {

// Values of a block-CSR operator on the device; the pattern is the assembler's.
struct DeviceBlockCsrMatrix {
  int block_rows = 1;
  int block_cols = 1;
  DeviceArray<double> values;
};

// Where an assembly writes: device memory the caller owns (a DeviceBlockCsrMatrix) or borrows
// (a PETSc Mat's or Vec's device array, see foehn/petsc/matrix_handoff.hpp): value_count =
// nnz * block_rows * block_cols values in Foehn's block order, and, when rhs is not null,
// rhs_count = node_count * block_rows right-hand-side values. Every value is overwritten.
struct DeviceAssemblyTarget {
  int block_rows = 1;
  int block_cols = 1;
  double* values = nullptr;
  std::size_t value_count = 0;
  double* rhs = nullptr;
  std::size_t rhs_count = 0;

  static DeviceAssemblyTarget of(DeviceBlockCsrMatrix& matrix, DeviceArray<double>* rhs) {
    return {matrix.block_rows,    matrix.block_cols,           matrix.values.data(),
            matrix.values.size(), rhs ? rhs->data() : nullptr, rhs ? rhs->size() : 0};
  }
};

}  // namespace foehn::fe
