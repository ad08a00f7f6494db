#pragma once
// Kernels of the CUDA diffusion backend (included by cuda_diffusion.cu only). Each calls the
// point formulas of diffusion_formulas.hpp, so every kernel rounds exactly like the CPU reference.
//
// Coordinates: "interior" (x, y) in [0, nx) x [0, ny); storage (i, j) = (x + 2, y + 2).

#include <cstddef>

#include "foehn/stencils/diffusion_formulas.hpp"
#include "foehn/stencils/stencil_grid.hpp"

namespace foehn::stencils::kernels {

constexpr int h = halo_width;

// Interior coordinate c in [-h, n + h) -> its periodic image in [0, n); n >= h makes one
// correction enough.
__device__ __forceinline__ int wrap_periodic(int c, int n) {
  if (c < 0) return c + n;
  if (c >= n) return c - n;
  return c;
}

// ---- boxes for the halo exchange between ranks -----------------------------------------------
// Packs (to_box) or unpacks a StencilBox of the field to/from a dense array (i fastest, then j,
// then level; blockIdx.y = level), so that a box moves to the host in one contiguous copy: a
// strided copy of 2-value rows runs at a small fraction of the bus's speed.
template <typename T, bool to_box>
__global__ void box_copy_kernel(T* __restrict__ field, T* __restrict__ values, StencilGrid g,
                                StencilBox box) {
  const int per_level = box.width * box.height;  // within a level: < 2^31 (validate)
  const int k = static_cast<int>(blockIdx.y);
  for (int p = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); p < per_level;
       p += static_cast<int>(gridDim.x * blockDim.x)) {
    const int j = p / box.width;
    const std::size_t at = g.index(box.i0 + (p - j * box.width), box.j0 + j, k);
    const std::size_t dense = static_cast<std::size_t>(k) * per_level + p;
    if (to_box)
      values[dense] = field[at];
    else
      field[at] = values[dense];
  }
}

// ---- periodic halo, global memory ------------------------------------------------------------
// One thread per halo cell of a level (blockIdx.y = level). Every halo cell takes the interior
// value at its periodic image, the corners the diagonally opposite one: the same values the
// published two-pass copy (y edges, then x edges with corners) produces, in one pass, since the
// sources are all interior.
template <typename T>
__global__ void periodic_halo_kernel(T* __restrict__ field, StencilGrid g) {
  const int row = g.row_length();
  const int edge_cells = 2 * h * row;   // rows j < h and j >= ny + h, full width
  const int side_cells = 2 * h * g.ny;  // columns i < h and i >= nx + h, interior rows
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (t >= edge_cells + side_cells) return;
  int i = 0, j = 0;
  if (t < edge_cells) {
    const int r = t / row;
    i = t - r * row;
    j = r < h ? r : g.ny + r;
  } else {
    const int u = t - edge_cells;
    const int c = u / g.ny;
    j = h + (u - c * g.ny);
    i = c < h ? c : g.nx + c;
  }
  T* level =
      field + static_cast<std::size_t>(blockIdx.y) * static_cast<std::size_t>(g.plane_size());
  const int source_i = wrap_periodic(i - h, g.nx) + h;
  const int source_j = wrap_periodic(j - h, g.ny) + h;
  level[j * row + i] = level[source_j * row + source_i];
}

// ---- baseline: the published stages as separate kernels ---------------------------------------
// out = Δh in on the interior extended by `extend` (0 or 1); 2-D blocks over (x, y), z = level.
template <typename T>
__global__ void laplacian_kernel(const T* __restrict__ in, T* __restrict__ out, StencilGrid g,
                                 int extend) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) - extend;
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y) - extend;
  if (x >= g.nx + extend || y >= g.ny + extend) return;
  const std::size_t p = g.index(x + h, y + h, static_cast<int>(blockIdx.z));
  out[p] = laplacian_at(in + p, g.row_length());
}

template <typename T>
__global__ void update_kernel(const T* __restrict__ in, const T* __restrict__ tmp2,
                              T* __restrict__ out, StencilGrid g, T alpha) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= g.nx || y >= g.ny) return;
  const std::size_t p = g.index(x + h, y + h, static_cast<int>(blockIdx.z));
  out[p] = diffusion_update(in[p], tmp2[p], alpha);
}

// ---- fused: Δh(Δh φ) from a shared-memory tile ------------------------------------------------
// A block of 32 x 8 threads computes a fused_tile_x x fused_tile_y (64 x 32) output tile of one
// level:
//   load   φ on the tile + 2 points (rows of the tile are read by whole warps: coalesced in x);
//   tmp1 = Δh φ on the tile + 1 point, in shared memory;
//   out  = φ − α Δh tmp1 on the tile, written once.
// φ comes from DRAM once (the overlap of neighbouring tiles, 20 % at 64 x 32, hits L2) and
// tmp1 never leaves the SM. Wrap = true takes the periodic images of the halo points directly
// from the interior (modular indices in the load phase), so no halo kernel runs between steps.
constexpr int fused_threads_x = 32;
constexpr int fused_threads_y = 8;
constexpr int fused_tile_x = 64;
constexpr int fused_tile_y = 32;

