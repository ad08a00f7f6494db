// CudaChemistrySolver: device copies of the compiled mechanism, cell storage in the chosen
// layout, and the launches of the two strategies.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "chemistry_kernels.cuh"
#include "foehn/chemistry/cuda_chemistry.hpp"
#include "foehn/runtime/cuda_check.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/memory_budget.hpp"

namespace foehn::chemistry {
namespace {

using cuda_detail::WarpGatherLists;

constexpr int conversion_threads = 128;

template <class T>
DeviceArray<T> to_device(const std::vector<T>& host, const Stream& stream) {
  // Never empty: kernels may index a one-element dummy (e.g. no external rates).
  DeviceArray<T> device(std::max<std::size_t>(host.size(), 1), stream);
  device.fill_bytes_async(0, stream);
  device.copy_from_host_async(std::span<const T>(host.data(), host.size()), stream);
  return device;
}

unsigned grid_for(std::int64_t count, int threads) {
  return static_cast<unsigned>((count + threads - 1) / threads);
}

// Calls function(Layout{}) with the layout type of `kind`.
template <class Function>
void with_layout(CellLayoutKind kind, Function&& function) {
  switch (kind) {
    case CellLayoutKind::per_cell:
      function(PerCellLayout{});
      return;
    case CellLayoutKind::block_interleaved:
      function(BlockInterleavedLayout<gpu_interleave_block>{});
      return;
    case CellLayoutKind::interleaved:
      function(InterleavedLayout{});
      return;
  }
  fail(ErrorCategory::internal, "chemistry: unknown cell layout ", static_cast<int>(kind));
}

std::int64_t storage_size(CellLayoutKind kind, int width, std::int64_t cells) {
  std::int64_t size = 0;
  with_layout(kind, [&](auto layout) { size = decltype(layout)::storage(width, cells); });
  return std::max<std::int64_t>(size, 1);
}

// Counts the entries that are negative or not finite; keeps the lowest such index.
__global__ void count_invalid_concentrations(const double* values, std::int64_t count,
                                             unsigned long long* invalid,
                                             unsigned long long* first_invalid) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const double v = values[i];
  if (v >= 0.0 && v <= 1.7976931348623157e308) return;  // false for NaN
  atomicAdd(invalid, 1ULL);
  atomicMin(first_invalid, static_cast<unsigned long long>(i));
}

}  // namespace

struct CudaChemistrySolver::Impl {
  PreparedMechanism prepared;
  CudaChemistrySettings settings;
  const Stream* stream = nullptr;
  CompiledMechanismView host_view;
  int reactant_entries = 0;

  // Device copies of the compiled mechanism (the view's pointers point here).
  std::vector<DeviceArray<int>> int_arrays;
  std::vector<DeviceArray<double>> double_arrays;
  CompiledMechanismView device_view;
  WarpGatherLists lists;
  DeviceArray<double> absolute_tolerance;
  DeviceArray<int> conserved_start, conserved_species;
  DeviceArray<double> conserved_weight;
  CellChecks device_checks;        // pointers into the arrays above
  DeviceArray<int> species_order;  // compiled position -> mechanism species

  std::int64_t cells = 0;
  DeviceArray<double> concentrations, external_rates, rate_constants, work, temperature, pressure;
  DeviceArray<double> raw_concentrations, raw_external_rates;
  DeviceArray<CellStatistics> statistics;
  std::vector<CellStatistics> host_statistics;
  CudaChemistryTimings timings;
  Event start, stop;

  const int* upload_ints(const std::vector<int>& host) {
    int_arrays.push_back(to_device(host, *stream));
    return int_arrays.back().data();
  }
  const double* upload_doubles(const std::vector<double>& host) {
    double_arrays.push_back(to_device(host, *stream));
    return double_arrays.back().data();
  }

