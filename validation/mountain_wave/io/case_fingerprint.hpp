#pragma once
// A case fingerprint: the options a restart must share with the run that wrote a checkpoint
// (mesh size, dt, physics constants, ...), as "key=value;" pairs in the order they were added.
// Doubles are written in their shortest round-trip form, so equal text means equal bits.
//
//   const std::string fingerprint = CaseFingerprint()
//       .add("cells", "48x48x40").add("dt", dt).add("N", 0.01).add("picard", 2).str();
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>

namespace foehn::mountainwave {

class CaseFingerprint {
 public:
  // Keys must be non-empty and hold neither '=' nor ';'; string values no ';'. Throws
  // foehn::Error (invalid_input) otherwise.
  CaseFingerprint& add(std::string_view key, double value);
  CaseFingerprint& add(std::string_view key, std::string_view value);
  CaseFingerprint& add(std::string_view key, const char* value) {
    return add(key, std::string_view(value));
  }
  template <std::integral Integer>
  CaseFingerprint& add(std::string_view key, Integer value) {
    return add_integer(key, static_cast<std::int64_t>(value));
  }

  const std::string& str() const noexcept { return text_; }

 private:
  CaseFingerprint& add_integer(std::string_view key, std::int64_t value);
  CaseFingerprint& add_text(std::string_view key, std::string_view value);
  std::string text_;
};

// How two fingerprints differ, for error messages: "dt: 0.5 in the checkpoint, 1 in this run;
// N: missing in this run". Falls back to quoting both when either is not a "key=value;" list.
std::string describe_fingerprint_difference(std::string_view in_checkpoint,
                                            std::string_view in_this_run);

}  // namespace foehn::mountainwave
