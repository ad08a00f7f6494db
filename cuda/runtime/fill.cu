// Filling device memory with a repeated multi-byte pattern (e.g. NaN doubles for poisoning),
// which cudaMemsetAsync cannot do: it repeats a single byte.

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "foehn/runtime/memory.hpp"
#include "runtime_internal.hpp"

namespace foehn::detail {

namespace {

struct alignas(16) PatternBytes {
  unsigned char bytes[max_fill_pattern_bytes];
};

// One thread per word; the widest word that divides both the element size and the start
// address keeps the stores aligned and as wide as possible.
template <typename Word>
__global__ void fill_pattern_kernel(Word* destination, std::size_t words, PatternBytes pattern,
                                    unsigned words_per_element) {
  const Word* pattern_words = reinterpret_cast<const Word*>(pattern.bytes);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += stride) {
    destination[i] = pattern_words[i % words_per_element];
  }
}

template <typename Word>
void launch_fill(void* destination, std::size_t bytes, const PatternBytes& pattern,
                 std::size_t pattern_size, cudaStream_t stream) {
  constexpr unsigned block = 256;
  // The grid-stride loop covers any size; more blocks than this only add scheduling cost.
  constexpr std::size_t max_blocks = 65536;
  const std::size_t words = bytes / sizeof(Word);
  const auto grid =
      static_cast<unsigned>(std::min<std::size_t>((words + block - 1) / block, max_blocks));
  fill_pattern_kernel<Word>
      <<<grid, block, 0, stream>>>(static_cast<Word*>(destination), words, pattern,
                                   static_cast<unsigned>(pattern_size / sizeof(Word)));
  FOEHN_CUDA_CHECK_LAUNCH("fill_pattern_kernel");
}

}  // namespace

void fill_pattern_async(void* destination, std::size_t count, const void* pattern,
                        std::size_t pattern_size, CUstream_st* stream) {
  require_handle(stream, "Stream", "fill_async");
  if (pattern_size == 0 || pattern_size > max_fill_pattern_bytes) {
    fail(ErrorCategory::invalid_input, "fill_async: element size ", pattern_size,
         " bytes is outside 1..", max_fill_pattern_bytes);
  }
  if (count == 0) return;
  PatternBytes bytes_of_pattern{};
  std::memcpy(bytes_of_pattern.bytes, pattern, pattern_size);
  const std::size_t bytes = count * pattern_size;  // fits: the array was allocated
  const auto address = reinterpret_cast<std::uintptr_t>(destination);
  const auto fits = [&](std::size_t word) {
    return pattern_size % word == 0 && address % word == 0;
  };
  if (fits(8)) {
    launch_fill<std::uint64_t>(destination, bytes, bytes_of_pattern, pattern_size, stream);
  } else if (fits(4)) {
    launch_fill<std::uint32_t>(destination, bytes, bytes_of_pattern, pattern_size, stream);
  } else if (fits(2)) {
    launch_fill<std::uint16_t>(destination, bytes, bytes_of_pattern, pattern_size, stream);
  } else {
    launch_fill<std::uint8_t>(destination, bytes, bytes_of_pattern, pattern_size, stream);
  }
}

}  // namespace foehn::detail
