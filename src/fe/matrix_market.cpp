#include "foehn/fe/matrix_market.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {

namespace {

// ---- writing ---------------------------------------------------------------------------------

// Formats into a large buffer and hands it to the stream in chunks: iostream formatting of
// doubles is several times slower than std::to_chars, and a 3x3-block matrix of the default
// mesh has about 13 million entries.
class TextSink {
 public:
  explicit TextSink(std::ofstream& out) : out_(out) { buffer_.reserve(chunk + 256); }

  void text(std::string_view s) {
    buffer_.append(s);
    maybe_flush();
  }
  void integer(std::int64_t value) {
    std::array<char, 24> digits;
    const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), value);
    buffer_.append(digits.data(), result.ptr);
  }
  // 17 significant digits: the shortest fixed count that identifies every double exactly.
  void real(double value) {
    std::array<char, 32> digits;
    const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), value,
                                      std::chars_format::general, 17);
    buffer_.append(digits.data(), result.ptr);
  }
  void end_line() {
    buffer_.push_back('\n');
    maybe_flush();
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

 private:
  static constexpr std::size_t chunk = std::size_t{1} << 20;
  void maybe_flush() {
    if (buffer_.size() >= chunk) flush();
  }
  std::ofstream& out_;
  std::string buffer_;
};

void write_header(TextSink& sink, std::string_view banner, std::string_view comment) {
  sink.text(banner);
  sink.end_line();
  while (!comment.empty()) {
    const std::size_t end = std::min(comment.find('\n'), comment.size());
    sink.text("% ");
    sink.text(comment.substr(0, end));
    sink.end_line();
    comment.remove_prefix(std::min(end + 1, comment.size()));
  }
}

void check_point_csr(const PointCsr& m) {
  const auto nnz = static_cast<std::int64_t>(m.values.size());
  if (m.rows < 0 || m.cols < 0 || static_cast<std::int64_t>(m.row_offsets.size()) != m.rows + 1 ||
      m.row_offsets.front() != 0 || m.row_offsets.back() != nnz ||
      m.column_indices.size() != m.values.size())
    fail(ErrorCategory::invalid_input, "write_matrix_market: inconsistent matrix (", m.rows, " x ",
         m.cols, ", ", m.row_offsets.size(), " row offsets, ", m.column_indices.size(),
         " column indices, ", m.values.size(), " values)");
  for (std::int64_t i = 0; i < m.rows; ++i)
    if (m.row_offsets[i + 1] < m.row_offsets[i])
      fail(ErrorCategory::invalid_input, "write_matrix_market: row offsets decrease at row ", i);
  for (std::int32_t c : m.column_indices)
    if (c < 0 || c >= m.cols)
      fail(ErrorCategory::invalid_input, "write_matrix_market: column index ", c,
           " out of range for ", m.cols, " columns");
}

void finish(AtomicOutputFile& file, TextSink& sink) {
  sink.flush();
  if (!file.stream())
    fail(ErrorCategory::io, "writing '", file.destination().string(), "' failed (disk full?)");
  file.commit();
}

// ---- reading ---------------------------------------------------------------------------------

std::string load_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    fail(ErrorCategory::io, "cannot read MatrixMarket file '", path.string(), "': it is a folder");
  // Opening a FIFO blocks until something writes into it; a device reads without end.
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    fail(ErrorCategory::io, "cannot read MatrixMarket file '", path.string(),
         "': not a regular file (a FIFO, socket or device)");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(ErrorCategory::io, "cannot open MatrixMarket file '", path.string(), "'");
  // One read of the known size: character-wise stream iteration is slower than the parsing.
  const std::streamoff size = in.tellg();
  if (size < 0) fail(ErrorCategory::io, "cannot read MatrixMarket file '", path.string(), "'");
  std::string data(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(data.data(), size))
    fail(ErrorCategory::io, "reading MatrixMarket file '", path.string(), "' failed");
  return data;
}

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The file as lines, with the current line number for messages.
class LineReader {
 public:
  LineReader(std::filesystem::path path, std::string data)
      : path_(std::move(path)), data_(std::move(data)) {}

