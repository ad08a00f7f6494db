#pragma once
// What the binding files of the extension module _foehn share: the registration function of
// each file, `check` for C ABI calls, and how arrays arrive from Python.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "foehn/foehn.h"

namespace foehn::python {

namespace nb = nanobind;

// Registers Foehn's exception classes in `module` (foehn.Error and one subclass per
// ErrorCategory) and translates foehn::Error into them.
void register_errors(nb::module_& module);
void register_mesh(nb::module_& module);
void register_assembly(nb::module_& module);
void register_chemistry(nb::module_& module);
void register_particles(nb::module_& module);

// Throws foehn::Error with the C ABI's message (foehn_last_error) when `status` is a failure.
void check(foehn_status status);

// A C-contiguous array of doubles from any producer (NumPy, CuPy, anything with DLPack), on the
// host or a CUDA device.
using AnyDoubles = nb::ndarray<const double, nb::c_contig>;
using AnyMutableDoubles = nb::ndarray<double, nb::c_contig>;
using HostDoubles = nb::ndarray<const double, nb::c_contig, nb::device::cpu>;

// "cpu" or "cuda" for a backend name "cpu", "cuda" or "auto", chosen as the command-line tools
// choose it (select_backend): "cuda" without a usable device is foehn.UnavailableError "no CUDA
// device is available" at once, not a raw CUDA error from the first call that needs one.
std::string chosen_backend(const std::string& backend);

// "host" or "device" (CUDA); invalid_input naming `what` for any other device.
foehn_memory memory_of(int device_type, const char* what);

// A NumPy array that owns `values` (moved in).
template <class T>
nb::ndarray<nb::numpy, T> to_numpy(std::vector<T>&& values, std::initializer_list<size_t> shape) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule deleter(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T>(owned->data(), shape, deleter);
}

}  // namespace foehn::python
