#pragma once
// MshScanner: the whole .msh file in memory and a cursor over it, for both the ASCII tokens
// and the raw binary values of a Gmsh file. Reading the file in one go and parsing with
// std::from_chars is what keeps a half-million-tet mesh well under a second; iostreams are
// an order of magnitude slower. Every read is bounds-checked and every failure goes through
// fail_at(), so all errors carry the file name and a line number (ASCII) or byte offset
// (binary). Private to mesh/gmsh.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "foehn/runtime/error.hpp"

namespace foehn::gmsh_detail {

// Reads the whole file; throws foehn::Error (io) naming it when it cannot be opened or read.
std::string load_file(const std::filesystem::path& path);

// Makes a token or file excerpt safe to quote in a message: control and non-ASCII bytes are
// shown as \xNN and long text is cut.
std::string printable(std::string_view text, std::size_t max_length = 40);

class MshScanner {
 public:
  MshScanner(std::filesystem::path path, std::string data)
      : path_(std::move(path)), data_(std::move(data)) {}

  const std::filesystem::path& path() const noexcept { return path_; }
  std::string_view data() const noexcept { return data_; }
  std::size_t position() const noexcept { return pos_; }
  std::size_t remaining() const noexcept { return data_.size() - pos_; }
  bool binary() const noexcept { return binary_; }

  // From now on locations are byte offsets: line numbers mean nothing in binary data.
  void set_binary(bool binary) noexcept { binary_ = binary; }
  // Section named in messages ("$Nodes"); empty outside sections. Must outlive its use.
  void set_section(std::string_view section) noexcept { section_ = section; }

  // "line 12" or "byte offset 345" for a position in the file.
  std::string location(std::size_t pos) const;

  template <typename... Parts>
  [[noreturn]] void fail_at(std::size_t pos, Parts&&... parts) const {
    fail(ErrorCategory::invalid_input, "Gmsh file '", path_.string(), "', ", location(pos),
         section_.empty() ? "" : " (in ", section_, section_.empty() ? "" : ")", ": ",
         std::forward<Parts>(parts)...);
  }

  // ---- ASCII --------------------------------------------------------------------------
  void skip_whitespace() noexcept {
    while (pos_ < data_.size() && is_space(data_[pos_])) ++pos_;
  }
  // Next whitespace-separated token; empty at the end of the file. token_start() is where
  // the last token began, for messages.
  std::string_view next_token() noexcept {
    skip_whitespace();
    token_start_ = pos_;
    while (pos_ < data_.size() && !is_space(data_[pos_])) ++pos_;
    return std::string_view(data_).substr(token_start_, pos_ - token_start_);
  }
  std::size_t token_start() const noexcept { return token_start_; }

  // Integer token in [min, max]; `what` names the value for messages ("node tag").
  std::int64_t read_int(std::string_view what, std::int64_t min, std::int64_t max);
  // Non-negative integer token (MSH 4.1 size_t fields).
  std::uint64_t read_size(std::string_view what);
  // Floating-point token; with require_finite, NaN and Inf are errors (coordinates).
  double read_double(std::string_view what, bool require_finite);
  // The next token must be `expected` (a section end such as "$EndNodes").
  void expect_token(std::string_view expected);
  // Skips blanks up to and including the end of the current line (before binary data that
  // follows an ASCII line).
  void skip_line_end();
  // Skips a section we do not read, up to and including "$End<name>"; `name` without '$'.
  void skip_section(std::string_view name);

  // ---- binary (native byte order, checked against the file's marker) ---------------------
  std::int32_t read_i32(std::string_view what) { return read_raw<std::int32_t>(what); }
  std::uint64_t read_u64(std::string_view what) { return read_raw<std::uint64_t>(what); }
  double read_f64(std::string_view what, bool require_finite);

  // Guards an allocation: `count` items of at least `min_bytes_each` bytes must fit in what
  // is left of the file, so a corrupt header count fails here instead of allocating.
  void check_count(std::uint64_t count, std::size_t min_bytes_each, std::string_view what,
                   std::size_t count_pos) const;

  // Failure for a read past the end of the file.
  [[noreturn]] void fail_truncated(std::string_view expected) const;

 private:
  static bool is_space(char c) noexcept {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\v';
  }

  template <typename T>
  T read_raw(std::string_view what) {
    if (remaining() < sizeof(T)) fail_truncated(what);
    T value;
    std::memcpy(&value, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  // Message for a token that should have been a number.
  [[noreturn]] void fail_not_a_number(std::string_view token, std::string_view what,
                                      std::string_view expected_kind) const;

  std::filesystem::path path_;
  std::string data_;
  std::size_t pos_ = 0;
  std::size_t token_start_ = 0;
  bool binary_ = false;
  std::string_view section_;
};

}  // namespace foehn::gmsh_detail