  void upload_mechanism() {
    const CompiledMechanism& c = prepared.compiled;
    host_view = c.view();
    device_view = host_view;
    device_view.rate_type = upload_ints(c.rate_type);
    device_view.rate_parameters = upload_doubles(c.rate_parameters);
    device_view.external_index = upload_ints(c.external_index);
    device_view.reactant_start = upload_ints(c.reactant_start);
    device_view.reactant_species = upload_ints(c.reactant_species);
    device_view.change_start = upload_ints(c.change_start);
    device_view.change_species = upload_ints(c.change_species);
    device_view.change_amount = upload_doubles(c.change_amount);
    device_view.jacobian_slot = upload_ints(c.jacobian_slot);
    device_view.row_start = upload_ints(c.row_start);
    device_view.column = upload_ints(c.column);
    device_view.diagonal = upload_ints(c.diagonal);
    device_view.lu_lower_slot = upload_ints(c.lu_lower_slot);
    device_view.lu_lower_pivot = upload_ints(c.lu_lower_pivot);
    device_view.lu_update_count = upload_ints(c.lu_update_count);
    device_view.lu_update_target = upload_ints(c.lu_update_target);
    device_view.lu_update_source = upload_ints(c.lu_update_source);
    build_gather_lists();
    absolute_tolerance = to_device(prepared.absolute_tolerance, *stream);
    conserved_start = to_device(prepared.conserved_start, *stream);
    conserved_species = to_device(prepared.conserved_species, *stream);
    conserved_weight = to_device(prepared.conserved_weight, *stream);
    device_checks = {absolute_tolerance.data(), prepared.conserved_count(), conserved_start.data(),
                     conserved_species.data(), conserved_weight.data()};
    species_order = to_device(c.species_order, *stream);
    stream->synchronize();
  }

  // Transposes of the scatter loops of compute_forcing / compute_jacobian for the warp version.
  void build_gather_lists() {
    const CompiledMechanism& c = prepared.compiled;
    const int n = c.species_count();
    const int reactions = c.reaction_count();
    const int nonzeros = host_view.nonzero_count;
    std::vector<std::vector<std::pair<int, double>>> by_species(static_cast<std::size_t>(n));
    std::vector<std::vector<std::pair<int, double>>> by_slot(static_cast<std::size_t>(nonzeros));
    int sequence = 0;
    for (int r = 0; r < reactions; ++r) {
      for (int x = c.change_start[r]; x < c.change_start[r + 1]; ++x) {
        by_species[static_cast<std::size_t>(c.change_species[x])].emplace_back(r,
                                                                               c.change_amount[x]);
      }
      for (int l = c.reactant_start[r]; l < c.reactant_start[r + 1]; ++l) {
        for (int x = c.change_start[r]; x < c.change_start[r + 1]; ++x) {
          by_slot[static_cast<std::size_t>(c.jacobian_slot[sequence++])].emplace_back(
              l, c.change_amount[x]);
        }
      }
    }
    auto flatten = [](const std::vector<std::vector<std::pair<int, double>>>& lists,
                      std::vector<int>& start, std::vector<int>& index,
                      std::vector<double>& amount) {
      start.assign(1, 0);
      for (const auto& list : lists) {
        for (const auto& [i, a] : list) {
          index.push_back(i);
          amount.push_back(a);
        }
        start.push_back(static_cast<int>(index.size()));
      }
    };
    std::vector<int> species_start, species_reaction, slot_start, slot_entry;
    std::vector<double> species_amount, slot_amount;
    flatten(by_species, species_start, species_reaction, species_amount);
    flatten(by_slot, slot_start, slot_entry, slot_amount);
    std::vector<int> update_start(1, 0);
    for (int count : c.lu_update_count) update_start.push_back(update_start.back() + count);
    lists.species_gather_start = upload_ints(species_start);
    lists.species_gather_reaction = upload_ints(species_reaction);
    lists.species_gather_amount = upload_doubles(species_amount);
    lists.slot_gather_start = upload_ints(slot_start);
    lists.slot_gather_entry = upload_ints(slot_entry);
    lists.slot_gather_amount = upload_doubles(slot_amount);
    lists.lu_update_start = upload_ints(update_start);
    reactant_entries = c.reactant_start.back();
    lists.reactant_entries = reactant_entries;
    build_level_schedule();
  }

