// CPU-only builds: the GPU diffusion exists (so code using it links) and says why it cannot run.
#include "foehn/runtime/error.hpp"
#include "foehn/stencils/cuda_diffusion.hpp"

namespace foehn::stencils {
std::size_t level_resident_shared_bytes(const StencilGrid& grid, std::size_t value_size) {
  return (static_cast<std::size_t>(grid.plane_size()) +
          static_cast<std::size_t>(grid.nx + 2) * static_cast<std::size_t>(grid.ny + 2)) *
         value_size;
}
bool level_resident_fits(const StencilGrid&, std::size_t) {
  return false;
}

template <typename T>
CudaHorizontalDiffusion<T>::CudaHorizontalDiffusion(const StencilGrid&, const HorizontalDiffusion&,
                                                    CudaHorizontalDiffusionSettings,
                                                    const Stream&) {
  fail_built_without_cuda("CudaHorizontalDiffusion");
}
template <typename T>
CudaHorizontalDiffusion<T>::~CudaHorizontalDiffusion() = default;
template <typename T>
void CudaHorizontalDiffusion<T>::upload(std::span<const T>, const Stream&) {
  fail_built_without_cuda("CudaHorizontalDiffusion");
}
template <typename T>
void CudaHorizontalDiffusion<T>::run(const Stream&) {
  fail_built_without_cuda("CudaHorizontalDiffusion");
}
template <typename T>
void CudaHorizontalDiffusion<T>::download(std::span<T>, const Stream&) const {
  fail_built_without_cuda("CudaHorizontalDiffusion");
}
template <typename T>
void CudaHorizontalDiffusion<T>::download_box(const StencilBox&, std::span<T>,
                                              const Stream&) const {
  fail_built_without_cuda("CudaHorizontalDiffusion");
}
template <typename T>
void CudaHorizontalDiffusion<T>::upload_box(const StencilBox&, std::span<const T>, const Stream&) {
  fail_built_without_cuda("CudaHorizontalDiffusion");
}
template <typename T>
void CudaHorizontalDiffusion<T>::pack_box(const StencilBox&, T*, std::size_t, const Stream&) const {
  fail_built_without_cuda("CudaHorizontalDiffusion");
}
template <typename T>
void CudaHorizontalDiffusion<T>::unpack_box(const StencilBox&, const T*, std::size_t,
                                            const Stream&) {
  fail_built_without_cuda("CudaHorizontalDiffusion");
}
template <typename T>
void diffuse_cuda(std::span<T>, const StencilGrid&, const HorizontalDiffusion&,
                  CudaHorizontalDiffusionSettings) {
  fail_built_without_cuda("horizontal diffusion on the GPU");
}

template class CudaHorizontalDiffusion<float>;
template class CudaHorizontalDiffusion<double>;
template void diffuse_cuda<float>(std::span<float>, const StencilGrid&, const HorizontalDiffusion&,
                                  CudaHorizontalDiffusionSettings);
template void diffuse_cuda<double>(std::span<double>, const StencilGrid&,
                                   const HorizontalDiffusion&, CudaHorizontalDiffusionSettings);

}  // namespace foehn::stencils
