#pragma once
// The non-hydrostatic Boussinesq core of the Mountainwave3D case on a distributed tetrahedral
// mesh: P1 velocity, pressure, potential-temperature perturbation theta' and three moisture
// tracers. Each timestep runs Picard iterations; each iteration assembles with Foehn and solves
// with PETSc (one LinearSolver per system, with its own options prefix):
//
//   1. theta', qv, qc, qr   (M/dt + th (A(u*) + kappa K)) q^{n+1} = (M/dt - (1-th)(A + kappa K))
//   q^n
//                           + sources; theta' is forced by -w dtheta_bar/dz; Rayleigh damping
//                           implicit; prefixes theta_, qv_, qc_, qr_ (advection-diffusion kind)
//   2. momentum predictor   (M/dt + A(u*) + nu S) u' = M u^n/dt - G p^n + b(theta') + damping
//                           (3x3 blocks; prefix momentum_)
//   3. pressure increment   (K + c P / h^2) dp = -(1/dt) D u' - (c / h^2) P p^n,  dp = 0 at the
//                           outflow (prefix pressure_): K the Laplacian ("pressure correction
//                           matrix"), P the metric pressure-diffusion stabilisation from element
//                           edge lengths (assembled every stabilisation_interval steps)
//   4. projection           M du = -dt G dp per component (prefix projection_), u = u' + du,
//                           p = p^n + dp, boundary values restored; -projection_mass lumped
//                           takes M's row sums (du = -dt M_L^-1 G dp, no solve)
//
// where u* is the latest velocity iterate (u^n in the first iteration), M the mass ("projection")
// matrix, D the divergence matrix (D u)_i = int N_i div u, G the gradient (G p)_(i,a) =
// int N_i dp/dx_a (D's values read as 3 x 1 blocks), S the viscous stress operator. Steady
// states do not depend on the time scheme, which is what the validation against linear theory
// measures.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "case.hpp"
#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/linear_solver.hpp"
#include "foehn/petsc/system.hpp"
#include "linear_systems.hpp"
#include "model_state.hpp"

namespace foehn::mountainwave {

// Seconds of one timestep by row of the timing table (io/timing_table.hpp: the published
// Table 10's rows and ours); a matrix row is its assembly and hand-off.
struct StepTimes {
  std::array<double, timed_phase_count> phases{};
  double total = 0;
  // The matrix rows split: the assemblies themselves, and edits + hand-off to PETSc.
  double assembly = 0, handoff = 0;

  double& operator[](TimedPhase phase) { return phases[static_cast<std::size_t>(phase)]; }
  double operator[](TimedPhase phase) const { return phases[static_cast<std::size_t>(phase)]; }
  // The matrix row of a system (its matrix_phase in linear_systems).
  double& matrix_of(LinearSystem system) {
    return (*this)[linear_systems[index_of(system)].matrix_phase];
  }
  double other() const {
    double timed = 0;
    for (const double seconds : phases) timed += seconds;
    return total - timed;
  }
};

struct StepReport {
  double cfl = 0;  // max |u| dt / (shortest edge) over the tets
  int picard_iterations = 0;
  // Krylov iterations of the step per row of linear_systems (summed over its Picard iterations;
  // the projection's also over the three components).
  std::array<int, linear_system_count> iterations{};
  int& iterations_of(LinearSystem system) { return iterations[index_of(system)]; }
  double max_divergence = 0;  // max |(D u)_i| / (lumped mass_i) over interior nodes, 1/s
  StepTimes times;
};

// Where the model's PETSc solves run for `numerics` on the ranks of `comm` (-foehn_solves:
// automatic keeps them on the GPU only when every rank has a GPU of its own). Collective;
// throws invalid_input/unavailable for device solves this build or backend cannot give.
bool device_solves_for(const Numerics& numerics, MPI_Comm comm);

class MountainWaveModel {
 public:
  // `mesh` must carry the boundary_kind node field and outlive the model. `domain` gives the
  // terrain (the w condition) and the absorbing layers. Collective.
  MountainWaveModel(const petsc::DistributedMesh& mesh, const MountainMeshOptions& domain,
                    const Physics& physics, const Numerics& numerics);
  ~MountainWaveModel();
  MountainWaveModel(const MountainWaveModel&) = delete;
  MountainWaveModel& operator=(const MountainWaveModel&) = delete;

  // The initial state: uniform inflow (rest in the closed box), theta' = 0 plus the optional
  // warm bubble, p = 0, qv = qv(z), qc = qr = 0, boundary values applied.
  ModelState initial_state() const;

  // The model advances a state it holds itself, in the memory of its solves (on the GPU when
  // device_solves()): set it once, step, and read it back when output needs it. Another state
  // than the model's own (as state() or step(state) hand it out) drops the history (below).
  // Collective.
  void set_state(const ModelState& state);
  // Advances the held state by one timestep. Collective.
  StepReport step();
  // The held state in host memory, brought up to date (copied from the GPU) when it is older.
  const ModelState& state();
  // The same for code that keeps its own ModelState: set_state, step, copy back. Collective.
  StepReport step(ModelState& state);

