#pragma once
// Everything foehn-mountainwave reads from the PETSc options database (listed by -help).
#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "adaptation.hpp"
#include "case.hpp"
#include "foehn/mesh/mountain.hpp"
#include "tracer_parcels.hpp"

namespace foehn::mountainwave {

// How the generated mesh reaches the ranks: each rank builds its own slab of cells along x
// (petsc/generated_mesh.hpp: no rank holds the whole mesh, nothing is sent), or rank 0 builds it
// whole, reorders it and METIS splits it (distribute_mesh). auto: slabs on several ranks when
// every slab is at least min_slab_cells wide and no tracer parcels need the whole mesh; metis
// otherwise (and always for a -mesh file, and on one rank, where nothing is split).
enum class MeshPartition { automatic, slabs, metis };
inline constexpr int min_slab_cells = 4;

struct RunOptions {
  MountainMeshOptions domain;  // -mesh_cells nx,ny,nz or -mesh_tets N, -mountain_height ...
  std::string mesh_request;    // "-mesh_tets N", "-mesh_cells a,b,c" or "-mesh FILE", for messages
  std::filesystem::path
      mesh_file;  // -mesh: a .msh/.vtu mesh of the domain instead (external_mesh.hpp)
  MeshPartition mesh_partition = MeshPartition::automatic;  // -mesh_partition
  Physics physics;
  Numerics numerics;
  std::string backend = "auto";              // -foehn_backend
  double cfl = 0;                            // -cfl: dt from a target CFL number (0: use -dt)
  double cfl_max = 4;                        // -cfl_max: a larger U dt / shortest edge is refused
  double end_time = 3600;                    // -end_time, s
  std::int64_t max_steps = -1;               // -max_steps: stop earlier (tests, benchmarks)
  double output_interval = 600;              // -output_interval, s (0: only at the end)
  std::int64_t checkpoint_interval = 0;      // -checkpoint_interval, steps (0: only at the end)
  std::filesystem::path output_dir = "out";  // -output_dir
  std::filesystem::path restart;             // -restart FILE
  bool write_vtk = true;                     // -vtk
  bool write_sections = true;                // -sections
  int timing_warmup_steps = 2;               // -timing_warmup: steps left out of the timing table
  std::string timing_label;                  // -timing_label, e.g. "1 CPU core + 1 GPU"
  bool count_cuda_calls = false;             // -count_cuda_calls: kernels, syncs per system
  TracerSeeding tracers;                     // -tracer_columns, -tracer_levels, -tracer_x, ...
  AdaptOptions adapt;                        // -adapt_interval, -adapt_hmin, ...
};

// Reads the options; throws foehn::Error (invalid_input) naming a bad value.
RunOptions read_run_options(MPI_Comm comm);

// Every option that may change what the run computes, with its value in `options` (after
// read_run_options' derivations), by name: what the restart fingerprint holds. An option declared
// later is in it unless its declaration says it has no effect on results.
std::vector<std::pair<std::string, std::string>> result_defining_options(const RunOptions& options);

// Whether the generated mesh is built in slabs on `ranks` ranks (MeshPartition, resolved).
bool builds_mesh_in_slabs(const RunOptions& options, int ranks);

}  // namespace foehn::mountainwave
