#pragma once
// The compute backend is chosen once, at start-up (-foehn_backend cpu|cuda|auto), and then
// passed down; nothing below the application decides it again.

#include <iosfwd>
#include <string_view>

namespace foehn {

enum class Backend { cpu, cuda };

std::string_view to_string(Backend backend);

// Parses "cpu", "cuda" or "auto" (an empty string means "auto"). "auto" resolves to cuda
// when a CUDA device is usable, else cpu. Anything else throws invalid_input listing the
// valid values. Does not check that "cuda" is usable: select_backend() does.
Backend parse_backend(std::string_view text);

// What applications call. `requested` as for parse_backend():
// - "cuda" without a usable device, or in a build without CUDA: throws unavailable;
// - "auto": cuda if a device exists, else cpu, and then writes one line to `notice`
//   (if not null) saying why the CPU backend is used.
Backend select_backend(std::string_view requested, std::ostream* notice);

namespace detail {
// select_backend() with the machine's facts passed in, so tests can cover every case.
Backend select_backend_for(std::string_view requested, std::ostream* notice, int device_count,
                           bool built_with_cuda);
}  // namespace detail

}  // namespace foehn