  // What the next step takes from the steps before besides the state, as node fields on the
  // local nodes (for a checkpoint's extra fields, so that a restart continues bitwise):
  // "previous_velocity" (u^{n-1}, 3 components) with -picard_extrapolate and
  // "pressure_increment" (dp^n) with -pressure_guess_previous, each once a step has made it.
  // Empty with both options off. Collective.
  std::vector<MeshField> history();
  // After set_state: the history a checkpoint kept (fields of other names are ignored, as are
  // fields of options that are off). Without it the next step starts as a run's first does
  // (u* = u^n, dp from zero). Collective; throws invalid_input on every rank when a field's size
  // is not its components times the local nodes on any rank.
  void set_history(const std::vector<MeshField>& fields);

  // Simulated time and completed steps of the held state (no copy needed).
  double time() const noexcept { return held_.time; }
  std::int64_t completed_steps() const noexcept { return held_.step; }

  // True when PETSc's matrices, vectors and solves, and the fields, are on the GPU.
  bool device_solves() const noexcept;

  const Physics& physics() const noexcept { return physics_; }
  const Numerics& numerics() const noexcept { return numerics_; }
  const MountainMeshOptions& domain() const noexcept { return domain_; }
  const petsc::DistributedMesh& mesh() const noexcept { return mesh_; }
  // Solver descriptions, one line each, for the run log.
  std::vector<std::string> solver_descriptions() const;
  // Each system's times, assemblies, solves and Krylov iterations (petsc::System's own counts)
  // since the last reset_system_times(), in linear_systems order.
  std::vector<petsc::SystemTimes> system_times() const;
  void reset_system_times();
  // Integral of a scalar nodal field over the domain (each tet once, exact for P1). Collective.
  double integral(const std::vector<double>& local_field) const;

 private:
  struct Systems;
  const petsc::DistributedMesh& mesh_;
  MountainMeshOptions domain_;
  Physics physics_;
  Numerics numerics_;
  std::unique_ptr<Systems> systems_;
  bool stabilisation_ready_ = false;  // assembled at least once (restarts start mid-interval)
  ModelState held_;                   // time, step and (when host_current_) the fields on the host
  bool host_current_ = false;         // held_'s fields equal the resident ones
  bool first_step_done_ = false;
  // The history a step may start from besides the state (history()): the pressure increment
  // vector holds the last step's dp (-pressure_guess_previous), the previous velocity u^{n-1}
  // (-picard_extrapolate). False until a step has run or set_history gave them, and after
  // set_state with another state than the model's own.
  bool previous_increment_ready_ = false;
  bool previous_velocity_ready_ = false;
  // M, D and G and K are assembled (once on a fixed mesh; K + P again with every new P).
  bool constant_operators_ready_ = false;
  // A tracer zero everywhere, with zero boundary values, stays zero: it has no source, so its
  // transport is skipped (bitwise what the solve gives). Seen on this rank by set_state, agreed
  // on by every rank at the next step, true as long as the tracer is skipped.
  std::array<bool, tracer_count> tracer_zero_on_rank_{};
  std::array<bool, tracer_count> tracer_stays_zero_{};
  bool tracer_zero_agreed_ = false;
  // The projection's three components in one BlockChebyshev solve (project_together): where
  // the solver allows it and each rank's share is small enough for the exchanges it saves to
  // outweigh the dense product's slower reads (decided at setup, the same on every rank).
  bool project_components_together_ = false;
  void choose_projection_solve();

  void setup_fixed_data();
  void set_up_element_data();  // parts of setup_fixed_data (model_setup.cpp)
  void create_work_arrays();
  void setup_constraints();
  // K + P into the pressure matrix (P re-assembled first when `with_stabilisation`), with the
  // outflow rows constrained once they are set (setup_constraints).
  void assemble_pressure(StepTimes& times, bool with_stabilisation);
  // The parts of step() (mountain_wave_step.cpp), in its order; the mathematics is in the
  // comment at the top of this file.
  void assemble_step_operators(StepTimes& times);  // M, D and G, K + P
  void agree_on_zero_tracers();                    //    which tracers are skipped
  void transport(StepReport& report);              // 1. theta', qv, qc, qr
  void add_background_forcing();                   //    theta''s -w dtheta_bar/dz
  void momentum_predictor(StepReport& report);     // 2. u'
  void pressure_increment(StepReport& report);     // 3. dp
  void project(StepReport& report);                // 4. u* = u' + du
  bool project_together(StepReport& report);       //    du's components in one solve
  double interior_divergence();                    // the divergence diagnostic
  void check_state_finite() const;
};

}  // namespace foehn::mountainwave
