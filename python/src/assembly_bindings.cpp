// Operators, assemblers and PETSc matrices: C ABI handles owned by Python objects. Fields and
// results are arrays from any producer (NumPy on the host, CuPy or any DLPack array on the GPU);
// a device array is used where it lies, never copied. A Mat or Vec arrives as its address
// (petsc4py's `handle`), so the module needs no petsc4py at build time.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "c_api_support.hpp"
#include "foehn/fe/builtin_operator_by_name.hpp"
#include "foehn/foehn_petsc.h"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "mesh_handle.hpp"

namespace foehn::python {

namespace {

// Each Python object owns one C ABI handle, destroyed with it.
struct OperatorHandle {
  foehn_operator handle = nullptr;
  ~OperatorHandle() { foehn_operator_destroy(&handle); }
};
struct AssemblerHandle {
  foehn_assembler handle = nullptr;
  ~AssemblerHandle() { foehn_assembler_destroy(&handle); }
};
struct MatrixHandle {
  foehn_matrix handle = nullptr;
  ~MatrixHandle() { foehn_matrix_destroy(&handle); }
};

std::tuple<int, int> block_shape_of(const OperatorHandle& op) {
  int rows = 0, cols = 0;
  check(foehn_operator_block_shape(op.handle, &rows, &cols));
  return {rows, cols};
}

std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> out;
  if (names == "none") return out;
  std::size_t start = 0;
  while (start <= names.size()) {
    const std::size_t comma = names.find(", ", start);
    out.push_back(names.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 2;
  }
  return out;
}

// Assembles into the caller's arrays; device results are complete on return (the assembler's
// stream is synchronised), so any consumer on any stream may read them.
void assemble_values(const AssemblerHandle& assembler, const OperatorHandle& op, int field_memory,
                     AnyMutableDoubles values, std::optional<AnyMutableDoubles> rhs) {
  const foehn_memory results = memory_of(values.device_type(), "values");
  if (rhs && memory_of(rhs->device_type(), "rhs") != results)
    fail(ErrorCategory::invalid_input, "values and rhs must be in the same memory");
  nb::gil_scoped_release unlocked;
  check(foehn_assemble_values(assembler.handle, op.handle, static_cast<foehn_memory>(field_memory),
                              results, values.data(), static_cast<int64_t>(values.size()),
                              rhs ? rhs->data() : nullptr,
                              rhs ? static_cast<int64_t>(rhs->size()) : 0));
  check(foehn_assembler_synchronize(assembler.handle));
}

// A PETSc object's handle from petsc4py (the Python layer refuses ints, Vecs as Mats and
// destroyed objects, so `address` is a live object): its class must be `expected`, else
// PETSc's first call on it would abort the process (MPI_ABORT) or crash.
void require_class(std::uintptr_t address, PetscClassId expected, const char* argument,
                   const char* kind) {
  PetscClassId found = 0;
  if (PetscObjectGetClassId(reinterpret_cast<PetscObject>(address), &found) != 0 ||
      found != expected)
    fail(ErrorCategory::invalid_input, argument, ": not a PETSc ", kind, " (PETSc class id ", found,
         ", expected ", expected, ")");
}

void assemble_into(const MatrixHandle& matrix, const OperatorHandle& op, int field_memory,
                   std::uintptr_t rhs_vec) {
  if (rhs_vec != 0) require_class(rhs_vec, VEC_CLASSID, "rhs", "Vec");
  nb::gil_scoped_release unlocked;
  check(foehn_assemble_into(matrix.handle, op.handle, static_cast<foehn_memory>(field_memory),
                            reinterpret_cast<Vec>(rhs_vec)));
}

// For bench/python: the seconds per call of `repeats` calls made here, in C++, with the same
// handles and arrays as the Python call it is compared with (the same process, the same GPU).
template <class Call>
double seconds_per_call(int repeats, Call&& call) {
  if (repeats < 1) fail(ErrorCategory::invalid_input, "repeats ", repeats, " must be >= 1");
  nb::gil_scoped_release unlocked;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r) call();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / repeats;
}

}  // namespace

