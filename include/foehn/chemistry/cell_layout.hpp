#pragma once
// Where entry i of cell c of a per-cell array (width W entries per cell) lives. The three layouts
// of the CAM-Chem GPU study (Sun et al. 2018) as types, so the solver is written once and the
// layout is a template parameter:
//
//   PerCellLayout              cell-contiguous  (c W + i)                 stride 1
//   BlockInterleavedLayout<K>  blocks of K cells interleaved              stride K
//                              ((c / K) K W + i K + c mod K)
//   InterleavedLayout          fully interleaved (i N + c), N = cells     stride N
//
// With one GPU thread per cell, the interleaved layouts make the 32 threads of a warp touch 32
// consecutive doubles for the same entry (coalesced); the per-cell layout makes them 8 W bytes
// apart. On the CPU (one cell at a time) the per-cell layout keeps a cell in cache.

#include <cstdint>

#include "foehn/runtime/host_device.hpp"

namespace foehn::chemistry {

// The entries of one cell: a base pointer and a stride (compile-time when Stride > 0).
template <int Stride>
struct CellSpan {
  double* base = nullptr;
  FOEHN_HD double& operator[](int i) const { return base[static_cast<std::int64_t>(i) * Stride]; }
  // The sub-array starting at entry `first` (several logical arrays share one field).
  FOEHN_HD CellSpan shifted(int first) const { return {base + static_cast<std::int64_t>(first) * Stride}; }
};

template <>
struct CellSpan<0> {
  double* base = nullptr;
  std::int64_t stride = 1;
  FOEHN_HD double& operator[](int i) const { return base[i * stride]; }
  FOEHN_HD CellSpan shifted(int first) const { return {base + first * stride, stride}; }
};

enum class CellLayoutKind : int { per_cell = 0, block_interleaved = 1, interleaved = 2 };

struct PerCellLayout {
  static constexpr CellLayoutKind kind = CellLayoutKind::per_cell;
  using Span = CellSpan<1>;
  static constexpr std::int64_t storage(int width, std::int64_t cells) { return width * cells; }
  FOEHN_HD static Span span(double* field, std::int64_t cell, int width, std::int64_t /*cells*/) {
    return {field + cell * width};
  }
};

template <int K>
struct BlockInterleavedLayout {
  static_assert(K > 0, "block size must be positive");
  static constexpr CellLayoutKind kind = CellLayoutKind::block_interleaved;
  static constexpr int block = K;
  using Span = CellSpan<K>;
  // The last block is padded to K cells so every block has the same shape.
  static constexpr std::int64_t storage(int width, std::int64_t cells) {
    return ((cells + K - 1) / K) * K * width;
  }
  FOEHN_HD static Span span(double* field, std::int64_t cell, int width, std::int64_t /*cells*/) {
    return {field + (cell / K) * K * width + cell % K};
  }
};

struct InterleavedLayout {
  static constexpr CellLayoutKind kind = CellLayoutKind::interleaved;
  using Span = CellSpan<0>;
  static constexpr std::int64_t storage(int width, std::int64_t cells) { return width * cells; }
  FOEHN_HD static Span span(double* field, std::int64_t cell, int /*width*/, std::int64_t cells) {
    return {field + cell, cells};
  }
};

}  // namespace foehn::chemistry
