// NodeExchange: owned values are copied between the local array and the Vec's own array
// directly (local owned nodes are exactly the Vec's local entries, in the same order); only
// ghost values travel, through one VecScatter built once per mesh.

#include "foehn/petsc/node_exchange.hpp"

#include <petscis.h>

#include <algorithm>
#include <climits>
#include <limits>
#include <type_traits>
#include <utility>

#include "../handoff/petsc_device_support.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/memory.hpp"
#include "mpi_support.hpp"

namespace foehn::petsc {

static_assert(std::is_same_v<PetscScalar, double>,
              "Foehn's fields are real doubles: PETSc must be built with real double scalars");

namespace {

// Puts a caller's array into a Vec without storage of its own for one scatter, and takes it
// out again even when the scatter throws.
class PlacedArray {
 public:
  PlacedArray(Vec vec, const double* values) : vec_(vec) {
    // PETSc reads a scatter's source through VecGetArrayRead; it never writes into the
    // array of a Vec used only as a source, so the const_cast does not lead to a write.
    FOEHN_PETSC_CHECK(VecPlaceArray(vec_, const_cast<double*>(values)));
  }
  ~PlacedArray() {
    if (vec_ != nullptr) (void)VecResetArray(vec_);
  }
  PlacedArray(const PlacedArray&) = delete;
  PlacedArray& operator=(const PlacedArray&) = delete;
  void reset() {
    Vec vec = std::exchange(vec_, nullptr);
    FOEHN_PETSC_CHECK(VecResetArray(vec));
  }

 private:
  Vec vec_;
};

class ReadArray {
 public:
  explicit ReadArray(Vec vec) : vec_(vec) { FOEHN_PETSC_CHECK(VecGetArrayRead(vec_, &values_)); }
  ~ReadArray() {
    if (values_ != nullptr) (void)VecRestoreArrayRead(vec_, &values_);
  }
  ReadArray(const ReadArray&) = delete;
  ReadArray& operator=(const ReadArray&) = delete;
  const double* get() const noexcept { return values_; }
  void restore() {
    FOEHN_PETSC_CHECK(VecRestoreArrayRead(vec_, &values_));
    values_ = nullptr;
  }

