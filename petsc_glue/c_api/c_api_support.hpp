#pragma once
// What the C ABI's files share: the handle types behind foehn.h's opaque pointers, and
// `guarded`, which runs a call's body and turns every exception into a status and a message
// (no exception crosses the C boundary).
#include <mpi.h>

#include <cstdint>
#include <initializer_list>
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

// Every handle the library made, with its kind and its communicator, so that a handle is
// checked before it is used: NULL, destroyed already (a copy of a destroyed handle, a double
// destroy), of another kind (an operator passed as an assembler), or never made by Foehn is
// invalid_input naming the argument, never a crash or a read of freed memory. Only the pointer
// values are compared. A destroyed handle stays a tombstone: its contents are released but its
// few hundred bytes are kept (the newest tombstones_kept of them), so its address is not handed
// out again and a stale copy is still known as destroyed, with its communicator (collective calls
// given a destroyed handle still agree with the other ranks).
enum class HandleKind { mesh, op, assembler, matrix };
inline constexpr std::size_t tombstones_kept = 4096;
// comm: the communicator of the handle's collective calls; MPI_COMM_NULL for serial handles.
void register_handle(const void* handle, HandleKind kind, MPI_Comm comm = MPI_COMM_NULL);
void require_live(const void* handle, HandleKind kind, const char* argument);
// For foehn_*_destroy: false for NULL (nothing to do); true when `handle` was live, and then it
// is a tombstone (the caller destroys its contents and hands its storage to keep_tombstone);
// invalid_input as require_live otherwise (the handle is not touched).
bool retire_handle(const void* handle, HandleKind kind, const char* argument);
// Keeps a retired handle's storage (allocated by `new`, contents destroyed) reserved; the oldest
// beyond tombstones_kept is freed and forgotten.
void keep_tombstone(void* storage);
// The communicator of a collective call whose handle arguments are `handles` (in the order of
// preference): that of the first handle Foehn knows (live, destroyed or of another kind; serial:
// MPI_COMM_SELF); when none is known (all NULL or garbage), the one communicator of all live
// partitioned meshes if there is exactly one; otherwise MPI_COMM_SELF (the failure stays local).
MPI_Comm comm_of_call(std::initializer_list<const void*> handles);
// Throws unavailable unless MPI is initialised and not finalised (checked with MPI_Initialized
// and MPI_Finalized, which may be called at any time, unlike every other MPI function).
void require_mpi();

// Destroys a handle (foehn_*_destroy): NULL is fine; a live one's contents are destroyed and its
// storage kept as a tombstone; *handle becomes NULL.
template <class T>
void destroy_handle(T*& handle, HandleKind kind, const char* argument) {
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "keep_tombstone frees with delete");
  if (retire_handle(handle, kind, argument)) {
    std::destroy_at(handle);
    keep_tombstone(handle);
  }
  handle = nullptr;
}

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
T* hand_out(std::unique_ptr<T> made, HandleKind kind, MPI_Comm comm = MPI_COMM_NULL) {
  register_handle(made.get(), kind, comm);
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
  // The communicator of collective calls on this mesh (MPI_COMM_NULL: a serial mesh).
  MPI_Comm comm() const { return distributed ? distributed->comm : MPI_COMM_NULL; }
};

struct foehn_operator_s {
  foehn::c_api::AnyBuiltinOperator op;
};

struct foehn_assembler_s {
  foehn::fe::Assembler assembler;
  foehn::c_api::FieldOrder order;
  std::vector<double> rhs_scratch;  // Foehn-order right-hand side before it is permuted back
};