  // Next line without its end ('\n' or "\r\n"); false at the end of the file.
  bool next(std::string_view& line) {
    if (pos_ >= data_.size()) return false;
    const std::size_t end = std::min(data_.find('\n', pos_), data_.size());
    line = std::string_view(data_).substr(pos_, end - pos_);
    pos_ = end + 1;
    ++line_number_;
    return true;
  }
  // Next line that is neither blank nor a '%' comment.
  bool next_content(std::string_view& line) {
    while (next(line)) {
      const std::size_t first = first_non_blank(line);
      if (first < line.size() && line[first] != '%') return true;
    }
    return false;
  }
  std::int64_t line_number() const noexcept { return line_number_; }

  template <typename... Parts>
  [[noreturn]] void fail_at(std::int64_t line, Parts&&... parts) const {
    fail(ErrorCategory::invalid_input, path_.string(), ":", line, ": ",
         std::forward<Parts>(parts)...);
  }
  template <typename... Parts>
  [[noreturn]] void fail_here(Parts&&... parts) const {
    fail_at(line_number_, std::forward<Parts>(parts)...);
  }

  static std::size_t first_non_blank(std::string_view line) {
    std::size_t k = 0;
    while (k < line.size() && is_blank(line[k])) ++k;
    return k;
  }

 private:
  std::filesystem::path path_;
  std::string data_;
  std::size_t pos_ = 0;
  std::int64_t line_number_ = 0;
};

// Splits a line into exactly `count` whitespace-separated tokens.
template <std::size_t count>
std::array<std::string_view, count> split(const LineReader& reader, std::string_view line,
                                          std::string_view expected) {
  std::array<std::string_view, count> tokens;
  std::size_t found = 0, k = 0;
  while (true) {
    while (k < line.size() && is_blank(line[k])) ++k;
    if (k == line.size()) break;
    const std::size_t start = k;
    while (k < line.size() && !is_blank(line[k])) ++k;
    if (found == count)
      reader.fail_here("expected ", expected, ", found extra text '", line.substr(start, k - start),
                       "'");
    tokens[found++] = line.substr(start, k - start);
  }
  if (found != count) reader.fail_here("expected ", expected, ", found ", found, " item(s)");
  return tokens;
}

std::int64_t parse_integer(const LineReader& reader, std::string_view token, std::string_view what,
                           std::int64_t min, std::int64_t max) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size())
    reader.fail_here(what, " '", token, "' is not an integer");
  if (value < min || value > max)
    reader.fail_here(what, " ", value, " is out of range ", min, "..", max);
  return value;
}

double parse_real(const LineReader& reader, std::string_view token) {
  // from_chars rejects the '+' that some writers (C's %+e) put in front.
  std::string_view digits = token;
  if (digits.size() > 1 && digits.front() == '+') digits.remove_prefix(1);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range)
    reader.fail_here("value '", token, "' is out of the range of double");
  if (ec != std::errc() || end != digits.data() + digits.size())
    reader.fail_here("value '", token, "' is not a number");
  return value;
}

struct Banner {
  std::string format, field, symmetry;
};

