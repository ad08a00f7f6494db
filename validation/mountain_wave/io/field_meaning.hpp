#pragma once
// What a field written to an HDF5 file holds: its name in the file, its UDUNITS units and a
// description, written as the dataset's "units" and "description" attributes. The sections
// and checkpoint files each keep a table of these.

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

namespace foehn::mountainwave {

struct FieldMeaning {
  const char* name;
  const char* units;
  const char* description;
};

// The entry of `table` named `name`; nullptr when it has none.
template <std::size_t N>
const FieldMeaning* find_field_meaning(const std::array<FieldMeaning, N>& table,
                                       std::string_view name) {
  const auto found = std::find_if(table.begin(), table.end(),
                                  [&](const FieldMeaning& f) { return name == f.name; });
  return found == table.end() ? nullptr : &*found;
}

}  // namespace foehn::mountainwave
