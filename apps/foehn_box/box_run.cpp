#include "box_run.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <utility>
#include <vector>

#include "foehn/chemistry/cuda_chemistry.hpp"
#include "foehn/chemistry/split_chemistry.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/memory_budget.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::app {

namespace {

using namespace foehn::chemistry;

// "A, B, C" (at most `limit` names, then "... (N in all)").
template <class Names, class NameOf>
std::string name_list(const Names& names, NameOf name_of, std::size_t limit = 20) {
  std::string list;
  std::size_t count = 0;
  for (const auto& entry : names) {
    if (count == limit) {
      list += ", ... (" + std::to_string(names.size()) + " in all)";
      break;
    }
    list += (count++ == 0 ? "" : ", ") + std::string(name_of(entry));
  }
  return list;
}

bool names_species(const std::vector<NamedValue>& list, const std::string& name) {
  for (const NamedValue& entry : list)
    if (entry.name == name) return true;
  return false;
}

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string species_list(const Mechanism& m) {
  return name_list(m.species, [](const Species& s) -> const std::string& { return s.name; });
}

std::string rate_list(const Mechanism& m) {
  return name_list(m.external_rate_names,
                   [](const std::string& s) -> const std::string& { return s; });
}

class CpuBoxSolver final : public BoxSolver {
 public:
  CpuBoxSolver(const Mechanism& mechanism, const BoxOptions& o)
      : solver_(mechanism, o.solver), threads_(o.threads) {}
  ChemistryStepReport advance(ChemistryBatch& batch, double duration) override {
    return solver_.solve_range(batch, duration, 0, batch.cell_count, threads_);
  }
  std::string describe() const override {
    return threads_ > 0 ? "cpu, " + std::to_string(threads_) + " OpenMP threads"
                        : "cpu, all OpenMP threads";
  }
  const char* failure_name() const override { return "CPU"; }

 private:
  CpuChemistrySolver solver_;
  int threads_ = 0;
};

class CudaBoxSolver final : public BoxSolver {
 public:
  CudaBoxSolver(const Mechanism& mechanism, const BoxOptions& o, const ChemistryBatch& batch)
      : settings_(o.split.gpu), gpu_(mechanism, o.solver, o.split.gpu, stream_) {
    gpu_.upload(batch);  // the cells stay on the device between chemistry steps
  }
  ChemistryStepReport advance(ChemistryBatch&, double duration) override {
    return gpu_.advance(duration);
  }
  void fetch(ChemistryBatch& batch) override { gpu_.download(batch); }
  std::string describe() const override {
    return "cuda, " + std::string(to_string(gpu_.strategy_for(gpu_.cell_count()))) + ", " +
           std::string(to_string(settings_.layout)) + " layout, " +
           std::to_string(settings_.threads_per_block) + " threads per block";
  }
  std::string step_note() const override {
    char note[64];
    std::snprintf(note, sizeof note, "  GPU %.3f ms", gpu_.last_timings().advance_ms);
    return note;
  }
  const char* failure_name() const override { return "GPU"; }

 private:
  CudaChemistrySettings settings_;
  Stream stream_;  // before gpu_: constructed first, destroyed last
  CudaChemistrySolver gpu_;
};

class SplitBoxSolver final : public BoxSolver {
 public:
  SplitBoxSolver(const Mechanism& mechanism, const BoxOptions& o)
      : settings_(o.split), solver_(mechanism, o.solver, o.split, stream_) {}
  ChemistryStepReport advance(ChemistryBatch& batch, double duration) override {
    return solver_.solve(batch, duration);
  }
  std::string describe() const override {
    return "split CPU+GPU (" + std::string(to_string(settings_.gpu.strategy)) + ", " +
           std::string(to_string(settings_.gpu.layout)) + " layout; " +
           (settings_.cpu_threads > 0 ? std::to_string(settings_.cpu_threads)
                                      : std::string("all but one")) +
           " CPU threads; initial GPU share " + std::to_string(settings_.initial_gpu_fraction) +
           ", damping " + std::to_string(settings_.damping) + ")";
  }
  std::string step_note() const override {
    const SplitStepTiming& t = solver_.last_timing();
    char note[160];
    std::snprintf(note, sizeof note,
                  "  GPU fraction %.3f (%lld cells, GPU %.3f s, CPU %.3f s, next %.3f)",
                  t.gpu_fraction, static_cast<long long>(t.gpu_cells), t.gpu_seconds, t.cpu_seconds,
                  t.next_gpu_fraction);
    return note;
  }
  const char* failure_name() const override { return "CPU+GPU"; }

