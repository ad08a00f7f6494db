#pragma once
// The chemistry solver on the GPU (docs/chemistry.md). Public header: no CUDA headers; in a build
// without CUDA the constructor throws foehn::Error (unavailable).
//
//   foehn::Stream stream;
//   CudaChemistrySolver gpu(mechanism, options, {}, stream);
//   gpu.upload(batch);                  // concentrations, T, P, external rates -> device layout
//   for (step ...) gpu.advance(120.0);  // data stays on the device between chemistry steps
//   gpu.download(batch);
//
// The per-cell arithmetic is the CPU reference's (rosenbrock.hpp), compiled without FMA
// contraction; results agree with CpuChemistrySolver to the last bits of the device's exp/pow
// (3e-14 relative in the tests, 1e-12 required), with the same steps in every cell.

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "foehn/chemistry/cell_layout.hpp"
#include "foehn/chemistry/rosenbrock_solver.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::chemistry {

enum class GpuChemistryStrategy {
  // One thread integrates one cell; cells stored in `layout` (interleaved: coalesced). Best when
  // there are many cells (>= tens of thousands) and a cell's work arrays do not fit on chip.
  thread_per_cell,
  // One warp per cell with the cell's work arrays in shared memory, the warp's lanes over
  // species, reactions, Jacobian entries and LU updates (the CAMP "block-cells" idea with a
  // direct sparse LU). For few cells or large mechanisms.
  block_per_cell,
  // block_per_cell for fewer than 128 cells per SM (thread_per_cell cannot fill the GPU) when a
  // cell's arrays fit in 48 KB of shared memory, else thread_per_cell.
  automatic,
};

std::string_view to_string(GpuChemistryStrategy strategy);
// "thread_per_cell", "block_per_cell", "automatic"; else invalid_input.
GpuChemistryStrategy parse_gpu_chemistry_strategy(std::string_view name);
std::string_view to_string(CellLayoutKind layout);
// "per_cell", "block_interleaved", "interleaved"; else invalid_input.
CellLayoutKind parse_cell_layout(std::string_view name);

// The block size K of the block-interleaved layout on the GPU: one warp.
inline constexpr int gpu_interleave_block = 32;

struct CudaChemistrySettings {
  GpuChemistryStrategy strategy = GpuChemistryStrategy::automatic;
  CellLayoutKind layout = CellLayoutKind::interleaved;  // device storage layout
  int threads_per_block = 64;                           // thread_per_cell launches
};

// Milliseconds of the last upload / advance / download, measured with CUDA events.
struct CudaChemistryTimings {
  double upload_ms = 0.0;
  double advance_ms = 0.0;  // rate constants + integration kernels + statistics read-back
  double download_ms = 0.0;
};

class CudaChemistrySolver {
 public:
  CudaChemistrySolver(const Mechanism& mechanism, const RosenbrockOptions& options,
                      const CudaChemistrySettings& settings, const Stream& stream);
  ~CudaChemistrySolver();
  CudaChemistrySolver(CudaChemistrySolver&&) noexcept;
  CudaChemistrySolver& operator=(CudaChemistrySolver&&) noexcept;

  // Cells [first, first + count) of `batch` (count < 0: to the end) become the device cells
  // 0..count-1: concentrations (to compiled order and the layout), T, P and external rates.
  // Reallocates when the count changes (the carried-over steps then restart). Validates first.
  void upload(const ChemistryBatch& batch, std::int64_t first = 0, std::int64_t count = -1);
  // Only T, P and external rates (same cell count as the last upload): the next chemistry step's
  // conditions, concentrations stay on the device.
  void upload_conditions(const ChemistryBatch& batch, std::int64_t first = 0);
  // Concentrations already on the device, [cell][species] in the mechanism's order
  // (conditions.cell_count cells; a CuPy array from Python), checked there (negative or not
  // finite: invalid_input naming the first cell and species) and read in place; T, P and
  // external rates from `conditions` (its concentrations are not used).
  void upload_device(const double* device_concentrations, const ChemistryBatch& conditions);
  // The device concentrations back into the caller's device array, in that order; waits for
  // the stream.
  void download_device(double* device_concentrations);
  // Integrates every device cell over `duration` seconds; reads back the per-cell statistics.
  // Throws foehn::Error(numerical) on failed cells when the options ask for it.
  ChemistryStepReport advance(double duration);
  // Forgets the carried-over steps: every cell's next advance starts from control.initial_step.
  void reset_steps();
  // Sets the carried-over first step of every device cell (steps.size() == cell_count(); 0:
  // control.initial_step), e.g. for cells moved here from the CPU.
  void set_next_steps(std::span<const double> steps);
  // Device concentrations -> batch cells [first, first + device cells).
  void download(ChemistryBatch& batch, std::int64_t first = 0);
  // upload + advance + download.
  ChemistryStepReport solve(ChemistryBatch& batch, double duration);

  [[nodiscard]] std::int64_t cell_count() const;
  [[nodiscard]] const std::vector<CellStatistics>& cell_statistics() const;
  [[nodiscard]] GpuChemistryStrategy strategy_for(std::int64_t cells) const;
  [[nodiscard]] const CudaChemistryTimings& last_timings() const;
  [[nodiscard]] const PreparedMechanism& prepared() const;

  // Batched in-place sparse LU of `count` iteration matrices stored in the solver's layout
  // (the factorisation kernel on its own, for the bandwidth benchmark): matrices = device array
  // of Layout::storage(nonzero_count, count) doubles. Returns the kernel time in ms.
  double factor_matrices(double* device_matrices, std::int64_t count);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace foehn::chemistry
