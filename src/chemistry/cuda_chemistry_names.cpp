// Option names of the GPU chemistry settings (host code, in every build).

#include "foehn/chemistry/cuda_chemistry.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {

std::string_view to_string(GpuChemistryStrategy strategy) {
  switch (strategy) {
    case GpuChemistryStrategy::thread_per_cell:
      return "thread_per_cell";
    case GpuChemistryStrategy::block_per_cell:
      return "block_per_cell";
    case GpuChemistryStrategy::automatic:
      return "automatic";
  }
  return "unknown";
}

GpuChemistryStrategy parse_gpu_chemistry_strategy(std::string_view name) {
  for (auto strategy : {GpuChemistryStrategy::thread_per_cell, GpuChemistryStrategy::block_per_cell,
                        GpuChemistryStrategy::automatic}) {
    if (name == to_string(strategy)) return strategy;
  }
  fail(ErrorCategory::invalid_input, "unknown GPU chemistry strategy '", name,
       "' (valid: thread_per_cell, block_per_cell, automatic)");
}

std::string_view to_string(CellLayoutKind layout) {
  switch (layout) {
    case CellLayoutKind::per_cell:
      return "per_cell";
    case CellLayoutKind::block_interleaved:
      return "block_interleaved";
    case CellLayoutKind::interleaved:
      return "interleaved";
  }
  return "unknown";
}

CellLayoutKind parse_cell_layout(std::string_view name) {
  for (auto layout :
       {CellLayoutKind::per_cell, CellLayoutKind::block_interleaved, CellLayoutKind::interleaved}) {
    if (name == to_string(layout)) return layout;
  }
  fail(ErrorCategory::invalid_input, "unknown cell layout '", name,
       "' (valid: per_cell, block_interleaved, interleaved)");
}

}  // namespace foehn::chemistry
