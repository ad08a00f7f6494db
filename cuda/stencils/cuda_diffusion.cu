// The CUDA diffusion driver: picks the kernel, owns the ping-pong buffers, launches steps
// directly or through CUDA Graphs, and runs the final halo update. Kernels: diffusion_kernels.cuh.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "diffusion_kernels.cuh"
#include "foehn/runtime/cuda_check.hpp"
#include "foehn/stencils/cuda_diffusion.hpp"

namespace foehn::stencils {
namespace {

constexpr int halo_threads = 256;
constexpr dim3 baseline_block(32, 8);
// Levels up to this many interior points use a CUDA Graph under `automatic`: there a step takes
// a few microseconds and launch overhead is a large part of it.
constexpr long long automatic_graph_max_points = 256LL * 256LL;

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// Destructors must not throw; a failure there is reported, except during process teardown
// when the runtime is already gone.
void report_in_destructor(cudaError_t code, const char* operation) noexcept {
  if (code == cudaSuccess || code == cudaErrorCudartUnloading) return;
  std::fprintf(stderr, "foehn: %s failed in a destructor: %s\n", operation,
               cudaGetErrorString(code));
}

int max_shared_bytes_per_block() {
  int device = 0;
  FOEHN_CUDA_CHECK(cudaGetDevice(&device));
  int bytes = 0;
  FOEHN_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return bytes;
}

}  // namespace

std::size_t level_resident_shared_bytes(const StencilGrid& grid, std::size_t value_size) {
  return (static_cast<std::size_t>(grid.plane_size()) +
          static_cast<std::size_t>(grid.nx + 2) * static_cast<std::size_t>(grid.ny + 2)) *
         value_size;
}

bool level_resident_fits(const StencilGrid& grid, std::size_t value_size) {
  return level_resident_shared_bytes(grid, value_size) <=
         static_cast<std::size_t>(max_shared_bytes_per_block());
}

template <typename T>
CudaHorizontalDiffusion<T>::CudaHorizontalDiffusion(const StencilGrid& grid,
                                                    const HorizontalDiffusion& options,
                                                    CudaHorizontalDiffusionSettings settings,
                                                    const Stream& stream)
    : grid_(grid), options_(options) {
  validate(grid, options, grid.size(), "CudaHorizontalDiffusion");
  if (settings.use_graph && settings.graph_steps < 1) {
    fail(ErrorCategory::invalid_input,
         "CudaHorizontalDiffusion: graph_steps = ", settings.graph_steps, " must be >= 1");
  }
  const bool periodic = options.boundary == Boundary::periodic;
  kernel_ = settings.kernel;
  use_graph_ = settings.use_graph;
  if (kernel_ == CudaDiffusionKernel::automatic) {
    // Measured on an H100 (bench/results/stencils-h100-20261122.md): for periodic fields
    // fused_wrap with a graph beats level_resident at every size (2.70 vs 2.94 ms at 64^2 x 64,
    // 5.23 vs 5.45 ms at 128^2 x 64, float), which fills only nz of the SMs. The Dirichlet
    // variant (not benchmarked) keeps level_resident where a level fits.
    if (!periodic && level_resident_fits(grid, sizeof(T))) {
      kernel_ = CudaDiffusionKernel::level_resident;
    } else {
      kernel_ = periodic ? CudaDiffusionKernel::fused_wrap : CudaDiffusionKernel::fused;
      use_graph_ =
          use_graph_ || static_cast<long long>(grid.nx) * grid.ny <= automatic_graph_max_points;
    }
  }
  // Wrapping only means something for a periodic field; a Dirichlet band is read as stored.
  if (!periodic && kernel_ == CudaDiffusionKernel::fused_wrap) kernel_ = CudaDiffusionKernel::fused;
  if (kernel_ == CudaDiffusionKernel::level_resident) {
    const std::size_t bytes = level_resident_shared_bytes(grid, sizeof(T));
    const int available = max_shared_bytes_per_block();
    if (bytes > static_cast<std::size_t>(available)) {
      fail(ErrorCategory::invalid_input, "CudaHorizontalDiffusion: kernel level_resident needs ",
           bytes, " bytes of shared memory for a ", grid.nx, " x ", grid.ny,
           " level but a block may use ", available, " on this device");
    }
    FOEHN_CUDA_CHECK(cudaFuncSetAttribute(kernels::level_resident_kernel<T>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)));
    use_graph_ = false;  // one launch per run already
  }
  graph_steps_ = settings.graph_steps + settings.graph_steps % 2;  // even: ends where it began
  buffers_[0] = DeviceArray<T>(grid.size(), stream);
  if (kernel_ != CudaDiffusionKernel::level_resident) {
    buffers_[1] = DeviceArray<T>(grid.size(), stream);
  }
  if (kernel_ == CudaDiffusionKernel::baseline) {
    tmp1_ = DeviceArray<T>(grid.size(), stream);
    tmp2_ = DeviceArray<T>(grid.size(), stream);
    // The published tmp fields start zeroed; only points the stages write are ever read.
    tmp1_.fill_bytes_async(0, stream);
    tmp2_.fill_bytes_async(0, stream);
  }
}

