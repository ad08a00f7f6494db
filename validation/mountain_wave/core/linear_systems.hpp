#pragma once
// The core's linear systems, in the order a step solves them: the one table from which the
// solvers and their options prefixes, the per-system reports (Krylov iterations in the log and
// run.json, the timing table's matrix rows) and -help are made. Adding a system is its row
// here, its physics function in mountain_wave_step.cpp and a test.
#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "foehn/petsc/linear_solver.hpp"
#include "io/timing_table.hpp"
#include "model_state.hpp"

namespace foehn::mountainwave {

enum class LinearSystem : int { theta, qv, qc, qr, momentum, pressure, projection };

struct LinearSystemRow {
  LinearSystem id;
  std::string_view name;    // in the log and run.json
  std::string_view prefix;  // PETSc options prefix of its KSP and matrix
  int block_size;           // 1: a scalar per node; 3: velocity (3 x 3 blocks, assembled rhs)
  petsc::SolverKind kind;   // the solver family it starts from (linear_solver.hpp)
  std::string_view solves;  // what, for -help
  TimedPhase matrix_phase;  // the timing table's row its assembly and hand-off count in
};

inline constexpr std::array<LinearSystemRow, 7> linear_systems = {{
    {LinearSystem::theta, "theta", "theta_", 1, petsc::SolverKind::advection_diffusion,
     "potential-temperature perturbation transport", TimedPhase::temperature_matrix},
    {LinearSystem::qv, "qv", "qv_", 1, petsc::SolverKind::advection_diffusion, "water vapour",
     TimedPhase::water_vapor_matrix},
    {LinearSystem::qc, "qc", "qc_", 1, petsc::SolverKind::advection_diffusion, "cloud water",
     TimedPhase::cloud_water_matrix},
    {LinearSystem::qr, "qr", "qr_", 1, petsc::SolverKind::advection_diffusion, "rain water",
     TimedPhase::rain_water_matrix},
    {LinearSystem::momentum, "momentum", "momentum_", 3, petsc::SolverKind::momentum,
     "momentum predictor (3 x 3 blocks)", TimedPhase::momentum_matrix},
    {LinearSystem::pressure, "pressure", "pressure_", 1, petsc::SolverKind::pressure,
     "pressure increment (Laplacian + stabilisation)", TimedPhase::pressure_correction_matrix},
    {LinearSystem::projection, "projection", "projection_", 1, petsc::SolverKind::elliptic,
     "velocity projection (mass matrix, per component)", TimedPhase::projection_matrix},
}};
inline constexpr std::size_t linear_system_count = linear_systems.size();

constexpr std::size_t index_of(LinearSystem system) noexcept {
  return static_cast<std::size_t>(system);
}

// The transported scalars are the first rows, theta' then the tracers in tracer_names' order.
inline constexpr int transported_count = 1 + tracer_count;
constexpr LinearSystem transported_system(int k) noexcept {
  return static_cast<LinearSystem>(k);
}

// The table's rows are in LinearSystem order and its tracers are model_state.hpp's.
constexpr bool linear_systems_consistent() {
  for (std::size_t k = 0; k < linear_system_count; ++k)
    if (index_of(linear_systems[k].id) != k) return false;
  for (int t = 0; t < tracer_count; ++t)
    if (linear_systems[static_cast<std::size_t>(t) + 1].name != tracer_names[t]) return false;
  return true;
}
static_assert(linear_systems_consistent(), "linear_systems: rows out of LinearSystem order");

// One line per system ("    -theta_       potential-temperature ..."), for -help.
inline std::string linear_systems_help() {
  std::string text = "  per-system solver options (KSP, PC, matrix format), by prefix:\n";
  for (const LinearSystemRow& row : linear_systems) {
    std::string option = "    -" + std::string(row.prefix);
    option.resize(std::max<std::size_t>(option.size() + 2, 18), ' ');
    text += option + std::string(row.solves) + "\n";
  }
  return text;
}

}  // namespace foehn::mountainwave