  // Rows grouped into levels: forward (row i after the rows k of its lower entries) and backward
  // (row i after the rows j > i of its upper entries).
  void build_level_schedule() {
    const CompiledMechanism& c = prepared.compiled;
    const int n = c.species_count();
    std::vector<int> row_lower_start(1, 0), forward(static_cast<std::size_t>(n), 0),
        backward(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
      row_lower_start.push_back(row_lower_start.back() + c.diagonal[i] - c.row_start[i]);
      for (int s = c.row_start[i]; s < c.diagonal[i]; ++s)
        forward[i] = std::max(forward[i], forward[c.column[s]] + 1);
    }
    for (int i = n - 1; i >= 0; --i) {
      for (int s = c.diagonal[i] + 1; s < c.row_start[i + 1]; ++s) {
        backward[i] = std::max(backward[i], backward[c.column[s]] + 1);
      }
    }
    auto group = [n](const std::vector<int>& level, std::vector<int>& start,
                     std::vector<int>& rows) {
      const int levels = n > 0 ? *std::max_element(level.begin(), level.end()) + 1 : 0;
      start.assign(static_cast<std::size_t>(levels) + 1, 0);
      for (int l : level) ++start[static_cast<std::size_t>(l) + 1];
      for (int l = 0; l < levels; ++l) start[l + 1] += start[l];
      rows.assign(static_cast<std::size_t>(n), 0);
      std::vector<int> next(start.begin(), start.end() - 1);
      for (int i = 0; i < n; ++i) rows[static_cast<std::size_t>(next[level[i]]++)] = i;
      return levels;
    };
    std::vector<int> forward_start, forward_rows, backward_start, backward_rows;
    lists.forward_levels = group(forward, forward_start, forward_rows);
    lists.backward_levels = group(backward, backward_start, backward_rows);
    lists.row_lower_start = upload_ints(row_lower_start);
    lists.forward_level_start = upload_ints(forward_start);
    lists.forward_level_row = upload_ints(forward_rows);
    lists.backward_level_start = upload_ints(backward_start);
    lists.backward_level_row = upload_ints(backward_rows);
  }

  int external_width() const { return std::max(host_view.external_rate_count, 1); }

  std::size_t warp_shared_bytes() const {
    return static_cast<std::size_t>(cuda_detail::warp_cell_shared_doubles(
               host_view, prepared.work_width(), reactant_entries)) *
           sizeof(double);
  }

  CellStorage storage() {
    CellStorage s;
    s.cells = cells;
    s.work_width = prepared.work_width();
    s.concentrations = concentrations.data();
    s.external_rates = external_rates.data();
    s.rate_constants = rate_constants.data();
    s.work = work.data();
    s.temperature = temperature.data();
    s.pressure = pressure.data();
    s.statistics = statistics.data();
    return s;
  }

  // Everything allocate() and advance() hold per cell (concentrations and external rates twice,
  // T, P, statistics, and the thread-per-cell workspace and rate constants), checked against
  // the device's free memory first: an error naming the cell count and the bytes, not an
  // allocation failing half-way.
  void check_device_memory_for(std::int64_t count) const {
    const double doubles_per_cell = 2.0 * host_view.species_count + 2.0 * external_width() + 2.0 +
                                    prepared.work_width() + host_view.reaction_count;
    const double per_cell = sizeof(double) * doubles_per_cell + sizeof(CellStatistics);
    check_device_memory(
        foehn::detail::concat("chemistry on the GPU: ", count, " cells (", per_cell,
                              " B per cell: ", host_view.species_count, " species, ",
                              host_view.reaction_count, " reactions)"),
        per_cell * static_cast<double>(count), device_memory_info().free_bytes);
  }