template <typename T>
CudaHorizontalDiffusion<T>::~CudaHorizontalDiffusion() {
  for (CUgraphExec_st*& graph : graphs_) {
    if (graph != nullptr) report_in_destructor(cudaGraphExecDestroy(graph), "cudaGraphExecDestroy");
    graph = nullptr;
  }
}

template <typename T>
void CudaHorizontalDiffusion<T>::upload(std::span<const T> field, const Stream& stream) {
  validate(grid_, options_, field.size(), "CudaHorizontalDiffusion::upload");
  buffers_[0].copy_from_host_async(field, stream);
  // Both ping-pong buffers carry the halo: the Dirichlet band must be in whichever a step
  // writes to.
  if (!buffers_[1].empty()) buffers_[1].copy_from_async(buffers_[0], stream);
  current_ = 0;
}

template <typename T>
void CudaHorizontalDiffusion<T>::download(std::span<T> field, const Stream& stream) const {
  validate(grid_, options_, field.size(), "CudaHorizontalDiffusion::download");
  buffers_[current_].copy_to_host_async(field, stream);
}

template <typename T>
void CudaHorizontalDiffusion<T>::copy_box(const StencilBox& box, bool to_host, const Stream& stream,
                                          T* host_values) const {
  const std::size_t count = box.size(grid_);
  if (box_staging_.size() < count) box_staging_ = DeviceArray<T>(count, stream);
  if (to_host) {
    launch_box_copy<true>(box, box_staging_.data(), stream);
    box_staging_.copy_to_host_async(std::span<T>(host_values, count), stream);
  } else {
    box_staging_.copy_from_host_async(std::span<const T>(host_values, count), stream);
    launch_box_copy<false>(box, box_staging_.data(), stream);
  }
}

template <typename T>
template <bool pack>
void CudaHorizontalDiffusion<T>::launch_box_copy(const StencilBox& box, T* dense,
                                                 const Stream& stream) const {
  const int per_level = box.width * box.height;
  const dim3 blocks(static_cast<unsigned>(std::min(ceil_div(per_level, halo_threads), 1024)),
                    static_cast<unsigned>(grid_.nz));
  // The field is not changed when packing; one kernel template serves both directions.
  T* field = const_cast<T*>(buffers_[current_].data());
  kernels::box_copy_kernel<T, pack>
      <<<blocks, halo_threads, 0, native(stream)>>>(field, dense, grid_, box);
  FOEHN_CUDA_CHECK_LAUNCH(pack ? "box_copy_kernel (pack)" : "box_copy_kernel (unpack)");
}

template <typename T>
void CudaHorizontalDiffusion<T>::pack_box(const StencilBox& box, T* device_values,
                                          std::size_t count, const Stream& stream) const {
  validate(grid_, box, count, "CudaHorizontalDiffusion::pack_box");
  launch_box_copy<true>(box, device_values, stream);
}

