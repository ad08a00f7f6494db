// The CPU reference: a literal port of the inlined stencil2d-orig.F90 time loop (seed report 002,
// Appendix A), with 0-based storage indices. Every other backend is tested bitwise against it,
// so it stays deliberately plain: the four halo loop nests in the published order, tmp1 on the
// interior plus a ring, tmp2 on the interior, the update into `out`, and the `in = out` copy
// on every step but the last.
#include <algorithm>
#include <vector>

#include "foehn/stencils/diffusion_formulas.hpp"
#include "foehn/stencils/horizontal_diffusion.hpp"

namespace foehn::stencils {
namespace {

constexpr int h = halo_width;

// y edges without corners first, then x edges including corners: the corners take values the
// y step has just written, i.e. the diagonally opposite interior values.
template <typename T>
void periodic_halo_update(std::vector<T>& f, const StencilGrid& g) {
  for (int k = 0; k < g.nz; ++k) {
    for (int j = 0; j < h; ++j)  // bottom edge
      for (int i = h; i < g.nx + h; ++i) f[g.index(i, j, k)] = f[g.index(i, j + g.ny, k)];
    for (int j = g.ny + h; j < g.ny + 2 * h; ++j)  // top edge
      for (int i = h; i < g.nx + h; ++i) f[g.index(i, j, k)] = f[g.index(i, j - g.ny, k)];
    for (int j = 0; j < g.ny + 2 * h; ++j)  // left edge, corners included
      for (int i = 0; i < h; ++i) f[g.index(i, j, k)] = f[g.index(i + g.nx, j, k)];
    for (int j = 0; j < g.ny + 2 * h; ++j)  // right edge, corners included
      for (int i = g.nx + h; i < g.nx + 2 * h; ++i)
        f[g.index(i, j, k)] = f[g.index(i - g.nx, j, k)];
  }
}

// out = Δh in on the interior extended by `extend` points on each side.
template <typename T>
void laplacian_field(const std::vector<T>& in, std::vector<T>& out, const StencilGrid& g,
                     int extend) {
  const int row = g.row_length();
  for (int k = 0; k < g.nz; ++k)
    for (int j = h - extend; j < g.ny + h + extend; ++j)
      for (int i = h - extend; i < g.nx + h + extend; ++i) {
        const std::size_t p = g.index(i, j, k);
        out[p] = laplacian_at(&in[p], row);
      }
}

}  // namespace

template <typename T>
void diffuse_reference(std::span<T> field, const StencilGrid& grid,
                       const HorizontalDiffusion& options) {
  validate(grid, options, field.size(), "diffuse_reference");
  const bool periodic = options.boundary == Boundary::periodic;
  const T alpha = static_cast<T>(options.alpha);
  std::vector<T> in(field.begin(), field.end());
  std::vector<T> out = in;  // the published out_field starts as a copy of in_field
  std::vector<T> tmp1(in.size(), T(0));
  std::vector<T> tmp2(in.size(), T(0));
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    if (periodic) periodic_halo_update(in, grid);
    laplacian_field(in, tmp1, grid, 1);
    laplacian_field(tmp1, tmp2, grid, 0);
    for (int k = 0; k < grid.nz; ++k)
      for (int j = h; j < grid.ny + h; ++j)
        for (int i = h; i < grid.nx + h; ++i) {
          const std::size_t p = grid.index(i, j, k);
          out[p] = diffusion_update(in[p], tmp2[p], alpha);
        }
    if (iteration != options.iterations - 1) {
      for (int k = 0; k < grid.nz; ++k)
        for (int j = h; j < grid.ny + h; ++j)
          for (int i = h; i < grid.nx + h; ++i) in[grid.index(i, j, k)] = out[grid.index(i, j, k)];
    }
  }
  if (periodic) periodic_halo_update(out, grid);
  std::copy(out.begin(), out.end(), field.begin());
}

template void diffuse_reference<float>(std::span<float>, const StencilGrid&,
                                       const HorizontalDiffusion&);
template void diffuse_reference<double>(std::span<double>, const StencilGrid&,
                                        const HorizontalDiffusion&);

}  // namespace foehn::stencils