  void allocate(std::int64_t count) {
    if (count == cells && !concentrations.empty()) return;
    const CellLayoutKind layout = settings.layout;
    const int n = host_view.species_count;
    const auto size = [&](int width) {
      return static_cast<std::size_t>(storage_size(layout, width, count));
    };
    check_device_memory_for(count);
    cells = count;
    work.reset();  // allocated by advance() when thread_per_cell needs it
    rate_constants.reset();
    concentrations = DeviceArray<double>(size(n), *stream);
    external_rates = DeviceArray<double>(size(external_width()), *stream);
    external_rates.fill_bytes_async(0, *stream);
    temperature =
        DeviceArray<double>(std::max<std::size_t>(static_cast<std::size_t>(count), 1), *stream);
    pressure =
        DeviceArray<double>(std::max<std::size_t>(static_cast<std::size_t>(count), 1), *stream);
    raw_concentrations =
        DeviceArray<double>(std::max<std::size_t>(static_cast<std::size_t>(count) * n, 1), *stream);
    raw_external_rates = DeviceArray<double>(
        std::max<std::size_t>(static_cast<std::size_t>(count) * host_view.external_rate_count, 1),
        *stream);
    statistics = DeviceArray<CellStatistics>(
        std::max<std::size_t>(static_cast<std::size_t>(count), 1), *stream);
    statistics.fill_bytes_async(0, *stream);  // next_step 0: start from control.initial_step
    host_statistics.assign(static_cast<std::size_t>(count), CellStatistics{});
  }

  void upload_conditions(const ChemistryBatch& batch, std::int64_t first) {
    const auto c0 = static_cast<std::size_t>(first);
    const auto count = static_cast<std::size_t>(cells);
    temperature.copy_from_host_async(std::span<const double>(batch.temperature.data() + c0, count),
                                     *stream);
    pressure.copy_from_host_async(std::span<const double>(batch.pressure.data() + c0, count),
                                  *stream);
    const auto rates = static_cast<std::size_t>(host_view.external_rate_count);
    if (rates > 0 && count > 0) {
      raw_external_rates.copy_from_host_async(
          std::span<const double>(batch.external_rates.data() + c0 * rates, count * rates),
          *stream);
      with_layout(settings.layout, [&](auto layout) {
        cuda_detail::scatter_to_layout<decltype(layout)>
            <<<grid_for(cells, conversion_threads), conversion_threads, 0, native(*stream)>>>(
                raw_external_rates.data(), static_cast<int>(rates), nullptr,
                static_cast<int>(rates), cells, external_rates.data());
      });
      FOEHN_CUDA_CHECK_LAUNCH("chemistry scatter_to_layout (external rates)");
    }
  }
};

CudaChemistrySolver::CudaChemistrySolver(const Mechanism& mechanism,
                                         const RosenbrockOptions& options,
                                         const CudaChemistrySettings& settings,
                                         const Stream& stream)
    : impl_(std::make_unique<Impl>()) {
  if (settings.threads_per_block < 32 || settings.threads_per_block > 1024 ||
      settings.threads_per_block % 32 != 0) {
    fail(ErrorCategory::invalid_input,
         "GPU chemistry: threads_per_block = ", settings.threads_per_block,
         " must be a multiple of 32 in [32, 1024]");
  }
  impl_->prepared = prepare_mechanism(mechanism, options);
  impl_->settings = settings;
  impl_->stream = &stream;
  impl_->upload_mechanism();
}

CudaChemistrySolver::~CudaChemistrySolver() = default;
CudaChemistrySolver::CudaChemistrySolver(CudaChemistrySolver&&) noexcept = default;
CudaChemistrySolver& CudaChemistrySolver::operator=(CudaChemistrySolver&&) noexcept = default;

std::int64_t CudaChemistrySolver::cell_count() const {
  return impl_->cells;
}
const std::vector<CellStatistics>& CudaChemistrySolver::cell_statistics() const {
  return impl_->host_statistics;
}
const CudaChemistryTimings& CudaChemistrySolver::last_timings() const {
  return impl_->timings;
}
const PreparedMechanism& CudaChemistrySolver::prepared() const {
  return impl_->prepared;
}