 private:
  SplitSettings settings_;
  Stream stream_;
  SplitChemistrySolver solver_;
};

// The batch (concentrations, external rates, T and P of every cell) and the solvers' per-cell
// statistics grow with -cells: a count the machine cannot hold is refused before allocating.
void check_batch_memory(const Mechanism& mechanism, const BoxOptions& o) {
  const std::size_t species = mechanism.species.size();
  const std::size_t rates = mechanism.external_rate_names.size();
  const double bytes_per_cell =
      sizeof(double) * static_cast<double>(species + rates + 2) + sizeof(CellStatistics);
  check_host_memory(foehn::detail::concat("-cells ", o.cells, " (", bytes_per_cell, " B per cell: ",
                                          species, " species, ", rates, " external rates)"),
                    bytes_per_cell * static_cast<double>(o.cells));
}

}  // namespace

Mechanism load_mechanism(BoxOptions& o) {
  Mechanism mechanism =
      o.mechanism == "synthetic"
          ? make_synthetic_mechanism(o.synthetic_species, o.synthetic_reactions, o.synthetic_seed)
          : read_mechanism(o.mechanism);
  if (o.absolute_tolerance > 0.0)
    o.solver.absolute_tolerance.assign(mechanism.species.size(), o.absolute_tolerance);
  return mechanism;
}

void write_mechanism_file(const Mechanism& mechanism, const BoxOptions& o) {
  const std::filesystem::path path(o.write_mechanism);
  const std::string text = path.extension() != ".json" ? mechanism_to_openatmos_v1_yaml(mechanism)
                           : o.write_mechanism_schema == BoxOptions::MechanismSchema::foehn
                               ? mechanism_to_json(mechanism) + "\n"
                               : mechanism_to_openatmos_v1_json(mechanism) + "\n";
  AtomicOutputFile file(path);
  file.stream() << text;
  file.commit();
}

ChemistryBatch make_initial_batch(const Mechanism& mechanism, const BoxOptions& o) {
  check_batch_memory(mechanism, o);
  if (o.initial_case == InitialCase::synthetic) {
    ChemistryBatch batch = make_synthetic_batch(mechanism, o.cells, o.case_seed);
    validate_batch(mechanism, batch);
    return batch;
  }
  const std::size_t species = mechanism.species.size();
  const std::size_t rates = mechanism.external_rate_names.size();
  std::vector<double> concentrations(species, 0.0), external(rates, 0.0);
  for (const NamedValue& entry : o.concentrations) {
    const int index = mechanism.species_index(entry.name);
    if (index < 0) {
      fail(ErrorCategory::invalid_input, "-concentrations: unknown species '", entry.name,
           "' (mechanism '", mechanism.name, "' has ", species_list(mechanism), ")");
    }
    concentrations[static_cast<std::size_t>(index)] = entry.value;
  }
  for (const NamedValue& entry : o.external_rates) {
    const int index = mechanism.external_rate_index(entry.name);
    if (index < 0) {
      if (rates == 0) {
        fail(ErrorCategory::invalid_input, "-external_rates: unknown external rate '", entry.name,
             "' (mechanism '", mechanism.name,
             "' has no photolysis, first-order loss, emission, user-defined or surface rates)");
      }
      fail(ErrorCategory::invalid_input, "-external_rates: unknown external rate '", entry.name,
           "' (mechanism '", mechanism.name, "' has ", rate_list(mechanism), ")");
    }
    external[static_cast<std::size_t>(index)] = entry.value;
  }
  // A species the file holds constant with a value (MICM's "constant concentration", "constant
  // mixing ratio", "is third body") takes it at the box's T and P, as MICM does, unless
  // -concentrations names it.
  ChemistryBatch conditions = make_batch(mechanism, 1);
  conditions.temperature[0] = o.temperature;
  conditions.pressure[0] = o.pressure;
  set_file_constant_concentrations(mechanism, conditions);
  for (std::size_t i = 0; i < species; ++i) {
    const Species& s = mechanism.species[i];
    if (s.constant && s.constant_source != ConstantSource::user &&
        !names_species(o.concentrations, s.name))
      concentrations[i] = conditions.concentrations[i];
  }
  ChemistryBatch batch = make_batch(mechanism, o.cells);
  for (std::int64_t cell = 0; cell < o.cells; ++cell) {
    const auto c = static_cast<std::size_t>(cell);
    batch.temperature[c] = o.temperature;
    batch.pressure[c] = o.pressure;
    std::copy(concentrations.begin(), concentrations.end(),
              batch.concentrations.begin() + static_cast<std::ptrdiff_t>(c * species));
    std::copy(external.begin(), external.end(),
              batch.external_rates.begin() + static_cast<std::ptrdiff_t>(c * rates));
  }
  validate_batch(mechanism, batch);
  // Every cell is the same: one tells whether a rate constant overflows at these conditions
  // (an error naming the reaction, exit 2, before any step).
  check_rate_constants(mechanism, batch, 0, std::min<std::int64_t>(batch.cell_count, 1));
  return batch;
}

