#pragma once
// The pointwise work of a mountain-wave timestep that is neither assembly nor PETSc: copying one
// component of an interleaved vector field, the body force, the prescribed boundary velocity,
// restoring it after the projection, the CFL number and the finite check. Each is a FOEHN_HD
// functor over an index, run by foehn::for_each where its arrays live (host memory, or device
// memory when the solves are on the GPU), so both run the same arithmetic. Their device side is
// instantiated in field_update_kernels.cpp.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "foehn/runtime/host_device.hpp"

namespace foehn::mountainwave {

// destination[i * destination_stride] = source[i * source_stride], i < count.
struct StridedCopy {
  const double* source;
  std::size_t source_stride;
  double* destination;
  std::size_t destination_stride;
  FOEHN_HD void operator()(std::size_t i) const {
    destination[i * destination_stride] = source[i * source_stride];
  }
};

// Interleaved 3-vectors (node i's component c at 3 i + c) to three columns (c at c rows + i),
// over 3 rows indices.
struct ToColumns {
  const double* interleaved;
  double* columns;
  std::size_t rows;
  FOEHN_HD void operator()(std::size_t j) const {
    columns[(j % 3) * rows + j / 3] = interleaved[j];
  }
};

// The reverse of ToColumns.
struct FromColumns {
  const double* columns;
  double* interleaved;
  std::size_t rows;
  FOEHN_HD void operator()(std::size_t j) const {
    interleaved[j] = columns[(j % 3) * rows + j / 3];
  }
};

// destination[i] = value (a skipped tracer's new values: zero).
struct Fill {
  double* destination;
  double value;
  FOEHN_HD void operator()(std::size_t i) const { destination[i] = value; }
};

// extrapolated[i] = 2 current[i] - previous[i] (the advecting velocity at n+1 from n and n-1).
struct Extrapolate {
  const double* current;
  const double* previous;
  double* extrapolated;
  FOEHN_HD void operator()(std::size_t i) const {
    extrapolated[i] = 2.0 * current[i] - previous[i];
  }
};

// sum[i] += addend[i] (the pressure matrix: the Laplacian's values plus the stabilisation's).
struct AddArrays {
  const double* addend;
  double* sum;
  FOEHN_HD void operator()(std::size_t i) const { sum[i] += addend[i]; }
};

// force = u^n / dt + g theta'_w / theta0 z_hat at every local node (the momentum right-hand
// side's pointwise part), theta'_w the time-weighted theta' of the step (Crank-Nicolson at
// weight 1/2: the buoyancy oscillation is then neither damped nor amplified).
struct BodyForce {
  const double* velocity;   // u^n
  const double* theta_old;  // theta'^n
  const double* theta;      // the latest theta' iterate
  double* force;
  double dt;
  double weight;  // the time weighting: buoyancy of (1 - weight) theta'^n + weight theta'
  double gravity;
  double theta0;
  FOEHN_HD void operator()(std::size_t n) const {
    const double buoyant = (1.0 - weight) * theta_old[n] + weight * theta[n];
    force[3 * n] = velocity[3 * n] / dt;
    force[3 * n + 1] = velocity[3 * n + 1] / dt;
    force[3 * n + 2] = velocity[3 * n + 2] / dt + gravity * buoyant / theta0;
  }
};

// The prescribed velocity at every local node (boundary_conditions.hpp): u = inflow_u[n] along x
// (U at inflow nodes, else 0), v = 0, w = slope_x u + slope_y v (the terrain slopes at terrain
// nodes, else 0) from the current iterate. Entries of unconstrained components are unused.
struct BoundaryVelocity {
  const double* velocity;
  const double* inflow_u;
  const double* slope_x;
  const double* slope_y;
  double* values;
  FOEHN_HD void operator()(std::size_t n) const {
    values[3 * n] = inflow_u[n];
    values[3 * n + 1] = 0.0;
    values[3 * n + 2] = velocity[3 * n] * slope_x[n] + velocity[3 * n + 1] * slope_y[n];
  }
};

// velocity = values at the constrained points (node * 3 + component).
struct RestoreBoundary {
  const std::uint8_t* constrained;
  const double* values;
  double* velocity;
  FOEHN_HD void operator()(std::size_t point) const {
    if (constrained[point]) velocity[point] = values[point];
  }
};

// max |u| dt / (shortest edge) over the nodes of tet t.
struct TetCfl {
  const double* velocity;
  const std::int32_t* tets;
  const double* shortest_edge;
  double dt;
  FOEHN_HD double operator()(std::size_t t) const {
    double speed = 0;
    for (int k = 0; k < 4; ++k) {
      const double* u = velocity + 3 * static_cast<std::size_t>(tets[4 * t + k]);
      const double s = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
      speed = s > speed ? s : speed;
    }
    return speed * dt / shortest_edge[t];
  }
};

// True where a value is NaN or infinite (the finite check of the state): v - v is 0 exactly for
// finite v and NaN otherwise, the same test on both sides without a math library overload.
struct NonFinite {
  const double* values;
  FOEHN_HD bool operator()(std::size_t i) const { return !(values[i] - values[i] == 0.0); }
};

}  // namespace foehn::mountainwave
