#include "foehn/fe/cpu_assembler.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "foehn/fe/cpu_assembly.hpp"
#include "foehn/fe/operator_list.hpp"

namespace foehn::fe {

CpuAssembler::CpuAssembler(const TetMesh& mesh, CpuAssemblyOptions options)
    : pattern_(std::make_shared<const CsrPattern>(build_node_pattern(mesh))) {
  coordinates_.reserve(mesh.nodes.size() * 3);
  for (const Point3& p : mesh.nodes) coordinates_.insert(coordinates_.end(), p.begin(), p.end());
  tets_.reserve(mesh.tets.size() * 4);
  for (const Tet& t : mesh.tets) tets_.insert(tets_.end(), t.begin(), t.end());
  if (options.use_slot_map) {
    slot_map_.resize(mesh.tets.size() * 16);
    for (std::size_t t = 0; t < mesh.tets.size(); ++t)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          slot_map_[t * 16 + i * 4 + j] =
              block_slot(pattern_->row_offsets.data(), pattern_->column_indices.data(),
                         mesh.tets[t][i], mesh.tets[t][j]);
  }
  if (options.threads < 0)
    fail(ErrorCategory::invalid_input, "CPU assembly: ", options.threads,
         " threads (1: serial, 0: OpenMP's default, n > 1: row-block gather)");
#if defined(_OPENMP)
  threads_ = options.threads == 0 ? omp_get_max_threads() : options.threads;
#else
  threads_ = 1;  // built without OpenMP: the gather (if asked for) runs on one thread
#endif
  if (threads_ > 1 || options.row_blocks)
    row_blocks_ = build_row_block_layout(tets_, node_count(), options.rows_per_block);
}

}  // namespace foehn::fe

FOEHN_FOR_EACH_BUILTIN_OPERATOR(FOEHN_INSTANTIATE_CPU_ASSEMBLY)
