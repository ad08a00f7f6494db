// DeviceValueEdits: ValueEdits' position lists on the GPU and the edits as one-thread-per-entry
// kernels. Compiled without FMA contraction (CMakeLists.txt), so column_correction sums each row
// in the host's order and rounding: the results are bitwise the host's.
#include "foehn/fe/cuda/assembler_state.cuh"
#include "foehn/fe/value_edits.hpp"

namespace foehn::fe {

namespace {

constexpr int threads = 256;

unsigned blocks_for(std::size_t count) {
  return static_cast<unsigned>((count + threads - 1) / threads);
}

template <class T>
DeviceArray<T> upload(const std::vector<T>& host, const Stream& stream) {
  DeviceArray<T> device(host.size(), stream);
  device.copy_from_host_async(host, stream);
  return device;
}

__global__ void add_at_kernel(double* values, const std::int64_t* positions, const double* lumped,
                              std::size_t count) {
  const std::size_t p = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (p < count) values[positions[p]] += lumped[p];
}

__global__ void set_at_kernel(double* values, const std::int64_t* positions, double value,
                              std::size_t count) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k < count) values[positions[k]] = value;
}

__global__ void column_correction_kernel(const double* values, const double* g,
                                         const std::int64_t* rows, const std::int64_t* offsets,
                                         const std::int64_t* positions, const std::int64_t* columns,
                                         double* correction, std::size_t row_count) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k >= row_count) return;
  double sum = 0;
  for (std::int64_t e = offsets[k]; e < offsets[k + 1]; ++e)
    sum += values[positions[e]] * g[columns[e]];
  correction[rows[k]] = -sum;
}

__global__ void scaled_copy_at_kernel(double* rhs, const double* g, const std::int64_t* points,
                                      double diagonal, std::size_t count) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k < count) rhs[points[k]] = diagonal * g[points[k]];
}

}  // namespace

DeviceValueEdits::DeviceValueEdits(const ValueEdits& edits, const Stream& stream)
    : local_points_(edits.local_points_),
      symmetric_(edits.symmetry_ == ConstraintSymmetry::symmetric),
      diagonal_positions_(upload(edits.diagonal_positions_, stream)),
      zeroed_positions_(upload(edits.zeroed_positions_, stream)),
      constrained_diagonal_positions_(upload(edits.constrained_diagonal_positions_, stream)),
      owned_constrained_points_(upload(edits.owned_constrained_points_, stream)),
      correction_rows_(upload(edits.correction_rows_, stream)),
      correction_offsets_(upload(edits.correction_offsets_, stream)),
      correction_positions_(upload(edits.correction_positions_, stream)),
      correction_columns_(upload(edits.correction_columns_, stream)) {}

void DeviceValueEdits::add_diagonal(double* values, const double* lumped,
                                    const Stream& stream) const {
  const std::size_t count = diagonal_positions_.size();
  if (count == 0) return;
  add_at_kernel<<<blocks_for(count), threads, 0, native(stream)>>>(
      values, diagonal_positions_.data(), lumped, count);
  FOEHN_CUDA_CHECK_LAUNCH("DeviceValueEdits::add_diagonal");
}

void DeviceValueEdits::apply_constraints(double* values, double diagonal,
                                         const Stream& stream) const {
  if (const std::size_t count = zeroed_positions_.size(); count > 0) {
    set_at_kernel<<<blocks_for(count), threads, 0, native(stream)>>>(
        values, zeroed_positions_.data(), 0.0, count);
    FOEHN_CUDA_CHECK_LAUNCH("DeviceValueEdits::apply_constraints (zero)");
  }
  if (const std::size_t count = constrained_diagonal_positions_.size(); count > 0) {
    set_at_kernel<<<blocks_for(count), threads, 0, native(stream)>>>(
        values, constrained_diagonal_positions_.data(), diagonal, count);
    FOEHN_CUDA_CHECK_LAUNCH("DeviceValueEdits::apply_constraints (diagonal)");
  }
}

void DeviceValueEdits::column_correction(const double* values, const double* g, double* correction,
                                         const Stream& stream) const {
  if (!symmetric_)
    fail(ErrorCategory::invalid_input,
         "DeviceValueEdits::column_correction: the constraints are rows_only");
  ::foehn::detail::fill_bytes_async(correction, 0, local_points_ * sizeof(double), native(stream));
  const std::size_t rows = correction_rows_.size();
  if (rows == 0) return;
  column_correction_kernel<<<blocks_for(rows), threads, 0, native(stream)>>>(
      values, g, correction_rows_.data(), correction_offsets_.data(), correction_positions_.data(),
      correction_columns_.data(), correction, rows);
  FOEHN_CUDA_CHECK_LAUNCH("DeviceValueEdits::column_correction");
}

void DeviceValueEdits::constrain_rhs(double* rhs, const double* g, double diagonal,
                                     const Stream& stream) const {
  const std::size_t count = owned_constrained_points_.size();
  if (count == 0) return;
  scaled_copy_at_kernel<<<blocks_for(count), threads, 0, native(stream)>>>(
      rhs, g, owned_constrained_points_.data(), diagonal, count);
  FOEHN_CUDA_CHECK_LAUNCH("DeviceValueEdits::constrain_rhs");
}

}  // namespace foehn::fe