template <typename T>
void CudaHorizontalDiffusion<T>::unpack_box(const StencilBox& box, const T* device_values,
                                            std::size_t count, const Stream& stream) {
  validate(grid_, box, count, "CudaHorizontalDiffusion::unpack_box");
  launch_box_copy<false>(box, const_cast<T*>(device_values), stream);
}

template <typename T>
void CudaHorizontalDiffusion<T>::download_box(const StencilBox& box, std::span<T> values,
                                              const Stream& stream) const {
  validate(grid_, box, values.size(), "CudaHorizontalDiffusion::download_box");
  copy_box(box, true, stream, values.data());
}

template <typename T>
void CudaHorizontalDiffusion<T>::upload_box(const StencilBox& box, std::span<const T> values,
                                            const Stream& stream) {
  validate(grid_, box, values.size(), "CudaHorizontalDiffusion::upload_box");
  copy_box(box, false, stream, const_cast<T*>(values.data()));
}

template <typename T>
void CudaHorizontalDiffusion<T>::halo_update(int buffer, const Stream& stream) {
  const int cells = 2 * kernels::h * grid_.row_length() + 2 * kernels::h * grid_.ny;
  const dim3 blocks(static_cast<unsigned>(ceil_div(cells, halo_threads)),
                    static_cast<unsigned>(grid_.nz));
  kernels::periodic_halo_kernel<T>
      <<<blocks, halo_threads, 0, native(stream)>>>(buffers_[buffer].data(), grid_);
  FOEHN_CUDA_CHECK_LAUNCH("periodic_halo_kernel");
}

template <typename T>
void CudaHorizontalDiffusion<T>::step(int source, const Stream& stream) {
  const bool periodic = options_.boundary == Boundary::periodic;
  const T alpha = static_cast<T>(options_.alpha);
  const T* in = buffers_[source].data();
  T* out = buffers_[1 - source].data();
  const auto nz = static_cast<unsigned>(grid_.nz);
  switch (kernel_) {
    case CudaDiffusionKernel::baseline: {
      if (periodic) halo_update(source, stream);
      const dim3 ring(static_cast<unsigned>(ceil_div(grid_.nx + 2, 32)),
                      static_cast<unsigned>(ceil_div(grid_.ny + 2, 8)), nz);
      const dim3 interior(static_cast<unsigned>(ceil_div(grid_.nx, 32)),
                          static_cast<unsigned>(ceil_div(grid_.ny, 8)), nz);
      kernels::laplacian_kernel<T>
          <<<ring, baseline_block, 0, native(stream)>>>(in, tmp1_.data(), grid_, 1);
      FOEHN_CUDA_CHECK_LAUNCH("laplacian_kernel (tmp1)");
      kernels::laplacian_kernel<T>
          <<<interior, baseline_block, 0, native(stream)>>>(tmp1_.data(), tmp2_.data(), grid_, 0);
      FOEHN_CUDA_CHECK_LAUNCH("laplacian_kernel (tmp2)");
      kernels::update_kernel<T>
          <<<interior, baseline_block, 0, native(stream)>>>(in, tmp2_.data(), out, grid_, alpha);
      FOEHN_CUDA_CHECK_LAUNCH("update_kernel");
      break;
    }
    case CudaDiffusionKernel::fused:
    case CudaDiffusionKernel::fused_wrap: {
      const bool wrap = kernel_ == CudaDiffusionKernel::fused_wrap;
      if (periodic && !wrap) halo_update(source, stream);
      const dim3 blocks(static_cast<unsigned>(ceil_div(grid_.nx, kernels::fused_tile_x)),
                        static_cast<unsigned>(ceil_div(grid_.ny, kernels::fused_tile_y)), nz);
      const dim3 threads(kernels::fused_threads_x, kernels::fused_threads_y);
      if (wrap) {
        kernels::fused_step_kernel<T, true>
            <<<blocks, threads, 0, native(stream)>>>(in, out, grid_, alpha);
      } else {
        kernels::fused_step_kernel<T, false>
            <<<blocks, threads, 0, native(stream)>>>(in, out, grid_, alpha);
      }
      FOEHN_CUDA_CHECK_LAUNCH("fused_step_kernel");
      break;
    }
    default:
      fail(ErrorCategory::internal, "CudaHorizontalDiffusion::step: kernel ", to_string(kernel_),
           " has no single-step form");
  }
}

