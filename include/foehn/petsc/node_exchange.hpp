#pragma once
// Moving nodal fields between a DistributedMesh's local arrays and PETSc's global vectors.
//
// A local array holds `components` values per local node (owned nodes first, then ghosts),
// interleaved: value (node, c) is local[node * components + c], as everywhere in Foehn. A
// global Vec has PETSc's layout: rank r holds its owned nodes' values, local size
// owned_nodes * components, block size components, global entry
// global_node * components + c.
//
//   NodeExchange exchange(mesh, 3);             // once per mesh and component count
//   UniqueVec u = exchange.create_vector();
//   exchange.global_to_local(u.get(), u_local);                  // owned + ghost values
//   exchange.local_to_global(residual_local, r.get(), ExchangeMode::add);  // sums ghosts
//
// Every call is collective on the mesh's communicator; size mismatches are reported on every
// rank (foehn::Error, invalid_input), so no rank is left waiting in a scatter.
//
// A device exchange (device_vectors, where device_solves_available()) makes VECCUDA vectors and
// moves local arrays in device memory: owned values are device copies, ghost values travel
// through PETSc's scatter on the device (staged through the host between ranks when MPI is not
// CUDA-aware), ordered against the caller's stream.
#include <petscvec.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/node_numbering.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::petsc {

// Owns one PETSc Vec (VecDestroy on destruction); move-only.
class UniqueVec {
 public:
  UniqueVec() = default;
  explicit UniqueVec(Vec adopted) noexcept : vec_(adopted) {}
  ~UniqueVec();
  UniqueVec(UniqueVec&& other) noexcept;
  UniqueVec& operator=(UniqueVec&& other) noexcept;
  UniqueVec(const UniqueVec&) = delete;
  UniqueVec& operator=(const UniqueVec&) = delete;

  Vec get() const noexcept { return vec_; }
  explicit operator bool() const noexcept { return vec_ != nullptr; }

 private:
  Vec vec_ = nullptr;
};

enum class ExchangeMode {
  insert,  // the owner's own local values become the Vec's entries; ghost values are ignored
  add      // every rank's values (owned and ghost) are added to the Vec's current entries
};

class NodeExchange {
 public:
  // Collective. components >= 1. Keeps no reference to `mesh`, only its layout; the mesh's
  // communicator must outlive the exchange, and the exchange (like every PETSc object) must
  // be destroyed before PetscFinalize.
  NodeExchange(const DistributedMesh& mesh, int components, bool device_vectors = false);
  // The same from a numbering (owned nodes first, then ghosts, as a DistributedMesh's).
  NodeExchange(const NodeNumbering& numbering, int components, bool device_vectors = false);
  ~NodeExchange();
  NodeExchange(NodeExchange&& other) noexcept;
  NodeExchange& operator=(NodeExchange&& other) noexcept;
  NodeExchange(const NodeExchange&) = delete;
  NodeExchange& operator=(const NodeExchange&) = delete;

  int components() const noexcept { return components_; }
  bool device_vectors() const noexcept { return device_vectors_; }
  std::size_t local_value_count() const noexcept;  // local nodes * components
  std::size_t owned_value_count() const noexcept;  // owned nodes * components

  // A zeroed global Vec with this layout (VecSetFromOptions: -vec_type applies). Collective.
  UniqueVec create_vector() const;

  // Owned and ghost values of `global` into `local` (local_value_count() values).
  void global_to_local(Vec global, std::span<double> local) const;

  // insert: the owned part of `local` becomes this rank's entries of `global` (a plain copy;
  // no values travel). add: `global` += the sum over ranks of their local values, ghost values
  // going to their owners (residual and right-hand-side assembly; zero `global` first for a
  // plain sum).
  void local_to_global(std::span<const double> local, Vec global, ExchangeMode mode) const;

  // The same with `local` in device memory (local_value_count() values), for a device exchange;
  // the copies run on `stream`, which the exchange orders against PETSc's.
  void global_to_local(Vec global, double* local, std::size_t count, const Stream& stream) const;
  void local_to_global(const double* local, std::size_t count, Vec global, ExchangeMode mode,
                       const Stream& stream) const;

 private:
  void check_not_moved_from() const;
  void check_vector(Vec global, std::size_t local_values) const;
  void release() noexcept;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int components_ = 1;
  bool device_vectors_ = false;
  bool several_ranks_ = false;
  std::int32_t owned_nodes_ = 0;
  std::int32_t local_nodes_ = 0;
  std::int64_t global_nodes_ = 0;
  std::int64_t first_owned_global_ = 0;
  Vec layout_ = nullptr;        // global Vec that create_vector() duplicates
  Vec ghost_values_ = nullptr;  // sequential, no storage of its own: the ghost part of a local
                                // array is placed into it (VecPlaceArray) for each exchange
  VecScatter ghost_scatter_ = nullptr;  // global entries of the ghosts -> ghost_values_
  // Device exchanges, add mode: the owned part of a local array and of a global Vec as
  // sequential device Vecs without storage of their own.
  Vec owned_values_ = nullptr;
  Vec owned_entries_ = nullptr;

  void check_device(const char* who) const;
};

// The values of every node in the input mesh's numbering, on rank 0 (an empty vector on the
// other ranks): for comparing a parallel run with a serial one and for writing whole-mesh
// output. `values` holds this rank's owned values (owned_nodes * components; a full local
// array is accepted too and its ghost part ignored). Collective.
std::vector<double> gather_to_input_numbering(const DistributedMesh& mesh,
                                              std::span<const double> values, int components);
// The same from a global Vec with NodeExchange's layout.
std::vector<double> gather_to_input_numbering(const DistributedMesh& mesh, Vec global,
                                              int components);

}  // namespace foehn::petsc
