// foehn-poisson: -div(K grad u) = f with a manufactured solution on the Mountainwave3D domain,
// through the whole path a model uses (METIS distribution, assembly on the CPU or GPU of each
// rank, hand-off to PETSc, Dirichlet elimination, KSP with the "poisson_" prefix), on a
// sequence of refined meshes, printing the L2 error and its observed order.
//
//   mpiexec -n 4 foehn-poisson -cells 8 -levels 3 -foehn_backend cuda -poisson_pc_type hypre
//   foehn-poisson -cells 16 -levels 1 -output out/poisson.pvtu

#include <petscsys.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "foehn/mesh/mountain.hpp"
#include "foehn/petsc/assembler_options.hpp"
#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/option_table.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/petsc/pvtu.hpp"
#include "foehn/runtime/backend.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "manufactured_poisson.hpp"
#include "petsc_application.hpp"

namespace foehn::examples {
namespace {

struct Options {
  int cells = 8, levels = 3;
  std::string output;
};

Options read_options() {
  Options o;
  petsc::OptionTable table(PETSC_COMM_WORLD, "foehn-poisson: manufactured Poisson problem");
  table
      .integer("-cells", "Horizontal cells of the coarsest mesh (vertical: 3/4 of it)", &o.cells,
               {2, 4096})
      .integer("-levels", "Meshes, each with twice the cells per direction", &o.levels, {1, 6})
      .output_file("-output", "Write the finest solution and error", &o.output, {".pvtu"});
  table.read();
  return o;
}

void run() {
  const Options o = read_options();
  // -foehn_backend (default auto) and -foehn_assembly (default auto: deterministic), unprefixed as
  // in every Foehn program; a wrong value is bad input naming the option and the accepted values.
  fe::AssemblerOptions assembly = petsc::assembler_options_from_database(
      PETSC_COMM_WORLD, "", {.backend = "auto", .strategy = fe::default_assembly_strategy});
  const auto handoff = petsc::matrix_handoff_options_from_database(PETSC_COMM_WORLD, "poisson_");
  std::string solver_description;
  {
    // Constructed here so that -help lists the solver's options; a KSP cannot change size, so
    // every level below gets its own (same prefix, same options).
    const petsc::LinearSolver listing(PETSC_COMM_WORLD, "poisson_", petsc::SolverKind::pressure);
    if (app::help_requested()) return;
  }
  int rank = 0, ranks = 1;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &ranks);
  // Resolved once, here, so that auto's notice is printed once and the rank's GPU is chosen
  // before any assembler is made; every level's assembler is then given the resolved name.
  const Backend backend = select_backend(assembly.backend, rank == 0 ? &std::cerr : nullptr);
  assembly.backend = std::string(to_string(backend));
  if (backend == Backend::cuda) petsc::select_device_for_rank(PETSC_COMM_WORLD);

  if (rank == 0)
    std::printf("%6s %10s %10s %12s %6s %6s %10s %10s\n", "level", "tets", "nodes", "L2 error",
                "order", "its", "assemble", "solve");
  double previous_error = 0, previous_h = 0;
  for (int level = 0; level < o.levels; ++level) {
    MountainMeshOptions mesh_options;
    mesh_options.cells_x = mesh_options.cells_y = static_cast<int>(o.cells) << level;
    mesh_options.cells_z = std::max(2, static_cast<int>(3 * (o.cells << level) / 4));
    TetMesh whole;
    if (rank == 0) {
      whole = generate_mountain_mesh(mesh_options);
      mark_boundary_nodes(whole);
    }
    const petsc::DistributedMesh mesh = [&] {
      const petsc::ScopedLogEvent event(petsc::LogEvent::distribute);
      return petsc::distribute_mesh(PETSC_COMM_WORLD, rank == 0 ? &whole : nullptr);
    }();
    const auto solution = ManufacturedSolution::for_box(mesh_options.length_x,
                                                        mesh_options.length_y, mesh_options.height);
    PoissonProblem problem(mesh, solution, assembly, handoff);
    petsc::LinearSolver solver(PETSC_COMM_WORLD, "poisson_", petsc::SolverKind::pressure);
    Stopwatch assemble_clock;
    problem.assemble();
    const double assemble_seconds = assemble_clock.seconds();
    const petsc::SolveResult result = problem.solve(solver);
    const double error = problem.l2_error() / problem.l2_norm_of_exact();
    const double h = 1.0 / static_cast<double>(o.cells << level);
    const double order =
        level == 0 ? 0.0 : std::log(previous_error / error) / std::log(previous_h / h);
    if (rank == 0)
      std::printf("%6d %10lld %10lld %12.4e %6.2f %6d %9.3fs %9.3fs\n", level,
                  static_cast<long long>(mesh.global_tets),
                  static_cast<long long>(mesh.global_nodes), error, order, result.iterations,
                  assemble_seconds, result.solve_seconds);
    solver_description = solver.description();
    previous_error = error;
    previous_h = h;
    if (level + 1 == o.levels && !o.output.empty()) {
      const std::vector<double> u = problem.local_solution();
      std::vector<double> difference(u.size());
      for (std::size_t n = 0; n < u.size(); ++n)
        difference[n] = u[n] - solution.value(mesh.local.nodes[n]);
      const MeshField fields[] = {{"u", 1, u}, {"error", 1, difference}};
      const petsc::ScopedLogEvent event(petsc::LogEvent::output);
      petsc::write_pvtu(mesh, o.output, fields);
      if (rank == 0) std::printf("wrote %s\n", o.output.c_str());
    }
  }
  if (rank == 0) {
    std::string backend_text(to_string(backend));  // "cpu", "cuda, fused_atomic strategy"
    if (backend == Backend::cuda)
      backend_text += ", " + std::string(fe::to_string(assembly.strategy)) + " strategy";
    std::printf("assembly: %s\nsolver: %s\n", backend_text.c_str(), solver_description.c_str());
  }
}

}  // namespace
}  // namespace foehn::examples

int main(int argc, char** argv) {
  return foehn::app::run_petsc_application(
      argc, argv,
      {"foehn-poisson",
       "foehn-poisson: manufactured-solution Poisson problem on the mountain domain, solved "
       "through Foehn and PETSc on a sequence of meshes.\n"
       "  [-cells 8] [-levels 3] [-foehn_backend cpu|cuda|auto] [-foehn_assembly strategy]\n"
       "  [-output out/poisson.pvtu] [-poisson_ksp_type ...] [-poisson_pc_type ...]\n"},
      [] { foehn::examples::run(); });
}