 private:
  Vec vec_;
  const PetscScalar* values_ = nullptr;
};

PetscInt to_petsc_int(std::int64_t value, const char* what) {
  if (value < 0 || value > static_cast<std::int64_t>(std::numeric_limits<PetscInt>::max()))
    fail(ErrorCategory::invalid_input, what, " = ", value, " does not fit PETSc's ",
         sizeof(PetscInt) * 8, "-bit PetscInt (configure PETSc --with-64-bit-indices)");
  return static_cast<PetscInt>(value);
}

// Local size, global size and ownership start of `global` against the expected layout.
void check_layout(Vec global, std::int64_t owned_values, std::int64_t global_values,
                  std::int64_t first_value, const char* who) {
  if (global == nullptr) fail(ErrorCategory::invalid_input, who, ": the Vec is null");
  PetscInt local_size = 0, global_size = 0, start = 0, end = 0;
  FOEHN_PETSC_CHECK(VecGetLocalSize(global, &local_size));
  FOEHN_PETSC_CHECK(VecGetSize(global, &global_size));
  FOEHN_PETSC_CHECK(VecGetOwnershipRange(global, &start, &end));
  if (local_size != owned_values || global_size != global_values || start != first_value)
    fail(ErrorCategory::invalid_input, who, ": the Vec has ", local_size, " local entries of ",
         global_size, " starting at ", start, ", the mesh layout needs ", owned_values, " of ",
         global_values, " starting at ", first_value);
}

}  // namespace

UniqueVec::~UniqueVec() {
  if (vec_ != nullptr) (void)VecDestroy(&vec_);
}

UniqueVec::UniqueVec(UniqueVec&& other) noexcept : vec_(std::exchange(other.vec_, nullptr)) {}

UniqueVec& UniqueVec::operator=(UniqueVec&& other) noexcept {
  if (this != &other) {
    if (vec_ != nullptr) (void)VecDestroy(&vec_);
    vec_ = std::exchange(other.vec_, nullptr);
  }
  return *this;
}

namespace {

// The mesh's numbering, after checking that the mesh was distributed over its communicator.
NodeNumbering checked_numbering(const DistributedMesh& mesh) {
  const detail::CommShape shape = detail::comm_shape(mesh.comm, "NodeExchange");
  detail::run_collectively(mesh.comm, [&] {
    if (mesh.size != shape.size || mesh.rank != shape.rank)
      fail(ErrorCategory::invalid_input, "NodeExchange: the mesh was distributed as rank ",
           mesh.rank, " of ", mesh.size, " but its communicator has this rank as ", shape.rank,
           " of ", shape.size);
  });
  return distributed_numbering(mesh);
}

}  // namespace

NodeExchange::NodeExchange(const DistributedMesh& mesh, int components, bool device_vectors)
    : NodeExchange(checked_numbering(mesh), components, device_vectors) {}

NodeExchange::NodeExchange(const NodeNumbering& numbering, int components, bool device_vectors)
    : comm_(numbering.comm),
      components_(components),
      device_vectors_(device_vectors),
      owned_nodes_(numbering.owned_nodes),
      local_nodes_(numbering.local_nodes),
      global_nodes_(numbering.global_nodes),
      first_owned_global_(numbering.first_owned_global) {
  const detail::CommShape shape = detail::comm_shape(comm_, "NodeExchange");
  several_ranks_ = shape.size > 1;
  std::vector<PetscInt> ghost_globals;
  detail::run_collectively(comm_, [&] {
    if (device_vectors && !device_solves_available())
      fail(ErrorCategory::unavailable,
           "NodeExchange: device vectors need PETSc and Foehn built "
           "with CUDA: ",
           detail::why_no_device_solves());
    if (components < 1)
      fail(ErrorCategory::invalid_input, "NodeExchange: ", components, " components per node");
    if (owned_nodes_ < 0 || owned_nodes_ > local_nodes_ ||
        (several_ranks_ &&
         numbering.global_of_local.size() != static_cast<std::size_t>(local_nodes_)))
      fail(ErrorCategory::invalid_input, "NodeExchange: ", owned_nodes_, " owned of ", local_nodes_,
           " local nodes with ", numbering.global_of_local.size(), " global numbers");
    to_petsc_int(global_nodes_ * components_, "global nodes x components");
    ghost_globals.reserve(static_cast<std::size_t>(local_nodes_ - owned_nodes_));
    for (std::int32_t l = owned_nodes_; l < local_nodes_; ++l)
      ghost_globals.push_back(static_cast<PetscInt>(numbering.global_of(l)));
  });

  IS ghost_entries = nullptr;
  try {
    const auto owned_values = static_cast<PetscInt>(owned_nodes_) * components_;
    FOEHN_PETSC_CHECK(VecCreate(comm_, &layout_));
    FOEHN_PETSC_CHECK(
        VecSetSizes(layout_, owned_values, static_cast<PetscInt>(global_nodes_ * components_)));
    FOEHN_PETSC_CHECK(VecSetBlockSize(layout_, components_));
    const auto ghost_values = static_cast<PetscInt>(ghost_globals.size()) * components_;
#if FOEHN_DEVICE_PETSC
    if (device_vectors_) {
      FOEHN_PETSC_CHECK(VecSetType(layout_, VECCUDA));
      FOEHN_PETSC_CHECK(VecCreateSeqCUDAWithArray(PETSC_COMM_SELF, components_, ghost_values,
                                                  nullptr, &ghost_values_));
      FOEHN_PETSC_CHECK(VecCreateSeqCUDAWithArray(PETSC_COMM_SELF, components_, owned_values,
                                                  nullptr, &owned_values_));
      FOEHN_PETSC_CHECK(VecCreateSeqCUDAWithArray(PETSC_COMM_SELF, components_, owned_values,
                                                  nullptr, &owned_entries_));
    } else
#endif
    {
      FOEHN_PETSC_CHECK(VecSetFromOptions(layout_));
      FOEHN_PETSC_CHECK(VecCreateSeqWithArray(PETSC_COMM_SELF, components_, ghost_values, nullptr,
                                              &ghost_values_));
    }
    // Block indices: ghost node g stands for entries g * components + 0 .. components-1.
    FOEHN_PETSC_CHECK(ISCreateBlock(PETSC_COMM_SELF, components_,
                                    static_cast<PetscInt>(ghost_globals.size()),
                                    ghost_globals.data(), PETSC_COPY_VALUES, &ghost_entries));
    FOEHN_PETSC_CHECK(
        VecScatterCreate(layout_, ghost_entries, ghost_values_, nullptr, &ghost_scatter_));
    FOEHN_PETSC_CHECK(ISDestroy(&ghost_entries));
    check_layout(layout_, owned_values, global_nodes_ * components_,
                 first_owned_global_ * components_, "NodeExchange");
  } catch (...) {
    if (ghost_entries != nullptr) (void)ISDestroy(&ghost_entries);
    release();
    throw;
  }
}

NodeExchange::~NodeExchange() {
  release();
}

void NodeExchange::release() noexcept {
  // Return codes cannot be reported from a destructor; PETSc prints its own message.
  if (owned_entries_ != nullptr) (void)VecDestroy(&owned_entries_);
  if (owned_values_ != nullptr) (void)VecDestroy(&owned_values_);
  if (ghost_scatter_ != nullptr) (void)VecScatterDestroy(&ghost_scatter_);
  if (ghost_values_ != nullptr) (void)VecDestroy(&ghost_values_);
  if (layout_ != nullptr) (void)VecDestroy(&layout_);
}

NodeExchange::NodeExchange(NodeExchange&& other) noexcept
    : comm_(other.comm_),
      components_(other.components_),
      device_vectors_(other.device_vectors_),
      several_ranks_(other.several_ranks_),
      owned_nodes_(other.owned_nodes_),
      local_nodes_(other.local_nodes_),
      global_nodes_(other.global_nodes_),
      first_owned_global_(other.first_owned_global_),
      layout_(std::exchange(other.layout_, nullptr)),
      ghost_values_(std::exchange(other.ghost_values_, nullptr)),
      ghost_scatter_(std::exchange(other.ghost_scatter_, nullptr)),
      owned_values_(std::exchange(other.owned_values_, nullptr)),
      owned_entries_(std::exchange(other.owned_entries_, nullptr)) {}

NodeExchange& NodeExchange::operator=(NodeExchange&& other) noexcept {
  if (this != &other) {
    release();
    comm_ = other.comm_;
    components_ = other.components_;
    device_vectors_ = other.device_vectors_;
    several_ranks_ = other.several_ranks_;
    owned_nodes_ = other.owned_nodes_;
    local_nodes_ = other.local_nodes_;
    global_nodes_ = other.global_nodes_;
    first_owned_global_ = other.first_owned_global_;
    layout_ = std::exchange(other.layout_, nullptr);
    ghost_values_ = std::exchange(other.ghost_values_, nullptr);
    ghost_scatter_ = std::exchange(other.ghost_scatter_, nullptr);
    owned_values_ = std::exchange(other.owned_values_, nullptr);
    owned_entries_ = std::exchange(other.owned_entries_, nullptr);
  }
  return *this;
}

std::size_t NodeExchange::local_value_count() const noexcept {
  return static_cast<std::size_t>(local_nodes_) * static_cast<std::size_t>(components_);
}

std::size_t NodeExchange::owned_value_count() const noexcept {
  return static_cast<std::size_t>(owned_nodes_) * static_cast<std::size_t>(components_);
}

UniqueVec NodeExchange::create_vector() const {
  check_not_moved_from();
  Vec vec = nullptr;
  FOEHN_PETSC_CHECK(VecDuplicate(layout_, &vec));
  UniqueVec owned(vec);
  FOEHN_PETSC_CHECK(VecZeroEntries(vec));
  return owned;
}

void NodeExchange::check_not_moved_from() const {
  if (layout_ == nullptr)
    fail(ErrorCategory::invalid_input, "NodeExchange used after it was moved from");
}

void NodeExchange::check_vector(Vec global, std::size_t local_values) const {
  check_not_moved_from();
  if (local_values != local_value_count())
    fail(ErrorCategory::invalid_input, "NodeExchange: the local array has ", local_values,
         " values, expected ", local_nodes_, " local nodes x ", components_, " components");
  check_layout(global, static_cast<std::int64_t>(owned_value_count()), global_nodes_ * components_,
               first_owned_global_ * components_, "NodeExchange");
}

void NodeExchange::global_to_local(Vec global, std::span<double> local) const {
  detail::run_collectively(comm_, [&] { check_vector(global, local.size()); });
  ReadArray owned(global);
  std::copy_n(owned.get(), owned_value_count(), local.data());
  owned.restore();
  PlacedArray ghosts(ghost_values_, local.data() + owned_value_count());
  FOEHN_PETSC_CHECK(
      VecScatterBegin(ghost_scatter_, global, ghost_values_, INSERT_VALUES, SCATTER_FORWARD));
  FOEHN_PETSC_CHECK(
      VecScatterEnd(ghost_scatter_, global, ghost_values_, INSERT_VALUES, SCATTER_FORWARD));
  ghosts.reset();
}

void NodeExchange::local_to_global(std::span<const double> local, Vec global,
                                   ExchangeMode mode) const {
  detail::run_collectively(comm_, [&] { check_vector(global, local.size()); });
  const std::size_t owned_values = owned_value_count();
  if (mode == ExchangeMode::insert) {
    PetscScalar* entries = nullptr;
    FOEHN_PETSC_CHECK(VecGetArrayWrite(global, &entries));
    std::copy_n(local.data(), owned_values, entries);
    FOEHN_PETSC_CHECK(VecRestoreArrayWrite(global, &entries));
    return;
  }
  PetscScalar* entries = nullptr;
  FOEHN_PETSC_CHECK(VecGetArray(global, &entries));
  for (std::size_t i = 0; i < owned_values; ++i) entries[i] += local[i];
  FOEHN_PETSC_CHECK(VecRestoreArray(global, &entries));
  PlacedArray ghosts(ghost_values_, local.data() + owned_values);
  FOEHN_PETSC_CHECK(
      VecScatterBegin(ghost_scatter_, ghost_values_, global, ADD_VALUES, SCATTER_REVERSE));
  FOEHN_PETSC_CHECK(
      VecScatterEnd(ghost_scatter_, ghost_values_, global, ADD_VALUES, SCATTER_REVERSE));
  ghosts.reset();
}

void NodeExchange::check_device(const char* who) const {
  if (!device_vectors_)
    fail(ErrorCategory::invalid_input, "NodeExchange::", who,
         ": a device array for an exchange "
         "made without device_vectors");
}

#if FOEHN_DEVICE_PETSC
namespace {

// Puts a device array into a storage-less CUDA Vec for one PETSc operation.
class PlacedDeviceArray {
 public:
  PlacedDeviceArray(Vec vec, const double* values) : vec_(vec) {
    FOEHN_PETSC_CHECK(VecCUDAPlaceArray(vec_, values));
  }
  ~PlacedDeviceArray() {
    if (vec_ != nullptr) (void)VecCUDAResetArray(vec_);
  }
  PlacedDeviceArray(const PlacedDeviceArray&) = delete;
  PlacedDeviceArray& operator=(const PlacedDeviceArray&) = delete;
  void reset() {
    Vec vec = std::exchange(vec_, nullptr);
    FOEHN_PETSC_CHECK(VecCUDAResetArray(vec));
  }

