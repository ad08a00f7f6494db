// CudaAssembler: mesh upload, the device-built sparsity pattern, the per-strategy structures
// and the dispatch to the strategies.

#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include <bit>
#include <limits>
#include <vector>

#include "foehn/fe/cuda/assembler_dispatch.cuh"
#include "foehn/fe/operator_list.hpp"

namespace foehn::fe {

namespace {

// Key of block (row, column): row in the high word so that sorting keys sorts row-major.
__global__ void pattern_keys_kernel(const std::int32_t* __restrict__ tets, std::int64_t tet_count,
                                    std::int64_t node_count, std::uint64_t* __restrict__ keys) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t < tet_count) {
    std::int32_t n[4];
    for (int k = 0; k < 4; ++k) n[k] = tets[t * 4 + k];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        keys[t * 16 + i * 4 + j] =
            (static_cast<std::uint64_t>(n[i]) << 32) | static_cast<std::uint32_t>(n[j]);
  }
  if (t < node_count)  // the diagonal, present also for nodes no tet uses (as on the CPU)
    keys[tet_count * 16 + t] =
        (static_cast<std::uint64_t>(t) << 32) | static_cast<std::uint32_t>(t);
}

__global__ void split_keys_kernel(const std::uint64_t* __restrict__ keys, std::int64_t count,
                                  std::int32_t* __restrict__ rows,
                                  std::int32_t* __restrict__ columns) {
  const std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  rows[k] = static_cast<std::int32_t>(keys[k] >> 32);
  columns[k] = static_cast<std::int32_t>(keys[k] & 0xffffffffu);
}

__global__ void slot_map_kernel(const std::int32_t* __restrict__ tets, std::int64_t tet_count,
                                const std::int32_t* __restrict__ row_offsets,
                                const std::int32_t* __restrict__ column_indices,
                                std::int32_t* __restrict__ slot_map) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t >= tet_count) return;
  std::int32_t n[4];
  for (int k = 0; k < 4; ++k) n[k] = tets[t * 4 + k];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      slot_map[t * 16 + i * 4 + j] = block_slot(row_offsets, column_indices, n[i], n[j]);
}

// counts[b] = number of pattern slots of rows [b * rows_per_block, (b + 1) * rows_per_block).
__global__ void block_slot_counts_kernel(const std::int32_t* __restrict__ row_offsets,
                                         std::int64_t node_count, int rows_per_block,
                                         std::int64_t blocks, std::int32_t* __restrict__ counts) {
  const std::int64_t b = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (b >= blocks) return;
  const std::int64_t first = b * rows_per_block;
  const std::int64_t last = std::min<std::int64_t>(first + rows_per_block, node_count);
  counts[b] = row_offsets[last] - row_offsets[first];
}

// Sorts `keys` (values 0 .. key_count-1, with their positions as payload, stably) and returns
// offsets[k] = first position of key k, for k = 0 .. key_count.
void group_by_key(const DeviceArray<std::int32_t>& keys, std::int64_t key_count,
                  DeviceArray<std::int32_t>& offsets, DeviceArray<std::int32_t>& positions,
                  const Stream& stream) {
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  cudaStream_t s = native(stream);
  DeviceArray<std::int32_t> sorted_keys(n, stream), order(n, stream);
  positions = DeviceArray<std::int32_t>(n, stream);
  thrust::sequence(thrust::cuda::par.on(s), order.data(), order.data() + n);
  const int end_bit =
      std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(key_count))));
  std::size_t temp_bytes = 0;
  FOEHN_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.data(),
                                                   sorted_keys.data(), order.data(),
                                                   positions.data(), n, 0, end_bit, s));
  DeviceArray<unsigned char> temp(temp_bytes, stream);
  FOEHN_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys.data(),
                                                   sorted_keys.data(), order.data(),
                                                   positions.data(), n, 0, end_bit, s));
  offsets = DeviceArray<std::int32_t>(static_cast<std::size_t>(key_count) + 1, stream);
  thrust::lower_bound(
      thrust::cuda::par.on(s), sorted_keys.data(), sorted_keys.data() + n,
      thrust::counting_iterator<std::int32_t>(0),
      thrust::counting_iterator<std::int32_t>(static_cast<std::int32_t>(key_count) + 1),
      offsets.data());
  FOEHN_CUDA_CHECK_LAUNCH("group_by_key");
}

}  // namespace

