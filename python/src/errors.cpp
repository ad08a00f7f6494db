// Foehn's failures as Python exceptions: foehn.Error and one subclass per ErrorCategory, each
// also deriving from the built-in exception a Python caller would expect (bad input is a
// ValueError, a file problem an OSError, ...), with Foehn's message.
#include <Python.h>

#include <array>
#include <new>
#include <string>

#include "bindings.hpp"
#include "c_api_support.hpp"
#include "foehn/runtime/backend.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::python {

namespace {

struct ExceptionClass {
  ErrorCategory category;
  const char* name;
  PyObject* builtin_base;
  const char* doc;
};

PyObject* base_error = nullptr;
std::array<PyObject*, 8> category_errors{};

std::size_t index_of(ErrorCategory category) {
  return static_cast<std::size_t>(category);
}

}  // namespace

void register_errors(nb::module_& module) {
  base_error = PyErr_NewExceptionWithDoc("foehn.Error",
                                         "A failure reported by Foehn (its message says what, "
                                         "which input, which option, which size).",
                                         PyExc_Exception, nullptr);
  if (!base_error) throw nb::python_error();
  module.attr("Error") = nb::handle(base_error);
  const ExceptionClass classes[] = {
      {ErrorCategory::invalid_input, "InvalidInputError", PyExc_ValueError,
       "Bad input: a wrong size, index, name or option, a value that is not finite."},
      {ErrorCategory::cuda, "CudaError", PyExc_RuntimeError, "A CUDA call or kernel failed."},
      {ErrorCategory::petsc, "PetscError", PyExc_RuntimeError, "A PETSc call failed."},
      {ErrorCategory::io, "FileError", PyExc_OSError,
       "A file could not be opened, read, written or renamed."},
      {ErrorCategory::out_of_memory, "OutOfMemoryError", PyExc_MemoryError,
       "A host or GPU allocation failed."},
      {ErrorCategory::unavailable, "UnavailableError", PyExc_RuntimeError,
       "A feature this build or machine lacks (the GPU backend without a device)."},
      {ErrorCategory::numerical, "NumericalError", PyExc_ArithmeticError,
       "A solver failed (step size underflow, too many steps, a singular matrix)."},
      {ErrorCategory::internal, "InternalError", PyExc_RuntimeError,
       "A broken invariant inside Foehn: a bug to report."},
  };
  for (const ExceptionClass& c : classes) {
    PyObject* bases = PyTuple_Pack(2, base_error, c.builtin_base);
    if (!bases) throw nb::python_error();
    const std::string qualified = std::string("foehn.") + c.name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), c.doc, bases, nullptr);
    Py_DECREF(bases);
    if (!type) throw nb::python_error();
    category_errors[index_of(c.category)] = type;
    module.attr(c.name) = nb::handle(type);
  }
  nb::register_exception_translator([](const std::exception_ptr& thrown, void*) {
    try {
      std::rethrow_exception(thrown);
    } catch (const Error& error) {
      PyErr_SetString(category_errors[index_of(error.category())], error.what());
    }
  });
}

void check(foehn_status status) {
  if (status == FOEHN_SUCCESS) return;
  throw Error(c_api::category_of(status), foehn_last_error());
}

std::string chosen_backend(const std::string& backend) {
  try {
    return std::string(to_string(select_backend(backend, nullptr)));
  } catch (const Error& error) {
    if (error.category() != ErrorCategory::unavailable) throw;
    // The tools' message names their option (-foehn_backend); Python callers pass backend=.
    fail(ErrorCategory::unavailable, "backend='", backend, "': ",
         foehn_has_cuda() ? "no CUDA device is available (no GPU, or no usable NVIDIA driver)"
                          : "Foehn was built without CUDA",
         "; use backend='cpu' or 'auto'");
  }
}

foehn_memory memory_of(int device_type, const char* what) {
  if (device_type == nb::device::cpu::value) return FOEHN_MEMORY_HOST;
  if (device_type == nb::device::cuda::value) return FOEHN_MEMORY_DEVICE;
  fail(ErrorCategory::invalid_input, what, ": an array on DLPack device type ", device_type,
       " (Foehn takes host arrays and CUDA device arrays)");
}

}  // namespace foehn::python
