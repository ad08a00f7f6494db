#pragma once
// Horizontal diffusion over MPI ranks (issue 21): the global N x N x nz field is split into a
// ranks_y x ranks_x grid of blocks, one per rank, each on the CPU or on the rank's GPU; before
// every step the ranks exchange halos. Docs: docs/stencils.md, "Several ranks and GPUs".
//
// Needs MPI's headers (like foehn/petsc/*.hpp); the code lives in libfoehn.
//
//   select_device_for_rank(comm);                          // GPU ranks: foehn/petsc/device_binding
//   DistributedHorizontalDiffusion<float> diffusion(comm, global_grid, options,
//                                                   {.backend = Backend::cuda});
//   diffusion.set_field(local_field);      // diffusion.block().local.size() values, halo included
//   diffusion.run();                       // options.iterations steps
//   diffusion.get_field(local_field);      // or gather_field(...) onto one rank
//
// Exactness: a step of a block reads only its interior and its halo of width 2, and every point
// is computed by the one-rank formulas. The exchange copies values exactly, so the gathered field
// is bitwise the field of diffuse_reference on the whole grid, for either boundary, any process
// grid and either backend.
//
// One step:
//   1. x exchange: columns i in [2, 4) and [nx, nx + 2) of the interior rows go to the left and
//      right neighbours' halo columns;
//   2. y exchange: rows j in [2, 4) and [ny, ny + 2) over the whole stored width (so the corners
//      carry the diagonal neighbours' values) go to the lower and upper neighbours' halo rows;
//   3. the block takes one Dirichlet-band step on its own grid (its halo now holds the
//      neighbours' values, or the fixed band on a global Dirichlet edge).
// Periodic boundaries make the process grid periodic (a rank may be its own neighbour). After
// the last step one more exchange leaves every halo consistent, as the one-rank run does.
// GPU blocks move their halo boxes through pinned host memory (Debian's Open MPI is not
// CUDA-aware), so a step also pays four device-to-host and four host-to-device copies (two
// boxes per direction) and their pack and unpack kernels.

#include <mpi.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "foehn/runtime/backend.hpp"
#include "foehn/stencils/cuda_diffusion.hpp"
#include "foehn/stencils/horizontal_diffusion.hpp"

namespace foehn::stencils {

// Where one rank's block lies.
struct StencilBlock {
  StencilGrid global;  // the whole field
  StencilGrid local;   // this block: its interior nx x ny, every level, halo of width 2
  int ranks_x = 1;     // process grid
  int ranks_y = 1;
  int rank_x = 0;  // this block's place in it
  int rank_y = 0;
  int x0 = 0;  // global interior index of the block's first interior point
  int y0 = 0;
};

// The block (rank_x, rank_y) of `global` split over ranks_x x ranks_y blocks: interior widths
// differ by at most one, the first (nx mod ranks_x) columns of blocks one wider (likewise in y).
// invalid_input when a process-grid size is < 1, the place is outside it, or a block would be
// narrower than the halo (nx / ranks_x or ny / ranks_y below min_horizontal_extent).
StencilBlock stencil_block(const StencilGrid& global, int ranks_x, int ranks_y, int rank_x,
                           int rank_y);

// The block's local field cut from a whole field, halo included (the whole field's band on
// global edges, the neighbours' interior values elsewhere; a periodic halo is refilled by the
// first exchange anyway). invalid_input for a field of the wrong size.
template <typename T>
std::vector<T> local_field_of(std::span<const T> global_field, const StencilBlock& block);

struct DistributedDiffusionSettings {
  Backend backend = Backend::cpu;          // cuda: the block lives on the calling thread's device
  CudaHorizontalDiffusionSettings cuda{};  // kernel choice of the GPU blocks
  // Process grid; 0 and 0 lets MPI_Dims_create choose (y is split first: its halo rows are
  // contiguous). Otherwise ranks_x * ranks_y must be the size of the communicator.
  int ranks_x = 0;
  int ranks_y = 0;
  // cuda backend: halos between ranks on one host go GPU to GPU (CUDA IPC; over NVLink where
  // the GPUs have it), and a rank that is its own periodic neighbour copies on its GPU. false:
  // every halo through host memory and MPI, as between hosts. Must agree on every rank.
  bool gpu_to_gpu_halos = true;
};

// Wall-clock seconds spent by this rank since construction (or reset_timing).
struct DistributedDiffusionTiming {
  double compute_s = 0.0;   // the steps themselves (GPU: until the stream has finished)
  double exchange_s = 0.0;  // copies to/from the halo buffers and the MPI messages
  long long steps = 0;
};

template <typename T>
class DistributedHorizontalDiffusion {
 public:
  // Collective over `comm`. invalid_input (on every rank) when the ranks disagree on the grid,
  // the options or the process grid, for a bad grid, options or process grid, or a block narrower
  // than the halo; unavailable for backend cuda without a device.
  DistributedHorizontalDiffusion(MPI_Comm comm, const StencilGrid& global,
                                 const HorizontalDiffusion& options,
                                 DistributedDiffusionSettings settings = {});
  ~DistributedHorizontalDiffusion();
  DistributedHorizontalDiffusion(const DistributedHorizontalDiffusion&) = delete;
  DistributedHorizontalDiffusion& operator=(const DistributedHorizontalDiffusion&) = delete;

