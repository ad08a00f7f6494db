// write_pvd: the ParaView collection file that lists one dataset per output time.

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "foehn/mesh/vtk_io.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/xml_text.hpp"

namespace foehn {

namespace {

// Shortest text that reads back as the same double, so ParaView's time steps are exact.
std::string shortest(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace

void write_pvd(const std::filesystem::path& path,
               const std::vector<std::pair<double, std::string>>& time_and_file) {
  for (const auto& [time, file] : time_and_file) {
    if (!std::isfinite(time)) {
      fail(ErrorCategory::invalid_input, "cannot write '", path.string(), "': time ", time, " of '",
           file, "' is not finite");
    }
    if (file.empty()) {
      fail(ErrorCategory::invalid_input, "cannot write '", path.string(),
           "': empty file name at time ", time);
    }
  }
  AtomicOutputFile output(path);
  std::ofstream& out = output.stream();
  out << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      << "  <Collection>\n";
  for (const auto& [time, file] : time_and_file) {
    out << "    <DataSet timestep=\"" << shortest(time) << "\" group=\"\" part=\"0\" file=\""
        << xml_escaped(file) << "\"/>\n";
  }
  out << "  </Collection>\n"
      << "</VTKFile>\n";
  output.commit();
}

}  // namespace foehn
