// The extension module foehn._foehn. The package's Python layer (python/foehn) is what users
// import; this module is its thin bridge to libfoehn.
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.hpp"

NB_MODULE(_foehn, module) {
  namespace fp = foehn::python;
  module.doc() = "Foehn's C++ library, reached from Python (import foehn, not this module)";
  // nanobind lists, at interpreter exit, every object still alive then: under pytest (whose
  // reports keep tracebacks) and with CuPy arrays, objects that are merely not yet collected
  // when the process ends. Memory is checked by compute-sanitizer and the tests instead.
  nanobind::set_leak_warnings(false);
  fp::register_errors(module);
  module.def("version", [] { return std::string(foehn_version()); });
  module.def(
      "has_cuda", [] { return foehn_has_cuda() != 0; },
      "Whether this build has the CUDA backend (a device may still be absent).");
  fp::register_mesh(module);
  fp::register_assembly(module);
  fp::register_chemistry(module);
  fp::register_particles(module);
}