  const StencilBlock& block() const noexcept { return block_; }
  MPI_Comm communicator() const noexcept { return cart_; }

  // block().local.size() values (invalid_input otherwise). Not collective.
  void set_field(std::span<const T> local_field);
  // options.iterations steps, then the final exchange. Collective.
  void run();
  // The block's field with a consistent halo. Not collective.
  void get_field(std::span<T> local_field);

  // How this rank's halos travel, for run logs: "GPU to GPU (CUDA IPC) on 2 of 4 sides",
  // "on this GPU (own periodic neighbour)", "host memory and MPI on 1 of 4 sides" (joined by
  // "; "), and why GPU-to-GPU copies were not possible where they were asked for.
  std::string halo_routes() const;

  const DistributedDiffusionTiming& timing() const noexcept { return timing_; }
  void reset_timing() noexcept { timing_ = {}; }

 private:
  struct HaloBuffers;
  void exchange();
  void exchange_direction(int dimension, const StencilBox (&send)[2],
                          const StencilBox (&receive)[2]);
  void read_box(const StencilBox& box, std::span<T> values);
  void write_box(const StencilBox& box, std::span<const T> values);
  void allocate_block_storage(const CudaHorizontalDiffusionSettings& cuda);
  void set_up_gpu_halo_routes(bool gpu_to_gpu);
  void choose_halo_routes(bool gpu_to_gpu, int (&neighbour)[2][2]);
  template <typename Step>
  bool agree_or_fall_back_to_host(Step&& step);

  MPI_Comm cart_ = MPI_COMM_NULL;
  StencilBlock block_;
  HorizontalDiffusion options_;
  HorizontalDiffusion step_options_;  // one Dirichlet-band step on the local grid
  Backend backend_ = Backend::cpu;
  std::vector<T> host_field_;                           // cpu backend
  std::unique_ptr<Stream> stream_;                      // cuda backend
  std::unique_ptr<CudaHorizontalDiffusion<T>> device_;  // cuda backend
  std::unique_ptr<HaloBuffers> buffers_;
  DistributedDiffusionTiming timing_;
};

// The whole field on rank `root` of the diffusion's communicator (empty elsewhere), assembled
// from every block's interior and, on global edges, its halo. Collective.
template <typename T>
std::vector<T> gather_field(const DistributedHorizontalDiffusion<T>& diffusion,
                            std::span<const T> local_field, int root = 0);

}  // namespace foehn::stencils