template <typename T>
void CudaHorizontalDiffusion<T>::launch_steps(int steps, const Stream& stream) {
  for (int s = 0; s < steps; ++s) {
    step(current_, stream);
    current_ = 1 - current_;
  }
}

// Captures graph_steps_ steps starting from the current buffer once, then replays it. An even
// step count ends in the buffer it started from, so one graph per starting buffer suffices.
template <typename T>
void CudaHorizontalDiffusion<T>::launch_graph(const Stream& stream) {
  CUgraphExec_st*& exec = graphs_[current_];
  if (exec == nullptr) {
    const int start = current_;
    FOEHN_CUDA_CHECK(cudaStreamBeginCapture(native(stream), cudaStreamCaptureModeThreadLocal));
    try {
      launch_steps(graph_steps_, stream);
    } catch (...) {
      cudaGraph_t partial = nullptr;
      (void)cudaStreamEndCapture(native(stream), &partial);  // already failing: first error wins
      if (partial != nullptr) (void)cudaGraphDestroy(partial);
      current_ = start;
      throw;
    }
    current_ = start;
    cudaGraph_t graph = nullptr;
    FOEHN_CUDA_CHECK(cudaStreamEndCapture(native(stream), &graph));
    cudaGraphExec_t instantiated = nullptr;
    const cudaError_t code = cudaGraphInstantiate(&instantiated, graph, 0);
    FOEHN_CUDA_CHECK(cudaGraphDestroy(graph));
    FOEHN_CUDA_CHECK(code);
    exec = instantiated;
  }
  FOEHN_CUDA_CHECK(cudaGraphLaunch(exec, native(stream)));
}

template <typename T>
void CudaHorizontalDiffusion<T>::run(const Stream& stream) {
  const bool periodic = options_.boundary == Boundary::periodic;
  if (kernel_ == CudaDiffusionKernel::level_resident) {
    const std::size_t bytes = level_resident_shared_bytes(grid_, sizeof(T));
    const dim3 threads(kernels::resident_threads_x, kernels::resident_threads_y);
    kernels::level_resident_kernel<T>
        <<<static_cast<unsigned>(grid_.nz), threads, bytes, native(stream)>>>(
            buffers_[current_].data(), grid_, static_cast<T>(options_.alpha), options_.iterations,
            periodic);
    FOEHN_CUDA_CHECK_LAUNCH("level_resident_kernel");
    return;
  }
  int remaining = options_.iterations;
  if (use_graph_) {
    for (; remaining >= graph_steps_; remaining -= graph_steps_) launch_graph(stream);
  }
  launch_steps(remaining, stream);
  if (periodic) halo_update(current_, stream);
}

template <typename T>
void diffuse_cuda(std::span<T> field, const StencilGrid& grid, const HorizontalDiffusion& options,
                  CudaHorizontalDiffusionSettings settings) {
  validate(grid, options, field.size(), "diffuse_cuda");
  Stream stream;
  CudaHorizontalDiffusion<T> diffusion(grid, options, settings, stream);
  diffusion.upload(field, stream);
  diffusion.run(stream);
  diffusion.download(field, stream);
  stream.synchronize();
}

template class CudaHorizontalDiffusion<float>;
template class CudaHorizontalDiffusion<double>;
template void diffuse_cuda<float>(std::span<float>, const StencilGrid&, const HorizontalDiffusion&,
                                  CudaHorizontalDiffusionSettings);
template void diffuse_cuda<double>(std::span<double>, const StencilGrid&,
                                   const HorizontalDiffusion&, CudaHorizontalDiffusionSettings);

}  // namespace foehn::stencils
