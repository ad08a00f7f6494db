#include "io/timing_table.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "foehn/runtime/error.hpp"

namespace foehn::mountainwave {

namespace {

struct PhaseName {
  std::string_view key;
  std::string_view label;
};

// In TimedPhase order; the labels of the first six and of the PETSc total are Table 10's.
constexpr std::array<PhaseName, timed_phase_count> phase_names{{
    {"temperature_matrix", "Temperature Matrix"},
    {"water_vapor_matrix", "WaterVapor Matrix"},
    {"cloud_water_matrix", "CloudWater Matrix"},
    {"rain_water_matrix", "RainWater Matrix"},
    {"momentum_matrix", "Momentum Matrix"},
    {"pressure_correction_matrix", "Pressure Correction Matrix"},
    {"divergence_matrix", "Divergence Matrix"},
    {"stabilisation_matrix", "Stabilisation Matrix"},
    {"projection_matrix", "Projection Matrix"},
    {"petsc_setup", "PETSc Setup"},
    {"petsc_solve", "PETSc Solver"},
}};

constexpr int first_petsc_phase = static_cast<int>(TimedPhase::petsc_setup);

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Shortest round-trip form; JSON has no NaN or infinity, so those become null.
std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// Four significant digits like the paper (2.467, 0.0226, 5.6045 -> 5.605).
std::string seconds_text(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, (value != 0.0 && std::abs(value) < 1e-4) ? "%.3e" : "%.4g",
                value);
  return buffer;
}

}  // namespace

std::string_view key_of(TimedPhase phase) noexcept {
  return phase_names[static_cast<std::size_t>(phase)].key;
}

std::string_view label_of(TimedPhase phase) noexcept {
  return phase_names[static_cast<std::size_t>(phase)].label;
}

void StepTimings::add(TimedPhase phase, double seconds) {
  const int index = static_cast<int>(phase);
  if (index < 0 || index >= timed_phase_count)
    fail(ErrorCategory::invalid_input, "StepTimings::add: phase ", index, " out of range");
  if (!std::isfinite(seconds) || seconds < 0.0)
    fail(ErrorCategory::invalid_input, "StepTimings::add: ", seconds, " s for ", label_of(phase));
  current_[static_cast<std::size_t>(index)] += seconds;
}

void StepTimings::finish_step(double step_seconds) {
  if (!std::isfinite(step_seconds) || step_seconds < 0.0)
    fail(ErrorCategory::invalid_input, "StepTimings::finish_step: ", step_seconds, " s");
  for (std::size_t p = 0; p < current_.size(); ++p) {
    totals_[p] += current_[p];
    current_[p] = 0.0;
  }
  step_seconds_ += step_seconds;
  ++steps_;
}

void StepTimings::reset() noexcept {
  current_.fill(0.0);
  totals_.fill(0.0);
  step_seconds_ = 0.0;
  steps_ = 0;
}

double StepTimings::total_seconds(TimedPhase phase) const noexcept {
  return totals_[static_cast<std::size_t>(phase)];
}

double StepTimings::other_seconds() const noexcept {
  double timed = 0.0;
  for (const double t : totals_) timed += t;
  return step_seconds_ - timed;
}

TimingTable StepTimings::table(std::string label) const {
  return make_timing_table(std::move(label), steps_, 1, totals_, other_seconds(), step_seconds_);
}

TimingTable make_timing_table(std::string label, std::int64_t steps, int ranks,
                              const std::array<double, timed_phase_count>& phase_seconds,
                              double other_seconds, double step_seconds) {
  TimingTable table;
  table.label = std::move(label);
  table.steps = steps;
  table.ranks = ranks;
  const double per_step = steps > 0 ? 1.0 / static_cast<double>(steps) : 0.0;
  const double total = step_seconds * per_step;
  const auto add = [&](std::string_view key, std::string_view row_label, double seconds,
                       bool part) {
    const double mean = seconds * per_step;
    table.rows.push_back({std::string(key), std::string(row_label), mean,
                          total > 0.0 ? 100.0 * mean / total : 0.0, part});
  };
  for (int p = 0; p < first_petsc_phase; ++p)
    add(phase_names[static_cast<std::size_t>(p)].key,
        phase_names[static_cast<std::size_t>(p)].label, phase_seconds[static_cast<std::size_t>(p)],
        false);
  const double setup = phase_seconds[static_cast<std::size_t>(TimedPhase::petsc_setup)];
  const double solve = phase_seconds[static_cast<std::size_t>(TimedPhase::petsc_solve)];
  add("petsc_total", "Total PETSc (Setup + Solver)", setup + solve, false);
  add(key_of(TimedPhase::petsc_setup), label_of(TimedPhase::petsc_setup), setup, true);
  add(key_of(TimedPhase::petsc_solve), label_of(TimedPhase::petsc_solve), solve, true);
  add("other", "Other unaccelerated modules", other_seconds, false);
  add("total", "Total timestep duration", step_seconds, false);
  return table;
}

const TimingRow& TimingTable::row(std::string_view key) const {
  for (const TimingRow& r : rows)
    if (r.key == key) return r;
  fail(ErrorCategory::internal, "TimingTable: no row '", key, "'");
}

std::string TimingTable::markdown() const {
  std::string text =
      "Mean time per timestep over " + std::to_string(steps) + " step" + (steps == 1 ? "" : "s");
  if (ranks > 1) text += ", " + std::to_string(ranks) + " MPI ranks (each row: the slowest rank)";
  text += ".\n\n| Functional module | " + (label.empty() ? std::string() : label + " ") +
          "Time (s) | Percentage |\n|---|---:|---:|\n";
  for (const TimingRow& r : rows) {
    char percentage[32];
    std::snprintf(percentage, sizeof percentage, "%.2f%%", r.percentage);
    const std::string name = r.part_of_previous ? "&emsp;of which " + r.label : r.label;
    text += "| " + name + " | " + seconds_text(r.seconds_per_step) + " | " + percentage + " |\n";
  }
  return text;
}

std::string TimingTable::json() const {
  std::string text = "{\n  \"label\": " + json_string(label) +
                     ",\n  \"steps\": " + std::to_string(steps) +
                     ",\n  \"ranks\": " + std::to_string(ranks) +
                     ",\n  \"reduction\": \"max over ranks\",\n  \"unit\": \"seconds per step\"" +
                     ",\n  \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const TimingRow& r = rows[i];
    text += "    {\"key\": " + json_string(r.key) + ", \"label\": " + json_string(r.label) +
            ", \"seconds_per_step\": " + json_number(r.seconds_per_step) +
            ", \"percentage\": " + json_number(r.percentage);
    if (r.part_of_previous) text += ", \"part_of\": \"petsc_total\"";
    text += i + 1 < rows.size() ? "},\n" : "}\n";
  }
  return text + "  ]\n}\n";
}

}  // namespace foehn::mountainwave
