// bench_particles_distributed: air parcels split across MPI ranks, one GPU each (issue 32), as
// MPTRAC's multi-GPU runs split them: every rank builds the whole met grid on its GPU (each rank
// reads the met fields it needs; with a global domain that is all of them) and transports a
// contiguous share of the parcel ids. Parcels never interact, so nothing is exchanged while they
// move; the cost of more GPUs is only the met grid on each.
//
// Baseline in the same run: rank 0 alone with every parcel on its GPU. Each configuration runs
// one warm-up call and `calls` timed calls of sort_interval steps, each call a sort by met box
// and the transport, timed by wall clock from a barrier to a barrier (ms per step, median).
// Check: check_parcels parcels with full physics over one call, split over the ranks, are
// bitwise the same parcels moved on rank 0's GPU alone (random numbers are keyed by parcel id
// and step) and within 1e-11 (relative) of the CPU's transport of them.
//
//   mpirun -n 2 bench_particles_distributed [-grid 1201x601x137] [-parcels 2e8]
//          [-sort_interval 20] [-calls 3] [-dt 180] [-check_parcels 20000] [-out_dir DIR]
#include <mpi.h>
#include <petscsys.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "bench_device.hpp"
#include "bench_mpi.hpp"
#include "bench_physics.hpp"
#include "bench_results.hpp"
#include "bench_timing.hpp"
#include "foehn/particles/sorting.hpp"
#include "foehn/particles/synthetic.hpp"
#include "foehn/particles/transport.hpp"
#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::particles {
namespace {

using bench::BenchCase;

struct Options {
  int nlon = 1201, nlat = 601, nlev = 137;
  double parcels = 2e8;
  int sort_interval = 20;
  int calls = 3;
  double dt = 180.0;
  double check_parcels = 20000;
  std::string out_dir = FOEHN_BENCH_RESULTS_DIR;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(ErrorCategory::invalid_input, a, " needs a value");
      return argv[++i];
    };
    if (a == "-grid") {
      const std::string g = value();
      if (std::sscanf(g.c_str(), "%dx%dx%d", &o.nlon, &o.nlat, &o.nlev) != 3)
        fail(ErrorCategory::invalid_input, "-grid wants NLONxNLATxNLEV, got ", g);
    } else if (a == "-parcels") {
      o.parcels = std::stod(value());
    } else if (a == "-sort_interval") {
      o.sort_interval = std::stoi(value());
    } else if (a == "-calls") {
      o.calls = std::stoi(value());
    } else if (a == "-dt") {
      o.dt = std::stod(value());
    } else if (a == "-check_parcels") {
      o.check_parcels = std::stod(value());
    } else if (a == "-out_dir") {
      o.out_dir = value();
    } else if (a == "-foehn_devices" || a == "-use_gpu_aware_mpi" || a == "-device_select") {
      (void)value();  // PETSc's options database: read by select_device_for_rank and PETSc
    } else {
      fail(ErrorCategory::invalid_input, "unknown option ", a,
           " (options: -grid -parcels -sort_interval -calls -dt -check_parcels -out_dir "
           "-foehn_devices)");
    }
  }
  if (!(o.parcels >= 1 && o.parcels < 9e18) || o.sort_interval < 1 || o.calls < 1 ||
      !(o.check_parcels >= 0))
    fail(ErrorCategory::invalid_input,
         "need -parcels >= 1, -sort_interval >= 1, -calls >= 1, -check_parcels >= 0");
  return o;
}

// The ids [begin, end) of `rank`'s share of `count` parcels (shares differ by at most one).
struct Share {
  std::int64_t begin = 0, end = 0;
  std::size_t size() const { return static_cast<std::size_t>(end - begin); }
};
Share share_of(std::int64_t count, int ranks, int rank) {
  return {count * rank / ranks, count * (rank + 1) / ranks};
}

