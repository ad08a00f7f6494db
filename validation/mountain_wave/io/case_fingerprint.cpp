#include "io/case_fingerprint.hpp"

#include <charconv>
#include <optional>
#include <utility>
#include <vector>

#include "foehn/runtime/error.hpp"

namespace foehn::mountainwave {

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// "a=1;b=x;" -> {{a,1},{b,x}}; nullopt when the text is not such a list.
std::optional<Pairs> parse_pairs(std::string_view text) {
  Pairs pairs;
  while (!text.empty()) {
    const std::size_t end = text.find(';');
    if (end == std::string_view::npos) return std::nullopt;
    const std::string_view item = text.substr(0, end);
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos || equals == 0) return std::nullopt;
    pairs.emplace_back(std::string(item.substr(0, equals)), std::string(item.substr(equals + 1)));
    text.remove_prefix(end + 1);
  }
  return pairs;
}

const std::string* value_of(const Pairs& pairs, const std::string& key) {
  for (const auto& [k, v] : pairs)
    if (k == key) return &v;
  return nullptr;
}

std::string shortened(std::string_view text) {
  constexpr std::size_t limit = 300;
  // Appended piece by piece: "'" + std::string(...) trips GCC 12's -Wrestrict false positive.
  std::string quoted = "'";
  quoted.append(text.substr(0, limit));
  if (text.size() <= limit) return quoted += "'";
  return quoted.append("...' (").append(std::to_string(text.size())).append(" characters)");
}

}  // namespace

CaseFingerprint& CaseFingerprint::add_text(std::string_view key, std::string_view value) {
  if (key.empty() || key.find_first_of("=;") != std::string_view::npos)
    fail(ErrorCategory::invalid_input, "case fingerprint: key '", key,
         "' must be non-empty and hold neither '=' nor ';'");
  if (value.find(';') != std::string_view::npos)
    fail(ErrorCategory::invalid_input, "case fingerprint: value '", value, "' of '", key,
         "' holds a ';'");
  text_.append(key).append("=").append(value).append(";");
  return *this;
}

CaseFingerprint& CaseFingerprint::add(std::string_view key, double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (result.ec != std::errc())
    fail(ErrorCategory::internal, "case fingerprint: cannot format ", key);
  return add_text(key, std::string_view(buffer, static_cast<std::size_t>(result.ptr - buffer)));
}

CaseFingerprint& CaseFingerprint::add(std::string_view key, std::string_view value) {
  return add_text(key, value);
}

CaseFingerprint& CaseFingerprint::add_integer(std::string_view key, std::int64_t value) {
  return add_text(key, std::to_string(value));
}

std::string describe_fingerprint_difference(std::string_view in_checkpoint,
                                            std::string_view in_this_run) {
  const auto checkpoint = parse_pairs(in_checkpoint);
  const auto run = parse_pairs(in_this_run);
  if (!checkpoint || !run)
    return "the checkpoint has " + shortened(in_checkpoint) + ", this run " +
           shortened(in_this_run);
  std::string text;
  const auto append = [&text](const std::string& item) {
    text += (text.empty() ? "" : "; ") + item;
  };
  for (const auto& [key, value] : *checkpoint) {
    const std::string* here = value_of(*run, key);
    if (here == nullptr)
      append(key + ": " + value + " in the checkpoint, missing in this run");
    else if (*here != value)
      append(key + ": " + value + " in the checkpoint, " + *here + " in this run");
  }
  for (const auto& [key, value] : *run)
    if (value_of(*checkpoint, key) == nullptr)
      append(key + ": missing in the checkpoint, " + value + " in this run");
  if (text.empty()) text = "the same options in another order";
  return text;
}

}  // namespace foehn::mountainwave
