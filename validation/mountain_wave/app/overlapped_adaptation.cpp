#include "overlapped_adaptation.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <thread>
#include <utility>

#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"

namespace foehn::mountainwave {

BackgroundRemesh::~BackgroundRemesh() {
  if (running_.valid()) running_.wait();
}

void BackgroundRemesh::start(const petsc::DistributedMesh& mesh, const ModelState& state,
                             const TetMesh& whole, const AdaptOptions& options,
                             const std::filesystem::path& mesh_file) {
  FOEHN_CHECK(!pending_, "a remesh started at step ", started_.step, " has not taken over");
  Stopwatch watch;
  started_ = AdaptCycle{};
  started_.step = state.step;
  started_.overlapped = true;
  started_.on_device_transfer = options.on_device;
  ModelState gathered = gather_state(mesh, state);
  started_.gather = watch.lap();
  petsc::detail::run_collectively(mesh.comm, [&] {
    if (mesh.rank != 0) return;
    std::vector<adapt::Sym3<double>> metric = adaptation_metric(whole, gathered, options, started_);
    // One core is left to the thread that drives the GPU.
    AdaptOptions remesh_options = options;
    if (remesh_options.remesh_threads == 0)
      remesh_options.remesh_threads =
          static_cast<int>(std::max(2u, std::thread::hardware_concurrency()) - 1);
    // The thread holds its own copies of what it reads, except `whole`, which the caller keeps
    // unchanged until the take-over.
    running_ = std::async(std::launch::async, [&whole, metric = std::move(metric), remesh_options,
                                               cycle = started_, mesh_file] {
      return remesh_to_metric(whole, metric, remesh_options, cycle, mesh_file);
    });
  });
  pending_ = true;
  waited_ = 0;
}

double BackgroundRemesh::wait(MPI_Comm comm, int rank) {
  FOEHN_CHECK(pending_, "no remesh to wait for");
  const Stopwatch watch;
  petsc::detail::run_collectively(comm, [&] {
    if (rank != 0 || ready_) return;
    // A failed remesh is not retried: the run stops on every rank with its error.
    try {
      ready_ = running_.get();
    } catch (...) {
      pending_ = false;
      throw;
    }
  });
  std::array<double, 3> numbers{watch.seconds(), 0, 0};
  if (rank == 0 && ready_)
    numbers = {numbers[0], ready_->cycle.complexity,
               static_cast<double>(ready_->cycle.boundary_nodes)};
  FOEHN_MPI_CHECK(MPI_Bcast(numbers.data(), 3, MPI_DOUBLE, 0, comm));
  started_.complexity = numbers[1];
  started_.boundary_nodes = static_cast<std::int64_t>(numbers[2]);
  waited_ += numbers[0];
  return numbers[0];
}

petsc::DistributedMesh BackgroundRemesh::take_over(const petsc::DistributedMesh& mesh,
                                                   const ModelState& state, TetMesh& whole,
                                                   ModelState& adapted_state, AdaptCycle& cycle) {
  wait(mesh.comm, mesh.rank);
  Stopwatch watch;
  cycle = started_;
  cycle.waited = waited_;
  cycle.step_taken_over = state.step;
  ModelState gathered = gather_state(mesh, state);
  cycle.gather += watch.lap();
  petsc::DistributedMesh distributed = mountainwave::take_over(
      mesh, gathered, whole, ready_ ? &*ready_ : nullptr, adapted_state, cycle);
  cycle.overlapped = true;
  cycle.waited = waited_;
  ready_.reset();
  pending_ = false;
  return distributed;
}

void BackgroundRemesh::resume(std::int64_t step, TetMesh remeshed, double complexity,
                              std::int64_t boundary_nodes, bool on_device_transfer) {
  started_ = AdaptCycle{};
  started_.step = step;
  started_.overlapped = true;
  started_.on_device_transfer = on_device_transfer;
  started_.complexity = complexity;
  started_.boundary_nodes = boundary_nodes;
  RemeshedMesh read;
  read.mesh = std::move(remeshed);
  read.cycle = started_;
  if (!read.mesh.tets.empty()) ready_ = std::move(read);
  pending_ = true;
  waited_ = 0;
}

}  // namespace foehn::mountainwave