// "%%MatrixMarket matrix <format> <field> <symmetry>"; keywords are case-insensitive.
Banner read_banner(LineReader& reader, std::string_view expected_format) {
  std::string_view line;
  const std::string want =
      std::string("'%%MatrixMarket matrix ") + std::string(expected_format) + " real general'";
  if (!reader.next(line)) reader.fail_at(1, "empty file, expected the banner ", want);
  std::array<std::string_view, 5> t;
  if (line.rfind("%%MatrixMarket", 0) != 0)
    reader.fail_here("not a MatrixMarket file: the first line should be ", want);
  t = split<5>(reader, line, "the banner " + want);
  if (lowercase(t[1]) != "matrix")
    reader.fail_here("object '", t[1], "' is not supported (only 'matrix')");
  Banner banner{lowercase(t[2]), lowercase(t[3]), lowercase(t[4])};
  if (banner.format != expected_format)
    reader.fail_here("format '", t[2], "' where '", expected_format, "' was expected",
                     expected_format == "coordinate"
                         ? " (use read_matrix_market_vector for arrays)"
                         : " (use read_matrix_market for sparse files)");
  if (banner.field != "real" && banner.field != "integer")
    reader.fail_here("field '", t[3], "' is not supported (real or integer)");
  const bool symmetric_allowed = expected_format == "coordinate";
  if (banner.symmetry != "general" && !(symmetric_allowed && banner.symmetry == "symmetric"))
    reader.fail_here("symmetry '", t[4], "' is not supported (general",
                     symmetric_allowed ? " or symmetric)" : ")");
  return banner;
}

struct Entry {
  std::int32_t column;
  double value;
  std::int64_t line;  // for duplicate messages
};

}  // namespace

void write_matrix_market(const PointCsr& matrix, const std::filesystem::path& path,
                         std::string_view comment) {
  check_point_csr(matrix);
  AtomicOutputFile file(path);
  TextSink sink(file.stream());
  write_header(sink, "%%MatrixMarket matrix coordinate real general", comment);
  sink.integer(matrix.rows);
  sink.text(" ");
  sink.integer(matrix.cols);
  sink.text(" ");
  sink.integer(static_cast<std::int64_t>(matrix.values.size()));
  sink.end_line();
  for (std::int64_t i = 0; i < matrix.rows; ++i)
    for (std::int64_t k = matrix.row_offsets[i]; k < matrix.row_offsets[i + 1]; ++k) {
      sink.integer(i + 1);
      sink.text(" ");
      sink.integer(std::int64_t{matrix.column_indices[k]} + 1);
      sink.text(" ");
      sink.real(matrix.values[k]);
      sink.end_line();
    }
  finish(file, sink);
}

void write_matrix_market_vector(std::span<const double> values, const std::filesystem::path& path,
                                std::string_view comment) {
  AtomicOutputFile file(path);
  TextSink sink(file.stream());
  write_header(sink, "%%MatrixMarket matrix array real general", comment);
  sink.integer(static_cast<std::int64_t>(values.size()));
  sink.text(" 1");
  sink.end_line();
  for (double v : values) {
    sink.real(v);
    sink.end_line();
  }
  finish(file, sink);
}