void CudaAssembler::Impl::build_pattern() {
  const Stream& s = *stream;
  const std::int64_t key_count = tet_count * 16 + node_count;
  DeviceArray<std::uint64_t> keys(key_count, s), sorted(key_count, s), unique(key_count, s);
  pattern_keys_kernel<<<grid_for(std::max(tet_count, node_count)), options.block_size, 0,
                        native_stream()>>>(tets.data(), tet_count, node_count, keys.data());
  FOEHN_CUDA_CHECK_LAUNCH("pattern_keys_kernel");
  // Only the bits that can be set: 32 for the column, bit_width(nodes) for the row.
  const int end_bit =
      32 + std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(node_count))));
  std::size_t sort_bytes = 0, unique_bytes = 0;
  DeviceArray<std::int64_t> unique_count(1, s);
  FOEHN_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, keys.data(), sorted.data(),
                                                  key_count, 0, end_bit, native_stream()));
  FOEHN_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, unique_bytes, sorted.data(), unique.data(),
                                             unique_count.data(), key_count, native_stream()));
  DeviceArray<unsigned char> temp(std::max(sort_bytes, unique_bytes), s);
  FOEHN_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
      temp.data(), sort_bytes, keys.data(), sorted.data(), key_count, 0, end_bit, native_stream()));
  FOEHN_CUDA_CHECK(cub::DeviceSelect::Unique(temp.data(), unique_bytes, sorted.data(),
                                             unique.data(), unique_count.data(), key_count,
                                             native_stream()));
  nnz = unique_count.copy_to_host(s)[0];
  if (nnz > std::numeric_limits<std::int32_t>::max())
    fail(ErrorCategory::invalid_input, "CUDA pattern: ", nnz, " nonzeros exceed 32-bit offsets");

  DeviceArray<std::int32_t> rows(nnz, s);
  column_indices = DeviceArray<std::int32_t>(nnz, s);
  split_keys_kernel<<<grid_for(nnz), options.block_size, 0, native_stream()>>>(
      unique.data(), nnz, rows.data(), column_indices.data());
  FOEHN_CUDA_CHECK_LAUNCH("split_keys_kernel");
  row_offsets = DeviceArray<std::int32_t>(node_count + 1, s);
  thrust::lower_bound(
      thrust::cuda::par.on(native_stream()), rows.data(), rows.data() + nnz,
      thrust::counting_iterator<std::int32_t>(0),
      thrust::counting_iterator<std::int32_t>(static_cast<std::int32_t>(node_count) + 1),
      row_offsets.data());
  FOEHN_CUDA_CHECK_LAUNCH("pattern row offsets");
  s.synchronize();
}

void CudaAssembler::Impl::build_slot_map() {
  if (!slot_map.empty() || tet_count == 0) return;
  slot_map = DeviceArray<std::int32_t>(tet_count * 16, *stream);
  slot_map_kernel<<<grid_for(tet_count), options.block_size, 0, native_stream()>>>(
      tets.data(), tet_count, row_offsets.data(), column_indices.data(), slot_map.data());
  FOEHN_CUDA_CHECK_LAUNCH("slot_map_kernel");
}

void CudaAssembler::Impl::build_contribution_lists() {
  if (!slot_contributions.empty() || tet_count == 0) return;
  build_slot_map();
  group_by_key(slot_map, nnz, slot_contribution_offsets, slot_contributions, *stream);
  build_node_contributions();
  stream->synchronize();
}

// The node -> element adjacency: for each node, e * 4 + (its vertex number in e), in ascending
// element order (a stable sort of the connectivity by node), built on the device.
void CudaAssembler::Impl::build_node_contributions() {
  if (!node_contributions.empty() || tet_count == 0) return;
  group_by_key(tets, node_count, node_contribution_offsets, node_contributions, *stream);
}