DeviceParticleSet make_share(const Share& share, const Stream& stream) {
  RandomGlobalParcels spec;
  spec.count = share.size();
  spec.first_id = share.begin;
  DeviceParticleSet parcels = make_random_global_device_parcels(spec, stream);
  parcels.add_quantity("mass", 1.0, stream);
  return parcels;
}

// ms per step (median over the timed calls) of sort + transport on every rank of `comm`.
double time_calls(MPI_Comm comm, DeviceParticleSet& parcels, const DeviceMetGrid& grid,
                  const TransportSettings& settings, const Options& o, std::int64_t& step_index,
                  const Stream& stream) {
  DeviceParticleSorter sorter;
  std::vector<double> samples;
  for (int call = 0; call <= o.calls; ++call) {
    FOEHN_MPI_CHECK(MPI_Barrier(comm));
    const double start = MPI_Wtime();
    sorter.sort(parcels, grid, stream);
    transport(parcels, grid, TransportClock{0.0, o.dt, o.sort_interval, step_index}, settings,
              stream);
    stream.synchronize();
    FOEHN_MPI_CHECK(MPI_Barrier(comm));
    step_index += o.sort_interval;
    if (call > 0) samples.push_back(1e3 * (MPI_Wtime() - start) / o.sort_interval);
  }
  return bench::median(samples);
}

