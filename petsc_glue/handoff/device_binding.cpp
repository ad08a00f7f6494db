#include "foehn/petsc/device_binding.hpp"

#include <dlfcn.h>
#include <petscsys.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "foehn/petsc/option_table.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

namespace {

// This rank's index among the ranks of its host, and their number.
std::pair<int, int> host_rank_and_size(MPI_Comm comm, const char* who) {
  MPI_Comm host = MPI_COMM_NULL;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) != MPI_SUCCESS)
    fail(ErrorCategory::internal, who, ": MPI_Comm_split_type failed");
  int rank = 0, size = 0;
  const int status = MPI_Comm_rank(host, &rank) == MPI_SUCCESS ? MPI_Comm_size(host, &size) : 1;
  MPI_Comm_free(&host);
  if (status != MPI_SUCCESS) fail(ErrorCategory::internal, who, ": MPI_Comm_rank/size failed");
  return {rank, size};
}

}  // namespace

int host_local_rank(MPI_Comm comm) {
  return host_rank_and_size(comm, "host_local_rank").first;
}

bool one_rank_per_device(MPI_Comm comm) {
  const int ranks_on_host = host_rank_and_size(comm, "one_rank_per_device").second;
  const int devices = cuda_device_count();
  int fits = devices > 0 && ranks_on_host <= devices ? 1 : 0, everywhere = 0;
  if (MPI_Allreduce(&fits, &everywhere, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    fail(ErrorCategory::internal, "one_rank_per_device: MPI_Allreduce failed");
  return everywhere == 1;
}

std::string device_sharing_warning(MPI_Comm comm) {
  const int ranks_on_host = host_rank_and_size(comm, "device_sharing_warning").second;
  const int devices = cuda_device_count();
  // The most crowded host: most ranks per device (a host without a device counts as crowded).
  const int mine[2] = {devices > 0 ? (ranks_on_host + devices - 1) / devices : ranks_on_host,
                       devices};
  int most[2] = {0, 0};
  if (MPI_Allreduce(mine, most, 1, MPI_2INT, MPI_MAXLOC, comm) != MPI_SUCCESS)
    fail(ErrorCategory::internal, "device_sharing_warning: MPI_Allreduce failed");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0 || most[0] <= 1 || most[1] == 0) return {};
  const int gpus = most[1];
  return detail::concat(
      "up to ", most[0], " ranks share each GPU of a host with ", gpus,
      " GPU(s): ranks on one GPU take turns on it and wait for each other in every "
      "Krylov iteration (measured 5.8x slower per step than one rank per GPU, "
      "docs/scaling.md); start one rank per GPU (mpiexec -n ",
      gpus, " per host, scripts/ranks-for-host.sh)");
}

int select_device_for_rank(MPI_Comm comm) {
  const int local_rank = host_local_rank(comm);
  const int devices = cuda_device_count();
  if (devices == 0)
    fail(ErrorCategory::unavailable, "select_device_for_rank: no CUDA device on this host (rank ",
         local_rank, " on the host)");
  int device = local_rank % devices;
  PetscBool initialised = PETSC_FALSE;
  if (PetscInitialized(&initialised) == 0 && initialised) {
    // Read as text: PETSc's integer arrays wrap modulo 2^32 and cap the count silently.
    char listed_text[PETSC_MAX_PATH_LEN] = {0};
    PetscBool listed_set = PETSC_FALSE;
    FOEHN_PETSC_CHECK(PetscOptionsGetString(nullptr, nullptr, "-foehn_devices", listed_text,
                                            sizeof listed_text, &listed_set));
    PetscInt chosen = -1;
    PetscBool set = PETSC_FALSE;
    FOEHN_PETSC_CHECK(PetscOptionsGetInt(nullptr, nullptr, "-device_select", &chosen, &set));
    if (listed_set) {
      std::vector<long long> listed;
      for (const std::string& item : split_option_list("-foehn_devices", listed_text))
        listed.push_back(parse_integer("-foehn_devices", item, {0, devices - 1}));
      const std::size_t listed_count = listed.size();
      chosen = static_cast<PetscInt>(listed[static_cast<std::size_t>(local_rank) % listed_count]);
      const std::string value = std::to_string(chosen);
      FOEHN_PETSC_CHECK(PetscOptionsSetValue(nullptr, "-device_select", value.c_str()));
      set = PETSC_TRUE;
    }
    if (set && chosen >= devices)
      fail(ErrorCategory::invalid_input, "select_device_for_rank: -device_select ", chosen,
           " but this host has ", devices, " CUDA device(s)");
    if (set && chosen >= 0) device = static_cast<int>(chosen);
  }
  select_device(device);
  return device;
}

std::vector<std::string> device_placement_report(MPI_Comm comm, int device) {
  const auto [local_rank, local_size] = host_rank_and_size(comm, "device_placement_report");
  int rank = 0, size = 1;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    fail(ErrorCategory::internal, "device_placement_report: MPI_Comm_rank/size failed");
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  int host_length = 0;
  MPI_Get_processor_name(host, &host_length);
  std::string line = "rank " + std::to_string(rank) + " on " + host + " (host rank " +
                     std::to_string(local_rank) + " of " + std::to_string(local_size) + "): ";
  if (device < 0) {
    line += "no GPU";
  } else {
    const DeviceInfo info = device_info(device);
    line += "GPU " + std::to_string(device) + " " + info.name + " [" + info.pci_bus_id + "]";
  }
  // Fixed-size records keep the gather to one collective.
  constexpr int width = 256;
  line.resize(width - 1, ' ');
  std::vector<char> all(rank == 0 ? static_cast<std::size_t>(size) * width : 0);
  if (MPI_Gather(line.c_str(), width, MPI_CHAR, all.data(), width, MPI_CHAR, 0, comm) !=
      MPI_SUCCESS)
    fail(ErrorCategory::internal, "device_placement_report: MPI_Gather failed");
  std::vector<std::string> lines;
  for (int r = 0; r < (rank == 0 ? size : 0); ++r) {
    std::string entry(all.data() + static_cast<std::size_t>(r) * width);
    entry.erase(entry.find_last_not_of(' ') + 1);
    lines.push_back(std::move(entry));
  }
  return lines;
}

MpiGpuSupport query_mpi_gpu_support() {
  // Asked of the MPI library loaded at run time, not of the headers Foehn was compiled with: a
  // CUDA-aware build of the same MPI (same ABI) swapped in under the same binaries is seen.
  // Open MPI (and MPICH from 4.0) export MPIX_Query_cuda_support; MPICH, Cray MPICH and
  // MVAPICH2-GDR MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA = 0, &flag).
  using QueryCuda = int (*)();
  using QueryGpu = int (*)(int, int*);
  if (void* symbol = dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support")) {
    const int answer = reinterpret_cast<QueryCuda>(symbol)();
    return {answer == 1 ? GpuAwareness::cuda_aware : GpuAwareness::not_cuda_aware,
            "MPIX_Query_cuda_support() = " + std::to_string(answer)};
  }
  if (void* symbol = dlsym(RTLD_DEFAULT, "MPIX_GPU_query_support")) {
    int supported = 0;
    const int status = reinterpret_cast<QueryGpu>(symbol)(0, &supported);
    if (status == MPI_SUCCESS)
      return {supported ? GpuAwareness::cuda_aware : GpuAwareness::not_cuda_aware,
              "MPIX_GPU_query_support(CUDA) = " + std::to_string(supported)};
  }
  // Cray MPICH takes device buffers only with MPICH_GPU_SUPPORT_ENABLED=1, and not every version
  // answers either query: the variable is then the answer.
  if (const char* cray = std::getenv("MPICH_GPU_SUPPORT_ENABLED"); cray && cray[0] == '1')
    return {GpuAwareness::cuda_aware, "MPICH_GPU_SUPPORT_ENABLED=1, no query in the MPI library"};
  return {GpuAwareness::unknown, "the MPI library offers no query of CUDA support"};
}

void preset_gpu_mpi_options(MPI_Comm comm) noexcept {
#if defined(PETSC_HAVE_CUDA)
  int mpi_ready = 0;
  if (MPI_Initialized(&mpi_ready) != MPI_SUCCESS) mpi_ready = 0;
  int cuda_aware = 0;
  try {
    cuda_aware = mpi_ready && query_mpi_gpu_support().awareness == GpuAwareness::cuda_aware;
  } catch (...) {  // std::bad_alloc of the description: stage, as for an unknown MPI
  }
  // Every rank stages unless every rank's MPI can take device buffers.
  if (mpi_ready) MPI_Allreduce(MPI_IN_PLACE, &cuda_aware, 1, MPI_INT, MPI_MIN, comm);
  if (!cuda_aware && PetscOptionsSetValue(nullptr, "-use_gpu_aware_mpi", "0") != 0) return;
  if (!mpi_ready) return;
  try {
    const int devices = cuda_device_count();
    if (devices == 0) return;
    const std::string device = std::to_string(host_local_rank(comm) % devices);
    (void)PetscOptionsSetValue(nullptr, "-device_select", device.c_str());
  } catch (...) {  // no CUDA runtime or an MPI failure: PETSc's defaults stay
  }
#else
  (void)comm;
#endif
}

bool petsc_passes_device_buffers() {
#if defined(PETSC_HAVE_CUDA)
  PetscBool use = PETSC_TRUE, set = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscOptionsGetBool(nullptr, nullptr, "-use_gpu_aware_mpi", &use, &set));
  return !set || use;
#else
  return false;
#endif
}

std::string gpu_aware_mpi_report() {
  const MpiGpuSupport support = query_mpi_gpu_support();
  std::string line = "MPI: ";
  line += support.awareness == GpuAwareness::cuda_aware       ? "CUDA-aware"
          : support.awareness == GpuAwareness::not_cuda_aware ? "not CUDA-aware"
                                                              : "CUDA support unknown";
  line += " (" + support.how + "); ";
#if defined(PETSC_HAVE_CUDA)
  const bool on = petsc_passes_device_buffers();
  line += on ? "PETSc passes device buffers to MPI (-use_gpu_aware_mpi 1)"
             : "PETSc stages its messages through the host (-use_gpu_aware_mpi 0)";
  const bool preset = support.awareness == GpuAwareness::cuda_aware ? on : !on;
  if (!preset) line += ", as the options say";
#else
  line += "this PETSc has no CUDA: messages are host buffers";
#endif
  return line;
}

}  // namespace foehn::petsc
