#include "step_reports.hpp"

#include <algorithm>
#include <cstdio>

namespace foehn::mountainwave {

void StepBreakdown::add(const StepReport& report, const CudaCallCounts& cuda_calls,
                        const petsc::CommunicationCounts& communication) {
  ++steps_;
  cuda_calls_ += cuda_calls;
  communication_ += communication;
  seconds_[0] += report.times.assembly;
  seconds_[1] += report.times.handoff;
  seconds_[2] += report.times[TimedPhase::petsc_setup];
  seconds_[3] += report.times[TimedPhase::petsc_solve];
  seconds_[4] += report.times.total;
  for (std::size_t k = 0; k < iterations_.size(); ++k) iterations_[k] += report.iterations[k];
}

nlohmann::json StepBreakdown::json(MPI_Comm comm) const {
  std::array<double, 5> largest{};
  MPI_Allreduce(seconds_.data(), largest.data(), 5, MPI_DOUBLE, MPI_MAX, comm);
  const double n = std::max<double>(static_cast<double>(steps_), 1.0);
  nlohmann::json iterations = nlohmann::json::object();
  for (std::size_t k = 0; k < iterations_.size(); ++k)
    iterations[std::string(linear_systems[k].name)] = static_cast<double>(iterations_[k]) / n;
  nlohmann::json calls = cuda_calls_per_step(cuda_calls_, steps_, comm);  // collective
  if (!counting_cuda_calls()) calls = nullptr;
  return {{"steps", steps_},
          {"cuda_calls_per_step", calls},
          {"communication_per_step", communication_per_step(communication_, steps_, comm)},
          {"seconds_per_step",
           {{"assembly", largest[0] / n},
            {"handoff", largest[1] / n},
            {"petsc_setup", largest[2] / n},
            {"petsc_solve", largest[3] / n},
            {"total", largest[4] / n}}},
          {"krylov_iterations_per_step", iterations}};
}

nlohmann::json cuda_calls_per_step(const CudaCallCounts& counts, std::int64_t steps,
                                   MPI_Comm comm) {
  std::array<std::int64_t, 7> largest = {counts.kernel_launches,       counts.graph_launches,
                                         counts.host_synchronizations, counts.copies_to_host,
                                         counts.copies_to_device,      counts.bytes_to_host,
                                         counts.bytes_to_device};
  MPI_Allreduce(MPI_IN_PLACE, largest.data(), 7, MPI_INT64_T, MPI_MAX, comm);
  const double n = std::max<double>(static_cast<double>(steps), 1.0);
  return {{"kernel_launches", static_cast<double>(largest[0]) / n},
          {"graph_launches", static_cast<double>(largest[1]) / n},
          {"host_synchronizations", static_cast<double>(largest[2]) / n},
          {"copies_to_host", static_cast<double>(largest[3]) / n},
          {"copies_to_device", static_cast<double>(largest[4]) / n},
          {"bytes_to_host", static_cast<double>(largest[5]) / n},
          {"bytes_to_device", static_cast<double>(largest[6]) / n}};
}

nlohmann::json communication_per_step(const petsc::CommunicationCounts& counts, std::int64_t steps,
                                      MPI_Comm comm) {
  std::array<std::int64_t, 3> largest = {counts.halo_exchanges, counts.messages, counts.reductions};
  MPI_Allreduce(MPI_IN_PLACE, largest.data(), 3, MPI_INT64_T, MPI_MAX, comm);
  const double n = std::max<double>(static_cast<double>(steps), 1.0);
  return {{"halo_exchanges", static_cast<double>(largest[0]) / n},
          {"messages", static_cast<double>(largest[1]) / n},
          {"reductions", static_cast<double>(largest[2]) / n}};
}

void add_times(StepTimings& timings, const StepTimes& t) {
  for (int phase = 0; phase < timed_phase_count; ++phase)
    timings.add(static_cast<TimedPhase>(phase), t.phases[static_cast<std::size_t>(phase)]);
  timings.finish_step(t.total);
}

nlohmann::json system_report(const std::vector<petsc::SystemTimes>& times, std::int64_t steps,
                             MPI_Comm comm) {
  // Four seconds a system, one MPI_MAX for all.
  std::vector<double> seconds;
  for (const petsc::SystemTimes& t : times)
    seconds.insert(seconds.end(), {t.assembly, t.handoff, t.setup, t.solve});
  MPI_Allreduce(MPI_IN_PLACE, seconds.data(), static_cast<int>(seconds.size()), MPI_DOUBLE, MPI_MAX,
                comm);
  const double n = std::max<double>(static_cast<double>(steps), 1.0);
  const bool counting = counting_cuda_calls();
  nlohmann::json report = nlohmann::json::array();
  for (std::size_t k = 0; k < times.size() && k < linear_system_count; ++k) {
    const petsc::SystemTimes& t = times[k];
    const double* s = &seconds[4 * k];
    nlohmann::json calls = cuda_calls_per_step(t.cuda_calls, steps, comm);  // collective
    if (!counting) calls = nullptr;
    const nlohmann::json communication =
        communication_per_step(t.communication, steps, comm);  // collective
    report.push_back({{"name", linear_systems[k].name},
                      {"prefix", linear_systems[k].prefix},
                      {"assemblies_per_step", static_cast<double>(t.assemblies) / n},
                      {"solves_per_step", static_cast<double>(t.solves) / n},
                      {"krylov_iterations_per_step", static_cast<double>(t.iterations) / n},
                      {"seconds_per_step",
                       {{"assembly", s[0] / n},
                        {"handoff", s[1] / n},
                        {"setup", s[2] / n},
                        {"solve", s[3] / n}}},
                      {"cuda_calls_per_step", calls},
                      {"communication_per_step", communication}});
  }
  return report;
}

std::string system_report_markdown(const nlohmann::json& report, std::int64_t steps) {
  std::string text =
      "Per linear system, mean per step over " + std::to_string(steps) + " step" +
      (steps == 1 ? "" : "s") +
      " (seconds: the slowest rank).\n\n"
      "| System | Assemblies | Solves | Krylov its | Assembly (s) | Hand-off (s) | "
      "PC set-up (s) | Solve (s) | Kernels | Host syncs | Halo exchanges | Reductions |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const nlohmann::json& system : report) {
    const nlohmann::json& s = system["seconds_per_step"];
    const nlohmann::json& calls = system["cuda_calls_per_step"];
    char counts[64] = "| - | - |";  // not counted (-count_cuda_calls)
    if (!calls.is_null())
      std::snprintf(counts, sizeof counts, "| %.0f | %.0f |",
                    calls["kernel_launches"].get<double>(),
                    calls["host_synchronizations"].get<double>());
    const nlohmann::json& communication = system["communication_per_step"];
    char exchanges[64];
    std::snprintf(exchanges, sizeof exchanges, " %.0f | %.0f |",
                  communication["halo_exchanges"].get<double>(),
                  communication["reductions"].get<double>());
    char row[384];
    std::snprintf(
        row, sizeof row, "| %s | %.3g | %.3g | %.4g | %.4g | %.4g | %.4g | %.4g %s%s\n",
        system["name"].get<std::string>().c_str(), system["assemblies_per_step"].get<double>(),
        system["solves_per_step"].get<double>(), system["krylov_iterations_per_step"].get<double>(),
        s["assembly"].get<double>(), s["handoff"].get<double>(), s["setup"].get<double>(),
        s["solve"].get<double>(), counts, exchanges);
    text += row;
  }
  return text;
}

}  // namespace foehn::mountainwave