// Gathers every rank's parcels on rank 0, ordered by id (positions and time).
std::vector<double> gather_by_id(MPI_Comm comm, const DeviceParticleSet& parcels,
                                 std::int64_t count, const Stream& stream) {
  ParticleSet host;
  parcels.download(host, stream);
  std::vector<double> mine(4 * host.size());
  std::vector<std::int64_t> ids = host.id;
  for (std::size_t i = 0; i < host.size(); ++i) {
    mine[4 * i] = host.longitude[i];
    mine[4 * i + 1] = host.latitude[i];
    mine[4 * i + 2] = host.pressure[i];
    mine[4 * i + 3] = host.time[i];
  }
  int rank = 0, size = 1;
  FOEHN_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  FOEHN_MPI_CHECK(MPI_Comm_size(comm, &size));
  const int local = petsc::detail::to_mpi_count(static_cast<std::int64_t>(ids.size()), "parcels");
  std::vector<int> counts(static_cast<std::size_t>(size));
  FOEHN_MPI_CHECK(MPI_Gather(&local, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  std::vector<int> displacements = petsc::detail::displacements_of(counts, "parcels");
  std::vector<std::int64_t> all_ids(rank == 0 ? static_cast<std::size_t>(count) : 0);
  FOEHN_MPI_CHECK(MPI_Gatherv(ids.data(), local, MPI_INT64_T, all_ids.data(), counts.data(),
                              displacements.data(), MPI_INT64_T, 0, comm));
  for (int& c : counts) c *= 4;
  displacements = petsc::detail::displacements_of(counts, "parcel values");
  std::vector<double> all(rank == 0 ? 4 * static_cast<std::size_t>(count) : 0);
  FOEHN_MPI_CHECK(MPI_Gatherv(mine.data(), 4 * local, MPI_DOUBLE, all.data(), counts.data(),
                              displacements.data(), MPI_DOUBLE, 0, comm));
  std::vector<double> by_id(all.size());
  for (std::size_t i = 0; i < all_ids.size(); ++i)
    std::copy_n(&all[4 * i], 4, &by_id[4 * static_cast<std::size_t>(all_ids[i])]);
  return by_id;
}

struct Check {
  double vs_one_gpu = 0;  // largest |difference|, all four values of every parcel
  double vs_cpu = 0;      // largest difference relative to max(1, |cpu value|)
};

// check_parcels parcels, full physics, one call: split over the ranks against rank 0's GPU
// alone and the CPU.
Check check_split(MPI_Comm comm, int rank, const MetGridGeometry& geometry,
                  const DeviceMetGrid& grid, const Options& o, const Stream& stream) {
  const auto count = static_cast<std::int64_t>(o.check_parcels);
  int size = 1;
  FOEHN_MPI_CHECK(MPI_Comm_size(comm, &size));
  const TransportSettings physics = full_physics();
  const TransportClock clock{0.0, o.dt, o.sort_interval, 0};
  DeviceParticleSet split = make_share(share_of(count, size, rank), stream);
  transport(split, grid, clock, physics, stream);
  const std::vector<double> distributed = gather_by_id(comm, split, count, stream);
  Check check;
  if (rank != 0) return check;
  DeviceParticleSet whole = make_share({0, count}, stream);
  transport(whole, grid, clock, physics, stream);
  const std::vector<double> one_gpu = gather_by_id(MPI_COMM_SELF, whole, count, stream);
  std::vector<double> wind(grid.interleaved_wind().size());
  grid.interleaved_wind().copy_to_host_async(wind, stream);
  stream.synchronize();
  const MetGrid host_grid(geometry, std::move(wind));
  RandomGlobalParcels spec;
  spec.count = static_cast<std::size_t>(count);
  ParticleSet cpu = make_random_global_parcels(spec);
  cpu.add_quantity("mass", 1.0);
  transport(cpu, host_grid, clock, physics);
  for (std::size_t i = 0; i < distributed.size(); ++i)
    check.vs_one_gpu = std::max(check.vs_one_gpu, std::abs(distributed[i] - one_gpu[i]));
  for (std::size_t p = 0; p < cpu.size(); ++p) {
    const auto id = static_cast<std::size_t>(cpu.id[p]);
    const double values[4] = {cpu.longitude[p], cpu.latitude[p], cpu.pressure[p], cpu.time[p]};
    for (int v = 0; v < 4; ++v)
      check.vs_cpu = std::max(check.vs_cpu, std::abs(distributed[4 * id + v] - values[v]) /
                                                std::max(1.0, std::abs(values[v])));
  }
  return check;
}

BenchCase make_case(const std::string& name, std::int64_t n, const std::string& variant,
                    double step_ms, int repeats, int gpus, int ranks) {
  BenchCase c;
  c.name = name;
  c.size = n;
  c.size_unit = "parcels";
  c.variant = variant;
  c.time_ms = step_ms;
  c.repeats = repeats;
  c.throughput = static_cast<double>(n) / (step_ms * 1e-3);
  c.throughput_unit = "parcel-steps/s";
  c.gpus = gpus;
  c.ranks = ranks;
  return c;
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  MPI_Comm world = PETSC_COMM_WORLD;
  int rank = 0, size = 1;
  FOEHN_MPI_CHECK(MPI_Comm_rank(world, &rank));
  FOEHN_MPI_CHECK(MPI_Comm_size(world, &size));
  const int device = petsc::select_device_for_rank(world);
  for (const std::string& line : petsc::device_placement_report(world, device))
    std::printf("%s\n", line.c_str());
  const int gpus = bench::distinct_devices(world, device);
  Stream stream;
  bench::BenchReport report = bench::make_report("particles", device_info(device).name, argc, argv);
  report.copy_bandwidth_gbs = bench::measure_device_copy_bandwidth(stream);

  // Every rank's GPU holds the whole met grid (built there: no host copy, no transfer).
  const MetGridGeometry geometry =
      make_global_geometry(o.nlon, o.nlat, log_pressure_levels(o.nlev, 0.0, 80000.0), 0.0, 3600.0);
  const DeviceMetGrid grid = make_turbulent_device_grid(geometry, TurbulentWind{}, stream);
  const auto total = static_cast<std::int64_t>(o.parcels);
  const TransportSettings advection;
  const TransportSettings physics = full_physics();

  // Baseline: rank 0's GPU alone with every parcel; the other ranks wait.
  double one_advection = 0, one_physics = 0;
  std::int64_t step_index = 0;
  if (rank == 0) {
    DeviceParticleSet all = make_share({0, total}, stream);
    one_advection = time_calls(MPI_COMM_SELF, all, grid, advection, o, step_index, stream);
    one_physics = time_calls(MPI_COMM_SELF, all, grid, physics, o, step_index, stream);
    std::printf(
        "1 GPU, %lld parcels: advection %.3f ms/step, full physics %.3f ms/step (sort "
        "every %d steps included)\n",
        static_cast<long long>(total), one_advection, one_physics, o.sort_interval);
  }
  FOEHN_MPI_CHECK(MPI_Barrier(world));
  double split_advection = 0, split_physics = 0;
  {
    DeviceParticleSet mine = make_share(share_of(total, size, rank), stream);
    step_index = 0;
    split_advection = time_calls(world, mine, grid, advection, o, step_index, stream);
    split_physics = time_calls(world, mine, grid, physics, o, step_index, stream);
  }
  const Check check = check_split(world, rank, geometry, grid, o, stream);
  int passed = check.vs_one_gpu == 0.0 && check.vs_cpu <= 1e-11 ? 1 : 0;
  FOEHN_MPI_CHECK(MPI_Bcast(&passed, 1, MPI_INT, 0, world));
  if (rank != 0) return passed ? 0 : 1;

  const std::string split_variant =
      "split_" + std::to_string(size) + "ranks_" + std::to_string(gpus) + "gpus";
  for (const auto& [name, one, split] :
       {std::tuple{std::string("advection"), one_advection, split_advection},
        std::tuple{std::string("full_physics"), one_physics, split_physics}}) {
    BenchCase base = make_case(name, total, "one_gpu", one, o.calls, 1, 1);
    BenchCase c = make_case(name, total, split_variant, split, o.calls, gpus, size);
    c.baseline = "1_gpu";
    c.speedup_vs_baseline = one / split;
    c.max_rel_error_vs_reference = check.vs_cpu;
    report.cases.push_back(base);
    report.cases.push_back(c);
    std::printf("%d ranks on %d GPU(s), %s: %.3f ms/step, %.2fx the one-GPU run\n", size, gpus,
                name.c_str(), split, one / split);
  }
  std::printf(
      "check (%g parcels, full physics, %d steps): split vs one GPU max |diff| %.3g, vs "
      "CPU max relative %.3g -> %s\n",
      o.check_parcels, o.sort_interval, check.vs_one_gpu, check.vs_cpu,
      passed ? "passed" : "FAILED");
  report.notes.push_back(
      "Parcels split over the ranks by contiguous ids, one GPU per rank; every rank's GPU holds "
      "the whole " +
      std::to_string(o.nlon) + " x " + std::to_string(o.nlat) + " x " + std::to_string(o.nlev) +
      " met grid. ms per step: wall clock of (sort + " + std::to_string(o.sort_interval) +
      " steps) between barriers / " + std::to_string(o.sort_interval) + ", median of " +
      std::to_string(o.calls) +
      " calls after a warm-up call; baseline 1_gpu: rank 0 alone with every parcel, same run.");
  report.notes.push_back("Check: the split run of " +
                         std::to_string(static_cast<long long>(o.check_parcels)) +
                         " parcels (full physics) bitwise the one-GPU run; max relative "
                         "difference to the CPU in max_rel_error_vs_reference.");
  if (!passed) {
    std::printf("%s\nA check failed: no result files written.\n",
                bench::to_markdown(report).c_str());
    return 1;
  }
  const auto json = bench::default_result_path(o.out_dir, "particles-distributed",
                                               bench::device_short_name(report.device));
  bench::write_report(report, json);
  return 0;
}

}  // namespace
}  // namespace foehn::particles

int main(int argc, char** argv) {
  return foehn::bench::run_mpi_benchmark(argc, argv, "bench_particles_distributed",
                                         foehn::particles::run);
}