 private:
  Vec vec_;
};

}  // namespace
#endif

void NodeExchange::global_to_local(Vec global, double* local, std::size_t count,
                                   const Stream& stream) const {
  detail::run_collectively(comm_, [&] {
    check_device("global_to_local");
    check_vector(global, count);
  });
#if FOEHN_DEVICE_PETSC
  {
    const VecArray owned(global, VecAccess::read, &stream);
    ::foehn::detail::copy_async(local, owned.data(), owned_value_count() * sizeof(double),
                                ::foehn::detail::CopyKind::device_to_device,
                                stream.native_handle());
  }
  if (!several_ranks_) return;  // one rank has no ghosts
  // The scatter writes the ghost part on PETSc's stream: after the caller's queued reads of it.
  petsc_waits_for(stream);
  PlacedDeviceArray ghosts(ghost_values_, local + owned_value_count());
  FOEHN_PETSC_CHECK(
      VecScatterBegin(ghost_scatter_, global, ghost_values_, INSERT_VALUES, SCATTER_FORWARD));
  FOEHN_PETSC_CHECK(
      VecScatterEnd(ghost_scatter_, global, ghost_values_, INSERT_VALUES, SCATTER_FORWARD));
  ghosts.reset();
  stream_waits_for_petsc(stream);
#else
  (void)global;
  (void)local;
  (void)stream;
#endif
}

void NodeExchange::local_to_global(const double* local, std::size_t count, Vec global,
                                   ExchangeMode mode, const Stream& stream) const {
  detail::run_collectively(comm_, [&] {
    check_device("local_to_global");
    check_vector(global, count);
  });
#if FOEHN_DEVICE_PETSC
  if (mode == ExchangeMode::insert) {
    const VecArray owned(global, VecAccess::write, &stream);
    ::foehn::detail::copy_async(owned.data(), local, owned_value_count() * sizeof(double),
                                ::foehn::detail::CopyKind::device_to_device,
                                stream.native_handle());
    return;
  }
  // add: global += owned part, then the ghost parts summed into their owners; PETSc's stream
  // reads `local` after the caller's stream has written it, and the caller's next write waits.
  petsc_waits_for(stream);
  {
    PlacedDeviceArray owned(owned_values_, local);
    FOEHN_PETSC_CHECK(VecGetLocalVector(global, owned_entries_));
    const PetscErrorCode code = VecAXPY(owned_entries_, 1.0, owned_values_);
    FOEHN_PETSC_CHECK(VecRestoreLocalVector(global, owned_entries_));
    FOEHN_PETSC_CHECK(code);
    owned.reset();
  }
  if (several_ranks_) {
    PlacedDeviceArray ghosts(ghost_values_, local + owned_value_count());
    FOEHN_PETSC_CHECK(
        VecScatterBegin(ghost_scatter_, ghost_values_, global, ADD_VALUES, SCATTER_REVERSE));
    FOEHN_PETSC_CHECK(
        VecScatterEnd(ghost_scatter_, ghost_values_, global, ADD_VALUES, SCATTER_REVERSE));
    ghosts.reset();
  }
  stream_waits_for_petsc(stream);
#else
  (void)local;
  (void)global;
  (void)mode;
  (void)stream;
#endif
}

}  // namespace foehn::petsc
