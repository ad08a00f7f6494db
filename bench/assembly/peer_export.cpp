#include "peer_export.hpp"

#include <fstream>

#include "assembly_cases.hpp"
#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::bench {

namespace {
template <class T>
void write_raw(const std::filesystem::path& path, const T* data, std::size_t count) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(count * sizeof(T)));
  if (!out) fail(ErrorCategory::io, "cannot write '", path.string(), "'");
}
}  // namespace

void export_peer_inputs(const TetMesh& mesh, const Stream& stream,
                        const std::filesystem::path& dir) {
  const std::filesystem::path folder = dir / std::to_string(mesh.tet_count());
  std::filesystem::create_directories(folder);
  fe::CudaAssembler gpu(mesh, stream);
  AssemblyFields fields = make_assembly_fields(mesh, stream);
  fe::DiffusionOperator op = diffusion_case(fields);
  op.source = {};
  fe::DeviceBlockCsrMatrix matrix = gpu.create_matrix<fe::DiffusionOperator>();
  gpu.assemble(op, matrix, nullptr, fe::AssemblyStrategy::deterministic);
  const fe::CsrPattern pattern = gpu.download_pattern();
  const std::vector<double> values = matrix.values.copy_to_host(stream);

  write_raw(folder / "coords.f64", mesh.nodes.front().data(), mesh.node_count() * 3);
  write_raw(folder / "tets.i32", mesh.tets.front().data(), mesh.tet_count() * 4);
  write_raw(folder / "tensor.f64", fields.tensor_host.data(), fields.tensor_host.size());
  write_raw(folder / "row_offsets.i32", pattern.row_offsets.data(), pattern.row_offsets.size());
  write_raw(folder / "columns.i32", pattern.column_indices.data(), pattern.column_indices.size());
  write_raw(folder / "values.f64", values.data(), values.size());
  std::ofstream meta(folder / "meta.txt");
  meta << mesh.node_count() << " " << mesh.tet_count() << " " << pattern.nnz() << "\n";
}

void add_published_a100_cases(BenchReport& report) {
  struct Published {
    const char* stage;
    double ms;
  };
  // Seed paper, Fluidity-Atmosphere GPU port on an A100, Mountainwave3D mesh (103,635 nodes,
  // 554,394 tets): Table 3 (gathers), Table 4 (element kernels), Table 6 (assembly).
  const Published figures[] = {{"gather_ele_val_scalar", 0.0276},
                               {"gather_ele_val_vector", 0.0768},
                               {"gather_ele_val_tensor", 0.1976},
                               {"transform_to_physical", 3.964},
                               {"element_matrix_dshape_tensor_dshape", 1.969},
                               {"assemble_csr_matrix", 0.842},
                               {"rhs_addto", 0.116}};
  for (const Published& p : figures) {
    BenchCase c;
    c.name = std::string("diffusion_csr_staged_stage_") + p.stage;
    c.size = 554394;
    c.variant = "published_a100";
    c.ordering = "adaptive";
    c.time_ms = p.ms;
    c.repeats = 1000;
    c.throughput = 554394.0 / (p.ms * 1e-3);
    c.published = true;
    report.cases.push_back(c);
  }
}

}  // namespace foehn::bench
