// Argument checks shared by every backend, and the kernel names (CUDA-free, so a CPU-only build
// parses the same names and fails with "unavailable" only when a GPU kernel is run).
#include <cmath>
#include <cstdint>
#include <limits>

#include "foehn/runtime/error.hpp"
#include "foehn/stencils/cuda_diffusion.hpp"
#include "foehn/stencils/horizontal_diffusion.hpp"

namespace foehn::stencils {

void validate(const StencilGrid& grid, const char* where) {
  if (grid.nx < min_horizontal_extent || grid.ny < min_horizontal_extent) {
    fail(ErrorCategory::invalid_input, where, ": grid nx x ny = ", grid.nx, " x ", grid.ny,
         " is smaller than the halo: nx and ny must be >= ", min_horizontal_extent,
         " (the periodic halo of width ", halo_width, " is copied from the interior)");
  }
  if (grid.nz < 1 || grid.nz > 65535) {
    fail(ErrorCategory::invalid_input, where, ": grid nz = ", grid.nz,
         " levels: nz must be in [1, 65535]");
  }
  const std::int64_t level = (static_cast<std::int64_t>(grid.nx) + 2 * halo_width) *
                             (static_cast<std::int64_t>(grid.ny) + 2 * halo_width);
  if (level >= (std::int64_t{1} << 31)) {
    fail(ErrorCategory::invalid_input, where, ": grid nx x ny = ", grid.nx, " x ", grid.ny,
         " gives ", level, " stored points per level: at most 2^31 - 1 are supported");
  }
}

void validate(const StencilGrid& grid, const HorizontalDiffusion& options, std::size_t field_size,
              const char* where) {
  validate(grid, where);
  if (!std::isfinite(options.alpha)) {
    fail(ErrorCategory::invalid_input, where, ": alpha = ", options.alpha, " is not finite");
  }
  if (options.iterations < 0) {
    fail(ErrorCategory::invalid_input, where, ": iterations = ", options.iterations,
         " is negative");
  }
  if (field_size != grid.size()) {
    fail(ErrorCategory::invalid_input, where, ": field has ", field_size, " values but the grid ",
         grid.nx, " x ", grid.ny, " x ", grid.nz, " with halo ", halo_width, " needs ", grid.size(),
         " ((nx + 4) * (ny + 4) * nz)");
  }
}

void validate(const StencilGrid& grid, const StencilBox& box, std::size_t values,
              const char* where) {
  const bool inside = box.width > 0 && box.height > 0 && box.i0 >= 0 && box.j0 >= 0 &&
                      box.i0 <= grid.row_length() - box.width &&
                      box.j0 <= grid.rows_per_plane() - box.height;
  if (!inside) {
    fail(ErrorCategory::invalid_input, where, ": box i in [", box.i0, ", ", box.i0 + box.width,
         "), j in [", box.j0, ", ", box.j0 + box.height, ") is empty or outside the ",
         grid.row_length(), " x ", grid.rows_per_plane(), " stored points of a level");
  }
  if (values != box.size(grid)) {
    fail(ErrorCategory::invalid_input, where, ": ", values, " values for a box of ", box.width,
         " x ", box.height, " x ", grid.nz, " = ", box.size(grid), " points");
  }
}

std::string_view to_string(CudaDiffusionKernel kernel) {
  switch (kernel) {
    case CudaDiffusionKernel::baseline:
      return "baseline";
    case CudaDiffusionKernel::fused:
      return "fused";
    case CudaDiffusionKernel::fused_wrap:
      return "fused_wrap";
    case CudaDiffusionKernel::level_resident:
      return "level_resident";
    case CudaDiffusionKernel::automatic:
      return "automatic";
  }
  return "unknown";
}

CudaDiffusionKernel parse_cuda_diffusion_kernel(std::string_view name) {
  for (const auto kernel :
       {CudaDiffusionKernel::baseline, CudaDiffusionKernel::fused, CudaDiffusionKernel::fused_wrap,
        CudaDiffusionKernel::level_resident, CudaDiffusionKernel::automatic}) {
    if (name == to_string(kernel)) return kernel;
  }
  fail(ErrorCategory::invalid_input, "unknown stencil kernel '", name,
       "' (valid: baseline, fused, fused_wrap, level_resident, automatic)");
}

}  // namespace foehn::stencils
