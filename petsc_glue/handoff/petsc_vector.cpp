#include <algorithm>
#include <utility>
#include <vector>

#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "foehn/runtime/error.hpp"
#include "handoff_layout.hpp"

namespace foehn::petsc {

PetscVector::PetscVector(const NodeNumbering& numbering, int components)
    : components_(components), distributed_(numbering.distributed()) {
  PetscBool initialized = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscInitialized(&initialized));
  if (!initialized)
    fail(ErrorCategory::unavailable,
         "PetscVector: PETSc is not initialised (the application calls PetscInitialize)");
  if (components != 1 && components != 3)
    fail(ErrorCategory::invalid_input, "PetscVector: ", components,
         " components per node (1 or 3)");
  detail::check_fits_petsc_int(numbering.global_nodes * components, "PetscVector");
  local_values_ = static_cast<std::size_t>(numbering.local_nodes) * components;
  owned_values_ = static_cast<std::size_t>(numbering.owned_nodes) * components;

  FOEHN_PETSC_CHECK(VecCreate(numbering.comm, &vec_));
  try {
    FOEHN_PETSC_CHECK(VecSetSizes(vec_, static_cast<PetscInt>(owned_values_),
                                  static_cast<PetscInt>(numbering.global_nodes * components)));
    FOEHN_PETSC_CHECK(VecSetBlockSize(vec_, components));
    FOEHN_PETSC_CHECK(VecSetType(vec_, distributed_ ? VECMPI : VECSEQ));
    if (distributed_) {
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
  if (vec_ != nullptr) VecDestroy(&vec_);
}

PetscVector::PetscVector(PetscVector&& other) noexcept { *this = std::move(other); }

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
  return *this;
}

void PetscVector::set_values(std::span<const double> local_values) {
  if (local_values.size() != local_values_)
    fail(ErrorCategory::invalid_input, "PetscVector::set_values: ", local_values.size(),
         " values for ", local_values_, " local entries");
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
  if (pending_)
    fail(ErrorCategory::invalid_input,
         "PetscVector::begin_set_values: the previous begin_set_values was not ended");
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

}  // namespace foehn::petsc
