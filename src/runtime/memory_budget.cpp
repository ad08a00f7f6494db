#include "foehn/runtime/memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "foehn/runtime/error.hpp"

namespace foehn {

namespace {

// MemAvailable of /proc/meminfo, or the physical memory where that is not readable.
double machine_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    // "MemAvailable:   61234567 kB"
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    double kib = 0.0;
    if (fields >> kib && kib > 0.0) return kib * 1024.0;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<double>(pages) * static_cast<double>(page_size)
                                    : INFINITY;
}

// A container's or batch job's limit (cgroup v2), which /proc/meminfo does not show.
double cgroup_remaining_bytes() {
  std::ifstream max_file("/sys/fs/cgroup/memory.max"),
      current_file("/sys/fs/cgroup/memory.current");
  std::string max_text;
  double current = 0.0;
  if (!(max_file >> max_text) || max_text == "max") return INFINITY;
  if (!(current_file >> current)) current = 0.0;
  try {
    return std::max(0.0, std::stod(max_text) - current);
  } catch (const std::exception&) {
    return INFINITY;
  }
}

// FOEHN_MAX_MEMORY: bytes, or with a binary suffix k, M, G or T ("64G").
double configured_limit_bytes() {
  const char* text = std::getenv("FOEHN_MAX_MEMORY");
  if (text == nullptr || *text == '\0') return INFINITY;
  char* end = nullptr;
  double value = std::strtod(text, &end);
  const std::string suffix(end);
  const double scale = suffix.empty()                   ? 1.0
                       : suffix == "k" || suffix == "K" ? 1024.0
                       : suffix == "M"                  ? 1024.0 * 1024.0
                       : suffix == "G"                  ? 1024.0 * 1024.0 * 1024.0
                       : suffix == "T"                  ? 1024.0 * 1024.0 * 1024.0 * 1024.0
                                                        : -1.0;
  if (end == text || !(value > 0.0) || !std::isfinite(value) || scale < 0.0)
    fail(ErrorCategory::invalid_input, "FOEHN_MAX_MEMORY '", text,
         "': expected a positive number of bytes, optionally with k, M, G or T");
  return value * scale;
}

}  // namespace

double available_host_memory_bytes() {
  return std::min({machine_available_bytes(), cgroup_remaining_bytes(), configured_limit_bytes()});
}

std::string format_memory_size(double bytes) {
  const char* units[] = {"B", "kiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 6) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[64];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

void check_host_memory(std::string_view request, double bytes) {
  const double available = available_host_memory_bytes();
  if (!(bytes <= available))  // also refuses NaN
    fail(ErrorCategory::invalid_input, request, " would need ", format_memory_size(bytes),
         " of host memory, more than the ", format_memory_size(available), " available");
}

void check_device_memory(std::string_view request, double bytes, std::size_t free_bytes) {
  if (!(bytes <= static_cast<double>(free_bytes)))
    fail(ErrorCategory::invalid_input, request, " would need ", format_memory_size(bytes),
         " of GPU memory, more than the ", format_memory_size(static_cast<double>(free_bytes)),
         " free on the device");
}

}  // namespace foehn
