// libFuzzer target: the .vtu reader (VTK XML UnstructuredGrid through VTK's own reader), via
// read_vtu on a file as applications call it. Bad input must throw foehn::Error; a mesh that
// comes back must keep the reader's promises (mesh_checks.hpp). Anything else is a finding,
// including a crash inside VTK on a file read_vtu let through.

#include <cstddef>
#include <cstdint>

#include "foehn/mesh/vtk_io.hpp"
#include "foehn/runtime/error.hpp"
#include "fuzz_support.hpp"
#include "mesh_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static foehn::fuzz::InputFile input("vtu");
  try {
    foehn::fuzz::require_consistent_mesh(foehn::read_vtu(input.write(data, size)));
  } catch (const foehn::Error&) {
    // The documented answer to bad input.
  }
  return 0;
}
