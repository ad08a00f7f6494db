#pragma once
// 4th-order horizontal diffusion φ ← φ − α Δh(Δh φ) on a StencilGrid field (issue 9, after the
// HPC4WC stencil2d program of seed report 002). Docs: docs/stencils.md.
//
// One time step, in the published order:
//   1. halo update of φ (periodic: y edges without corners, then x edges with corners;
//      Dirichlet: nothing, the halo band holds fixed boundary values);
//   2. tmp1 = Δh φ on the interior plus a ring of width 1;
//   3. tmp2 = Δh tmp1 on the interior;
//   4. φ_new = φ − α·tmp2 on the interior.
// After the last step the halo of the result is updated once more (periodic), so a field always
// comes back with a consistent halo. iterations = 0 therefore means "halo update only".
//
// Every backend gives bitwise the same field as diffuse_reference (see diffusion_formulas.hpp).

#include <span>

#include "foehn/stencils/stencil_grid.hpp"

namespace foehn::stencils {

enum class Boundary {
  periodic,        // the halo is refilled from the opposite side before every step
  dirichlet_band,  // the halo (a band of width 2 around the interior) keeps its values
};

struct HorizontalDiffusion {
  // α of the published program (Δt α4 / Δx⁴ folded). The 2Δx checkerboard mode is amplified by
  // 1 − 64α per step, so α = 1/32 is exactly the stability limit; larger α is accepted (any
  // finite value is) but blows up.
  double alpha = 1.0 / 32.0;
  int iterations = 1;
  Boundary boundary = Boundary::periodic;
};

// Throws foehn::Error (invalid_input) for a bad grid (validate(grid)), a non-finite α,
// iterations < 0, or a field whose size is not grid.size(); `where` names the caller.
void validate(const StencilGrid& grid, const HorizontalDiffusion& options, std::size_t field_size,
              const char* where);

// The CPU reference: one thread, literally the published loop nests and order, with separate
// tmp1/tmp2/out arrays and the `in = out` copy between steps. Updates `field` in place.
template <typename T>
void diffuse_reference(std::span<T> field, const StencilGrid& grid,
                       const HorizontalDiffusion& options);

// All cores (OpenMP, over z-levels: each thread runs every step of its levels in a cache-sized
// level buffer). Without OpenMP it runs on one thread. Bitwise equal to the reference.
template <typename T>
void diffuse_openmp(std::span<T> field, const StencilGrid& grid,
                    const HorizontalDiffusion& options);

// Number of threads diffuse_openmp uses (1 without OpenMP).
int openmp_threads();

}  // namespace foehn::stencils
