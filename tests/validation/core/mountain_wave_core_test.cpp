// The mountain-wave core on small meshes: it keeps a uniform flow exactly uniform over flat
// ground, keeps the discrete divergence small, conserves tracer mass in a closed box, restarts
// bitwise from a checkpoint, carries tracer parcels with the flow, and rejects bad numerics.
// One source for every backend: each physics test runs on the CPU and, where a GPU exists, with
// the CUDA assembly and the solves on the host and on the GPU (core_placements).
#include <gtest/gtest.h>
#include <petscsys.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "foehn/petsc/communication_counts.hpp"
#include "io/case_fingerprint.hpp"
#include "io/checkpoint.hpp"
#include "mountain_wave_test_support.hpp"
#include "support/error_category.hpp"
#include "support/temp_dir.hpp"
#include "tracer_parcels.hpp"

namespace foehn::mountainwave {
namespace {

using testing::CorePlacement;
using testing::distributed_small_mesh;
using testing::numerics_on;
using testing::small_domain;

class CorePhysics : public ::testing::TestWithParam<CorePlacement> {
 protected:
  void SetUp() override {
    const std::string reason = testing::unavailable_reason(GetParam());
    if (!reason.empty()) GTEST_SKIP() << reason;
  }
  Numerics placement_numerics() const { return numerics_on(GetParam()); }
};

TEST_P(CorePhysics, UniformFlowOverFlatGroundStaysUniform) {
  MountainMeshOptions domain = small_domain();
  domain.mountain_height = 0;
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  const Numerics numerics = placement_numerics();
  MountainWaveModel model(mesh, domain, Physics{}, numerics);
  ModelState state = model.initial_state();
  for (int step = 0; step < 4; ++step) model.step(state);
  double worst = 0;
  for (std::size_t n = 0; n < mesh.local.node_count(); ++n) {
    worst = std::max(worst, std::abs(state.velocity[3 * n] - 10.0));
    worst = std::max({worst, std::abs(state.velocity[3 * n + 1]),
                      std::abs(state.velocity[3 * n + 2]), std::abs(state.theta[n])});
  }
  // A uniform flow is an exact steady solution; what remains is the Krylov tolerance (1e-10
  // relative to right-hand sides of order U / dt times the mesh volume).
  EXPECT_LE(worst, 1e-7) << "a uniform flow is an exact steady solution";
}

TEST_P(CorePhysics, DiscreteDivergenceStaysSmallOverTheMountain) {
  const MountainMeshOptions domain = small_domain();
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  const Numerics numerics = placement_numerics();
  MountainWaveModel model(mesh, domain, Physics{}, numerics);
  ModelState state = model.initial_state();
  StepReport report;
  for (int step = 0; step < 8; ++step) report = model.step(state);
  // The flow's own scale of velocity gradients is U / a = 1e-2 1/s.
  EXPECT_LT(report.max_divergence, 0.02 * 10.0 / 1000.0);
  EXPECT_GT(report.iterations_of(LinearSystem::pressure), 0);
}

// Picard iterations after the first start from the previous iteration's solutions: the same
// tolerances, so the state is the cold-started one to within them, and fewer Krylov iterations
// in all.
TEST_P(CorePhysics, WarmPicardStartsKeepTheStateAndSaveIterations) {
  const MountainMeshOptions domain = small_domain();
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  ModelState states[2];
  int iterations[2] = {0, 0};
  for (const bool warm : {false, true}) {
    Numerics numerics = placement_numerics();
    numerics.picard_warm_start = warm;
    MountainWaveModel model(mesh, domain, Physics{}, numerics);
    ModelState& state = states[warm ? 1 : 0];
    state = model.initial_state();
    for (int step = 0; step < 4; ++step) {
      const StepReport report = model.step(state);
      for (const int its : report.iterations) iterations[warm ? 1 : 0] += its;
    }
  }
  EXPECT_LT(iterations[1], iterations[0]);
  double largest = 0;
  for (const double u : states[0].velocity) largest = std::max(largest, std::abs(u));
  EXPECT_LE(testing::max_abs_difference(states[0].velocity, states[1].velocity), 1e-6 * largest);
  EXPECT_LE(testing::max_abs_difference(states[0].pressure, states[1].pressure),
            1e-6 * testing::max_abs_difference(states[0].pressure,
                                               std::vector<double>(states[0].pressure.size())));
}

// The Picard iterations before the last stop at -picard_early_rtol: fewer Krylov iterations,
// and a state that differs from the one solved tightly throughout by about that tolerance times
// the flow's own scales (U for the velocity, U^2 for the kinematic pressure, the background's
// change over the domain for theta'), with a margin of 10: the right-hand sides, to which the
// tolerance is relative, are of those sizes. (On the default case the difference after 10
// steps is 6e-6 to 4e-5 of each field's maximum, against 3e-3 to 9e-3 for a third Picard
// iteration: docs/mountain_wave.md.)
TEST_P(CorePhysics, EarlyPicardIterationsStopAtTheLooserTolerance) {
  const MountainMeshOptions domain = small_domain();
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  constexpr double early_rtol = 1e-6;
  ModelState states[2];
  int iterations[2] = {0, 0};
  for (const int loose : {0, 1}) {
    Numerics numerics = placement_numerics();
    numerics.picard_early_rtol = loose ? early_rtol : 0.0;
    MountainWaveModel model(mesh, domain, Physics{}, numerics);
    states[loose] = model.initial_state();
    for (int step = 0; step < 4; ++step) {
      const StepReport report = model.step(states[loose]);
      for (const int its : report.iterations) iterations[loose] += its;
    }
  }
  EXPECT_LT(iterations[1], iterations[0]);
  const auto worst = [](const std::vector<double>& a, const std::vector<double>& b) {
    double d = testing::max_abs_difference(a, b);
    MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
    return d;
  };
  const Physics physics;
  const double u = physics.inflow_speed;
  const double theta = physics.background_theta_gradient() * domain.height;
  EXPECT_GT(worst(states[1].pressure, states[0].pressure), 0.0) << "no solve stopped sooner";
  EXPECT_LE(worst(states[1].velocity, states[0].velocity), 10 * early_rtol * u);
  EXPECT_LE(worst(states[1].pressure, states[0].pressure), 10 * early_rtol * u * u);
  EXPECT_LE(worst(states[1].theta, states[0].theta), 10 * early_rtol * theta);
}

// qc and qr start at zero with zero inflow values and have no source: they are never assembled
// or solved and stay exactly zero. A tracer that is not zero on one rank only is solved on every
// rank (the solves are collective) and is carried by the flow.
TEST_P(CorePhysics, ZeroTracersAreNotSolvedAndStayZero) {
  const MountainMeshOptions domain = small_domain();
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  const Numerics numerics = placement_numerics();
  const auto times_of = [](const MountainWaveModel& model, LinearSystem system) {
    return model.system_times()[index_of(system)];
  };
  {
    MountainWaveModel model(mesh, domain, Physics{}, numerics);
    ModelState state = model.initial_state();
    for (int step = 0; step < 3; ++step) model.step(state);
    for (const LinearSystem system : {LinearSystem::qc, LinearSystem::qr}) {
      EXPECT_EQ(times_of(model, system).solves, 0);
      EXPECT_EQ(times_of(model, system).assemblies, 0);
    }
    EXPECT_GT(times_of(model, LinearSystem::qv).solves, 0);
    for (const std::vector<double>* q : {&state.tracers[1], &state.tracers[2]})
      for (const double v : *q) ASSERT_EQ(v, 0.0);
  }
  MountainWaveModel model(mesh, domain, Physics{}, numerics);
  ModelState state = model.initial_state();
  if (mesh.rank == 0)
    for (std::size_t n = 0; n < mesh.local.node_count(); ++n)
      state.tracers[1][n] = mesh.local.nodes[n][2] < 1500 ? 1e-3 : 0.0;
  model.step(state);
  EXPECT_GT(times_of(model, LinearSystem::qc).solves, 0);
  EXPECT_EQ(times_of(model, LinearSystem::qr).solves, 0);
}

// Every row of the system table is a solver with the row's prefix, in the table's order, and
// the systems that carry a non-zero field iterate (qc and qr start and stay at zero).
TEST_P(CorePhysics, EverySystemOfTheTableIsASolverWithItsPrefix) {
  const MountainMeshOptions domain = small_domain();
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  const Numerics numerics = placement_numerics();
  MountainWaveModel model(mesh, domain, Physics{}, numerics);
  const std::vector<std::string> solvers = model.solver_descriptions();
  ASSERT_EQ(solvers.size(), linear_system_count);
  for (std::size_t k = 0; k < linear_system_count; ++k)
    EXPECT_NE(solvers[k].find(linear_systems[k].prefix), std::string::npos) << solvers[k];
  ModelState state = model.initial_state();
  const StepReport report = model.step(state);
  for (const LinearSystem system : {LinearSystem::theta, LinearSystem::qv, LinearSystem::momentum,
                                    LinearSystem::pressure, LinearSystem::projection})
    EXPECT_GT(report.iterations[index_of(system)], 0) << linear_systems[index_of(system)].name;
  const std::string help = linear_systems_help();
  for (const LinearSystemRow& row : linear_systems)
    EXPECT_NE(help.find(std::string("-").append(row.prefix).append(" ")), std::string::npos)
        << help;
}

TEST_P(CorePhysics, ClosedBoxConservesTracerMass) {
  const MountainMeshOptions domain = small_domain();
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  Physics physics;
  physics.closed_box = true;
  physics.bubble_amplitude = 2.0;  // a warm bubble sets the fluid in motion
  const Numerics numerics = placement_numerics();
  MountainWaveModel model(mesh, domain, physics, numerics);
  ModelState state = model.initial_state();
  const double mass_before = model.integral(state.tracers[0]);
  StepReport report;
  for (int step = 0; step < 10; ++step) report = model.step(state);
  const double mass_after = model.integral(state.tracers[0]);
  double speed = 0;
  for (const double v : state.velocity) speed = std::max(speed, std::abs(v));
  MPI_Allreduce(MPI_IN_PLACE, &speed, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  EXPECT_GT(speed, 1e-3) << "the bubble should have set the fluid in motion";
  // The conservative form conserves the integral up to the Krylov tolerance of the tracer
  // solves (rtol 1e-8): 10 steps x 2 Picard iterations.
  EXPECT_LE(std::abs(mass_after - mass_before), 1e-7 * mass_before);
}

TEST_P(CorePhysics, RestartFromACheckpointIsBitwiseTheUninterruptedRun) {
  // Bitwise needs a pressure preconditioner whose result does not depend on the order in which
  // MPI messages arrive: BoomerAMG (hypre, Debian's PETSc). GAMG, the default without hypre
  // (the CUDA PETSc), is not: two identical runs of it on 4 ranks already differ in the last
  // bits. Without hypre, several ranks check the restart with block Jacobi on the pressure.
  // With the solves on the GPU the restart is not bitwise even on one rank (measured on an
  // H200, 27 Nov 2026): there it must reproduce the run to the solvers' tolerance.
  [[maybe_unused]] int ranks = 1;
  MPI_Comm_size(PETSC_COMM_WORLD, &ranks);
#if !defined(PETSC_HAVE_HYPRE)
  if (ranks > 2) PetscOptionsSetValue(nullptr, "-pressure_pc_type", "bjacobi");
#endif
  const MountainMeshOptions domain = small_domain();
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  const Physics physics;
  const std::string fingerprint = CaseFingerprint().add("test", "restart").str();
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  const foehn::testing::TempDir folder;
  // Without and with a history (the extrapolated velocity and the previous pressure increment,
  // one Picard iteration), which the checkpoint keeps as extra node fields.
  for (const bool history : {false, true}) {
    SCOPED_TRACE(history ? "with history" : "without history");
    Numerics numerics = placement_numerics();
    numerics.stabilisation_interval = 2;  // the restart falls between two stabilisation updates
    numerics.picard_extrapolate = numerics.pressure_guess_previous = history;
    if (history) numerics.picard_iterations = 1;
    ModelState uninterrupted;
    {
      MountainWaveModel model(mesh, domain, physics, numerics);
      uninterrupted = model.initial_state();
      for (int step = 0; step < 5; ++step) model.step(uninterrupted);
    }
    std::string path = (folder.path() / "checkpoint.h5").string();
    {
      MountainWaveModel model(mesh, domain, physics, numerics);
      ModelState first_part = model.initial_state();
      for (int step = 0; step < 3; ++step) model.step(first_part);
      const std::vector<MeshField> kept = model.history();
      EXPECT_EQ(kept.size(), history ? 2u : 0u);
      // Every rank writes to rank 0's folder.
      MPI_Bcast(path.data(), static_cast<int>(path.size()), MPI_CHAR, 0, PETSC_COMM_WORLD);
      write_checkpoint(mesh, first_part, path, CheckpointMetadata{fingerprint}, kept);
    }
    MountainWaveModel restarted_model(mesh, domain, physics, numerics);  // fresh solvers
    std::vector<MeshField> kept;
    ModelState restarted = read_checkpoint(mesh, path, CheckpointMetadata{fingerprint}, &kept);
    restarted_model.set_state(restarted);
    restarted_model.set_history(kept);
    for (int step = 0; step < 2; ++step) restarted_model.step(restarted);

    EXPECT_EQ(restarted.step, uninterrupted.step);
    EXPECT_EQ(restarted.time, uninterrupted.time);
    if (GetParam().solves == SolvePlacement::device) {
      // Largest difference relative to the field's largest value, over the ranks.
      const auto relative = [](const std::vector<double>& a, const std::vector<double>& b) {
        double scale[2] = {0, testing::max_abs_difference(a, b)};
        for (const double v : b) scale[0] = std::max(scale[0], std::abs(v));
        MPI_Allreduce(MPI_IN_PLACE, scale, 2, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
        return scale[1] / std::max(scale[0], 1e-300);
      };
      const double u = relative(restarted.velocity, uninterrupted.velocity);
      const double p = relative(restarted.pressure, uninterrupted.pressure);
      const double theta = relative(restarted.theta, uninterrupted.theta);
      const double qv = relative(restarted.tracers[0], uninterrupted.tracers[0]);
      if (rank == 0)
        std::printf(
            "restart with the solves on the GPU, relative differences: u %.3e, p %.3e, "
            "theta' %.3e, qv %.3e\n",
            u, p, theta, qv);
      // The transport and momentum solves stop at rtol 1e-8.
      for (const double difference : {u, p, theta, qv}) EXPECT_LT(difference, 1e-7);
      continue;
    }
    EXPECT_EQ(restarted.velocity, uninterrupted.velocity);
    EXPECT_EQ(restarted.pressure, uninterrupted.pressure);
    EXPECT_EQ(restarted.theta, uninterrupted.theta);
    EXPECT_EQ(restarted.tracers, uninterrupted.tracers);
  }
  PetscOptionsClearValue(nullptr, "-pressure_pc_type");
}

// A history of the wrong size on one rank fails every rank; names it does not know are ignored.
TEST(MountainWaveCore, HistoryOfTheWrongSizeIsRefusedEverywhere) {
  const MountainMeshOptions domain = small_domain(4);
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  Numerics numerics;
  numerics.picard_extrapolate = true;
  MountainWaveModel model(mesh, domain, Physics{}, numerics);
  model.set_state(model.initial_state());
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  const std::size_t nodes = mesh.local.node_count();
  std::vector<MeshField> fields{{"previous_velocity", 3, std::vector<double>(3 * nodes)},
                                {"something_else", 1, {}}};
  if (rank == 0) fields[0].values.pop_back();
  EXPECT_EQ(foehn::testing::category_of([&] { model.set_history(fields); }),
            ErrorCategory::invalid_input);
  fields[0].values.resize(3 * nodes);
  EXPECT_NO_THROW(model.set_history(fields));
  EXPECT_EQ(model.history().size(), 1u);
}

// Tracer parcels ride the core's P1 velocity: in a uniform flow over flat ground they move by
// exactly U t (the flow stays uniform to the solver tolerance, and P1 holds it exactly); parcels
// started next to the outflow leave and are counted; a start outside the mesh is rejected on
// every rank.
TEST_P(CorePhysics, TracerParcelsRideTheFlow) {
  MountainMeshOptions domain = small_domain();
  domain.mountain_height = 0;
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  TetMesh whole;  // rank 0
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD, &whole);
  const Numerics numerics = placement_numerics();
  MountainWaveModel model(mesh, domain, Physics{}, numerics);
  ModelState state = model.initial_state();
  TracerSeeding upstream;
  upstream.columns = 3;
  upstream.levels = 4;
  TracerSeeding at_outflow = upstream;
  at_outflow.x_start = 0.5 * domain.length_x - 500.0;
  TracerParcels moving(mesh, rank == 0 ? &whole : nullptr, upstream, state);
  TracerParcels leaving(mesh, rank == 0 ? &whole : nullptr, at_outflow, state);
  for (int step = 0; step < 4; ++step) {
    model.step(state);
    moving.follow(state);
    leaving.follow(state);
  }
  if (rank == 0) {
    const particles::MeshParcels& p = moving.parcels();
    ASSERT_EQ(p.size(), 12u);
    for (std::size_t i = 0; i < p.size(); ++i) {
      EXPECT_NEAR(p.x[i], upstream.x_start + 10.0 * state.time, 1e-4) << "parcel " << p.id[i];
      EXPECT_EQ(p.time[i], state.time);
      EXPECT_EQ(p.status[i], particles::MeshParcelStatus::inside);
    }
    EXPECT_EQ(moving.left_domain(), 0u);
    EXPECT_EQ(leaving.left_domain(), 12u);
  }
  TracerSeeding too_high = upstream;
  too_high.z_top = 1e6;
  EXPECT_EQ(foehn::testing::category_of(
                [&] { TracerParcels(mesh, rank == 0 ? &whole : nullptr, too_high, state); }),
            ErrorCategory::invalid_input);
}

// The projection's three components in one BlockChebyshev solve give the state the three
// column-by-column solves give, with the same fixed Chebyshev iteration (the GPU's default;
// chosen here by options, so that every placement runs it), and on several ranks exchange less.
TEST_P(CorePhysics, ProjectionComponentsSolvedTogetherAsOneByOne) {
  const MountainMeshOptions domain = small_domain();
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  const Numerics numerics = placement_numerics();
  const std::vector<std::pair<const char*, const char*>> chebyshev = {
      {"-projection_ksp_type", "chebyshev"},
      {"-projection_ksp_chebyshev_eigenvalues", "0.5,2.5"},
      {"-projection_ksp_norm_type", "none"},
      {"-projection_ksp_max_it", "25"},
      {"-projection_pc_type", "jacobi"}};
  const auto run = [&](bool together, petsc::SystemTimes& projection) {
    for (const auto& [name, value] : chebyshev) PetscOptionsSetValue(nullptr, name, value);
    PetscOptionsSetValue(nullptr, "-projection_foehn_block_solve", together ? "true" : "false");
    MountainWaveModel model(mesh, domain, Physics{}, numerics);
    for (const auto& [name, value] : chebyshev) PetscOptionsClearValue(nullptr, name);
    PetscOptionsClearValue(nullptr, "-projection_foehn_block_solve");
    ModelState state = model.initial_state();
    // The first step sets the block solver up (its products' symbolic phase, the diagonal's
    // check): counted from the second on, as a run's timed steps are.
    model.step(state);
    model.reset_system_times();
    for (int step = 1; step < 3; ++step) model.step(state);
    projection = model.system_times()[index_of(LinearSystem::projection)];
    return state;
  };
  petsc::SystemTimes together_times, one_by_one_times;
  const ModelState together = run(true, together_times);
  const ModelState one_by_one = run(false, one_by_one_times);
  const auto largest = [](const std::vector<double>& v) {
    return testing::max_abs_difference(v, std::vector<double>(v.size(), 0.0));
  };
  EXPECT_LE(testing::max_abs_difference(together.velocity, one_by_one.velocity),
            1e-12 * largest(one_by_one.velocity));
  EXPECT_LE(testing::max_abs_difference(together.pressure, one_by_one.pressure),
            1e-10 * largest(one_by_one.pressure));
  // The same iterations (2 steps of 2 Picard iterations, 16 in the early one and 25 in the
  // last): counted once for the block, once per component one by one.
  EXPECT_EQ(3 * together_times.iterations, one_by_one_times.iterations);
  EXPECT_EQ(together_times.communication.reductions, 0);
  int ranks = 1;
  MPI_Comm_size(mesh.comm, &ranks);
  if (ranks > 1 && petsc::communication_counts_available()) {
    EXPECT_GT(together_times.communication.halo_exchanges, 0);
    EXPECT_LT(2 * together_times.communication.halo_exchanges,
              one_by_one_times.communication.halo_exchanges);
  } else {
    EXPECT_EQ(together_times.communication.halo_exchanges, 0);
  }
}

// The lumped projection (du = -dt M_L^-1 G dp) solves nothing: no iteration, no halo exchange
// and no reduction of the projection's, and the discrete divergence stays as small as the
// consistent projection keeps it on the same case. Over flat ground the uniform flow is still
// exact (G dp = 0 whatever the mass).
TEST_P(CorePhysics, LumpedProjectionSolvesNothingAndKeepsTheDivergenceSmall) {
  const MountainMeshOptions domain = small_domain();
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  StepReport reports[2];
  ModelState states[2];
  petsc::SystemTimes projection[2];
  for (const int lumped : {0, 1}) {
    Numerics numerics = placement_numerics();
    numerics.projection_mass = lumped ? ProjectionMass::lumped : ProjectionMass::consistent;
    MountainWaveModel model(mesh, domain, Physics{}, numerics);
    states[lumped] = model.initial_state();
    // The first step assembles the mass matrix (which the lumped projection still reads for
    // its row sums): counted from the second on.
    reports[lumped] = model.step(states[lumped]);
    model.reset_system_times();
    for (int step = 1; step < 8; ++step) reports[lumped] = model.step(states[lumped]);
    projection[lumped] = model.system_times()[index_of(LinearSystem::projection)];
  }
  EXPECT_EQ(reports[1].iterations_of(LinearSystem::projection), 0);
  EXPECT_EQ(projection[1].iterations, 0);
  EXPECT_EQ(projection[1].communication.halo_exchanges, 0);
  EXPECT_EQ(projection[1].communication.reductions, 0);
  EXPECT_GT(reports[0].iterations_of(LinearSystem::projection), 0);
  EXPECT_LT(reports[1].max_divergence, 0.02 * 10.0 / 1000.0);
  EXPECT_LT(reports[1].max_divergence, 2 * reports[0].max_divergence);
  // A different discretisation of the same flow: close, not equal.
  double largest = 0;
  for (const double u : states[0].velocity) largest = std::max(largest, std::abs(u));
  const double difference = testing::max_abs_difference(states[0].velocity, states[1].velocity);
  EXPECT_GT(difference, 0.0);
  EXPECT_LT(difference, 0.05 * largest);

  MountainMeshOptions flat = small_domain();
  flat.mountain_height = 0;
  const auto flat_mesh = distributed_small_mesh(flat, PETSC_COMM_WORLD);
  Numerics numerics = placement_numerics();
  numerics.projection_mass = ProjectionMass::lumped;
  MountainWaveModel model(flat_mesh, flat, Physics{}, numerics);
  ModelState state = model.initial_state();
  for (int step = 0; step < 4; ++step) model.step(state);
  double worst = 0;
  for (std::size_t n = 0; n < flat_mesh.local.node_count(); ++n)
    worst = std::max({worst, std::abs(state.velocity[3 * n] - 10.0),
                      std::abs(state.velocity[3 * n + 2]), std::abs(state.theta[n])});
  EXPECT_LE(worst, 1e-7);
}

// The GPU's solver defaults on the host: the GPU's algorithms (GAMG-CG for the pressure, a fixed
// Chebyshev projection, Jacobi-GMRES for transport), so its iteration counts where no GPU is,
// and a state within the solvers' tolerances of the host defaults' one.
TEST_P(CorePhysics, DeviceSolverDefaultsRunTheGpuAlgorithmsAnywhere) {
  const MountainMeshOptions domain = small_domain();
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  ModelState states[2];
  StepReport reports[2];
  std::vector<std::string> descriptions[2];
  for (const int device : {0, 1}) {
    Numerics numerics = placement_numerics();
    numerics.solver_defaults = device ? SolverDefaults::device : SolverDefaults::host;
    MountainWaveModel model(mesh, domain, Physics{}, numerics);
    descriptions[device] = model.solver_descriptions();
    states[device] = model.initial_state();
    for (int step = 0; step < 3; ++step) reports[device] = model.step(states[device]);
  }
  const auto described = [&](int device, LinearSystem id, const char* text) {
    return descriptions[device][index_of(id)].find(text) != std::string::npos;
  };
  EXPECT_TRUE(described(1, LinearSystem::projection, "chebyshev"))
      << descriptions[1][index_of(LinearSystem::projection)];
  EXPECT_TRUE(described(1, LinearSystem::theta, "gmres + jacobi"))
      << descriptions[1][index_of(LinearSystem::theta)];
  EXPECT_TRUE(described(1, LinearSystem::pressure, "gamg"));
  EXPECT_TRUE(described(0, LinearSystem::projection, "cg"));
  EXPECT_TRUE(described(0, LinearSystem::theta, "bjacobi"));
  // 16 fixed Chebyshev iterations in the early Picard iteration and 20 in the last, counted
  // once for the three components solved together or three times one by one.
  const int projection = reports[1].iterations_of(LinearSystem::projection);
  EXPECT_TRUE(projection == 16 + 20 || projection == 3 * (16 + 20)) << projection;
  double largest = 0;
  for (const double u : states[0].velocity) largest = std::max(largest, std::abs(u));
  EXPECT_LE(testing::max_abs_difference(states[0].velocity, states[1].velocity), 1e-5 * largest);
}

// -pressure_guess_previous: the first Picard iteration's pressure solve starts from the
// previous step's increment. Steps on the resident state (set_state drops the history): fewer
// pressure iterations, the same state to within the solves' tolerances.
TEST_P(CorePhysics, PressureGuessFromThePreviousStepSavesIterations) {
  const MountainMeshOptions domain = small_domain();
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  ModelState states[2];
  int pressure_iterations[2] = {0, 0};
  for (const int previous : {0, 1}) {
    Numerics numerics = placement_numerics();
    numerics.pressure_guess_previous = previous != 0;
    MountainWaveModel model(mesh, domain, Physics{}, numerics);
    model.set_state(model.initial_state());
    // Once the flow has settled (the start is impulsive): its increments then change slowly.
    for (int step = 0; step < 40; ++step) {
      StepReport report = model.step();
      if (step >= 20) pressure_iterations[previous] += report.iterations_of(LinearSystem::pressure);
    }
    states[previous] = model.state();
  }
  EXPECT_LT(pressure_iterations[1], pressure_iterations[0]);
  double largest = 0;
  for (const double u : states[0].velocity) largest = std::max(largest, std::abs(u));
  EXPECT_LE(testing::max_abs_difference(states[0].velocity, states[1].velocity), 1e-6 * largest);
}

INSTANTIATE_TEST_SUITE_P(Placements, CorePhysics, ::testing::ValuesIn(testing::core_placements),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(MountainWaveCore, BadNumericsAndMeshesAreRejected) {
  const MountainMeshOptions domain = small_domain(4);
  const auto mesh = distributed_small_mesh(domain, PETSC_COMM_WORLD);
  using foehn::testing::category_of;
  Numerics numerics;
  numerics.dt = -1;
  EXPECT_EQ(category_of([&] { MountainWaveModel(mesh, domain, Physics{}, numerics); }),
            ErrorCategory::invalid_input);
  numerics = Numerics{};
  numerics.theta = 0.2;
  EXPECT_EQ(category_of([&] { MountainWaveModel(mesh, domain, Physics{}, numerics); }),
            ErrorCategory::invalid_input);
  numerics = Numerics{};
  numerics.picard_iterations = 0;
  EXPECT_EQ(category_of([&] { MountainWaveModel(mesh, domain, Physics{}, numerics); }),
            ErrorCategory::invalid_input);
  TetMesh untagged = generate_mountain_mesh(domain);
  untagged.boundary_tags.clear();
  EXPECT_EQ(category_of([&] { mark_boundary_kinds(untagged); }), ErrorCategory::invalid_input);
}

}  // namespace
}  // namespace foehn::mountainwave
