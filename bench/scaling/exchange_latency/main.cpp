// bench_exchange_latency: what one halo exchange and one global reduction cost on this MPI, for
// host and for device (VECCUDA) vectors, each way PETSc can send them: staged through the host
// (-use_gpu_aware_mpi 0, what Debian's Open MPI needs) or handed to a CUDA-aware MPI. These are
// the two latencies that multiply with the exchange and reduction counts of a timestep
// (foehn-mountainwave's run.json, docs/scaling.md).
//
//   mpirun -n 2 bench_exchange_latency [-halo 1,10000,100000] [-repeats 2000] [-out_dir DIR]
//
// Cases, each the median over 5 batches of `repeats` after a warm-up batch, per operation:
//  - exchange_{host,device}: VecScatterBegin/End of `halo` values from each rank's neighbours
//    in a ring (each rank receives `halo` values from the next rank and the previous one), as a
//    MatMult's halo exchange does; on device vectors the scatter's buffers are on the GPU.
//  - reduction_{host,device}: VecDot of a vector of `halo` local entries with itself (on the
//    device it waits for the GPU's partial sum and then reduces over the ranks, as every Krylov
//    inner product does).
//  - mpi_allreduce_host: MPI_Allreduce of one double, the floor under the others.
// All cases check their result (the exchanged values and the norm) before they are written.
#include <mpi.h>
#include <petscvec.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_device.hpp"
#include "bench_mpi.hpp"
#include "bench_results.hpp"
#include "bench_timing.hpp"
#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::bench {
namespace {

struct Options {
  std::vector<long long> halos{1, 10000, 100000};
  int repeats = 2000;
  std::string out_dir = FOEHN_BENCH_RESULTS_DIR;
};

Options read_options() {
  Options o;
  char text[256] = "";
  PetscBool set = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscOptionsGetString(nullptr, nullptr, "-halo", text, sizeof text, &set));
  if (set) {
    o.halos.clear();
    for (const std::string& item : split_list(text)) {
      const long long value = std::stoll(item);
      if (value < 1 || value > 100000000)
        fail(ErrorCategory::invalid_input, "-halo ", item, ": need 1 to 1e8 values");
      o.halos.push_back(value);
    }
  }
  PetscInt repeats = o.repeats;
  FOEHN_PETSC_CHECK(PetscOptionsGetInt(nullptr, nullptr, "-repeats", &repeats, &set));
  if (set && (repeats < 1 || repeats > 1000000))
    fail(ErrorCategory::invalid_input, "-repeats ", repeats, ": need 1 to 1e6");
  o.repeats = static_cast<int>(repeats);
  FOEHN_PETSC_CHECK(PetscOptionsGetString(nullptr, nullptr, "-out_dir", text, sizeof text, &set));
  if (set) o.out_dir = text;
  return o;
}

// Median over 5 batches of the time of one call of `operation`, in microseconds, the slowest
// rank's (every rank waits for it).
template <class Operation>
double microseconds_per_call(int repeats, const Operation& operation) {
  for (int i = 0; i < std::min(repeats, 200); ++i) operation();
  std::vector<double> batches;
  for (int batch = 0; batch < 5; ++batch) {
    FOEHN_MPI_CHECK(MPI_Barrier(PETSC_COMM_WORLD));
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < repeats; ++i) operation();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    FOEHN_MPI_CHECK(
        MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    batches.push_back(1e6 * seconds / repeats);
  }
  return median(batches);
}

struct Measured {
  double exchange_us = 0, reduction_us = 0;
  bool correct = true;
};

