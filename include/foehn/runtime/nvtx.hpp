#pragma once
// NVTX ranges name phases of a run (assembly, solve, output) in Nsight Systems timelines.
// They cost next to nothing when no profiler is attached, and nothing at all in a CPU-only
// build, where they are no-ops (not errors: instrumented code must run everywhere).
// Ranges go to the "Foehn" NVTX domain so they can be filtered from other libraries'.

#include <string>

namespace foehn {

namespace detail {
void nvtx_push(const char* name) noexcept;
void nvtx_pop() noexcept;
}  // namespace detail

// Marks the enclosing scope as a named range on the calling thread.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) noexcept { detail::nvtx_push(name); }
  explicit NvtxRange(const std::string& name) noexcept { detail::nvtx_push(name.c_str()); }
  ~NvtxRange() { detail::nvtx_pop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
  NvtxRange(NvtxRange&&) = delete;
  NvtxRange& operator=(NvtxRange&&) = delete;
};

// A single instant on the timeline (e.g. "timestep 120").
void nvtx_mark(const char* name) noexcept;

}  // namespace foehn
