// Horizontal diffusion over MPI ranks: block decomposition, halo exchange, gather
// (include/foehn/stencils/distributed_diffusion.hpp).
#include "foehn/stencils/distributed_diffusion.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/peer_memory.hpp"
#include "foehn/runtime/pinned_array.hpp"
#include "foehn/runtime/stopwatch.hpp"

namespace foehn::stencils {

using petsc::detail::run_collectively;

namespace {

template <typename T>
MPI_Datatype mpi_type_of() {
  return sizeof(T) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT;
}

// Start and width of part `part` of `extent` points split into `parts` (the first extent %
// parts parts one wider).
std::pair<int, int> split_extent(int extent, int parts, int part) {
  const int base = extent / parts, wider = extent % parts;
  return {part * base + std::min(part, wider), base + (part < wider ? 1 : 0)};
}

// Values of `box` of a host field to/from a dense array (i fastest, then j, then level).
template <typename T, typename Copy>
void for_each_box_row(const StencilGrid& grid, const StencilBox& box, Copy&& copy) {
  std::size_t offset = 0;
  for (int k = 0; k < grid.nz; ++k)
    for (int j = box.j0; j < box.j0 + box.height; ++j, offset += box.width)
      copy(grid.index(box.i0, j, k), offset);
}

// Every rank must run the same problem: compare what each was given (min and max agree).
// The process grid too: MPI_Cart_create with different dims on different ranks is erroneous.
void check_same_problem_on_every_rank(MPI_Comm comm, const petsc::detail::CommShape& shape,
                                      const StencilGrid& global, const HorizontalDiffusion& options,
                                      const DistributedDiffusionSettings& settings) {
  double facts[9] = {
      static_cast<double>(global.nx),          static_cast<double>(global.ny),
      static_cast<double>(global.nz),          options.alpha,
      static_cast<double>(options.iterations), options.boundary == Boundary::periodic ? 1.0 : 0.0,
      static_cast<double>(settings.ranks_x),   static_cast<double>(settings.ranks_y),
      settings.gpu_to_gpu_halos ? 1.0 : 0.0};
  double lowest[9], highest[9];
  FOEHN_MPI_CHECK(MPI_Allreduce(facts, lowest, 9, MPI_DOUBLE, MPI_MIN, comm));
  FOEHN_MPI_CHECK(MPI_Allreduce(facts, highest, 9, MPI_DOUBLE, MPI_MAX, comm));
  run_collectively(comm, [&] {
    for (int f = 0; f < 9; ++f) {
      // NaN alpha compares unequal to itself; validate() below names it.
      if (lowest[f] != highest[f] && !(f == 3 && !std::isfinite(options.alpha))) {
        fail(ErrorCategory::invalid_input,
             "DistributedHorizontalDiffusion: the ranks were given different grids or options "
             "(nx, ny, nz, alpha, iterations, boundary, the process grid and gpu_to_gpu_halos must "
             "be the same on every rank)");
      }
    }
    validate(global, options, global.size(), "DistributedHorizontalDiffusion");
    if (settings.ranks_x < 0 || settings.ranks_y < 0 ||
        (settings.ranks_x > 0) != (settings.ranks_y > 0) ||
        (settings.ranks_x > 0 &&
         static_cast<long long>(settings.ranks_x) * settings.ranks_y != shape.size)) {
      fail(ErrorCategory::invalid_input, "DistributedHorizontalDiffusion: process grid ",
           settings.ranks_x, " x ", settings.ranks_y, " for ", shape.size,
           " ranks (give both sizes with a product of the rank count, or 0 and 0)");
    }
  });
}

}  // namespace

StencilBlock stencil_block(const StencilGrid& global, int ranks_x, int ranks_y, int rank_x,
                           int rank_y) {
  validate(global, "stencil_block");
  if (ranks_x < 1 || ranks_y < 1 || rank_x < 0 || rank_x >= ranks_x || rank_y < 0 ||
      rank_y >= ranks_y) {
    fail(ErrorCategory::invalid_input, "stencil_block: block (", rank_x, ", ", rank_y, ") of a ",
         ranks_x, " x ", ranks_y, " process grid does not exist");
  }
  if (global.nx / ranks_x < min_horizontal_extent || global.ny / ranks_y < min_horizontal_extent) {
    fail(ErrorCategory::invalid_input, "stencil_block: a ", global.nx, " x ", global.ny,
         " grid split over ", ranks_x, " x ", ranks_y,
         " ranks gives blocks narrower than the halo ",
         "(each block needs >= ", min_horizontal_extent, " interior points in x and y)");
  }
  StencilBlock block;
  block.global = global;
  block.ranks_x = ranks_x;
  block.ranks_y = ranks_y;
  block.rank_x = rank_x;
  block.rank_y = rank_y;
  std::tie(block.x0, block.local.nx) = split_extent(global.nx, ranks_x, rank_x);
  std::tie(block.y0, block.local.ny) = split_extent(global.ny, ranks_y, rank_y);
  block.local.nz = global.nz;
  return block;
}

template <typename T>
std::vector<T> local_field_of(std::span<const T> global_field, const StencilBlock& block) {
  if (global_field.size() != block.global.size()) {
    fail(ErrorCategory::invalid_input, "local_field_of: field has ", global_field.size(),
         " values but the whole grid needs ", block.global.size());
  }
  const StencilGrid& local = block.local;
  std::vector<T> field(local.size());
  // Local stored point (i, j) is global stored point (x0 + i, y0 + j): both halos have width 2.
  for (int k = 0; k < local.nz; ++k)
    for (int j = 0; j < local.rows_per_plane(); ++j) {
      const T* source = global_field.data() + block.global.index(block.x0, block.y0 + j, k);
      std::copy(source, source + local.row_length(),
                field.begin() + static_cast<std::ptrdiff_t>(local.index(0, j, k)));
    }
  return field;
}

// How a halo travels to and from the neighbour on one side of one direction.
enum class HaloRoute {
  none,  // no neighbour (Dirichlet edge)
  host,  // through host memory and MPI (always on the cpu backend; between hosts)
  peer,  // GPU to GPU: this rank copies into the neighbour's mapped receive buffer
  self,  // the rank is its own periodic neighbour: a copy on its GPU
};

// Send and receive buffers of the two directions: [dimension][low/high side].
template <typename T>
struct DistributedHorizontalDiffusion<T>::HaloBuffers {
  std::vector<T> host[2][2][2];    // [send/receive][dimension][side], cpu backend
  PinnedArray<T> pinned[2][2][2];  // the same in page-locked memory, cuda backend
  std::span<T> span(bool gpu, int what, int dimension, int side) {
    return gpu ? pinned[what][dimension][side].span() : std::span<T>(host[what][dimension][side]);
  }
  HaloRoute route[2][2] = {};  // [dimension][side]
  std::size_t values[2] = {};  // per box of [dimension]
  // GPU-to-GPU routes, [dimension][side][parity]: exchanges alternate between two receive
  // buffers, so that a neighbour one exchange ahead never overwrites a halo not yet unpacked
  // (two ahead it cannot be: it would need this rank's next notification).
  ExportedDeviceMemory receive_device[2][2][2];  // this rank's, written by the neighbour
  MappedPeerMemory neighbour_receive[2][2][2];   // the neighbour's, written by this rank
  DeviceArray<T> send_device[2][2];              // the packed send box
  long long exchanges = 0;
  std::string why_not_gpu_to_gpu;  // set when GPU-to-GPU copies were asked for but failed

