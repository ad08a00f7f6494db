// libFuzzer target: the HDF5 checkpoint reader of the mountain-wave core. read_checkpoint is
// collective on the mesh's communicator, so MPI is initialised once (LLVMFuzzerInitialize) and
// the tiny mesh of checkpoint_case.hpp is distributed on MPI_COMM_SELF; PETSc itself is not
// needed for reading. Every input goes through the full read_checkpoint with extra fields, as a
// restart does (read_checkpoint_info reads a subset of it: the header). Bad input must throw
// foehn::Error; a state that comes back must have the mesh's sizes and finite values.

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "checkpoint_case.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/runtime/error.hpp"
#include "fuzz_support.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/lsan_interface.h>
#define FOEHN_FUZZ_WITH_LSAN 1
#endif
#endif

namespace {

using foehn::fuzz::require;
namespace mw = foehn::mountainwave;

foehn::petsc::DistributedMesh* fuzz_mesh = nullptr;

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double x) { return std::isfinite(x); });
}

void require_consistent(const mw::ModelState& state, const std::vector<foehn::MeshField>& extras) {
  const auto nodes = static_cast<std::size_t>(fuzz_mesh->local_nodes());
  require(state.velocity.size() == 3 * nodes && state.pressure.size() == nodes &&
              state.theta.size() == nodes,
          "state fields sized for the mesh's local nodes");
  for (const std::vector<double>& tracer : state.tracers)
    require(tracer.size() == nodes, "tracers sized for the mesh's local nodes");
  require(all_finite(state.velocity) && all_finite(state.pressure) && all_finite(state.theta),
          "finite state");
  for (const std::vector<double>& tracer : state.tracers)
    require(all_finite(tracer), "finite tracers");
  require(std::isfinite(state.time) && state.step >= 0, "finite time, step >= 0");
  for (const foehn::MeshField& field : extras) {
    require(field.components >= 1 &&
                field.values.size() == nodes * static_cast<std::size_t>(field.components),
            "extra field of local nodes x components values");
    require(all_finite(field.values), "finite extra field");
  }
}

}  // namespace

// LeakSanitizer's check at exit would list what OpenMPI's start-up and plugins keep until the
// process ends (MPI_Finalize unloads the plugins, which only hides the stacks). Leaks an input
// causes are still found: libFuzzer checks each input whose allocations outlive it.
extern "C" const char* __lsan_default_options() {
  return "leak_check_at_exit=0";
}

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
#ifdef FOEHN_FUZZ_WITH_LSAN
  // What OpenMPI allocates while it starts (much of it unreachable, some from plugins whose
  // stacks LeakSanitizer cannot name) would otherwise be listed with the first input that leaks.
  __lsan::ScopedDisabler mpi_start_up_is_not_an_input;
#endif
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised && MPI_Init(nullptr, nullptr) != MPI_SUCCESS) {
    std::fprintf(stderr, "fuzz_checkpoint_reader: MPI_Init failed\n");
    std::abort();
  }
  const foehn::TetMesh whole = foehn::fuzz::checkpoint_fuzz_mesh();
  // Kept for the whole run (and never freed: the process ends with it).
  fuzz_mesh =
      new foehn::petsc::DistributedMesh(foehn::petsc::distribute_mesh(MPI_COMM_SELF, &whole));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static foehn::fuzz::InputFile input("h5");
  static const mw::CheckpointMetadata metadata = foehn::fuzz::checkpoint_fuzz_metadata();
  const std::filesystem::path& path = input.write(data, size);
  try {
    std::vector<foehn::MeshField> extras;
    const mw::ModelState state = mw::read_checkpoint(*fuzz_mesh, path, metadata, &extras);
    require_consistent(state, extras);
  } catch (const foehn::Error&) {
    // The documented answer to bad input.
  }
  // Leaks of HDF5 handles are not heap leaks LeakSanitizer sees: count them.
  require(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0,
          "every HDF5 file, group, data set and attribute the reader opened is closed");
  return 0;
}