std::string uniform_case_notes(const Mechanism& mechanism, const BoxOptions& o) {
  if (o.initial_case != InitialCase::uniform) return "";
  std::vector<std::string> zero_constant, zero_rates, file_constant;
  const auto& named = names_species;
  for (const Species& s : mechanism.species) {
    if (!s.constant || named(o.concentrations, s.name)) continue;
    if (s.constant_source == ConstantSource::user) {
      zero_constant.push_back(s.name);
    } else {
      const double value =
          file_constant_concentration(s, mechanism.concentration_unit, o.temperature, o.pressure);
      file_constant.push_back(s.name + " " + format_number(value));
    }
  }
  for (const std::string& rate : mechanism.external_rate_names)
    if (!named(o.external_rates, rate)) zero_rates.push_back(rate);
  auto identity = [](const std::string& s) -> const std::string& { return s; };
  std::string notes;
  if (!file_constant.empty())
    notes += "note: constant species at their file's values (" +
             std::string(concentration_unit_name(mechanism.concentration_unit)) +
             ", at -temperature and -pressure; -concentrations overrides): " +
             name_list(file_constant, identity) + "\n";
  if (!zero_constant.empty())
    notes += "note: constant species held at 0 (not in -concentrations): " +
             name_list(zero_constant, identity) + "\n";
  if (!zero_rates.empty())
    notes +=
        "note: external rates at 0 (not in -external_rates): " + name_list(zero_rates, identity) +
        "\n";
  return notes;
}

std::unique_ptr<BoxSolver> make_box_solver(const Mechanism& mechanism, const BoxOptions& o,
                                           ChemistryBatch& batch) {
  switch (o.backend) {
    case BoxBackend::cpu:
      return std::make_unique<CpuBoxSolver>(mechanism, o);
    case BoxBackend::cuda:
      return std::make_unique<CudaBoxSolver>(mechanism, o, batch);
    case BoxBackend::split:
      return std::make_unique<SplitBoxSolver>(mechanism, o);
  }
  fail(ErrorCategory::internal, "foehn-box: unknown backend");
}

CsvOutput::CsvOutput(const std::string& path, const Mechanism& mechanism, std::int64_t cells)
    : file_(path), cells_(cells), species_(mechanism.species.size()) {
  std::ofstream& out = file_.stream();
  out << "time,cell";
  for (const Species& s : mechanism.species) out << ',' << s.name;
  out << '\n';
}

void CsvOutput::write(double time, const ChemistryBatch& batch) {
  std::ofstream& out = file_.stream();
  std::string line;
  char number[32];
  for (std::int64_t cell = 0; cell < cells_; ++cell) {
    std::snprintf(number, sizeof number, "%.17g", time);
    line.assign(number);
    line += ',' + std::to_string(cell);
    const double* y = batch.concentrations.data() + static_cast<std::size_t>(cell) * species_;
    for (std::size_t i = 0; i < species_; ++i) {
      std::snprintf(number, sizeof number, ",%.17g", y[i]);
      line += number;
    }
    line += '\n';
    out << line;
    ++rows_;
  }
  if (!out)
    fail(ErrorCategory::io, "writing '", file_.temporary_path().string(), "' failed (",
         std::strerror(errno), ")");
}

void CsvOutput::commit() {
  file_.commit();
}

}  // namespace foehn::app