  void export_receive_buffers(const Stream& stream, PeerMemoryHandle (&mine)[2][2][2]) {
    for (int dimension = 0; dimension < 2; ++dimension)
      for (int side = 0; side < 2; ++side) {
        const HaloRoute side_route = route[dimension][side];
        if (side_route == HaloRoute::peer || side_route == HaloRoute::self)
          send_device[dimension][side] = DeviceArray<T>(values[dimension], stream);
        if (side_route != HaloRoute::peer) continue;
        for (int parity = 0; parity < 2; ++parity) {
          receive_device[dimension][side][parity] =
              ExportedDeviceMemory(values[dimension] * sizeof(T));
          mine[dimension][side][parity] = receive_device[dimension][side][parity].handle();
        }
      }
  }
  // My receive buffers of `side` go to the neighbour there, which writes into them from its
  // opposite side: the tag names the side the handle is used on.
  void exchange_peer_handles(MPI_Comm cart, const int (&neighbour)[2][2],
                             const PeerMemoryHandle (&mine)[2][2][2],
                             PeerMemoryHandle (&theirs)[2][2][2]) const {
    MPI_Request requests[16];
    int count = 0;
    for (int dimension = 0; dimension < 2; ++dimension)
      for (int side = 0; side < 2; ++side) {
        if (route[dimension][side] != HaloRoute::peer) continue;
        const int other = neighbour[dimension][side];
        FOEHN_MPI_CHECK(MPI_Irecv(theirs[dimension][side], sizeof theirs[dimension][side], MPI_BYTE,
                                  other, 16 + 2 * dimension + side, cart, &requests[count++]));
        FOEHN_MPI_CHECK(MPI_Isend(mine[dimension][side], sizeof mine[dimension][side], MPI_BYTE,
                                  other, 16 + 2 * dimension + (1 - side), cart,
                                  &requests[count++]));
      }
    FOEHN_MPI_CHECK(MPI_Waitall(count, requests, MPI_STATUSES_IGNORE));
  }
  void map_neighbour_receive_buffers(const PeerMemoryHandle (&theirs)[2][2][2]) {
    for (int dimension = 0; dimension < 2; ++dimension)
      for (int side = 0; side < 2; ++side)
        if (route[dimension][side] == HaloRoute::peer)
          for (int parity = 0; parity < 2; ++parity)
            neighbour_receive[dimension][side][parity] =
                MappedPeerMemory(theirs[dimension][side][parity], values[dimension] * sizeof(T));
  }
};

template <typename T>
DistributedHorizontalDiffusion<T>::DistributedHorizontalDiffusion(
    MPI_Comm comm, const StencilGrid& global, const HorizontalDiffusion& options,
    DistributedDiffusionSettings settings)
    : options_(options), backend_(settings.backend) {
  const petsc::detail::CommShape shape =
      petsc::detail::comm_shape(comm, "DistributedHorizontalDiffusion");
  check_same_problem_on_every_rank(comm, shape, global, options, settings);
  int dims[2] = {settings.ranks_y, settings.ranks_x};  // MPI order: y, then x (fastest)
  if (dims[0] == 0) FOEHN_MPI_CHECK(MPI_Dims_create(shape.size, 2, dims));
  const bool periodic = options.boundary == Boundary::periodic;
  const int periods[2] = {periodic ? 1 : 0, periodic ? 1 : 0};
  FOEHN_MPI_CHECK(MPI_Cart_create(comm, 2, dims, periods, 0, &cart_));
  try {
    int coords[2] = {0, 0}, cart_rank = 0;
    FOEHN_MPI_CHECK(MPI_Comm_rank(cart_, &cart_rank));
    FOEHN_MPI_CHECK(MPI_Cart_coords(cart_, cart_rank, 2, coords));
    run_collectively(cart_, [&] {
      block_ = stencil_block(global, dims[1], dims[0], coords[1], coords[0]);
      step_options_ = options;
      step_options_.iterations = 1;
      step_options_.boundary = Boundary::dirichlet_band;
      allocate_block_storage(settings.cuda);
    });
    set_up_gpu_halo_routes(backend_ == Backend::cuda && settings.gpu_to_gpu_halos);
  } catch (...) {
    MPI_Comm_free(&cart_);
    throw;
  }
}

template <typename T>
void DistributedHorizontalDiffusion<T>::allocate_block_storage(
    const CudaHorizontalDiffusionSettings& cuda) {
  const StencilGrid& local = block_.local;
  buffers_ = std::make_unique<HaloBuffers>();
  const bool gpu = backend_ == Backend::cuda;
  // x boxes: 2 columns of the interior rows; y boxes: 2 rows of the whole stored width.
  const std::size_t sizes[2] = {StencilBox{0, 2, halo_width, local.ny}.size(local),
                                StencilBox{0, 0, local.row_length(), halo_width}.size(local)};
  for (int what = 0; what < 2; ++what)
    for (int dimension = 0; dimension < 2; ++dimension)
      for (int side = 0; side < 2; ++side) {
        if (gpu)
          buffers_->pinned[what][dimension][side] = PinnedArray<T>(sizes[dimension]);
        else
          buffers_->host[what][dimension][side].resize(sizes[dimension]);
      }
  if (gpu) {
    stream_ = std::make_unique<Stream>();
    device_ = std::make_unique<CudaHorizontalDiffusion<T>>(local, step_options_, cuda, *stream_);
  } else {
    host_field_.assign(local.size(), T(0));
  }
  buffers_->values[0] = sizes[0];
  buffers_->values[1] = sizes[1];
}

// Collective. Each rank names its neighbours' routes the same way the neighbour names its own
// (both sides see whether they share a host), so the two ends of every halo agree. A failure to
// export or map GPU memory (no IPC between the processes: separate containers, a GPU in
// exclusive mode) falls back to host routes on every rank, and halo_routes() says why.
template <typename T>
void DistributedHorizontalDiffusion<T>::set_up_gpu_halo_routes(bool gpu_to_gpu) {
  HaloBuffers& b = *buffers_;
  int neighbour[2][2];
  choose_halo_routes(gpu_to_gpu, neighbour);
  if (!gpu_to_gpu) return;

  PeerMemoryHandle mine[2][2][2], theirs[2][2][2];
  if (!agree_or_fall_back_to_host([&] { b.export_receive_buffers(*stream_, mine); })) return;
  b.exchange_peer_handles(cart_, neighbour, mine, theirs);
  agree_or_fall_back_to_host([&] { b.map_neighbour_receive_buffers(theirs); });
}

template <typename T>
void DistributedHorizontalDiffusion<T>::choose_halo_routes(bool gpu_to_gpu,
                                                           int (&neighbour)[2][2]) {
  int me = 0;
  FOEHN_MPI_CHECK(MPI_Comm_rank(cart_, &me));
  MPI_Comm host_comm = MPI_COMM_NULL;
  MPI_Group cart_group = MPI_GROUP_NULL, host_group = MPI_GROUP_NULL;
  FOEHN_MPI_CHECK(MPI_Comm_split_type(cart_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host_comm));
  FOEHN_MPI_CHECK(MPI_Comm_group(cart_, &cart_group));
  FOEHN_MPI_CHECK(MPI_Comm_group(host_comm, &host_group));
  HaloBuffers& b = *buffers_;
  for (int dimension = 0; dimension < 2; ++dimension) {
    FOEHN_MPI_CHECK(MPI_Cart_shift(cart_, dimension == 0 ? 1 : 0, 1, &neighbour[dimension][0],
                                   &neighbour[dimension][1]));
    for (int side = 0; side < 2; ++side) {
      const int other = neighbour[dimension][side];
      int on_this_host = MPI_UNDEFINED;
      if (other != MPI_PROC_NULL)
        FOEHN_MPI_CHECK(
            MPI_Group_translate_ranks(cart_group, 1, &other, host_group, &on_this_host));
      HaloRoute& route = b.route[dimension][side];
      if (other == MPI_PROC_NULL)
        route = HaloRoute::none;
      else if (!gpu_to_gpu)
        route = HaloRoute::host;
      else if (other == me)
        route = HaloRoute::self;
      else
        route = on_this_host != MPI_UNDEFINED ? HaloRoute::peer : HaloRoute::host;
    }
  }
  MPI_Group_free(&cart_group);
  MPI_Group_free(&host_group);
  MPI_Comm_free(&host_comm);
}

// Collective: runs `step` and reports whether it succeeded on every rank. Every rank takes part
// in both agreements, with or without routes of its own.
template <typename T>
template <typename Step>
bool DistributedHorizontalDiffusion<T>::agree_or_fall_back_to_host(Step&& step) {
  HaloBuffers& b = *buffers_;
  std::string failure;
  try {
    step();
  } catch (const Error& e) {
    failure = e.what();
  }
  int ok = failure.empty() ? 1 : 0, all_ok = 0;
  FOEHN_MPI_CHECK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, cart_));
  if (all_ok) return true;
  b.why_not_gpu_to_gpu = failure.empty() ? "another rank could not share its GPU memory" : failure;
  for (auto& route : b.route)
    for (HaloRoute& r : route)
      if (r == HaloRoute::peer) r = HaloRoute::host;
  return false;
}