void register_assembly(nb::module_& module) {
  module.def("operator_names", [] { return fe::builtin_operator_names(); });
  module.def("synchronize_device", [] {
    nb::gil_scoped_release unlocked;
    synchronize_device();
  });
  module.def(
      "cuda_device_count", [] { return cuda_device_count(); },
      "CUDA devices this process sees (0 in a build without CUDA).");

  nb::class_<OperatorHandle>(module, "Operator")
      .def(
          "__init__",
          [](OperatorHandle* self, const std::string& name) {
            new (self) OperatorHandle();
            check(foehn_operator_create(name.c_str(), &self->handle));
          },
          nb::arg("name"))
      .def("set_parameter",
           [](OperatorHandle& self, const std::string& name, double value) {
             check(foehn_operator_set_parameter(self.handle, name.c_str(), value));
           })
      // Returns where the array is (FOEHN_MEMORY_HOST or _DEVICE); None removes the field.
      .def(
          "set_field",
          [](OperatorHandle& self, const std::string& name, std::optional<AnyDoubles> values) {
            const foehn_memory memory =
                values ? memory_of(values->device_type(), name.c_str()) : FOEHN_MEMORY_HOST;
            check(foehn_operator_set_field(self.handle, name.c_str(),
                                           values ? values->data() : nullptr,
                                           values ? static_cast<int64_t>(values->size()) : 0));
            return static_cast<int>(memory);
          },
          nb::arg("name"), nb::arg("values").none())
      .def_prop_ro("block_shape", &block_shape_of)
      .def_prop_ro("name",
                   [](const OperatorHandle& self) {
                     return std::visit([](const auto& o) { return std::string(o.name); },
                                       self.handle->op);
                   })
      .def_prop_ro("parameter_names",
                   [](const OperatorHandle& self) {
                     return split_names(std::visit(
                         [](const auto& o) { return fe::parameter_names(o); }, self.handle->op));
                   })
      .def_prop_ro("field_names", [](const OperatorHandle& self) {
        return split_names(
            std::visit([](const auto& o) { return fe::field_names(o); }, self.handle->op));
      });

  nb::class_<AssemblerHandle>(module, "Assembler")
      .def(
          "__init__",
          [](AssemblerHandle* self, const MeshHandle& mesh, const std::string& backend,
             const std::string& strategy, std::uintptr_t stream) {
            chosen_backend(backend);  // "cuda" without a device: the tools' clear error
            new (self) AssemblerHandle();
            nb::gil_scoped_release unlocked;
            check(foehn_assembler_create_on_stream(mesh.handle, backend.c_str(), strategy.c_str(),
                                                   reinterpret_cast<void*>(stream), &self->handle));
          },
          nb::arg("mesh"), nb::arg("backend"), nb::arg("strategy"), nb::arg("stream"))
      .def_prop_ro("uses_gpu",
                   [](const AssemblerHandle& self) {
                     int uses = 0;
                     check(foehn_assembler_uses_gpu(self.handle, &uses));
                     return uses != 0;
                   })
      .def("pattern",
           [](const AssemblerHandle& self) {
             int64_t rows = 0, nonzeros = 0;
             const int32_t *offsets = nullptr, *columns = nullptr;
             check(foehn_assembler_pattern(self.handle, &rows, &nonzeros, &offsets, &columns));
             return std::make_tuple(to_numpy(std::vector<std::int32_t>(offsets, offsets + rows + 1),
                                             {static_cast<std::size_t>(rows + 1)}),
                                    to_numpy(std::vector<std::int32_t>(columns, columns + nonzeros),
                                             {static_cast<std::size_t>(nonzeros)}));
           })
      // noconvert: an out= array of another dtype or layout is refused (TypeError), never
      // filled through a hidden copy the caller does not see.
      .def("assemble_values", &assemble_values, nb::arg("op"), nb::arg("field_memory"),
           nb::arg("values").noconvert(), nb::arg("rhs").none().noconvert())
      .def("time_assemble_values", [](const AssemblerHandle& self, const OperatorHandle& op,
                                      int field_memory, AnyMutableDoubles values, int repeats) {
        const foehn_memory results = memory_of(values.device_type(), "values");
        return seconds_per_call(repeats, [&] {
          check(foehn_assemble_values(
              self.handle, op.handle, static_cast<foehn_memory>(field_memory), results,
              values.data(), static_cast<int64_t>(values.size()), nullptr, 0));
          check(foehn_assembler_synchronize(self.handle));
        });
      });

  nb::class_<MatrixHandle>(module, "Matrix")
      .def(
          "__init__",
          [](MatrixHandle* self, const MeshHandle& mesh, const AssemblerHandle& assembler,
             const OperatorHandle& op, std::uintptr_t mat) {
            // 0 would make the C ABI create its own Mat behind the caller's back.
            if (mat == 0) fail(ErrorCategory::invalid_input, "mat: a NULL Mat");
            require_class(mat, MAT_CLASSID, "mat", "Mat");
            new (self) MatrixHandle();
            nb::gil_scoped_release unlocked;
            check(foehn_matrix_create(mesh.handle, assembler.handle, op.handle,
                                      reinterpret_cast<Mat>(mat), &self->handle));
          },
          // The mesh and the assembler must outlive the matrix.
          nb::arg("mesh"), nb::arg("assembler"), nb::arg("op"), nb::arg("mat"),
          nb::keep_alive<1, 2>(), nb::keep_alive<1, 3>())
      .def("mat_handle",
           [](const MatrixHandle& self) {
             Mat mat = nullptr;
             check(foehn_matrix_get_mat(self.handle, &mat));
             return reinterpret_cast<std::uintptr_t>(mat);
           })
      .def("assemble", &assemble_into, nb::arg("op"), nb::arg("field_memory"), nb::arg("rhs"))
      .def("time_assemble",
           [](const MatrixHandle& self, const OperatorHandle& op, int field_memory, int repeats) {
             return seconds_per_call(repeats, [&] {
               check(foehn_assemble_into(self.handle, op.handle,
                                         static_cast<foehn_memory>(field_memory), nullptr));
             });
           });
}

}  // namespace foehn::python
