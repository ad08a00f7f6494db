#pragma once
// The untyped memory operations behind DeviceArray<T> and PinnedArray<T>, and the
// MemoryPool facade. The typed containers are templates in public headers; they call these
// non-template functions, which live in the CUDA backend (cuda/runtime/) or, in a CPU-only
// build, in stubs that throw foehn::Error (unavailable). Public header: no CUDA headers.

#include <cstddef>
#include <cstdint>
#include <limits>

#include "foehn/runtime/error.hpp"  // what every function here throws

struct CUstream_st;

namespace foehn {

// The stream-ordered pool that DeviceArray allocates from (the device's default
// cudaMemPool). Freed blocks return to the pool and are reused by later allocations on
// the same stream without a device synchronisation or a call into the driver.
class MemoryPool {
 public:
  // Release threshold that keeps every reserved byte: the pool never shrinks on its own.
  // Foehn allocates once per mesh, so the steady state is reached after the first timestep.
  static constexpr std::uint64_t keep_all = std::numeric_limits<std::uint64_t>::max();

  // The default pool of `device`; throws invalid_input when out of range.
  explicit MemoryPool(int device);
  // The default pool of the calling thread's current device.
  static MemoryPool current();

  int device() const noexcept { return device_; }
  std::size_t used_bytes() const;       // held by live allocations
  std::size_t reserved_bytes() const;   // obtained from the driver (used + cached)
  std::size_t peak_used_bytes() const;  // since creation or reset_peak()
  void reset_peak();

  // Reserved memory above `bytes` is returned to the driver at the next synchronisation.
  // Foehn sets keep_all on a device's pool when it first allocates there, unless this was
  // called before. Lower it when several processes share a GPU and memory is tight.
  std::uint64_t release_threshold() const;
  void set_release_threshold(std::uint64_t bytes);

  // Returns cached memory to the driver now, keeping at least `bytes_to_keep` reserved.
  void trim_to(std::size_t bytes_to_keep);

 private:
  int device_;
};

namespace detail {

enum class CopyKind { host_to_device, device_to_host, device_to_device };

// Stream-ordered allocation of count * element_size bytes. Throws out_of_memory with the
// byte count, element count, element size and the device's free/total memory.
void* device_allocate(std::size_t count, std::size_t element_size, CUstream_st* stream);
// Stream-ordered free; never throws (called from destructors).
void device_free(void* pointer, CUstream_st* stream) noexcept;

// Page-locked host memory, so transfers run asynchronously at full link speed.
void* pinned_allocate(std::size_t count, std::size_t element_size);
void pinned_free(void* pointer) noexcept;

void copy_async(void* destination, const void* source, std::size_t bytes, CopyKind kind,
                CUstream_st* stream);
void fill_bytes_async(void* destination, unsigned char value, std::size_t bytes,
                      CUstream_st* stream);
// Writes `pattern` (pattern_size bytes, at most max_fill_pattern_bytes) `count` times.
inline constexpr std::size_t max_fill_pattern_bytes = 256;
void fill_pattern_async(void* destination, std::size_t count, const void* pattern,
                        std::size_t pattern_size, CUstream_st* stream);

// invalid_input naming the operation when a copy's range does not fit the array.
[[noreturn]] void fail_copy_range(const char* operation, std::size_t offset, std::size_t count,
                                  std::size_t array_size);
[[noreturn]] void fail_size_mismatch(const char* operation, std::size_t source_size,
                                     std::size_t destination_size);

}  // namespace detail
}  // namespace foehn