template <typename T>
std::string DistributedHorizontalDiffusion<T>::halo_routes() const {
  int counts[4] = {0, 0, 0, 0};
  for (const auto& route : buffers_->route)
    for (const HaloRoute r : route) ++counts[static_cast<int>(r)];
  std::string text;
  auto add = [&](int count, const char* what) {
    if (count == 0) return;
    if (!text.empty()) text += "; ";
    text += what;
    if (what[0] != 'o') text += " on " + std::to_string(count) + " of 4 sides";
  };
  add(counts[static_cast<int>(HaloRoute::peer)], "GPU to GPU (CUDA IPC)");
  add(counts[static_cast<int>(HaloRoute::self)], "on this GPU (own periodic neighbour)");
  add(counts[static_cast<int>(HaloRoute::host)], "host memory and MPI");
  if (text.empty()) text = "no neighbours";
  if (!buffers_->why_not_gpu_to_gpu.empty())
    text += " (GPU to GPU not possible: " + buffers_->why_not_gpu_to_gpu + ")";
  return text;
}

template <typename T>
DistributedHorizontalDiffusion<T>::~DistributedHorizontalDiffusion() {
  buffers_.reset();  // its device arrays are freed in order on stream_
  device_.reset();
  stream_.reset();
  if (cart_ != MPI_COMM_NULL) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&cart_);
  }
}

