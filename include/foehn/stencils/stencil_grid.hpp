#pragma once
// StencilGrid: the shape of a structured 3-D field with a horizontal halo, as the published
// stencil2d program lays it out (Fortran in_field(nx + 2h, ny + 2h, nz), i fastest).
//
// Storage indices (i, j, k) run over i in [0, nx + 4), j in [0, ny + 4), k in [0, nz):
//   - x is the fastest index, then y, then z: index = (k * (ny + 4) + j) * (nx + 4) + i;
//   - the interior is i in [2, nx + 2), j in [2, ny + 2); the halo is the band of width 2 around
//     it in x and y (corners included); z has no halo (the levels are independent).
// There is no row padding: a field is exactly size() values, so host and device copies are one
// contiguous transfer and the CPU and GPU backends index the same array the same way.
//
// Public header: no CUDA; FOEHN_HD so kernels use the same index arithmetic.

#include <cstddef>
#include <cstdint>

#include "foehn/runtime/host_device.hpp"

namespace foehn::stencils {

// Width of the halo in x and y: the 13-point operator Δh(Δh φ) reaches two points out.
inline constexpr int halo_width = 2;

// Smallest legal nx and ny. The periodic halo is copied from the interior (halo cell i < 2 takes
// interior cell i + nx), so the interior must be at least as wide as the halo, otherwise a halo
// cell would be copied from another halo cell. The Dirichlet variant has the same minimum so
// that one rule holds for every boundary.
inline constexpr int min_horizontal_extent = halo_width;

struct StencilGrid {
  int nx = 0;  // interior points in x (fastest)
  int ny = 0;  // interior points in y
  int nz = 0;  // levels (independent; no halo in z)

  FOEHN_HD int row_length() const { return nx + 2 * halo_width; }      // stored points per row
  FOEHN_HD int rows_per_plane() const { return ny + 2 * halo_width; }  // stored rows per level
  FOEHN_HD std::int64_t plane_size() const {
    return static_cast<std::int64_t>(row_length()) * rows_per_plane();
  }
  FOEHN_HD std::size_t size() const { return static_cast<std::size_t>(plane_size()) * nz; }
  // Storage index of (i, j, k), halo included (i, j as described above).
  FOEHN_HD std::size_t index(int i, int j, int k) const {
    return static_cast<std::size_t>(k) * static_cast<std::size_t>(plane_size()) +
           static_cast<std::size_t>(j) * static_cast<std::size_t>(row_length()) +
           static_cast<std::size_t>(i);
  }
  // Interior points (what a step updates).
  FOEHN_HD std::size_t interior_points() const {
    return static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny) *
           static_cast<std::size_t>(nz);
  }
};

// A box of stored points through every level: i in [i0, i0 + width), j in [j0, j0 + height),
// k in [0, nz), halo indices included. Halo exchange between ranks moves such boxes; as a flat
// array a box is stored like a field (i fastest, then j, then k), width * height * nz values.
struct StencilBox {
  int i0 = 0;
  int j0 = 0;
  int width = 0;
  int height = 0;

  std::size_t size(const StencilGrid& grid) const {
    return static_cast<std::size_t>(width) * static_cast<std::size_t>(height) *
           static_cast<std::size_t>(grid.nz);
  }
};

// Throws foehn::Error (invalid_input) naming `where` unless `box` is non-empty, lies within the
// stored points of `grid`, and `values` == box.size(grid).
void validate(const StencilGrid& grid, const StencilBox& box, std::size_t values,
              const char* where);

// Throws foehn::Error (invalid_input) naming `where` and the sizes when nx or ny is below
// min_horizontal_extent, nz < 1, or a level (row_length * rows_per_plane) has 2^31 or more
// points (device kernels index within a level with 32-bit integers) or nz exceeds 65535 (one
// grid dimension of the CUDA launch per level).
void validate(const StencilGrid& grid, const char* where);

}  // namespace foehn::stencils