PointCsr read_matrix_market(const std::filesystem::path& path) {
  LineReader reader(path, load_file(path));
  const Banner banner = read_banner(reader, "coordinate");
  const bool symmetric = banner.symmetry == "symmetric";

  std::string_view line;
  if (!reader.next_content(line))
    reader.fail_here("file ends before the size line 'rows columns entries'");
  const auto size = split<3>(reader, line, "the size line 'rows columns entries'");
  constexpr std::int64_t max_index = std::numeric_limits<std::int32_t>::max();
  PointCsr m;
  m.rows = parse_integer(reader, size[0], "row count", 0, max_index);
  m.cols = parse_integer(reader, size[1], "column count", 0, max_index);
  const std::int64_t declared = parse_integer(reader, size[2], "entry count", 0,
                                              std::numeric_limits<std::int64_t>::max() / 2);
  const std::int64_t size_line = reader.line_number();
  if (symmetric && m.rows != m.cols)
    reader.fail_here("a symmetric matrix must be square, not ", m.rows, " x ", m.cols);

  // Entries in file order (row, entry), then bucketed by row.
  std::vector<std::int32_t> rows;
  std::vector<Entry> entries;
  const auto reserve = static_cast<std::size_t>(std::min<std::int64_t>(declared, 1 << 24));
  rows.reserve(reserve * (symmetric ? 2 : 1));
  entries.reserve(reserve * (symmetric ? 2 : 1));
  for (std::int64_t n = 0; n < declared; ++n) {
    if (!reader.next(line))
      reader.fail_here("file ends after ", n, " of the ", declared, " entries announced on line ",
                       size_line, " (truncated?)");
    if (LineReader::first_non_blank(line) == line.size())
      reader.fail_here("blank line where entry ", n + 1, " of ", declared, " was expected");
    const auto t = split<3>(reader, line, "an entry 'row column value'");
    const auto i = parse_integer(reader, t[0], "row index", 1, m.rows);
    const auto j = parse_integer(reader, t[1], "column index", 1, m.cols);
    const double value = parse_real(reader, t[2]);
    if (symmetric && j > i)
      reader.fail_here("entry (", i, ", ", j, ") is above the diagonal of a symmetric file");
    rows.push_back(static_cast<std::int32_t>(i - 1));
    entries.push_back({static_cast<std::int32_t>(j - 1), value, reader.line_number()});
    if (symmetric && i != j) {
      rows.push_back(static_cast<std::int32_t>(j - 1));
      entries.push_back({static_cast<std::int32_t>(i - 1), value, reader.line_number()});
    }
  }
  while (reader.next(line))
    if (LineReader::first_non_blank(line) != line.size())
      reader.fail_here("more entries than the ", declared, " announced on line ", size_line);

  m.row_offsets.assign(static_cast<std::size_t>(m.rows) + 1, 0);
  for (std::int32_t r : rows) ++m.row_offsets[static_cast<std::size_t>(r) + 1];
  for (std::int64_t r = 0; r < m.rows; ++r) m.row_offsets[r + 1] += m.row_offsets[r];
  std::vector<Entry> sorted(entries.size());
  {
    std::vector<std::int64_t> next(m.row_offsets.begin(), m.row_offsets.end() - 1);
    for (std::size_t k = 0; k < entries.size(); ++k) sorted[next[rows[k]]++] = entries[k];
  }
  const auto by_column = [](const Entry& a, const Entry& b) { return a.column < b.column; };
  m.column_indices.resize(sorted.size());
  m.values.resize(sorted.size());
  for (std::int64_t r = 0; r < m.rows; ++r) {
    const auto begin = sorted.begin() + m.row_offsets[r],
               end = sorted.begin() + m.row_offsets[r + 1];
    if (!std::is_sorted(begin, end, by_column)) std::stable_sort(begin, end, by_column);
    for (auto e = begin; e != end; ++e) {
      if (e != begin && e->column == (e - 1)->column)
        reader.fail_at(std::max(e->line, (e - 1)->line), "duplicate entry (", r + 1, ", ",
                       e->column + 1, "), also on line ", std::min(e->line, (e - 1)->line));
      const auto k = static_cast<std::size_t>(e - sorted.begin());
      m.column_indices[k] = e->column;
      m.values[k] = e->value;
    }
  }
  return m;
}

std::vector<double> read_matrix_market_vector(const std::filesystem::path& path) {
  LineReader reader(path, load_file(path));
  read_banner(reader, "array");
  std::string_view line;
  if (!reader.next_content(line)) reader.fail_here("file ends before the size line 'rows 1'");
  const auto size = split<2>(reader, line, "the size line 'rows columns'");
  const std::int64_t n =
      parse_integer(reader, size[0], "row count", 0, std::numeric_limits<std::int64_t>::max() / 2);
  parse_integer(reader, size[1], "column count (a vector has one column)", 1, 1);
  const std::int64_t size_line = reader.line_number();
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(std::min<std::int64_t>(n, 1 << 24)));
  for (std::int64_t k = 0; k < n; ++k) {
    if (!reader.next(line))
      reader.fail_here("file ends after ", k, " of the ", n, " values announced on line ",
                       size_line, " (truncated?)");
    values.push_back(parse_real(reader, split<1>(reader, line, "one value")[0]));
  }
  while (reader.next(line))
    if (LineReader::first_non_blank(line) != line.size())
      reader.fail_here("more values than the ", n, " announced on line ", size_line);
  return values;
}

}  // namespace foehn::fe