template <typename T>
void DistributedHorizontalDiffusion<T>::set_field(std::span<const T> local_field) {
  validate(block_.local, options_, local_field.size(), "DistributedHorizontalDiffusion::set_field");
  if (device_) {
    device_->upload(local_field, *stream_);
    stream_->synchronize();
  } else {
    std::copy(local_field.begin(), local_field.end(), host_field_.begin());
  }
}

template <typename T>
void DistributedHorizontalDiffusion<T>::get_field(std::span<T> local_field) {
  validate(block_.local, options_, local_field.size(), "DistributedHorizontalDiffusion::get_field");
  if (device_) {
    device_->download(local_field, *stream_);
    stream_->synchronize();
  } else {
    std::copy(host_field_.begin(), host_field_.end(), local_field.begin());
  }
}

template <typename T>
void DistributedHorizontalDiffusion<T>::read_box(const StencilBox& box, std::span<T> values) {
  if (device_) {
    device_->download_box(box, values, *stream_);
    return;
  }
  for_each_box_row<T>(block_.local, box, [&](std::size_t at, std::size_t offset) {
    std::copy_n(host_field_.begin() + static_cast<std::ptrdiff_t>(at), box.width,
                values.begin() + static_cast<std::ptrdiff_t>(offset));
  });
}

