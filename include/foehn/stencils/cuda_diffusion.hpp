#pragma once
// Horizontal diffusion on the GPU (docs/stencils.md). Public header: no CUDA headers; in a
// build without CUDA every constructor and function here throws foehn::Error (unavailable).
//
//   foehn::Stream stream;
//   CudaHorizontalDiffusion<float> diffusion(grid, options, {}, stream);   // kernel: automatic
//   diffusion.upload(field, stream);
//   diffusion.run(stream);              // options.iterations steps + final halo update
//   diffusion.download(field, stream);  // then stream.synchronize()
//
// Every kernel gives bitwise the field of diffuse_reference().

#include <cstddef>
#include <span>
#include <string_view>

#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"
#include "foehn/stencils/horizontal_diffusion.hpp"

struct CUgraphExec_st;

namespace foehn::stencils {

enum class CudaDiffusionKernel {
  // The published stage structure on the GPU: halo kernel, Laplacian kernel to tmp1 (interior
  // + ring), Laplacian kernel to tmp2, update kernel (4 launches, tmp1/tmp2 through DRAM).
  baseline,
  // One kernel per step computing Δh(Δh φ) from a shared-memory tile (φ read once, written
  // once, intermediates never in DRAM), ping-pong buffers, plus a small halo kernel per step.
  fused,
  // As fused, but the periodic wrap is done in the tile's load phase (modular indices), so no
  // halo kernel runs between steps (one launch per step; one halo update after the last).
  fused_wrap,
  // Small levels: one thread block per level keeps the whole level in shared memory and runs
  // all iterations in one launch (exact: levels are independent). Only where a level fits.
  level_resident,
  // level_resident where it fits, else fused_wrap (periodic) / fused (Dirichlet), with a CUDA
  // Graph for levels of up to 256 x 256 points.
  automatic,
};

std::string_view to_string(CudaDiffusionKernel kernel);
// "baseline", "fused", "fused_wrap", "level_resident", "automatic"; else invalid_input.
CudaDiffusionKernel parse_cuda_diffusion_kernel(std::string_view name);

struct CudaHorizontalDiffusionSettings {
  CudaDiffusionKernel kernel = CudaDiffusionKernel::automatic;
  // Launch the per-step kernels of baseline / fused / fused_wrap through a CUDA Graph of
  // graph_steps steps (captured once per run parity, replayed), to amortise launch overhead on
  // small grids. Ignored by level_resident (one launch anyway). Rounded up to an even number.
  bool use_graph = false;
  int graph_steps = 64;
};

// Bytes of shared memory level_resident needs for one level of `grid` (φ with halo + tmp1 with
// ring), and whether the current device offers that much to one block.
std::size_t level_resident_shared_bytes(const StencilGrid& grid, std::size_t value_size);
bool level_resident_fits(const StencilGrid& grid, std::size_t value_size);

template <typename T>
class CudaHorizontalDiffusion {
 public:
  // Validates grid and options (invalid_input), resolves `automatic`, and allocates the device
  // buffers on `stream` (which must outlive this object).
  CudaHorizontalDiffusion(const StencilGrid& grid, const HorizontalDiffusion& options,
                          CudaHorizontalDiffusionSettings settings, const Stream& stream);
  ~CudaHorizontalDiffusion();
  CudaHorizontalDiffusion(const CudaHorizontalDiffusion&) = delete;
  CudaHorizontalDiffusion& operator=(const CudaHorizontalDiffusion&) = delete;

  // field.size() must be grid.size() (invalid_input otherwise).
  void upload(std::span<const T> field, const Stream& stream);
  // options.iterations steps, then the final halo update; the result stays on the device.
  void run(const Stream& stream);
  void download(std::span<T> field, const Stream& stream) const;
  // The current field's values in `box` to / from `values` (stored like a field: i fastest,
  // then j, then level), asynchronously on `stream`: the halo exchange between ranks
  // (distributed_diffusion.hpp). Pinned host memory makes them truly asynchronous.
  // invalid_input when the box is outside the grid or `values` has another size.
  void download_box(const StencilBox& box, std::span<T> values, const Stream& stream) const;
  void upload_box(const StencilBox& box, std::span<const T> values, const Stream& stream);
  // The same to / from `count` values in device memory (this GPU's), for halo copies that stay
  // on the GPUs.
  void pack_box(const StencilBox& box, T* device_values, std::size_t count,
                const Stream& stream) const;
  void unpack_box(const StencilBox& box, const T* device_values, std::size_t count,
                  const Stream& stream);

  CudaDiffusionKernel kernel() const noexcept { return kernel_; }  // never `automatic`
  bool uses_graph() const noexcept { return use_graph_; }
  const DeviceArray<T>& current() const noexcept { return buffers_[current_]; }

 private:
  void step(int source, const Stream& stream);  // one step from buffers_[source]
  void halo_update(int buffer, const Stream& stream);
  void launch_steps(int steps, const Stream& stream);
  void launch_graph(const Stream& stream);
  // Packs a box into box_staging_ and copies it to the host, or the reverse.
  void copy_box(const StencilBox& box, bool to_host, const Stream& stream, T* host_values) const;
  // box_copy_kernel between the field's `box` and `dense` (device memory), either way.
  template <bool pack>
  void launch_box_copy(const StencilBox& box, T* dense, const Stream& stream) const;

  StencilGrid grid_;
  HorizontalDiffusion options_;
  CudaDiffusionKernel kernel_ = CudaDiffusionKernel::fused;
  bool use_graph_ = false;
  int graph_steps_ = 0;
  DeviceArray<T> buffers_[2];   // ping-pong: buffers_[current_] holds the field
  DeviceArray<T> tmp1_, tmp2_;  // baseline only
  int current_ = 0;
  CUgraphExec_st* graphs_[2] = {nullptr, nullptr};  // per starting buffer
  mutable DeviceArray<T> box_staging_;  // halo boxes on their way to / from the host (dense)
};

// Convenience: upload, run, download and synchronise on a stream of its own.
template <typename T>
void diffuse_cuda(std::span<T> field, const StencilGrid& grid, const HorizontalDiffusion& options,
                  CudaHorizontalDiffusionSettings settings = {});

}  // namespace foehn::stencils