template <typename T, bool Wrap>
__global__ void __launch_bounds__(fused_threads_x* fused_threads_y)
    fused_step_kernel(const T* __restrict__ in, T* __restrict__ out, StencilGrid g, T alpha) {
  constexpr int load_x = fused_tile_x + 2 * h, load_y = fused_tile_y + 2 * h;
  constexpr int ring_x = fused_tile_x + 2, ring_y = fused_tile_y + 2;
  __shared__ T phi[load_y][load_x];
  __shared__ T tmp1[ring_y][ring_x];
  const int x0 = static_cast<int>(blockIdx.x) * fused_tile_x;
  const int y0 = static_cast<int>(blockIdx.y) * fused_tile_y;
  const int row = g.row_length();
  const std::size_t level =
      static_cast<std::size_t>(blockIdx.z) * static_cast<std::size_t>(g.plane_size());
  const T* in_level = in + level;
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);

  // The load and tmp1 phases walk their arrays in one flat index, so all 256 threads stay busy
  // (68- and 66-wide rows would leave most of a third warp pass idle); consecutive threads
  // still read consecutive x, so the global loads stay coalesced. All loads of a thread are
  // issued into registers before any is stored to shared memory: a store waits for its load,
  // and interleaving them would leave one load in flight per warp instead of ten.
  const int thread = ty * fused_threads_x + tx;
  constexpr int threads = fused_threads_x * fused_threads_y;
  constexpr int load_points = load_x * load_y;
  constexpr int load_passes = (load_points + threads - 1) / threads;
  T loaded[load_passes];
#pragma unroll
  for (int pass = 0; pass < load_passes; ++pass) {
    const int e = thread + pass * threads;
    const int ly = e / load_x, lx = e - ly * load_x;
    const int x = x0 + lx - h, y = y0 + ly - h;  // interior coordinates, from -h
    loaded[pass] = T(0);  // points past the far edge only feed outputs that are not stored
    if (e < load_points && x < g.nx + h && y < g.ny + h) {
      if constexpr (Wrap) {
        loaded[pass] = in_level[(wrap_periodic(y, g.ny) + h) * row + wrap_periodic(x, g.nx) + h];
      } else {
        loaded[pass] = in_level[(y + h) * row + x + h];
      }
    }
  }
  T* phi_flat = &phi[0][0];
#pragma unroll
  for (int pass = 0; pass < load_passes; ++pass) {
    const int e = thread + pass * threads;
    if (e < load_points) phi_flat[e] = loaded[pass];
  }
  __syncthreads();
#pragma unroll
  for (int pass = 0; pass < (ring_x * ring_y + threads - 1) / threads; ++pass) {
    const int e = thread + pass * threads;
    if (e >= ring_x * ring_y) break;
    const int ry = e / ring_x, rx = e - ry * ring_x;
    tmp1[ry][rx] = laplacian(phi[ry + 1][rx + 1], phi[ry + 1][rx], phi[ry + 1][rx + 2],
                             phi[ry][rx + 1], phi[ry + 2][rx + 1]);
  }
  __syncthreads();
  T* out_level = out + level;
#pragma unroll
  for (int oy_pass = 0; oy_pass < (fused_tile_y + fused_threads_y - 1) / fused_threads_y;
       ++oy_pass) {
    const int oy = ty + oy_pass * fused_threads_y;
    if (oy >= fused_tile_y) break;
#pragma unroll
    for (int ox_pass = 0; ox_pass < (fused_tile_x + fused_threads_x - 1) / fused_threads_x;
         ++ox_pass) {
      const int ox = tx + ox_pass * fused_threads_x;
      if (ox >= fused_tile_x) break;
      const int x = x0 + ox, y = y0 + oy;
      if (x < g.nx && y < g.ny) {
        const T lap2 = laplacian(tmp1[oy + 1][ox + 1], tmp1[oy + 1][ox], tmp1[oy + 1][ox + 2],
                                 tmp1[oy][ox + 1], tmp1[oy + 2][ox + 1]);
        out_level[(y + h) * row + x + h] = diffusion_update(phi[oy + h][ox + h], lap2, alpha);
      }
    }
  }
}

// ---- level_resident: a whole level in shared memory, all steps in one launch -------------------
// One block per level (levels never interact), 1024 threads walking column segments. φ (with
// halo) and tmp1 (interior + ring) live in dynamic shared memory; the update is done in place
// (each point reads only its own φ once tmp1 is complete). DRAM sees the level once in and once
// out for all iterations: for small grids the cost is the shared-memory traffic and three
// __syncthreads per step instead of one kernel launch per step.
constexpr int resident_threads_x = 32;
constexpr int resident_threads_y = 32;

