#pragma once
// What the C ABI's files share: the handle types behind foehn.h's opaque pointers, and
// `guarded`, which runs a call's body and turns every exception into a status and a message
// (no exception crosses the C boundary).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "foehn/fe/assembler.hpp"
#include "foehn/fe/builtin_operator_by_name.hpp"
#include "foehn/foehn.h"
#include "foehn/mesh/from_arrays.hpp"
#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/petsc/distributed_mesh.hpp"

struct foehn_mesh_s;
struct foehn_operator_s;
struct foehn_assembler_s;
struct foehn_matrix_s;

namespace foehn::c_api {

// Any built-in operator (the list of operator_list.hpp: a new one is reachable from C at once).
using fe::AnyBuiltinOperator;

void set_last_error(std::string message) noexcept;
void clear_last_error() noexcept;
foehn_status status_of(ErrorCategory category) noexcept;
ErrorCategory category_of(foehn_status status) noexcept;  // the inverse of status_of

// Runs body(); returns FOEHN_SUCCESS, or the status of what it threw with the message kept for
// foehn_last_error(). `call` names the C function, for messages of unexpected exceptions.
template <class Body>
foehn_status guarded(const char* call, Body&& body) noexcept {
  try {
    body();
    clear_last_error();
    return FOEHN_SUCCESS;
  } catch (const Error& error) {
    set_last_error(std::string(call) + ": " + error.what());
    return status_of(error.category());
  } catch (const std::bad_alloc&) {
    set_last_error(std::string(call) + ": out of host memory");
    return FOEHN_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& error) {
    set_last_error(std::string(call) + ": unexpected error: " + error.what());
    return FOEHN_ERROR_INTERNAL;
  } catch (...) {
    set_last_error(std::string(call) + ": unexpected error of unknown type");
    return FOEHN_ERROR_INTERNAL;
  }
}

// Throws invalid_input naming `argument` of `call` when `pointer` is null.
void require(const void* pointer, const char* argument);

// Every handle the library made and has not destroyed, with its kind, so that a handle is
// checked before it is used: NULL, destroyed already (a copy of a destroyed handle, a double
// destroy), or of another kind (an operator passed as an assembler) is invalid_input naming the
// argument, never a crash or a read of freed memory. Only the pointer values are compared.
enum class HandleKind { mesh, op, assembler, matrix };
void register_handle(const void* handle, HandleKind kind);
void require_live(const void* handle, HandleKind kind, const char* argument);
// For foehn_*_destroy: false for NULL (nothing to do); true when `handle` was live, and then it
// is no longer; invalid_input as require_live otherwise (the handle is not deleted).
bool retire_handle(const void* handle, HandleKind kind, const char* argument);

// The handle arguments, checked by their type (these overloads win over the void* one).
inline void require(const foehn_mesh_s* handle, const char* argument) {
  require_live(handle, HandleKind::mesh, argument);
}
inline void require(const foehn_operator_s* handle, const char* argument) {
  require_live(handle, HandleKind::op, argument);
}
inline void require(const foehn_assembler_s* handle, const char* argument) {
  require_live(handle, HandleKind::assembler, argument);
}
inline void require(const foehn_matrix_s* handle, const char* argument) {
  require_live(handle, HandleKind::matrix, argument);
}

// Makes `made` a handle: registered, and released to the caller.
template <class T>
T* hand_out(std::unique_ptr<T> made, HandleKind kind) {
  register_handle(made.get(), kind);
  return made.release();
}
// The caller's connectivity as 4- or 8-byte indices (index_bytes); invalid_input otherwise.
IndexArray index_array(const void* data, std::int64_t count, int index_bytes, const char* name);
// FOEHN_MEMORY_HOST / _DEVICE as fe::Memory; invalid_input naming `name` otherwise.
fe::Memory memory_of(foehn_memory memory, const char* name);

// Meshes made from a caller's partition number their nodes differently from the caller: fields
// arrive in the caller's local order and are permuted to Foehn's here (host memory; device
// fields must already be in Foehn's order, which is the caller's when the permutation is the
// identity). `scratch` keeps the copies alive until the assembly is done.
class FieldOrder {
 public:
  FieldOrder() = default;
  explicit FieldOrder(std::vector<std::int32_t> caller_local_of_local);
  bool identity() const noexcept { return caller_local_of_local_.empty(); }
  // The operator with its fields in Foehn's order.
  AnyBuiltinOperator to_local(const AnyBuiltinOperator& op, fe::Memory fields);
  // Foehn-order values (components per node) -> the caller's order, in place of `caller`.
  void to_caller(std::span<const double> local, std::span<double> caller, int components) const;

 private:
  std::vector<std::int32_t> caller_local_of_local_;  // empty: the identity
  std::vector<std::vector<double>> scratch_;
};

}  // namespace foehn::c_api

struct foehn_mesh_s {
  foehn::TetMesh serial;  // a mesh made by foehn_mesh_create
  // A mesh made from the caller's partition (foehn_petsc.h): its `local` is this rank's part.
  std::optional<foehn::petsc::DistributedMesh> distributed;
  std::size_t flipped_tets = 0;
  // Local node l is the caller's local node caller_local_of_local[l]; empty: the same order.
  std::vector<std::int32_t> caller_local_of_local;
  const foehn::TetMesh& local() const { return distributed ? distributed->local : serial; }
};

struct foehn_operator_s {
  foehn::c_api::AnyBuiltinOperator op;
};

struct foehn_assembler_s {
  foehn::fe::Assembler assembler;
  foehn::c_api::FieldOrder order;
  std::vector<double> rhs_scratch;  // Foehn-order right-hand side before it is permuted back
};