RowGatherLaunch CudaAssembler::Impl::row_gather_launch(int values_per_slot) {
  if (auto found = row_gather_launches.find(values_per_slot); found != row_gather_launches.end())
    return found->second;
  build_node_contributions();
  int device = 0, opt_in_limit = 0;
  FOEHN_CUDA_CHECK(cudaGetDevice(&device));
  FOEHN_CUDA_CHECK(
      cudaDeviceGetAttribute(&opt_in_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  auto shared_bytes_for = [&](int rows_per_block) {
    const std::int64_t blocks = (node_count + rows_per_block - 1) / rows_per_block;
    DeviceArray<std::int32_t> counts(blocks, *stream);
    block_slot_counts_kernel<<<grid_for(blocks), options.block_size, 0, native_stream()>>>(
        row_offsets.data(), node_count, rows_per_block, blocks, counts.data());
    FOEHN_CUDA_CHECK_LAUNCH("block_slot_counts_kernel");
    // A value, not an iterator: the counts are device memory the host cannot dereference.
    const std::int32_t most =
        thrust::reduce(thrust::cuda::par.on(native_stream()), counts.data(), counts.data() + blocks,
                       std::int32_t{0}, thrust::maximum<std::int32_t>());
    return static_cast<std::size_t>(most) * values_per_slot * sizeof(double);
  };
  // The widest block whose values fit the default 48 KiB of shared memory; failing that, the
  // narrowest that fits the opt-in limit; failing that (rows of hundreds of neighbours), no
  // shared memory. Threads per SM are bounded by the shared memory either way, so the width
  // matters little once it fits.
  RowGatherLaunch launch{128, 0};
  bool chosen = false;
  for (int rows : {128, 64, 32}) {
    const std::size_t bytes = shared_bytes_for(rows);
    if (bytes <= 48 * 1024) {
      launch = {rows, std::max<std::size_t>(bytes, sizeof(double))};
      chosen = true;
      break;
    }
    if (rows == 32 && bytes <= static_cast<std::size_t>(opt_in_limit)) {
      launch = {rows, bytes};
      chosen = true;
    }
  }
  if (!chosen) launch = {128, 0};
  row_gather_launches[values_per_slot] = launch;
  return launch;
}

CudaAssembler::CudaAssembler(const TetMesh& mesh, const Stream& stream, CudaAssemblyOptions options)
    : impl_(std::make_unique<Impl>()) {
  if (options.block_size < 32 || options.block_size > 1024 || options.block_size % 32 != 0)
    fail(ErrorCategory::invalid_input, "CUDA assembly: block size ", options.block_size,
         " must be a multiple of 32 in [32, 1024]");
  if (mesh.tets.size() * 16 + mesh.nodes.size() >
      static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    fail(ErrorCategory::invalid_input, "CUDA assembly: ", mesh.tets.size(),
         " tets exceed the 32-bit contribution indices");
  if (mesh.tets.empty() || mesh.nodes.empty())
    fail(ErrorCategory::invalid_input, "CUDA assembly: the mesh has no tets");
  // Flat copies (TetMesh stores std::array rows), then the kernels' own geometry test on the
  // host: a tet the device would find singular is rejected here with its index, never turned
  // into NaN entries.
  std::vector<double> coordinates;
  coordinates.reserve(mesh.nodes.size() * 3);
  for (const Point3& p : mesh.nodes) coordinates.insert(coordinates.end(), p.begin(), p.end());
  std::vector<std::int32_t> connectivity;
  connectivity.reserve(mesh.tets.size() * 4);
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    for (std::int32_t n : mesh.tets[t])
      if (n < 0 || static_cast<std::size_t>(n) >= mesh.nodes.size())
        fail(ErrorCategory::invalid_input, "CUDA assembly: tet ", t, " names node ", n, " of ",
             mesh.nodes.size());
    connectivity.insert(connectivity.end(), mesh.tets[t].begin(), mesh.tets[t].end());
  }
  ElementContextFor<TetCentroid1> ctx;
  for (std::size_t t = 0; t < mesh.tets.size(); ++t)
    if (!prepare_element(coordinates.data(), connectivity.data(), static_cast<std::int64_t>(t),
                         ctx))
      fail(ErrorCategory::invalid_input, "CUDA assembly: tet ", t,
           " is degenerate or inverted (validate the mesh first)");
  Impl& m = *impl_;
  m.stream = &stream;
  m.options = options;
  m.node_count = static_cast<std::int64_t>(mesh.nodes.size());
  m.tet_count = static_cast<std::int64_t>(mesh.tets.size());
  m.coordinates = DeviceArray<double>(mesh.nodes.size() * 3, stream);
  m.tets = DeviceArray<std::int32_t>(mesh.tets.size() * 4, stream);
  m.coordinates.copy_from_host_async(coordinates, stream);
  m.tets.copy_from_host_async(connectivity, stream);
  m.build_pattern();  // synchronises, so the host copies above may go
}

CudaAssembler::~CudaAssembler() = default;
CudaAssembler::CudaAssembler(CudaAssembler&&) noexcept = default;
CudaAssembler& CudaAssembler::operator=(CudaAssembler&&) noexcept = default;

std::int64_t CudaAssembler::node_count() const noexcept {
  return impl_->node_count;
}
std::int64_t CudaAssembler::tet_count() const noexcept {
  return impl_->tet_count;
}
std::int64_t CudaAssembler::nnz() const noexcept {
  return impl_->nnz;
}
const Stream& CudaAssembler::stream() const noexcept {
  return *impl_->stream;
}
const DeviceArray<std::int32_t>& CudaAssembler::row_offsets() const noexcept {
  return impl_->row_offsets;
}
const DeviceArray<std::int32_t>& CudaAssembler::column_indices() const noexcept {
  return impl_->column_indices;
}
const DeviceArray<double>& CudaAssembler::coordinates() const noexcept {
  return impl_->coordinates;
}
const DeviceArray<std::int32_t>& CudaAssembler::tets() const noexcept {
  return impl_->tets;
}

CsrPattern CudaAssembler::download_pattern() const {
  CsrPattern p;
  p.rows = p.cols = static_cast<std::int32_t>(impl_->node_count);
  p.row_offsets = impl_->row_offsets.copy_to_host(stream());
  p.column_indices = impl_->column_indices.copy_to_host(stream());
  return p;
}

void CudaAssembler::prepare(AssemblyStrategy strategy) {
  if (strategy == AssemblyStrategy::fused_map) impl_->build_slot_map();
  if (strategy == AssemblyStrategy::deterministic) impl_->build_contribution_lists();
  if (strategy == AssemblyStrategy::row_gather) {
    for (int values_per_slot : {1, 3, 9}) impl_->row_gather_launch(values_per_slot);
  }
}

std::size_t CudaAssembler::setup_bytes() const noexcept {
  const Impl& m = *impl_;
  return m.row_offsets.bytes() + m.column_indices.bytes() + m.slot_map.bytes() +
         m.slot_contribution_offsets.bytes() + m.slot_contributions.bytes() +
         m.node_contribution_offsets.bytes() + m.node_contributions.bytes();
}

BlockCsrMatrix CudaAssembler::download(const DeviceBlockCsrMatrix& matrix,
                                       std::shared_ptr<const CsrPattern> pattern) const {
  BlockCsrMatrix host(std::move(pattern), matrix.block_rows, matrix.block_cols);
  if (host.values.size() != matrix.values.size())
    fail(ErrorCategory::invalid_input, "download: device matrix has ", matrix.values.size(),
         " values, the pattern needs ", host.values.size());
  matrix.values.copy_to_host_async(host.values, stream());
  stream().synchronize();
  return host;
}

}  // namespace foehn::fe

FOEHN_FOR_EACH_BUILTIN_OPERATOR(FOEHN_INSTANTIATE_CUDA_DISPATCH)