template <typename T>
void DistributedHorizontalDiffusion<T>::write_box(const StencilBox& box,
                                                  std::span<const T> values) {
  if (device_) {
    device_->upload_box(box, values, *stream_);
    return;
  }
  for_each_box_row<T>(block_.local, box, [&](std::size_t at, std::size_t offset) {
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(offset), box.width,
                host_field_.begin() + static_cast<std::ptrdiff_t>(at));
  });
}

// send[0] goes to the lower neighbour of `dimension`, whose send[1] arrives in receive[1]... so:
// receive[0] (the low halo) comes from the lower neighbour's send[1], receive[1] from the upper
// neighbour's send[0]. A missing neighbour (Dirichlet edge: MPI_PROC_NULL) leaves the halo.
// GPU-to-GPU routes copy into the neighbour's buffer first and then only notify it by MPI.
template <typename T>
void DistributedHorizontalDiffusion<T>::exchange_direction(int dimension,
                                                           const StencilBox (&send)[2],
                                                           const StencilBox (&receive)[2]) {
  const bool gpu = backend_ == Backend::cuda;
  HaloBuffers& b = *buffers_;
  const int parity = static_cast<int>(b.exchanges % 2);
  const std::size_t values = b.values[dimension];
  int lower = MPI_PROC_NULL, upper = MPI_PROC_NULL;
  // The x direction is MPI dimension 1 (fastest), y is dimension 0.
  FOEHN_MPI_CHECK(MPI_Cart_shift(cart_, dimension == 0 ? 1 : 0, 1, &lower, &upper));
  const int neighbour[2] = {lower, upper};
  for (int side = 0; side < 2; ++side) {
    T* packed = b.send_device[dimension][side].data();
    switch (b.route[dimension][side]) {
      case HaloRoute::host:
        read_box(send[side], b.span(gpu, 0, dimension, side));
        break;
      case HaloRoute::peer:
        device_->pack_box(send[side], packed, values, *stream_);
        copy_device_bytes_async(b.neighbour_receive[dimension][side][parity].data(), packed,
                                values * sizeof(T), *stream_);
        break;
      case HaloRoute::self:  // send and receive boxes never overlap
        device_->pack_box(send[side], packed, values, *stream_);
        device_->unpack_box(receive[1 - side], packed, values, *stream_);
        break;
      case HaloRoute::none:
        break;
    }
  }
  if (device_) stream_->synchronize();
  MPI_Request requests[4];
  int count = 0;
  const MPI_Datatype type = mpi_type_of<T>();
  // Tag = the side it arrives on at the receiver: my low side feeds its high halo. GPU-to-GPU
  // routes send an empty message (tags 2, 3): "your halo is in your buffer".
  for (int side = 0; side < 2; ++side) {
    const HaloRoute route = b.route[dimension][side];
    if (route == HaloRoute::self || route == HaloRoute::none) continue;
    const bool peer = route == HaloRoute::peer;
    const std::span<T> incoming = b.span(gpu, 1, dimension, side);
    FOEHN_MPI_CHECK(MPI_Irecv(
        incoming.data(),
        peer ? 0 : petsc::detail::to_mpi_count(static_cast<std::int64_t>(values), "halo box"), type,
        neighbour[side], side + (peer ? 2 : 0), cart_, &requests[count++]));
  }
  for (int side = 0; side < 2; ++side) {
    const HaloRoute route = b.route[dimension][side];
    if (route == HaloRoute::self || route == HaloRoute::none) continue;
    const bool peer = route == HaloRoute::peer;
    const std::span<T> outgoing = b.span(gpu, 0, dimension, side);
    FOEHN_MPI_CHECK(MPI_Isend(
        outgoing.data(),
        peer ? 0 : petsc::detail::to_mpi_count(static_cast<std::int64_t>(values), "halo box"), type,
        neighbour[side], 1 - side + (peer ? 2 : 0), cart_, &requests[count++]));
  }
  FOEHN_MPI_CHECK(MPI_Waitall(count, requests, MPI_STATUSES_IGNORE));
  for (int side = 0; side < 2; ++side) {
    if (b.route[dimension][side] == HaloRoute::host)
      write_box(receive[side], b.span(gpu, 1, dimension, side));
    else if (b.route[dimension][side] == HaloRoute::peer)
      device_->unpack_box(receive[side],
                          static_cast<const T*>(b.receive_device[dimension][side][parity].data()),
                          values, *stream_);
  }
}

