#pragma once
// The Mountainwave3D case (Boussinesq): physical constants, the absorbing layers and the
// initial and inflow profiles, and the numerical parameters of the time stepping. Every value
// can be set from the options database (case_options.cpp).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/runtime/backend.hpp"

namespace foehn::mountainwave {

struct Physics {
  double inflow_speed = 10.0;             // U, m/s along +x
  double buoyancy_frequency = 0.01;       // N, 1/s
  double theta0 = 293.15;                 // reference potential temperature, K
  double gravity = 9.81;                  // m/s^2
  double viscosity = 10.0;                // kinematic, m^2/s
  double diffusivity = 10.0;              // of theta' and the moisture tracers, m^2/s
  double sponge_top_start = 10000.0;      // Rayleigh layer from here to the model top, m
  double sponge_lateral_width = 10000.0;  // damping bands inside the lateral boundaries, m
  double sponge_rate = 1.0 / 200.0;       // largest damping rate, 1/s
  double qv_surface = 0.01;               // inflow/initial water vapour at the ground, kg/kg
  double qv_scale_height = 2500.0;        // its e-folding height, m
  bool closed_box = false;                // walls everywhere, no inflow (conservation tests)
  double bubble_amplitude = 0.0;  // initial warm bubble theta' (K) at (0, 0, 3 km), 2 km wide

  // d theta_bar / dz = N^2 theta0 / g: the background stratification theta' is measured from.
  double background_theta_gradient() const {
    return buoyancy_frequency * buoyancy_frequency * theta0 / gravity;
  }
  double qv_profile(double z) const { return qv_surface * std::exp(-z / qv_scale_height); }
};

// Rayleigh damping rate at a point: sin^2 ramps from 0 at the inner edge of each absorbing
// region to sponge_rate at the boundary; the largest of the top and lateral rates.
inline double sponge_rate_at(const Physics& p, const MountainMeshOptions& domain, double x,
                             double y, double z) {
  const auto ramp = [&](double depth, double width) {
    if (depth <= 0 || width <= 0) return 0.0;
    const double s = std::sin(0.5 * std::numbers::pi * std::min(depth / width, 1.0));
    return p.sponge_rate * s * s;
  };
  const double top = ramp(z - p.sponge_top_start, domain.height - p.sponge_top_start);
  const double half_x = 0.5 * domain.length_x, half_y = 0.5 * domain.length_y;
  const double w = p.sponge_lateral_width;
  const double lateral =
      std::max({ramp(std::abs(x) - (half_x - w), w), ramp(std::abs(y) - (half_y - w), w)});
  return std::max(top, lateral);
}

// Where PETSc's matrices, vectors and Krylov solves run: on the GPU needs the CUDA backend and a
// PETSc built with CUDA (petsc::device_solves_available()); automatic picks it when possible.
enum class SolvePlacement { automatic, host, device };

// Which solver defaults the systems start from (the command line's -<prefix>ksp_* and
// -<prefix>pc_* still override them): those of where the solves run (automatic), or the
// host's or the GPU's wherever they run. The GPU's on the host reproduce the GPU run's
// algorithms (GAMG with one-reduction CG to 1e-8, fixed Chebyshev projections, Jacobi-GMRES),
// hence its iterations and its halo exchanges and reductions per step, on a machine without a
// GPU (docs/scaling.md).
enum class SolverDefaults { automatic, host, device };

// How the projection M du = -dt G dp inverts the mass matrix: consistent (the assembled P1 mass
// matrix, solved to its tolerance) or lumped (its row sums: du_i = -dt (G dp)_i / m_i, no
// iteration, no halo exchange and no reduction; docs/mountain_wave.md, "The projection").
enum class ProjectionMass { consistent, lumped };

struct Numerics {
  double dt = 20.0;  // s
  int picard_iterations = 2;
  // Picard iterations after the first start their solves from the previous iteration's
  // solutions (theta' and tracers, dp, du) instead of q^n and zero: the same tolerances, fewer
  // Krylov iterations. Within a step only, so a restart stays bitwise.
  bool picard_warm_start = true;
  // Every solve in the Picard iterations before the last stops at this relative tolerance where
  // the system's own is tighter (0: the systems' own tolerances throughout): those iterations
  // only provide the advecting velocity and the starting guesses of the last, whose solves keep
  // their own tolerances. A fixed Chebyshev solve runs the iterations that reach it. The state
  // changes by about this tolerance times the flow's scales, far less than a third Picard
  // iteration would change it (docs/mountain_wave.md, "Work a step does not need").
  double picard_early_rtol = 1e-6;
  // The first Picard iteration's pressure solve starts from the previous step's increment dp^n
  // instead of zero (a steady or slowly changing flow has dp^{n+1} close to dp^n): the default
  // case's hour 27.9 -> 26.0 CG iterations a step, its linear-theory table unchanged
  // (docs/mountain_wave.md, "Fewer synchronisations"). Checkpoints keep dp^n
  // (MountainWaveModel::history), so a restart stays bitwise.
  bool pressure_guess_previous = true;
  // The first Picard iteration advects with the velocity extrapolated from the last two steps,
  // u* = 2 u^n - u^{n-1}, instead of u^n: its solves start closer to the step's answer (the
  // default case: 8-11% fewer transport and momentum iterations), and the two iterations come
  // closer to the trapezoidal step, which keeps a free gravity wave's amplitude (dispersion test:
  // 1.0% lost a period instead of 1.8% at dt 60 s). A run's first step, and the first on a new
  // (adapted) mesh, have no u^{n-1} and take u^n; checkpoints keep u^{n-1}. With -picard 1 it
  // replaces the second Picard iteration at half the work, but then treats the buoyancy exchange
  // as Adams-Bashforth 2 does and amplifies free gravity waves (foehn-mountainwave warns).
  bool picard_extrapolate = true;
  // Time weighting of the transport of theta' and the tracers and of the buoyancy exchange
  // (theta' forced by w, w by theta'): 1/2 is Crank-Nicolson, second order and without damping
  // of gravity waves; 1 is backward Euler, which damps an oscillation of frequency N by a
  // factor 1/sqrt(1 + (N dt)^2) per step. The momentum predictor's advection and viscosity
  // stay backward Euler (docs/mountain_wave.md, "Time scheme").
  double theta = 0.5;
  // Open domains advect theta' and the tracers in skew-symmetric form (fe::
  // AdvectionDiffusionOperator): Crank-Nicolson transport in the plain advective form grew
  // grid-scale columns of w after ~3000 s (docs/mountain_wave.md, "Time scheme").
  bool skew_symmetric_transport = true;
  int stabilisation_interval = 10;  // steps between assemblies of the pressure stabilisation
  // Weight of the metric pressure diffusion. It damps gravity waves in proportion to c dt
  // (tests/validation/core/gravity_wave_dispersion_test.cpp: 7.4% of the amplitude per
  // period at c = 0.02, 0.9% at 0.002, dt = 20 s), so it is kept small.
  double stabilisation_coefficient = 0.002;
  Backend backend = Backend::cpu;
  fe::AssemblyStrategy strategy = fe::default_assembly_strategy;
  SolvePlacement solves = SolvePlacement::automatic;
  SolverDefaults solver_defaults = SolverDefaults::automatic;
  ProjectionMass projection_mass = ProjectionMass::consistent;
};

}  // namespace foehn::mountainwave
