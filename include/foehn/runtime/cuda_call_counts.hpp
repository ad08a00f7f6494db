#pragma once
// Counts of the CUDA calls a process makes, by every library in it (Foehn, PETSc, cuBLAS,
// cuSPARSE, Thrust): kernel launches, host synchronisations and copies between host and
// device. A GPU timestep at moderate sizes is bound by how often the host launches and waits,
// not by bytes (issue 36), so these counts are what a change to a solver must move.
//
// The counts come from CUPTI's callback API (the runtime and driver API domains), loaded with
// dlopen when counting starts: a program that never counts does not need libcupti, and one
// whose CUPTI cannot be loaded, or is held by a profiler (Nsight Systems, Nsight Compute; CUPTI
// takes one subscriber), runs on with counting unavailable and says why.
//
//   std::string why_not;
//   if (!start_counting_cuda_calls(why_not)) log("no CUDA call counts: " + why_not);
//   const CudaCallCounts before = cuda_call_counts();
//   solve();
//   const CudaCallCounts used = cuda_call_counts() - before;   // kernels, synchronisations
//
// What counts as what, from the driver API calls (every runtime call reaches the driver, where
// CUPTI reports it; counting the runtime calls too would count each launch twice):
//  - kernel_launches: cuLaunchKernel*, cuLaunchCooperativeKernel*, cuLaunchGrid*, cuLaunch
//    (every <<<>>> launch, and the launches of cuBLAS, cuSPARSE, Thrust). A graph launch counts
//    once in graph_launches, not per kernel inside it.
//  - host_synchronizations: calls that return only once device work is done: stream, event and
//    context synchronisation, and the blocking (non-Async) memory copies that involve the host
//    (a copy between device memories does not wait on the host).
//  - copies and bytes to host / to device: cuMemcpyDtoH* and cuMemcpyHtoD* (what cudaMemcpy and
//    cudaMemcpyAsync of those kinds become); copies by unified address (cuMemcpy, cuMemcpyAsync)
//    count in neither direction.
#include <cstdint>
#include <string>

namespace foehn {

struct CudaCallCounts {
  std::int64_t kernel_launches = 0;
  std::int64_t graph_launches = 0;
  std::int64_t host_synchronizations = 0;
  std::int64_t copies_to_host = 0, copies_to_device = 0;
  std::int64_t bytes_to_host = 0, bytes_to_device = 0;

  CudaCallCounts& operator+=(const CudaCallCounts& other) noexcept {
    kernel_launches += other.kernel_launches;
    graph_launches += other.graph_launches;
    host_synchronizations += other.host_synchronizations;
    copies_to_host += other.copies_to_host;
    copies_to_device += other.copies_to_device;
    bytes_to_host += other.bytes_to_host;
    bytes_to_device += other.bytes_to_device;
    return *this;
  }
  CudaCallCounts& operator-=(const CudaCallCounts& other) noexcept {
    kernel_launches -= other.kernel_launches;
    graph_launches -= other.graph_launches;
    host_synchronizations -= other.host_synchronizations;
    copies_to_host -= other.copies_to_host;
    copies_to_device -= other.copies_to_device;
    bytes_to_host -= other.bytes_to_host;
    bytes_to_device -= other.bytes_to_device;
    return *this;
  }
  friend CudaCallCounts operator-(CudaCallCounts a, const CudaCallCounts& b) noexcept {
    return a -= b;
  }
  friend CudaCallCounts operator+(CudaCallCounts a, const CudaCallCounts& b) noexcept {
    return a += b;
  }
};

// Starts counting for the rest of the process (again: nothing more happens). False, with the
// reason in `why_not`, where it cannot: a build without CUDA, no libcupti, CUPTI held by a
// profiler. Thread-safe; the counters are process-wide and atomic.
bool start_counting_cuda_calls(std::string& why_not);
// True once start_counting_cuda_calls succeeded.
bool counting_cuda_calls() noexcept;
// Totals since counting started (all zero when it never did).
CudaCallCounts cuda_call_counts() noexcept;

}  // namespace foehn