template <typename T>
void DistributedHorizontalDiffusion<T>::exchange() {
  const StencilGrid& g = block_.local;
  const int h = halo_width;
  // x: interior rows only (the corners follow in y).
  const StencilBox send_x[2] = {{h, h, h, g.ny}, {g.nx, h, h, g.ny}};
  const StencilBox receive_x[2] = {{0, h, h, g.ny}, {g.nx + h, h, h, g.ny}};
  exchange_direction(0, send_x, receive_x);
  // y: the whole stored width, halo columns included, so corners come from the diagonal block.
  const StencilBox send_y[2] = {{0, h, g.row_length(), h}, {0, g.ny, g.row_length(), h}};
  const StencilBox receive_y[2] = {{0, 0, g.row_length(), h}, {0, g.ny + h, g.row_length(), h}};
  exchange_direction(1, send_y, receive_y);
  if (device_) stream_->synchronize();
  ++buffers_->exchanges;
}

template <typename T>
void DistributedHorizontalDiffusion<T>::run() {
  for (int step = 0; step <= options_.iterations; ++step) {
    Stopwatch watch;
    exchange();
    timing_.exchange_s += watch.lap();
    if (step == options_.iterations) break;  // the final exchange only
    if (device_) {
      device_->run(*stream_);
      stream_->synchronize();
    } else {
      diffuse_openmp<T>(host_field_, block_.local, step_options_);
    }
    timing_.compute_s += watch.seconds();
    ++timing_.steps;
  }
}