GpuChemistryStrategy CudaChemistrySolver::strategy_for(std::int64_t cells) const {
  if (impl_->settings.strategy != GpuChemistryStrategy::automatic) return impl_->settings.strategy;
  // Thread per cell needs several warps per SM to hide its memory latency; below that, a warp
  // per cell puts the idle lanes to work (measured crossover: docs/chemistry.md).
  const DeviceInfo info = device_info(current_device());
  const bool fits = impl_->warp_shared_bytes() <= 48 * 1024;
  return cells < static_cast<std::int64_t>(info.sm_count) * 32 * 4 && fits
             ? GpuChemistryStrategy::block_per_cell
             : GpuChemistryStrategy::thread_per_cell;
}

void CudaChemistrySolver::upload(const ChemistryBatch& batch, std::int64_t first,
                                 std::int64_t count) {
  Impl& s = *impl_;
  if (count < 0) count = batch.cell_count - first;
  validate_batch_range(s.prepared.mechanism, batch, first, count);
  s.start.record(*s.stream);
  s.allocate(count);
  const int n = s.host_view.species_count;
  if (count > 0) {
    s.raw_concentrations.copy_from_host_async(
        std::span<const double>(batch.concentrations.data() + static_cast<std::size_t>(first) * n,
                                static_cast<std::size_t>(count) * n),
        *s.stream);
    with_layout(s.settings.layout, [&](auto layout) {
      cuda_detail::scatter_to_layout<decltype(layout)>
          <<<grid_for(count, conversion_threads), conversion_threads, 0, native(*s.stream)>>>(
              s.raw_concentrations.data(), n, s.species_order.data(), n, count,
              s.concentrations.data());
    });
    FOEHN_CUDA_CHECK_LAUNCH("chemistry scatter_to_layout (concentrations)");
  }
  s.upload_conditions(batch, first);
  s.stop.record(*s.stream);
  s.timings.upload_ms = elapsed_ms(s.start, s.stop);
}

void CudaChemistrySolver::upload_device(const double* device_concentrations,
                                        const ChemistryBatch& conditions) {
  Impl& s = *impl_;
  const std::int64_t count = conditions.cell_count;
  validate_batch_range(s.prepared.mechanism, conditions, 0, count);  // T, P, external rates
  s.allocate(count);
  const int n = s.host_view.species_count;
  const std::int64_t values = count * n;
  if (values == 0) return s.upload_conditions(conditions, 0);
  // The caller's values are checked where they lie; only two counters come back.
  DeviceArray<unsigned long long> verdict(2, *s.stream);
  const unsigned long long initial[2] = {0ULL, ~0ULL};
  verdict.copy_from_host_async(std::span<const unsigned long long>(initial, 2), *s.stream);
  count_invalid_concentrations<<<grid_for(values, conversion_threads), conversion_threads, 0,
                                 native(*s.stream)>>>(device_concentrations, values, verdict.data(),
                                                      verdict.data() + 1);
  FOEHN_CUDA_CHECK_LAUNCH("chemistry count_invalid_concentrations");
  const std::vector<unsigned long long> found = verdict.copy_to_host(*s.stream);
  if (found[0] > 0) {
    const auto cell = static_cast<std::int64_t>(found[1]) / n;
    fail(ErrorCategory::invalid_input, "GPU chemistry: ", found[0],
         " device concentrations are negative or not finite, the first in cell ", cell,
         " species '", s.prepared.mechanism.species[static_cast<std::size_t>(found[1] % n)].name,
         "'");
  }
  with_layout(s.settings.layout, [&](auto layout) {
    cuda_detail::scatter_to_layout<decltype(layout)>
        <<<grid_for(count, conversion_threads), conversion_threads, 0, native(*s.stream)>>>(
            device_concentrations, n, s.species_order.data(), n, count, s.concentrations.data());
  });
  FOEHN_CUDA_CHECK_LAUNCH("chemistry scatter_to_layout (device concentrations)");
  s.upload_conditions(conditions, 0);
}

