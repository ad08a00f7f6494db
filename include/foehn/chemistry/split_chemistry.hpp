#pragma once
// CPU + GPU chemistry on one batch: the GPU takes the first cells, the CPU threads the rest, at
// the same time. The split balances itself from measured times (docs/chemistry.md):
//
//   throughputs   r_gpu = n_gpu / t_gpu,  r_cpu = n_cpu / t_cpu   (cells per second, this step)
//   ideal share   f* = r_gpu / (r_gpu + r_cpu)    (both sides then finish together)
//   next share    f <- f + damping (f* - f), clamped to [min_fraction, max_fraction]
//
// With per-cell costs that do not change between steps, the imbalance shrinks by (1 - damping)
// per chemistry step (damping 0.5: halves every step). The GPU's time includes its transfers.
// Every cell's carried-over step size follows it when the split moves it to the other side.

#include <cstdint>
#include <memory>
#include <vector>

#include "foehn/chemistry/cuda_chemistry.hpp"
#include "foehn/chemistry/rosenbrock_solver.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::chemistry {

struct SplitSettings {
  double initial_gpu_fraction = 0.9;
  double damping = 0.5;       // in (0, 1]
  double min_fraction = 0.0;  // bounds of the GPU share
  double max_fraction = 1.0;
  int cpu_threads = 0;  // 0: all OpenMP threads but one (that one drives the GPU)
  CudaChemistrySettings gpu;
};

struct SplitStepTiming {
  double gpu_fraction = 0.0;  // share of cells given to the GPU in this step
  std::int64_t gpu_cells = 0;
  double gpu_seconds = 0.0;  // upload + advance + download, wall clock
  double cpu_seconds = 0.0;
  double next_gpu_fraction = 0.0;
};

class SplitChemistrySolver {
 public:
  SplitChemistrySolver(const Mechanism& mechanism, const RosenbrockOptions& options,
                       const SplitSettings& settings, const Stream& stream);
  ~SplitChemistrySolver();

  // Integrates every cell over `duration` seconds and updates the split for the next call.
  ChemistryStepReport solve(ChemistryBatch& batch, double duration);
  [[nodiscard]] double gpu_fraction() const { return fraction_; }
  [[nodiscard]] const SplitStepTiming& last_timing() const { return timing_; }

 private:
  SplitSettings settings_;
  bool throw_on_failure_ = true;
  CpuChemistrySolver cpu_;
  CudaChemistrySolver gpu_;
  double fraction_ = 0.0;
  SplitStepTiming timing_;
  std::vector<double> next_steps_;  // per cell of the batch: the step each cell ended with
};

}  // namespace foehn::chemistry
