#pragma once
// The prognostic state of the mountain-wave core on one rank: every field on the rank's local
// nodes (owned first, then ghosts, as in DistributedMesh), interleaved per node where it is a
// vector. Ghost values are kept up to date after every solve, so element loops (assembly,
// sampling, output) read them directly.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace foehn::mountainwave {

inline constexpr int tracer_count = 3;
inline constexpr std::array<const char*, tracer_count> tracer_names = {"qv", "qc", "qr"};

struct ModelState {
  double time = 0.0;        // s since the start of the run
  std::int64_t step = 0;    // completed timesteps
  std::vector<double> velocity;  // total velocity (u, v, w), 3 per node, m/s
  std::vector<double> pressure;  // kinematic pressure perturbation p'/rho0, m^2/s^2
  std::vector<double> theta;     // potential-temperature perturbation theta', K
  std::array<std::vector<double>, tracer_count> tracers;  // qv, qc, qr, kg/kg

  // Sizes for `local_nodes` nodes, values zero.
  void resize(std::size_t local_nodes) {
    velocity.assign(3 * local_nodes, 0.0);
    pressure.assign(local_nodes, 0.0);
    theta.assign(local_nodes, 0.0);
    for (auto& q : tracers) q.assign(local_nodes, 0.0);
  }
};

}  // namespace foehn::mountainwave