namespace {

// MPI counts are int: a block of 2^31 values or more travels in several messages.
constexpr std::size_t gather_chunk_values = std::size_t{1} << 30;

template <typename T>
void send_in_chunks(const T* values, std::size_t count, int destination, MPI_Comm comm) {
  for (std::size_t done = 0; done < count; done += gather_chunk_values) {
    const auto chunk = static_cast<int>(std::min(gather_chunk_values, count - done));
    FOEHN_MPI_CHECK(MPI_Send(values + done, chunk, mpi_type_of<T>(), destination, 0, comm));
  }
}

template <typename T>
void receive_in_chunks(T* values, std::size_t count, int source, MPI_Comm comm) {
  for (std::size_t done = 0; done < count; done += gather_chunk_values) {
    const auto chunk = static_cast<int>(std::min(gather_chunk_values, count - done));
    FOEHN_MPI_CHECK(
        MPI_Recv(values + done, chunk, mpi_type_of<T>(), source, 0, comm, MPI_STATUS_IGNORE));
  }
}

}  // namespace

template <typename T>
std::vector<T> gather_field(const DistributedHorizontalDiffusion<T>& diffusion,
                            std::span<const T> local_field, int root) {
  const StencilBlock& mine = diffusion.block();
  MPI_Comm comm = diffusion.communicator();
  const petsc::detail::CommShape shape = petsc::detail::comm_shape(comm, "gather_field");
  run_collectively(comm, [&] {
    if (local_field.size() != mine.local.size())
      fail(ErrorCategory::invalid_input, "gather_field: the local field has ", local_field.size(),
           " values but the block needs ", mine.local.size());
    if (root < 0 || root >= shape.size)
      fail(ErrorCategory::invalid_input, "gather_field: root ", root, " of ", shape.size, " ranks");
  });
  // Only the root allocates, but a failure there (no memory) must reach every rank before the
  // blocks are sent, or the others would wait in their sends forever.
  std::vector<T> field, received;
  run_collectively(comm, [&] {
    if (shape.rank == root) field.assign(mine.global.size(), T(0));
  });
  if (shape.rank != root) {
    send_in_chunks(local_field.data(), local_field.size(), root, comm);
    return {};
  }
  // One block at a time (the root never holds more than the field and one block), each in
  // messages of at most 2^30 values.
  for (int r = 0; r < shape.size; ++r) {
    int coords[2] = {0, 0};
    FOEHN_MPI_CHECK(MPI_Cart_coords(comm, r, 2, coords));
    const StencilBlock b =
        stencil_block(mine.global, mine.ranks_x, mine.ranks_y, coords[1], coords[0]);
    const T* block_values = local_field.data();
    if (r != root) {
      received.resize(b.local.size());
      receive_in_chunks(received.data(), received.size(), r, comm);
      block_values = received.data();
    }
    // Interior, plus the halo on the sides where the block meets the global edge.
    const int i_begin = b.rank_x == 0 ? 0 : halo_width;
    const int i_end = b.local.nx + (b.rank_x == b.ranks_x - 1 ? 2 * halo_width : halo_width);
    const int j_begin = b.rank_y == 0 ? 0 : halo_width;
    const int j_end = b.local.ny + (b.rank_y == b.ranks_y - 1 ? 2 * halo_width : halo_width);
    for (int k = 0; k < b.local.nz; ++k)
      for (int j = j_begin; j < j_end; ++j)
        std::copy(block_values + b.local.index(i_begin, j, k),
                  block_values + b.local.index(i_end, j, k),
                  field.begin() +
                      static_cast<std::ptrdiff_t>(mine.global.index(b.x0 + i_begin, b.y0 + j, k)));
  }
  return field;
}

template class DistributedHorizontalDiffusion<float>;
template class DistributedHorizontalDiffusion<double>;
template std::vector<float> local_field_of<float>(std::span<const float>, const StencilBlock&);
template std::vector<double> local_field_of<double>(std::span<const double>, const StencilBlock&);
template std::vector<float> gather_field<float>(const DistributedHorizontalDiffusion<float>&,
                                                std::span<const float>, int);
template std::vector<double> gather_field<double>(const DistributedHorizontalDiffusion<double>&,
                                                  std::span<const double>, int);

}  // namespace foehn::stencils
