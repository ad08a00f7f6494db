#pragma once
// A PETSc Vec fed by Foehn's assembled right-hand sides: every rank gives the values of its
// local nodes (owned and ghost, `components` interleaved per node, as the assemblers produce
// them) and the Vec holds their sum over ranks, in PETSc's layout (owned rows of each rank,
// block size = components). One rank: a copy into the Vec's array. Several ranks:
// VecSetPreallocationCOO once, VecSetValuesCOO per assembly (PETSc sums the ghost
// contributions into their owners). Device values go through a pinned staging buffer,
// asynchronously between begin and end, like PetscMatrix.
//
// On the GPU (on_device, where device_solves_available()) the Vec is VECCUDA and device values
// stay there: one rank writes PETSc's device array in place (begin_device_write hands it out,
// so an assembly can write its right-hand side straight into it); several ranks add their
// owned values on the device and send ghost values to their owners through PETSc's scatter
// (a NodeExchange): PETSc 3.26 has a device VecSetValuesCOO for VECMPICUDA but does not install
// it in the type's operations, so VecSetValuesCOO would run the host version. set_values (host
// values) uploads them and takes the same way.
#include <petscvec.h>

#include <memory>
#include <span>

#include "foehn/petsc/node_exchange.hpp"
#include "foehn/petsc/node_numbering.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/pinned_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::petsc {

class PetscVector {
 public:
  // Collective on numbering.comm. components: 1 (scalar) or 3 (vector field). on_device: a
  // VECCUDA Vec (unavailable where device_solves_available() is false).
  PetscVector(const NodeNumbering& numbering, int components, bool on_device = false);
  ~PetscVector();
  PetscVector(PetscVector&&) noexcept;
  PetscVector& operator=(PetscVector&&) noexcept;
  PetscVector(const PetscVector&) = delete;
  PetscVector& operator=(const PetscVector&) = delete;

  Vec vec() const noexcept { return vec_; }
  int components() const noexcept { return components_; }
  std::size_t local_value_count() const noexcept { return local_values_; }
  bool on_device() const noexcept { return on_device_; }

  // Sets the Vec to the sum over ranks of every rank's local values. Collective.
  void set_values(std::span<const double> local_values);
  void begin_set_values(const DeviceArray<double>& local_values, const Stream& stream);
  void end_set_values();

  // Vecs on the GPU: device memory for local_value_count() values, to be written completely
  // on `stream` and then published by end_device_write on the same stream (PETSc's own array on
  // one rank; on several a buffer allocated on the first `stream`, which must outlive the
  // Vec). invalid_input for a host Vec.
  double* begin_device_write(const Stream& stream);
  void end_device_write(const Stream& stream);
  // Ends a begun write without publishing (unwinding from an error); local, never throws.
  void abandon_device_write(const Stream& stream) noexcept;

  // Copies this rank's owned entries (owned_nodes * components values) out of the Vec.
  void get_owned_values(std::span<double> owned) const;

 private:
  Vec vec_ = nullptr;
  int components_ = 1;
  bool distributed_ = false;
  std::size_t local_values_ = 0;
  std::size_t owned_values_ = 0;
  PinnedArray<double> staging_;
  std::unique_ptr<::foehn::Event> copy_done_;
  bool pending_ = false;
  bool on_device_ = false;
  // Device Vecs: local values in Foehn's order where PETSc's array cannot take them in place,
  // and on several ranks the exchange that sums them into the owners' entries.
  DeviceArray<double> device_buffer_;
  std::unique_ptr<NodeExchange> device_exchange_;
  double* device_write_ = nullptr;  // what begin_device_write handed out, until its end

  void publish_device_values(const double* values, const Stream& stream);
};

}  // namespace foehn::petsc
