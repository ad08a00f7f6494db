// foehn-coriolis: assembles the user-defined CoriolisOperator (coriolis_operator.hpp) on a
// mountain mesh with the CPU backend and, where a GPU exists, with every CUDA strategy, and
// prints how far the GPU matrices are from the CPU one and the skew-symmetry of the term
// (u · C u = 0: the Coriolis force does no work).
//   foehn-coriolis [cells]      (default 8: an 8 x 8 x 6-cell mountain mesh)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>

#include "coriolis_operator.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"

namespace {

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double difference = 0.0, norm = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    difference += (a[k] - b[k]) * (a[k] - b[k]);
    norm += b[k] * b[k];
  }
  return std::sqrt(difference / norm);
}

int run(int cells) {
  using namespace foehn;
  MountainMeshOptions options;
  options.cells_x = options.cells_y = cells;
  options.cells_z = cells > 2 ? cells - 2 : 1;
  const TetMesh mesh = generate_mountain_mesh(options);
  foehn_examples::CoriolisOperator coriolis;  // Earth's rotation about z

  fe::CpuAssembler cpu(mesh);
  fe::BlockCsrMatrix reference = cpu.create_matrix<foehn_examples::CoriolisOperator>();
  cpu.assemble(coriolis, reference);

  // u · C u for a random velocity: zero up to round-off for a skew-symmetric matrix.
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> value(-10.0, 10.0);
  std::vector<double> u(mesh.node_count() * 3), cu(u.size(), 0.0);
  for (double& x : u) x = value(random);
  const fe::CsrPattern& p = *reference.pattern;
  double work = 0.0, scale = 0.0;
  for (std::int32_t row = 0; row + 1 < static_cast<std::int32_t>(p.row_offsets.size()); ++row)
    for (std::int32_t s = p.row_offsets[row]; s < p.row_offsets[row + 1]; ++s)
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) {
          const double term =
              u[row * 3 + a] * reference.values[s * 9 + a * 3 + c] * u[p.column_indices[s] * 3 + c];
          work += term;
          scale += std::abs(term);
        }
  std::printf("coriolis: %zu tets, %zu block nonzeros; |u.Cu| / sum|terms| = %.2e\n",
              mesh.tet_count(), p.column_indices.size(), std::abs(work) / scale);

  if (cuda_device_count() == 0) {
    std::printf("coriolis: no GPU here, CPU backend only\n");
    return 0;
  }
  Stream stream;
  fe::CudaAssembler gpu(mesh, stream);
  for (fe::AssemblyStrategy strategy : fe::all_assembly_strategies) {
    fe::DeviceBlockCsrMatrix matrix = gpu.create_matrix<foehn_examples::CoriolisOperator>();
    gpu.assemble(coriolis, matrix, nullptr, strategy);
    const fe::BlockCsrMatrix got = gpu.download(matrix, cpu.pattern());
    std::printf("coriolis: %-13s GPU vs CPU relative difference %.2e%s\n",
                std::string(fe::to_string(strategy)).c_str(),
                relative_difference(got.values, reference.values),
                got.values == reference.values ? " (bitwise equal)" : "");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const int cells = argc > 1 ? std::atoi(argv[1]) : 8;
    if (cells < 1 || cells > 200) {
      std::fprintf(stderr, "foehn-coriolis: cells must be in [1, 200], got '%s'\n", argv[1]);
      return 2;
    }
    return run(cells);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "foehn-coriolis: %s\n", error.what());
    return 1;
  }
}
