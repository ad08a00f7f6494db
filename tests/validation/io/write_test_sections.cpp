// write_test_sections OUT.h5: the small mountain mesh, a state whose fields are linear in space
// (so their samples are known exactly), written by SectionSampler::write_state_sections; run
// by check_sections_file.py, which reads the file with validation/linear_theory/sections_io.py
// and compare_to_linear_theory.py. Runs on any number of ranks.
#include <petscsys.h>

#include <cstdio>
#include <exception>

#include "foehn/mesh/mountain.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/runtime/error.hpp"
#include "io/section_sampler.hpp"

namespace {

using foehn::mountainwave::evenly_spaced;

// The fields check_sections_file.py expects (keep the two in step).
double u_of(const foehn::Point3& p) {
  return 10.0 + 1e-4 * p[0] - 2e-4 * p[2];
}
double v_of(const foehn::Point3& p) {
  return 3e-5 * p[1];
}
double w_of(const foehn::Point3& p) {
  return 0.5 + 1e-5 * p[0] + 2e-5 * p[1] - 3e-5 * p[2];
}
double theta_of(const foehn::Point3& p) {
  return -1e-4 * p[2] + 2.0;
}
double p_of(const foehn::Point3& p) {
  return 1e-3 * (p[0] + p[1] + p[2]);
}

int run(const char* path) {
  foehn::MountainMeshOptions options;
  options.cells_x = 6;
  options.cells_y = 6;
  options.cells_z = 4;
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  const foehn::TetMesh whole = foehn::generate_mountain_mesh(options);
  const foehn::petsc::DistributedMesh mesh =
      foehn::petsc::distribute_mesh(PETSC_COMM_WORLD, rank == 0 ? &whole : nullptr);

  foehn::mountainwave::SectionGrid grid;
  grid.x = grid.y = grid.section_x = evenly_spaced(-30000.0, 30000.0, 1000.0);
  grid.section_z = evenly_spaced(0.0, 16000.0, 500.0);
  const foehn::mountainwave::SectionSampler sampler(mesh, grid);

  foehn::mountainwave::ModelState state;
  state.resize(static_cast<std::size_t>(mesh.local_nodes()));
  state.time = 3600.0;
  for (std::size_t i = 0; i < mesh.local.nodes.size(); ++i) {
    const foehn::Point3& p = mesh.local.nodes[i];
    state.velocity[3 * i] = u_of(p);
    state.velocity[3 * i + 1] = v_of(p);
    state.velocity[3 * i + 2] = w_of(p);
    state.theta[i] = theta_of(p);
    state.pressure[i] = p_of(p);
  }
  sampler.write_state_sections(path, state, foehn::mountainwave::MountainWaveCase{});
  if (rank == 0)
    std::printf("%lld of %zu points found\n", static_cast<long long>(sampler.points_found()),
                sampler.point_count());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_test_sections OUT.h5\n");
    return 2;
  }
  const char* path = argv[1];
  int ignored_argc = 1;
  if (PetscInitialize(&ignored_argc, &argv, nullptr, nullptr) != 0) return 1;
  int code = 0;
  try {
    code = run(path);
  } catch (const foehn::Error& error) {
    std::fprintf(stderr, "write_test_sections: %s\n", error.what());
    code = foehn::exit_code_for(error);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "write_test_sections: %s\n", error.what());
    code = 1;
  }
  if (PetscFinalize() != 0 && code == 0) code = 1;
  return code;
}
