#include <algorithm>
#include <utility>
#include <vector>

#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "foehn/runtime/error.hpp"
#include "handoff_layout.hpp"
#include "petsc_device_support.hpp"

namespace foehn::petsc {

PetscVector::PetscVector(const NodeNumbering& numbering, int components, bool on_device)
    : components_(components), distributed_(numbering.distributed()), on_device_(on_device) {
  PetscBool initialized = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscInitialized(&initialized));
  if (!initialized)
    fail(ErrorCategory::unavailable,
         "PetscVector: PETSc is not initialised (the application calls PetscInitialize)");
  if (components != 1 && components != 3)
    fail(ErrorCategory::invalid_input, "PetscVector: ", components,
         " components per node (1 or 3)");
  if (on_device && !device_solves_available())
    fail(ErrorCategory::unavailable,
         "PetscVector: a vector on the GPU needs PETSc and Foehn built "
         "with CUDA: ",
         detail::why_no_device_solves());
  detail::check_fits_petsc_int(numbering.global_nodes * components, "PetscVector");
  local_values_ = static_cast<std::size_t>(numbering.local_nodes) * components;
  owned_values_ = static_cast<std::size_t>(numbering.owned_nodes) * components;

  FOEHN_PETSC_CHECK(VecCreate(numbering.comm, &vec_));
  try {
    FOEHN_PETSC_CHECK(VecSetSizes(vec_, static_cast<PetscInt>(owned_values_),
                                  static_cast<PetscInt>(numbering.global_nodes * components)));
    FOEHN_PETSC_CHECK(VecSetBlockSize(vec_, components));
#if FOEHN_DEVICE_PETSC
    if (on_device_)
      FOEHN_PETSC_CHECK(VecSetType(vec_, distributed_ ? VECMPICUDA : VECSEQCUDA));
    else
#endif
      FOEHN_PETSC_CHECK(VecSetType(vec_, distributed_ ? VECMPI : VECSEQ));
    if (distributed_ && on_device_) {
      device_exchange_ = std::make_unique<NodeExchange>(numbering, components, true);
    } else if (distributed_) {
      std::vector<PetscInt> indices(local_values_);
      for (std::int32_t node = 0; node < numbering.local_nodes; ++node)
        for (int c = 0; c < components; ++c)
          indices[static_cast<std::size_t>(node) * components + c] =
              static_cast<PetscInt>(numbering.global_of(node) * components + c);
      FOEHN_PETSC_CHECK(
          VecSetPreallocationCOO(vec_, static_cast<PetscCount>(indices.size()), indices.data()));
    }
  } catch (...) {
    VecDestroy(&vec_);
    throw;
  }
}

PetscVector::~PetscVector() {
  if (pending_) {
    try {
      copy_done_->synchronize();
    } catch (...) {
    }
  }
  if (device_write_ != nullptr && !distributed_)
    (void)VecRestoreArrayWriteAndMemType(vec_, &device_write_);
  if (vec_ != nullptr) VecDestroy(&vec_);
}

PetscVector::PetscVector(PetscVector&& other) noexcept {
  *this = std::move(other);
}

PetscVector& PetscVector::operator=(PetscVector&& other) noexcept {
  if (this == &other) return *this;
  if (vec_ != nullptr) VecDestroy(&vec_);
  vec_ = std::exchange(other.vec_, nullptr);
  components_ = other.components_;
  distributed_ = other.distributed_;
  local_values_ = other.local_values_;
  owned_values_ = other.owned_values_;
  staging_ = std::move(other.staging_);
  copy_done_ = std::move(other.copy_done_);
  pending_ = std::exchange(other.pending_, false);
  on_device_ = other.on_device_;
  device_buffer_ = std::move(other.device_buffer_);
  device_write_ = std::exchange(other.device_write_, nullptr);
  device_exchange_ = std::move(other.device_exchange_);
  return *this;
}

void PetscVector::set_values(std::span<const double> local_values) {
  if (local_values.size() != local_values_)
    fail(ErrorCategory::invalid_input, "PetscVector::set_values: ", local_values.size(),
         " values for ", local_values_, " local entries");
  if (pending_ || device_write_ != nullptr)
    fail(ErrorCategory::invalid_input,
         "PetscVector::set_values: the previous begin_set_values or begin_device_write was not "
         "ended");
  if (distributed_ && on_device_) {
    // A distributed device Vec has no COO layout (see the header): host values go up to the
    // device and through the exchange. A convenience path, on a stream of its own.
    // (The upload's memory is freed on its stream, so it is declared after the stream.)
    const Stream stream;
    DeviceArray<double> uploaded(local_values_, stream);
    uploaded.copy_from_host_async(local_values, stream);
    publish_device_values(uploaded.data(), stream);
    stream.synchronize();
    return;
  }
  const ScopedLogEvent event(LogEvent::vec_update, reinterpret_cast<PetscObject>(vec_));
  if (distributed_) {
    FOEHN_PETSC_CHECK(VecSetValuesCOO(vec_, local_values.data(), INSERT_VALUES));
    return;
  }
  PetscScalar* array = nullptr;
  FOEHN_PETSC_CHECK(VecGetArrayWrite(vec_, &array));
  std::copy(local_values.begin(), local_values.end(), array);
  FOEHN_PETSC_CHECK(VecRestoreArrayWrite(vec_, &array));
}

