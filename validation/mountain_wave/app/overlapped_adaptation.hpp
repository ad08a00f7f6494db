#pragma once
// The overlapped adaptation of foehn-mountainwave (-adapt_overlap 1, the default with the CUDA
// backend): at an adaptation point the state is gathered on rank 0, its metric built (on its
// GPU), and Mmg started on rank 0's host threads (adapt::remesh_in_parallel) while every rank
// goes on stepping on the current mesh. At the next adaptation point the new mesh takes over
// with the then-current state moved onto it, and the next remesh starts from that state. The
// mesh thus lags the flow by one interval: the price of taking Mmg off the critical path.
//
// A checkpoint written while a remesh runs waits for it, so that its mesh file exists, and
// records it (pending_adaptation_step): a restart reads that mesh back and it takes over at the
// next adaptation point as it would have.
#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <future>
#include <optional>

#include "adaptation.hpp"

namespace foehn::mountainwave {

class BackgroundRemesh {
 public:
  BackgroundRemesh() = default;
  // Waits for a remesh still running (its result is dropped).
  ~BackgroundRemesh();
  BackgroundRemesh(const BackgroundRemesh&) = delete;
  BackgroundRemesh& operator=(const BackgroundRemesh&) = delete;

  // On every rank alike: a remesh has been started and has not yet taken over.
  bool pending() const noexcept { return pending_; }
  std::int64_t pending_step() const noexcept { return started_.step; }
  // Rank 0's numbers of the pending remesh, on every rank once it is ready().
  double pending_complexity() const noexcept { return started_.complexity; }
  std::int64_t pending_boundary_nodes() const noexcept { return started_.boundary_nodes; }

  // Collective: gathers `state`, builds its metric on rank 0 (this thread, its GPU with
  // options.on_device) and starts Mmg on a host thread of rank 0, writing `mesh_file`.
  // `whole` (rank 0's) must stay as it is until take_over.
  void start(const petsc::DistributedMesh& mesh, const ModelState& state, const TetMesh& whole,
             const AdaptOptions& options, const std::filesystem::path& mesh_file);
  // Collective: waits for the pending remesh; an error on rank 0 (Mmg failed, the budget) is
  // thrown on every rank. Seconds waited (rank 0's, on every rank).
  double wait(MPI_Comm comm, int rank);
  // Collective: the remeshed mesh takes over with `state` (this rank's current state, on
  // `mesh`) moved onto it; waits for it first. As adapt() otherwise.
  petsc::DistributedMesh take_over(const petsc::DistributedMesh& mesh, const ModelState& state,
                                   TetMesh& whole, ModelState& adapted_state, AdaptCycle& cycle);
  // On a restart: the remesh a checkpoint waited for, as if it had just finished: `remeshed`
  // (rank 0's, read back from the file it wrote, reordered and marked as the run had it) with
  // the checkpoint's numbers for it.
  void resume(std::int64_t step, TetMesh remeshed, double complexity, std::int64_t boundary_nodes,
              bool on_device_transfer);

 private:
  bool pending_ = false;
  AdaptCycle started_;
  std::future<RemeshedMesh> running_;  // rank 0, while Mmg runs
  std::optional<RemeshedMesh> ready_;  // rank 0, once it has finished
  double waited_ = 0;
};

}  // namespace foehn::mountainwave
