#include "bench_results.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>

#include "foehn/runtime/atomic_file.hpp"

#ifndef FOEHN_BENCH_SOURCE_DIR
#define FOEHN_BENCH_SOURCE_DIR "."
#endif
#ifndef FOEHN_BENCH_CONFIGURE_COMMIT
#define FOEHN_BENCH_CONFIGURE_COMMIT "unknown"
#endif

namespace foehn::bench {

namespace {

// Six significant digits: enough for timings and ratios, short enough to diff by eye.
// Non-finite values have no JSON spelling and become null.
std::string number(double value, int digits = 6) {
  if (!std::isfinite(value)) return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

// Tables are read by people: three or four significant digits are all a timing carries.
std::string short_number(double value) {
  return std::isfinite(value) ? number(value, 4) : "–";
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(ch));
          out += buffer;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

// Runs a shell command and returns its first output line (empty on any failure).
std::string first_line_of(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return {};
  char buffer[256];
  std::string line;
  if (std::fgets(buffer, sizeof buffer, pipe.get())) line = buffer;
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

std::string utc_date(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, format, &parts);
  return buffer;
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

}  // namespace

BenchReport make_report(std::string area, std::string device, int argc, char** argv) {
  BenchReport report;
  report.area = std::move(area);
  report.device = std::move(device);
  report.commit = git_commit();
  report.command = command_line(argc, argv);
  report.date = today_iso();
  return report;
}

void derive_bandwidths(BenchCase& c, std::optional<double> copy_bandwidth_gbs) {
  if (!c.model_bytes || c.time_ms <= 0.0) return;
  c.achieved_gbs = *c.model_bytes / (c.time_ms * 1e-3) / 1e9;
  if (copy_bandwidth_gbs && *copy_bandwidth_gbs > 0.0)
    c.fraction_of_copy_bw = *c.achieved_gbs / *copy_bandwidth_gbs;
}

std::optional<double> find_time_ms(const BenchReport& report, std::string_view name,
                                   std::string_view variant, std::string_view ordering) {
  for (const BenchCase& c : report.cases)
    if (c.name == name && c.variant == variant && c.ordering == ordering) return c.time_ms;
  return std::nullopt;
}

std::string to_json(const BenchReport& report) {
  std::ostringstream out;
  out << "{\n  \"area\": " << json_string(report.area)
      << ",\n  \"device\": " << json_string(report.device)
      << ",\n  \"commit\": " << json_string(report.commit)
      << ",\n  \"command\": " << json_string(report.command)
      << ",\n  \"date\": " << json_string(report.date);
  if (report.copy_bandwidth_gbs)
    out << ",\n  \"copy_bandwidth_gbs\": " << number(*report.copy_bandwidth_gbs);
  out << ",\n  \"cases\": [";
  for (std::size_t i = 0; i < report.cases.size(); ++i) {
    const BenchCase& c = report.cases[i];
    out << (i ? ",\n" : "\n") << "    {\"name\": " << json_string(c.name)
        << ", \"size\": " << c.size << ", \"size_unit\": " << json_string(c.size_unit)
        << ", \"variant\": " << json_string(c.variant);
    if (!c.ordering.empty()) out << ", \"ordering\": " << json_string(c.ordering);
    out << ",\n     \"time_ms\": " << number(c.time_ms) << ", \"repeats\": " << c.repeats
        << ", \"throughput\": " << number(c.throughput)
        << ", \"throughput_unit\": " << json_string(c.throughput_unit);
    if (c.model_bytes) out << ",\n     \"model_bytes\": " << number(*c.model_bytes);
    if (c.achieved_gbs) out << ", \"achieved_gbs\": " << number(*c.achieved_gbs);
    if (c.fraction_of_copy_bw)
      out << ", \"fraction_of_copy_bw\": " << number(*c.fraction_of_copy_bw);
    if (!c.baseline.empty()) out << ",\n     \"baseline\": " << json_string(c.baseline);
    if (c.speedup_vs_baseline)
      out << ", \"speedup_vs_baseline\": " << number(*c.speedup_vs_baseline);
    if (c.max_rel_error_vs_reference)
      out << ",\n     \"max_rel_error_vs_reference\": " << number(*c.max_rel_error_vs_reference);
    if (c.gpus) out << ",\n     \"gpus\": " << *c.gpus;
    if (c.ranks) out << (c.gpus ? ", " : ",\n     ") << "\"ranks\": " << *c.ranks;
    if (c.published) out << ", \"published\": true";
    out << "}";
  }
  out << "\n  ]\n}\n";
  return out.str();
}

std::string to_markdown(const BenchReport& report) {
  std::ostringstream out;
  const auto opt = [](const std::optional<double>& v) {
    return v ? short_number(*v) : std::string("–");
  };
  out << "# " << report.area << " on " << report.device << "\n\n"
      << "- commit `" << report.commit << "`, " << report.date << "\n"
      << "- command: `" << report.command << "`\n";
  if (report.copy_bandwidth_gbs)
    out << "- copy bandwidth (read + write): " << short_number(*report.copy_bandwidth_gbs)
        << " GB/s\n";
  for (const std::string& note : report.notes) out << "- " << note << "\n";
  out << "\n| case | variant | ordering | size | time ms | throughput | GB/s (model) | "
         "fraction of copy | speedup vs baseline | baseline | max rel error |\n"
      << "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|\n";
  for (const BenchCase& c : report.cases) {
    out << "| " << c.name << " | " << c.variant << (c.published ? " (published)" : "") << " | "
        << (c.ordering.empty() ? "–" : c.ordering) << " | " << c.size << " " << c.size_unit << " | "
        << short_number(c.time_ms) << " | " << short_number(c.throughput) << " "
        << c.throughput_unit << " | " << opt(c.achieved_gbs) << " | " << opt(c.fraction_of_copy_bw)
        << " | "
        << (c.speedup_vs_baseline ? number(*c.speedup_vs_baseline, 3) + "×" : std::string("–"))
        << " | " << (c.baseline.empty() ? "–" : c.baseline) << " | "
        << (c.max_rel_error_vs_reference ? number(*c.max_rel_error_vs_reference, 2) : "–")
        << " |\n";
  }
  return out.str();
}

void write_report(const BenchReport& report, const std::filesystem::path& json_path,
                  const std::filesystem::path& markdown_path) {
  AtomicOutputFile json(json_path);
  json.stream() << to_json(report);
  AtomicOutputFile markdown(markdown_path);
  markdown.stream() << to_markdown(report);
  // Both written before either is renamed into place, so a failure leaves no odd pair.
  json.commit();
  markdown.commit();
}

void write_report(const BenchReport& report, const std::filesystem::path& json_path) {
  std::filesystem::path markdown_path = json_path;
  markdown_path.replace_extension(".md");
  write_report(report, json_path, markdown_path);
  std::printf("wrote %s and %s\n", json_path.c_str(), markdown_path.c_str());
}

std::filesystem::path default_result_path(const std::filesystem::path& results_dir,
                                          std::string_view area, std::string_view device_short) {
  return results_dir /
         (std::string(area) + "-" + std::string(device_short) + "-" + today_compact() + ".json");
}

std::string host_cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string model = line.substr(colon + 1);
    model.erase(0, model.find_first_not_of(" \t"));
    if (!model.empty()) return model;
  }
  return "unknown CPU";
}

std::string device_short_name(std::string_view model) {
  const std::string lower = lowercase(model);
  for (const char* known : {"h200", "h100", "gh200", "a100", "l40s", "v100", "mi300", "mi250",
                            "epyc", "xeon", "ryzen", "threadripper", "neoverse", "apple"})
    if (lower.find(known) != std::string::npos) return known;
  std::istringstream words(lower);
  std::string word;
  while (words >> word) {
    word.erase(std::remove_if(word.begin(), word.end(),
                              [](unsigned char ch) { return !std::isalnum(ch); }),
               word.end());
    if (std::any_of(word.begin(), word.end(), [](unsigned char ch) { return std::isdigit(ch); }))
      return word;
  }
  return "cpu";
}

std::string git_commit() {
  // On a GPU host the checkout is not there and the configure-time commit may be older than
  // the code that was built: the caller can say which commit the bundle holds.
  if (const char* given = std::getenv("FOEHN_BENCH_COMMIT"); given != nullptr && *given != '\0')
    return given;
  const std::string now =
      first_line_of("git -C '" FOEHN_BENCH_SOURCE_DIR "' rev-parse --short HEAD 2>/dev/null");
  if (!now.empty()) return now;
  return FOEHN_BENCH_CONFIGURE_COMMIT;
}

std::string today_iso() {
  return utc_date("%Y-%m-%d");
}
std::string today_compact() {
  return utc_date("%Y%m%d");
}

std::string command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    std::string argument = argv[i];
    if (i == 0) argument = std::filesystem::path(argument).filename().string();
    const bool needs_quotes =
        argument.empty() || argument.find_first_of(" \t'\"$") != std::string::npos;
    if (needs_quotes) {
      std::string escaped = "'";
      for (const char ch : argument)
        escaped += (ch == '\'') ? std::string("'\\''") : std::string(1, ch);
      argument = escaped + "'";
    }
    out += (i ? " " : "") + argument;
  }
  return out;
}

}  // namespace foehn::bench