void PetscVector::begin_set_values(const DeviceArray<double>& local_values, const Stream& stream) {
  if (local_values.size() != local_values_)
    fail(ErrorCategory::invalid_input, "PetscVector::begin_set_values: ", local_values.size(),
         " values for ", local_values_, " local entries");
  if (pending_ || device_write_ != nullptr)
    fail(ErrorCategory::invalid_input,
         "PetscVector::begin_set_values: the previous begin_set_values or begin_device_write "
         "was not ended");
  if (on_device_) {  // the values stay on the device
    publish_device_values(local_values.data(), stream);
    return;
  }
  if (staging_.size() != local_values_) staging_ = PinnedArray<double>(local_values_);
  if (!copy_done_) copy_done_ = std::make_unique<::foehn::Event>();
  local_values.copy_to_host_async(staging_.span(), stream);
  copy_done_->record(stream);
  pending_ = true;
}

void PetscVector::end_set_values() {
  if (!pending_) return;
  {
    const ScopedLogEvent event(LogEvent::copy_d2h);
    copy_done_->synchronize();
  }
  pending_ = false;
  set_values(staging_.span());
}

void PetscVector::get_owned_values(std::span<double> owned) const {
  if (owned.size() != owned_values_)
    fail(ErrorCategory::invalid_input, "PetscVector::get_owned_values: room for ", owned.size(),
         " values, the rank owns ", owned_values_);
  const PetscScalar* array = nullptr;
  FOEHN_PETSC_CHECK(VecGetArrayRead(vec_, &array));
  std::copy(array, array + owned_values_, owned.begin());
  FOEHN_PETSC_CHECK(VecRestoreArrayRead(vec_, &array));
}

void PetscVector::publish_device_values(const double* values, const Stream& stream) {
  const ScopedLogEvent event(LogEvent::vec_update, reinterpret_cast<PetscObject>(vec_));
  if (distributed_) {
    FOEHN_PETSC_CHECK(VecZeroEntries(vec_));
    device_exchange_->local_to_global(values, local_values_, vec_, ExchangeMode::add, stream);
    return;
  }
  const VecArray entries(vec_, VecAccess::write, &stream);
  if (entries.data() != values)
    ::foehn::detail::copy_async(entries.data(), values, local_values_ * sizeof(double),
                                ::foehn::detail::CopyKind::device_to_device,
                                stream.native_handle());
}

double* PetscVector::begin_device_write(const Stream& stream) {
  if (!on_device_)
    fail(ErrorCategory::invalid_input,
         "PetscVector::begin_device_write: the Vec is a host Vec (made without on_device)");
  if (pending_ || device_write_ != nullptr)
    fail(ErrorCategory::invalid_input,
         "PetscVector::begin_device_write: the previous write was "
         "not ended");
  if (!distributed_) {
    // One rank: the local values are the Vec's entries; write them in place.
    PetscScalar* array = nullptr;
    PetscMemType memory = PETSC_MEMTYPE_HOST;
    FOEHN_PETSC_CHECK(VecGetArrayWriteAndMemType(vec_, &array, &memory));
    if (!PetscMemTypeDevice(memory)) {
      (void)VecRestoreArrayWriteAndMemType(vec_, &array);
      fail(ErrorCategory::invalid_input,
           "PetscVector::begin_device_write: the Vec is bound to "
           "the CPU (VecBindToCPU)");
    }
    stream_waits_for_petsc(stream);
    device_write_ = array;
    return array;
  }
  if (device_buffer_.size() != local_values_)
    device_buffer_ = DeviceArray<double>(local_values_, stream);
  device_write_ = device_buffer_.data();
  return device_write_;
}

void PetscVector::end_device_write(const Stream& stream) {
  if (device_write_ == nullptr)
    fail(ErrorCategory::invalid_input,
         "PetscVector::end_device_write without a begin_device_write");
  double* written = std::exchange(device_write_, nullptr);
  if (distributed_) {
    publish_device_values(written, stream);
    return;
  }
  const ScopedLogEvent event(LogEvent::vec_update, reinterpret_cast<PetscObject>(vec_));
  petsc_waits_for(stream);
  FOEHN_PETSC_CHECK(VecRestoreArrayWriteAndMemType(vec_, &written));
}

void PetscVector::abandon_device_write(const Stream& stream) noexcept {
  double* written = std::exchange(device_write_, nullptr);
  if (written == nullptr || distributed_) return;  // several ranks: our own buffer, nothing lent
  try {
    petsc_waits_for(stream);
  } catch (const Error&) {  // the caller is already reporting an error
  }
  (void)VecRestoreArrayWriteAndMemType(vec_, &written);
}

}  // namespace foehn::petsc