void CudaChemistrySolver::download_device(double* device_concentrations) {
  Impl& s = *impl_;
  const int n = s.host_view.species_count;
  if (s.cells > 0) {
    with_layout(s.settings.layout, [&](auto layout) {
      cuda_detail::gather_from_layout<decltype(layout)>
          <<<grid_for(s.cells, conversion_threads), conversion_threads, 0, native(*s.stream)>>>(
              s.concentrations.data(), n, s.species_order.data(), s.cells, n,
              device_concentrations);
    });
    FOEHN_CUDA_CHECK_LAUNCH("chemistry gather_from_layout (device concentrations)");
  }
  s.stream->synchronize();
}

void CudaChemistrySolver::upload_conditions(const ChemistryBatch& batch, std::int64_t first) {
  Impl& s = *impl_;
  validate_batch_range(s.prepared.mechanism, batch, first, s.cells);
  s.upload_conditions(batch, first);
  s.stream->synchronize();
}

ChemistryStepReport CudaChemistrySolver::advance(double duration) {
  Impl& s = *impl_;
  if (!(duration > 0.0 && duration < 1.0e300)) {
    fail(ErrorCategory::invalid_input, "GPU chemistry: chemistry step ", duration,
         " s must be positive and finite");
  }
  const std::int64_t cells = s.cells;
  s.start.record(*s.stream);
  if (cells > 0) {
    const GpuChemistryStrategy strategy = strategy_for(cells);
    const CellLayoutKind layout = s.settings.layout;
    if (strategy == GpuChemistryStrategy::thread_per_cell && s.work.empty()) {
      s.work = DeviceArray<double>(
          static_cast<std::size_t>(storage_size(layout, s.prepared.work_width(), cells)),
          *s.stream);
      s.rate_constants = DeviceArray<double>(
          static_cast<std::size_t>(storage_size(layout, s.host_view.reaction_count, cells)),
          *s.stream);
    }
    const CellStorage storage = s.storage();
    if (strategy == GpuChemistryStrategy::thread_per_cell) {
      const int threads = s.settings.threads_per_block;
      with_layout(layout, [&](auto l) {
        cuda_detail::integrate_thread_per_cell<decltype(l)>
            <<<grid_for(cells, threads), threads, 0, native(*s.stream)>>>(
                s.device_view, s.prepared.tableau, s.prepared.control, s.device_checks, storage,
                duration);
      });
      FOEHN_CUDA_CHECK_LAUNCH("chemistry integrate_thread_per_cell");
    } else {
      const std::size_t shared = s.warp_shared_bytes();
      with_layout(layout, [&](auto l) {
        auto kernel = cuda_detail::integrate_warp_per_cell<decltype(l)>;
        FOEHN_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(shared)));
        kernel<<<static_cast<unsigned>(cells), 32, shared, native(*s.stream)>>>(
            s.device_view, s.lists, s.prepared.tableau, s.prepared.control, s.device_checks,
            storage, duration);
      });
      FOEHN_CUDA_CHECK_LAUNCH("chemistry integrate_warp_per_cell");
    }
    s.statistics.copy_to_host_async(
        std::span<CellStatistics>(s.host_statistics.data(), s.host_statistics.size()), *s.stream);
  }
  s.stop.record(*s.stream);
  s.timings.advance_ms = elapsed_ms(s.start, s.stop);
  ChemistryStepReport report =
      summarize(s.host_statistics.data(), cells, 0, s.prepared.compiled.species_order.data());
  if (s.prepared.throw_on_failure) throw_if_failed(report, "GPU");
  return report;
}

void CudaChemistrySolver::reset_steps() {
  impl_->statistics.fill_bytes_async(0, *impl_->stream);
  impl_->stream->synchronize();
}