template <typename T>
__device__ void periodic_level_halo(T* phi, const StencilGrid& g) {
  const int row = g.row_length();
  for (int j = static_cast<int>(threadIdx.y); j < g.ny + 2 * h; j += resident_threads_y) {
    const bool edge_row = j < h || j >= g.ny + h;
    const int source_j = wrap_periodic(j - h, g.ny) + h;
    if (edge_row) {
      for (int i = static_cast<int>(threadIdx.x); i < row; i += resident_threads_x)
        phi[j * row + i] = phi[source_j * row + wrap_periodic(i - h, g.nx) + h];
    } else if (threadIdx.x < 2 * h) {
      const int c = static_cast<int>(threadIdx.x);
      const int i = c < h ? c : g.nx + c;
      phi[j * row + i] = phi[j * row + wrap_periodic(i - h, g.nx) + h];
    }
  }
}

// Splits [0, width) x [0, height) into column segments, one per thread: thread t takes column
// t mod width and the (t / width)-th of Threads / width row chunks, and calls
// body(x, y_begin, y_end). Walking a column lets the stencil keep the centre and the point
// below it in registers (3 shared-memory loads per Laplacian instead of 5); consecutive threads
// take consecutive columns, so a warp's loads hit distinct banks. Rows wider than the block
// give each thread whole columns, t, t + Threads, ...
template <int Threads, typename Body>
__device__ __forceinline__ void for_each_column_segment(int width, int height, int thread,
                                                        Body body) {
  if (width >= Threads) {
    for (int x = thread; x < width; x += Threads) body(x, 0, height);
    return;
  }
  const int chunks = Threads / width;
  const int chunk = thread / width, x = thread - chunk * width;
  if (chunk >= chunks) return;  // the last Threads mod width threads have no segment
  const int rows = (height + chunks - 1) / chunks;
  const int y_begin = chunk * rows, y_end = min(height, y_begin + rows);
  if (y_begin < y_end) body(x, y_begin, y_end);
}

template <typename T>
__global__ void __launch_bounds__(resident_threads_x* resident_threads_y)
    level_resident_kernel(T* __restrict__ field, StencilGrid g, T alpha, int iterations,
                          bool periodic) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  constexpr int threads = resident_threads_x * resident_threads_y;
  T* phi = reinterpret_cast<T*>(shared_bytes);
  const int row = g.row_length();
  const int plane = static_cast<int>(g.plane_size());
  T* tmp1 = phi + plane;
  const int ring_row = g.nx + 2;
  T* level = field + static_cast<std::size_t>(blockIdx.x) * static_cast<std::size_t>(plane);
  const int thread = static_cast<int>(threadIdx.y * resident_threads_x + threadIdx.x);

  for (int p = thread; p < plane; p += threads) phi[p] = level[p];
  __syncthreads();
  for (int iteration = 0; iteration < iterations; ++iteration) {
    if (periodic) {
      periodic_level_halo(phi, g);
      __syncthreads();
    }
    // tmp1 index (rx, ry) in [0, nx + 2) x [0, ny + 2) is storage point (rx + 1, ry + 1).
    for_each_column_segment<threads>(
        ring_row, g.ny + 2, thread, [&](int rx, int ry_begin, int ry_end) {
          const T* column = phi + rx + 1;  // storage column of tmp1 column rx
          T down = column[ry_begin * row];
          T centre = column[(ry_begin + 1) * row];
          for (int ry = ry_begin; ry < ry_end; ++ry) {
            const T up = column[(ry + 2) * row];
            const T* left = phi + (ry + 1) * row + rx;
            tmp1[ry * ring_row + rx] = laplacian(centre, left[0], left[2], down, up);
            down = centre;
            centre = up;
          }
        });
    __syncthreads();
    for_each_column_segment<threads>(g.nx, g.ny, thread, [&](int x, int y_begin, int y_end) {
      const T* column = tmp1 + x + 1;  // tmp1 column of interior column x
      T down = column[y_begin * ring_row];
      T centre = column[(y_begin + 1) * ring_row];
      for (int y = y_begin; y < y_end; ++y) {
        const T up = column[(y + 2) * ring_row];
        const T* left = tmp1 + (y + 1) * ring_row + x;
        T& value = phi[(y + h) * row + x + h];
        value = diffusion_update(value, laplacian(centre, left[0], left[2], down, up), alpha);
        down = centre;
        centre = up;
      }
    });
    __syncthreads();
  }
  if (periodic) {
    periodic_level_halo(phi, g);
    __syncthreads();
  }
  for (int p = thread; p < plane; p += threads) level[p] = phi[p];
}

}  // namespace foehn::stencils::kernels