// A ring of ranks: rank r owns `halo` entries valued r + i / halo and gathers its two
// neighbours' into a local vector of 2 halo entries.
Measured measure(VecType type, long long halo, int repeats) {
  PetscMPIInt rank = 0, size = 1;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  const auto n = static_cast<PetscInt>(halo);
  Vec owned = nullptr, ghosts = nullptr;
  FOEHN_PETSC_CHECK(VecCreate(PETSC_COMM_WORLD, &owned));
  FOEHN_PETSC_CHECK(VecSetSizes(owned, n, PETSC_DETERMINE));
  FOEHN_PETSC_CHECK(VecSetType(owned, type));
  FOEHN_PETSC_CHECK(VecCreate(PETSC_COMM_SELF, &ghosts));
  FOEHN_PETSC_CHECK(VecSetSizes(ghosts, 2 * n, 2 * n));
  FOEHN_PETSC_CHECK(VecSetType(ghosts, type));
  {
    PetscScalar* a = nullptr;
    FOEHN_PETSC_CHECK(VecGetArray(owned, &a));
    for (PetscInt i = 0; i < n; ++i) a[i] = rank + static_cast<double>(i) / static_cast<double>(n);
    FOEHN_PETSC_CHECK(VecRestoreArray(owned, &a));
  }
  const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  std::vector<PetscInt> from(static_cast<std::size_t>(2 * n));
  for (PetscInt i = 0; i < n; ++i) {
    from[static_cast<std::size_t>(i)] = next * n + i;
    from[static_cast<std::size_t>(n + i)] = previous * n + i;
  }
  IS source = nullptr;
  FOEHN_PETSC_CHECK(
      ISCreateGeneral(PETSC_COMM_SELF, 2 * n, from.data(), PETSC_COPY_VALUES, &source));
  VecScatter scatter = nullptr;
  FOEHN_PETSC_CHECK(VecScatterCreate(owned, source, ghosts, nullptr, &scatter));
  Measured m;
  m.exchange_us = microseconds_per_call(repeats, [&] {
    FOEHN_PETSC_CHECK(VecScatterBegin(scatter, owned, ghosts, INSERT_VALUES, SCATTER_FORWARD));
    FOEHN_PETSC_CHECK(VecScatterEnd(scatter, owned, ghosts, INSERT_VALUES, SCATTER_FORWARD));
  });
  {
    const PetscScalar* g = nullptr;
    FOEHN_PETSC_CHECK(VecGetArrayRead(ghosts, &g));
    for (PetscInt i = 0; i < n; ++i) {
      const double t = static_cast<double>(i) / static_cast<double>(n);
      m.correct = m.correct && g[i] == next + t && g[n + i] == previous + t;
    }
    FOEHN_PETSC_CHECK(VecRestoreArrayRead(ghosts, &g));
  }
  // An inner product, as every Krylov iteration takes (PETSc caches norms, not dot products).
  PetscScalar dot = 0;
  m.reduction_us =
      microseconds_per_call(repeats, [&] { FOEHN_PETSC_CHECK(VecDot(owned, owned, &dot)); });
  double expected = 0;
  for (int r = 0; r < size; ++r)
    for (PetscInt i = 0; i < n; ++i) {
      const double v = r + static_cast<double>(i) / static_cast<double>(n);
      expected += v * v;
    }
  m.correct = m.correct && std::abs(dot - expected) <= 1e-12 * expected;
  int ok = m.correct ? 1 : 0;
  FOEHN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  m.correct = ok == 1;
  FOEHN_PETSC_CHECK(VecScatterDestroy(&scatter));
  FOEHN_PETSC_CHECK(ISDestroy(&source));
  FOEHN_PETSC_CHECK(VecDestroy(&ghosts));
  FOEHN_PETSC_CHECK(VecDestroy(&owned));
  return m;
}

BenchCase make_case(std::string name, std::string variant, long long halo, double microseconds,
                    int repeats, int ranks, int gpus) {
  BenchCase c;
  c.name = std::move(name);
  c.variant = std::move(variant);
  c.size = halo;
  c.size_unit = "values";
  c.time_ms = microseconds / 1000.0;
  c.repeats = repeats;
  c.throughput = 1e6 / microseconds;
  c.throughput_unit = "calls/s";
  c.ranks = ranks;
  c.gpus = gpus;
  return c;
}

int run(int argc, char** argv) {
  const Options o = read_options();
  PetscMPIInt rank = 0, size = 1;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  const bool gpu = petsc::device_solves_available() && cuda_device_count() > 0;
  const int device = gpu ? petsc::select_device_for_rank(PETSC_COMM_WORLD) : -1;
  const int gpus = gpu ? distinct_devices(PETSC_COMM_WORLD, device) : 0;
  const std::string route =
      gpu && petsc::petsc_passes_device_buffers() ? "cuda-aware" : "host-staged";
  const std::string report_line = petsc::gpu_aware_mpi_report();
  if (rank == 0) std::printf("%s\n", report_line.c_str());

  BenchReport report =
      make_report("scaling", gpu ? device_info(device).name : host_cpu_model(), argc, argv);
  bool ok = true;
  double floor_us = microseconds_per_call(o.repeats, [&] {
    double x = 1.0;
    FOEHN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  });
  report.cases.push_back(make_case("mpi_allreduce", "host", 1, floor_us, o.repeats, size, gpus));
  for (const long long halo : o.halos) {
    const Measured host = measure(VECSTANDARD, halo, o.repeats);
    ok = ok && host.correct;
    report.cases.push_back(
        make_case("exchange", "host", halo, host.exchange_us, o.repeats, size, 0));
    report.cases.push_back(
        make_case("reduction", "host", halo, host.reduction_us, o.repeats, size, 0));
    if (!gpu) continue;
    const Measured device_vecs = measure(VECCUDA, halo, o.repeats);
    ok = ok && device_vecs.correct;
    report.cases.push_back(make_case("exchange", "device_" + route, halo, device_vecs.exchange_us,
                                     o.repeats, size, gpus));
    report.cases.push_back(make_case("reduction", "device_" + route, halo, device_vecs.reduction_us,
                                     o.repeats, size, gpus));
  }
  report.notes.push_back(report_line);
  report.notes.push_back(
      "time_ms: one call (the median over 5 batches of `repeats`, the slowest rank); exchange: "
      "VecScatter of `size` values from each of two ring neighbours; reduction: VecDot of "
      "`size` local values; mpi_allreduce: MPI_Allreduce of one host double (the floor)");
  if (!ok) {
    if (rank == 0)
      std::printf("%s\nA check failed: no result files written.\n", to_markdown(report).c_str());
    return 1;
  }
  if (rank == 0) {
    std::printf("%s\n", to_markdown(report).c_str());
    write_report(report, default_result_path(o.out_dir, "exchange-latency",
                                             gpu ? device_short_name(report.device) : "cpu"));
  }
  return 0;
}

}  // namespace
}  // namespace foehn::bench

int main(int argc, char** argv) {
  return foehn::bench::run_mpi_benchmark(argc, argv, "bench_exchange_latency", foehn::bench::run);
}