void CudaChemistrySolver::set_next_steps(std::span<const double> steps) {
  Impl& s = *impl_;
  if (static_cast<std::int64_t>(steps.size()) != s.cells) {
    fail(ErrorCategory::invalid_input, "GPU chemistry: ", steps.size(), " next steps for ", s.cells,
         " device cells");
  }
  for (std::size_t c = 0; c < steps.size(); ++c) {
    s.host_statistics[c] = CellStatistics{};
    s.host_statistics[c].next_step = steps[c];
  }
  s.statistics.copy_from_host_async(
      std::span<const CellStatistics>(s.host_statistics.data(), s.host_statistics.size()),
      *s.stream);
  s.stream->synchronize();
}

void CudaChemistrySolver::download(ChemistryBatch& batch, std::int64_t first) {
  Impl& s = *impl_;
  const int n = s.host_view.species_count;
  if (first < 0 || first + s.cells > batch.cell_count ||
      batch.concentrations.size() != static_cast<std::size_t>(batch.cell_count) * n) {
    fail(ErrorCategory::invalid_input, "GPU chemistry: download of ", s.cells, " cells at ", first,
         " does not fit the batch of ", batch.cell_count, " cells x ", n, " species");
  }
  s.start.record(*s.stream);
  if (s.cells > 0) {
    with_layout(s.settings.layout, [&](auto layout) {
      cuda_detail::gather_from_layout<decltype(layout)>
          <<<grid_for(s.cells, conversion_threads), conversion_threads, 0, native(*s.stream)>>>(
              s.concentrations.data(), n, s.species_order.data(), s.cells, n,
              s.raw_concentrations.data());
    });
    FOEHN_CUDA_CHECK_LAUNCH("chemistry gather_from_layout");
    s.raw_concentrations.copy_to_host_async(
        std::span<double>(batch.concentrations.data() + static_cast<std::size_t>(first) * n,
                          static_cast<std::size_t>(s.cells) * n),
        *s.stream);
  }
  s.stop.record(*s.stream);
  s.timings.download_ms = elapsed_ms(s.start, s.stop);
}

ChemistryStepReport CudaChemistrySolver::solve(ChemistryBatch& batch, double duration) {
  const bool throw_on_failure = impl_->prepared.throw_on_failure;
  impl_->prepared.throw_on_failure =
      false;  // download first, so the batch holds where cells stopped
  upload(batch);
  ChemistryStepReport report;
  try {
    report = advance(duration);
  } catch (...) {
    impl_->prepared.throw_on_failure = throw_on_failure;
    throw;
  }
  impl_->prepared.throw_on_failure = throw_on_failure;
  download(batch);
  if (throw_on_failure) throw_if_failed(report, "GPU", impl_->prepared.mechanism, batch);
  return report;
}

double CudaChemistrySolver::factor_matrices(double* device_matrices, std::int64_t count) {
  Impl& s = *impl_;
  const int threads = s.settings.threads_per_block;
  s.start.record(*s.stream);
  if (strategy_for(count) == GpuChemistryStrategy::thread_per_cell) {
    with_layout(s.settings.layout, [&](auto l) {
      cuda_detail::factor_batch<decltype(l)>
          <<<grid_for(count, threads), threads, 0, native(*s.stream)>>>(s.device_view,
                                                                        device_matrices, count);
    });
    FOEHN_CUDA_CHECK_LAUNCH("chemistry factor_batch");
  } else {
    const int warps = cuda_detail::factor_warps_per_block;
    const std::size_t shared =
        static_cast<std::size_t>(warps) * s.host_view.nonzero_count * sizeof(double);
    with_layout(s.settings.layout, [&](auto l) {
      auto kernel = cuda_detail::factor_batch_by_warps<decltype(l)>;
      FOEHN_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared)));
      kernel<<<grid_for(count, warps), 32 * warps, shared, native(*s.stream)>>>(
          s.device_view, s.lists, device_matrices, count);
    });
    FOEHN_CUDA_CHECK_LAUNCH("chemistry factor_batch_by_warps");
  }
  s.stop.record(*s.stream);
  return elapsed_ms(s.start, s.stop);
}

}  // namespace foehn::chemistry
