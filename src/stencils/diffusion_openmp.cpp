// The OpenMP CPU version. Levels (z) are independent for all time, so each thread takes whole
// levels and runs every step of a level in three level-sized buffers (φ, φ_new, tmp1), which
// stay in the core's cache for the grids of the benchmark up to N = 256 (float). Same point
// formulas and the same halo order as the reference, hence bitwise the same result; φ_new
// replaces the `in = out` copy by a swap.
#include <algorithm>
#include <utility>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "foehn/stencils/diffusion_formulas.hpp"
#include "foehn/stencils/horizontal_diffusion.hpp"

namespace foehn::stencils {
namespace {

constexpr int h = halo_width;

// One level stored as in the field (row_length x rows_per_plane), index j * row + i.
template <typename T>
void periodic_level_halo(T* f, const StencilGrid& g) {
  const int row = g.row_length();
  for (int j = 0; j < h; ++j)
    for (int i = h; i < g.nx + h; ++i) f[j * row + i] = f[(j + g.ny) * row + i];
  for (int j = g.ny + h; j < g.ny + 2 * h; ++j)
    for (int i = h; i < g.nx + h; ++i) f[j * row + i] = f[(j - g.ny) * row + i];
  for (int j = 0; j < g.ny + 2 * h; ++j) {
    for (int i = 0; i < h; ++i) f[j * row + i] = f[j * row + i + g.nx];
    for (int i = g.nx + h; i < g.nx + 2 * h; ++i) f[j * row + i] = f[j * row + i - g.nx];
  }
}

template <typename T>
void diffuse_level(T* level, const StencilGrid& g, const HorizontalDiffusion& options,
                   std::vector<T>& phi, std::vector<T>& next, std::vector<T>& tmp1) {
  const int row = g.row_length();
  const bool periodic = options.boundary == Boundary::periodic;
  const T alpha = static_cast<T>(options.alpha);
  const std::size_t n = static_cast<std::size_t>(g.plane_size());
  std::copy(level, level + n, phi.begin());
  std::copy(level, level + n, next.begin());  // the Dirichlet band lives in both buffers
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    if (periodic) periodic_level_halo(phi.data(), g);
    for (int j = h - 1; j < g.ny + h + 1; ++j)
      for (int i = h - 1; i < g.nx + h + 1; ++i)
        tmp1[j * row + i] = laplacian_at(&phi[j * row + i], row);
    for (int j = h; j < g.ny + h; ++j)
      for (int i = h; i < g.nx + h; ++i) {
        const int p = j * row + i;
        next[p] = diffusion_update(phi[p], laplacian_at(&tmp1[p], row), alpha);
      }
    std::swap(phi, next);
  }
  if (periodic) periodic_level_halo(phi.data(), g);
  std::copy(phi.begin(), phi.end(), level);
}

}  // namespace

int openmp_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

template <typename T>
void diffuse_openmp(std::span<T> field, const StencilGrid& grid,
                    const HorizontalDiffusion& options) {
  validate(grid, options, field.size(), "diffuse_openmp");
  const std::size_t n = static_cast<std::size_t>(grid.plane_size());
  T* data = field.data();
#pragma omp parallel
  {
    std::vector<T> phi(n), next(n), tmp1(n, T(0));
#pragma omp for schedule(static)
    for (int k = 0; k < grid.nz; ++k) {
      diffuse_level(data + static_cast<std::size_t>(k) * n, grid, options, phi, next, tmp1);
    }
  }
}

template void diffuse_openmp<float>(std::span<float>, const StencilGrid&,
                                    const HorizontalDiffusion&);
template void diffuse_openmp<double>(std::span<double>, const StencilGrid&,
                                     const HorizontalDiffusion&);

}  // namespace foehn::stencils
