// CPU + GPU split of a chemistry batch with a self-balancing share (split_chemistry.hpp).

#include "foehn/chemistry/split_chemistry.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <span>
#include <thread>

#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"

namespace foehn::chemistry {
namespace {

RosenbrockOptions without_throwing(RosenbrockOptions options) {
  options.throw_on_failure = false;  // the split reports once, over both parts
  return options;
}

}  // namespace

SplitChemistrySolver::SplitChemistrySolver(const Mechanism& mechanism,
                                           const RosenbrockOptions& options,
                                           const SplitSettings& settings, const Stream& stream)
    : settings_(settings),
      throw_on_failure_(options.throw_on_failure),
      cpu_(mechanism, without_throwing(options)),
      gpu_(mechanism, without_throwing(options), settings.gpu, stream) {
  const bool bounds_ok = settings.min_fraction >= 0.0 &&
                         settings.min_fraction <= settings.max_fraction &&
                         settings.max_fraction <= 1.0;
  if (!(settings.damping > 0.0 && settings.damping <= 1.0) || !bounds_ok ||
      !(settings.initial_gpu_fraction >= 0.0 && settings.initial_gpu_fraction <= 1.0)) {
    fail(ErrorCategory::invalid_input, "CPU+GPU chemistry split: need 0 < damping (",
         settings.damping, ") <= 1 and 0 <= min_fraction (", settings.min_fraction,
         ") <= initial (", settings.initial_gpu_fraction, ") and max_fraction (",
         settings.max_fraction, ") <= 1");
  }
  fraction_ =
      std::clamp(settings.initial_gpu_fraction, settings.min_fraction, settings.max_fraction);
}

SplitChemistrySolver::~SplitChemistrySolver() = default;

ChemistryStepReport SplitChemistrySolver::solve(ChemistryBatch& batch, double duration) {
  const std::int64_t cells = batch.cell_count;
  const auto gpu_cells =
      static_cast<std::int64_t>(std::llround(fraction_ * static_cast<double>(cells)));
  const std::int64_t cpu_cells = cells - gpu_cells;
  const int cpu_threads =
      settings_.cpu_threads > 0 ? settings_.cpu_threads : std::max(1, omp_get_max_threads() - 1);
  const int device = current_device();
  if (static_cast<std::int64_t>(next_steps_.size()) != cells)
    next_steps_.assign(static_cast<std::size_t>(cells), 0.0);
  cpu_.set_next_steps(
      cells, gpu_cells,
      std::span<const double>(next_steps_).subspan(static_cast<std::size_t>(gpu_cells)));

  ChemistryStepReport gpu_report;
  std::exception_ptr gpu_error;
  double gpu_seconds = 0.0;
  // The GPU part runs on its own host thread (which must select the caller's device) so that the
  // CPU part's OpenMP threads work at the same time.
  std::thread gpu_thread([&] {
    try {
      select_device(device);
      const Stopwatch gpu_clock;
      if (gpu_cells > 0) {
        gpu_.upload(batch, 0, gpu_cells);
        gpu_.set_next_steps(
            std::span<const double>(next_steps_).first(static_cast<std::size_t>(gpu_cells)));
        gpu_report = gpu_.advance(duration);
        gpu_.download(batch, 0);
      }
      gpu_seconds = gpu_clock.seconds();
    } catch (...) {
      gpu_error = std::current_exception();
    }
  });
  ChemistryStepReport report;
  double cpu_seconds = 0.0;
  try {
    const Stopwatch cpu_clock;
    if (cpu_cells > 0)
      report = cpu_.solve_range(batch, duration, gpu_cells, cpu_cells, cpu_threads);
    cpu_seconds = cpu_clock.seconds();
  } catch (...) {
    gpu_thread.join();
    throw;
  }
  gpu_thread.join();
  if (gpu_error) std::rethrow_exception(gpu_error);
  accumulate(report, gpu_report);
  for (std::int64_t c = 0; c < cells; ++c) {
    const auto i = static_cast<std::size_t>(c);
    next_steps_[i] =
        c < gpu_cells ? gpu_.cell_statistics()[i].next_step : cpu_.cell_statistics()[i].next_step;
  }

  // Balance: the share at which both sides would have finished together this step.
  double next = fraction_;
  if (gpu_cells > 0 && cpu_cells > 0 && gpu_seconds > 0.0 && cpu_seconds > 0.0) {
    const double gpu_rate = static_cast<double>(gpu_cells) / gpu_seconds;
    const double cpu_rate = static_cast<double>(cpu_cells) / cpu_seconds;
    const double ideal = gpu_rate / (gpu_rate + cpu_rate);
    next = fraction_ + settings_.damping * (ideal - fraction_);
  } else if (gpu_cells == 0 && cells > 0 && fraction_ < settings_.max_fraction) {
    next = std::min(settings_.max_fraction, std::max(fraction_, 1.0 / static_cast<double>(cells)));
  }
  timing_ = {fraction_, gpu_cells, gpu_seconds, cpu_seconds,
             std::clamp(next, settings_.min_fraction, settings_.max_fraction)};
  fraction_ = timing_.next_gpu_fraction;
  if (throw_on_failure_) throw_if_failed(report, "CPU+GPU", cpu_.prepared().mechanism, batch);
  return report;
}

}  // namespace foehn::chemistry
