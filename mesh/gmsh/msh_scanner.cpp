#include "msh_scanner.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <system_error>

namespace foehn::gmsh_detail {

std::string load_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    fail(ErrorCategory::io, "cannot open Gmsh file '", path.string(), "': no such file");
  }
  if (std::filesystem::is_directory(status)) {
    fail(ErrorCategory::io, "cannot read Gmsh file '", path.string(), "': it is a folder");
  }
  // Opening a FIFO blocks until something writes into it; a device reads without end.
  if (!std::filesystem::is_regular_file(status)) {
    fail(ErrorCategory::io, "cannot read Gmsh file '", path.string(),
         "': not a regular file (a FIFO, socket or device)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fail(ErrorCategory::io, "cannot open Gmsh file '", path.string(), "': ", std::strerror(errno));
  }
  // Size from the open stream rather than the file system, so a file that is not a regular
  // file (a pipe) fails cleanly below instead of being misread.
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0)
    fail(ErrorCategory::io, "cannot read Gmsh file '", path.string(), "': not seekable");
  in.seekg(0, std::ios::beg);
  std::string data(static_cast<std::size_t>(size), '\0');
  if (size > 0 && !in.read(data.data(), size)) {
    fail(ErrorCategory::io, "cannot read Gmsh file '", path.string(), "': read failed after ",
         in.gcount(), " of ", size, " bytes");
  }
  return data;
}

std::string printable(std::string_view text, std::size_t max_length) {
  std::string out;
  const std::size_t shown = std::min(text.size(), max_length);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (shown < text.size()) out += "...";
  return out;
}

std::string MshScanner::location(std::size_t pos) const {
  pos = std::min(pos, data_.size());
  std::string where;
  if (binary_) {
    where = "byte offset " + std::to_string(pos);
  } else {
    // Counted only when a message is built, so parsing never tracks lines.
    const auto line =
        1 + std::count(data_.begin(), data_.begin() + static_cast<std::ptrdiff_t>(pos), '\n');
    where = "line " + std::to_string(line);
  }
  if (pos == data_.size()) where += " (end of file)";
  return where;
}

void MshScanner::fail_truncated(std::string_view expected) const {
  fail_at(data_.size(), "expected ", expected, " but the file ends: it is truncated");
}

void MshScanner::fail_not_a_number(std::string_view token, std::string_view what,
                                   std::string_view expected_kind) const {
  if (token.empty()) fail_truncated(what);
  if (token.front() == '$') {
    // A section marker where data should be: the header's count promised more entries.
    fail_at(token_start_, "expected ", what, " but found '", printable(token),
            "': the section has fewer entries than its header announces");
  }
  fail_at(token_start_, "expected ", what, " (", expected_kind, ") but found '", printable(token),
          "'");
}

namespace {
// from_chars does not take a leading '+', which some writers emit.
std::string_view strip_plus(std::string_view token) {
  if (token.size() > 1 && token.front() == '+' && token[1] != '-') token.remove_prefix(1);
  return token;
}
}  // namespace

std::int64_t MshScanner::read_int(std::string_view what, std::int64_t min, std::int64_t max) {
  const std::string_view token = next_token();
  const std::string_view digits = strip_plus(token);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (token.empty() || end != digits.data() + digits.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    fail_not_a_number(token, what, "an integer");
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    fail_at(token_start_, what, " ", printable(token), " is out of range [", min, ", ", max, "]");
  }
  return value;
}

std::uint64_t MshScanner::read_size(std::string_view what) {
  const std::string_view token = next_token();
  const std::string_view digits = strip_plus(token);
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (token.empty() || end != digits.data() + digits.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    fail_not_a_number(token, what, "a non-negative integer");
  }
  if (ec == std::errc::result_out_of_range) {
    fail_at(token_start_, what, " ", printable(token), " is too large");
  }
  return value;
}

double MshScanner::read_double(std::string_view what, bool require_finite) {
  const std::string_view token = next_token();
  const std::string_view digits = strip_plus(token);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (token.empty() || end != digits.data() + digits.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    fail_not_a_number(token, what, "a number");
  }
  if (require_finite && (ec == std::errc::result_out_of_range || !std::isfinite(value))) {
    fail_at(token_start_, what, " is '", printable(token), "': coordinates must be finite");
  }
  return value;
}

double MshScanner::read_f64(std::string_view what, bool require_finite) {
  const std::size_t start = pos_;
  const double value = read_raw<double>(what);
  if (require_finite && !std::isfinite(value)) {
    fail_at(start, what, " is ", value, ": coordinates must be finite");
  }
  return value;
}

void MshScanner::expect_token(std::string_view expected) {
  const std::string_view token = next_token();
  // "$EndEleme" at the very end: the file was cut inside the marker.
  if (token.empty() || (token != expected && pos_ == data_.size() && expected.starts_with(token))) {
    fail_truncated(expected);
  }
  if (token != expected) {
    if (!token.empty() && token.front() != '$') {
      fail_at(token_start_, "expected ", expected, " but found '", printable(token),
              "': the section has more entries than its header announces, or is corrupt");
    }
    fail_at(token_start_, "expected ", expected, " but found '", printable(token), "'");
  }
}

void MshScanner::skip_line_end() {
  while (pos_ < data_.size() &&
         (data_[pos_] == ' ' || data_[pos_] == '\t' || data_[pos_] == '\r')) {
    ++pos_;
  }
  if (pos_ >= data_.size()) fail_truncated("the end of the line before binary data");
  if (data_[pos_] != '\n') {
    fail_at(pos_, "expected the end of the line before binary data, found '",
            printable(std::string_view(data_).substr(pos_, 8)), "'");
  }
  ++pos_;
}

void MshScanner::skip_section(std::string_view name) {
  const std::string end_marker = "$End" + std::string(name);
  // Markers start a line; searching for "\n$End..." avoids matching inside a longer name.
  std::size_t at = pos_;
  while (true) {
    at = data_.find(end_marker, at);
    if (at == std::string::npos) fail_truncated(end_marker);
    const bool starts_line = at == 0 || data_[at - 1] == '\n' || data_[at - 1] == '\r';
    const std::size_t after = at + end_marker.size();
    const bool ends_token = after == data_.size() || is_space(data_[after]);
    if (starts_line && ends_token) break;
    at = after;
  }
  pos_ = at + end_marker.size();
}

void MshScanner::check_count(std::uint64_t count, std::size_t min_bytes_each, std::string_view what,
                             std::size_t count_pos) const {
  const std::uint64_t fits = remaining() / std::max<std::size_t>(min_bytes_each, 1);
  if (count > fits) {
    fail_at(count_pos, "the header announces ", count, " ", what, ", but only ", remaining(),
            " bytes remain in the file (at least ", min_bytes_each,
            " per entry): the count is corrupt or the file is truncated");
  }
}

}  // namespace foehn::gmsh_detail
