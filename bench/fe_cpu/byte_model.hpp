#pragma once
// The byte model of the CPU assembly: the bytes the element loop has to move through the core
// for one assembly, counted per element as if nothing were shared between elements. It is a
// "bytes touched" model, not DRAM traffic: neighbouring elements share nodes and matrix rows,
// so caches serve much of it (that is what the numbering cases show). Its purpose is to put
// the times in context, e.g. GB/s against the memcpy bandwidth of the same run.
//
// Per element, for an operator with R x C blocks and F field doubles per node:
//   connectivity          4 nodes x 4 B (int32)                                   =   16 B
//   coordinates           4 nodes x 3 x 8 B                                       =   96 B
//   nodal fields          4 nodes x F x 8 B        (diffusion tensor: F = 9)      =  288 B
//   matrix values         16 blocks x R*C x 8 B, read + written  (x 2)            =  256 B (1x1)
//                                                                                 = 2304 B (3x3)
//   pattern searched      4 test rows x (2 row offsets + mean row length columns) x 4 B
//                         (each of the 4 rows is binary-searched 4 times; its column
//                          indices are counted once)                              ~  280 B
// plus, once per assembly, the zeroing of the values: nnz blocks x R*C x 8 B.
//
// Variants use the parts they touch:
//   element kernel        connectivity + coordinates + fields
//   full assembly         connectivity + coordinates + fields + values + pattern + zeroing
//   scatter of stored     connectivity + stored element matrix (16 R*C x 8 B read) + values +
//   element matrices      pattern + zeroing
// PETSc's peers are charged the same bytes as the Foehn variant doing the same work (the
// bytes the task needs, not what PETSc's data structures happen to move).

#include <cstdint>

#include "foehn/fe/csr_pattern.hpp"

namespace foehn::bench {

struct AssemblyByteModel {
  double kernel = 0.0;        // whole mesh, one pass
  double full_assembly = 0.0;
  double scatter_stored = 0.0;
};

inline AssemblyByteModel assembly_byte_model(int block_rows, int block_cols,
                                             int field_doubles_per_node,
                                             const fe::CsrPattern& pattern,
                                             std::int64_t tet_count) {
  const double block_bytes = 8.0 * block_rows * block_cols;
  const double mean_row_length =
      pattern.rows > 0 ? static_cast<double>(pattern.nnz()) / pattern.rows : 0.0;
  const double connectivity = 4 * 4.0;
  const double coordinates = 4 * 3 * 8.0;
  const double fields = 4.0 * field_doubles_per_node * 8.0;
  const double values = 16 * block_bytes * 2.0;
  const double searched = 4 * (2 + mean_row_length) * 4.0;
  const double stored_element_matrix = 16 * block_bytes;
  const double zeroing = static_cast<double>(pattern.nnz()) * block_bytes;
  const double tets = static_cast<double>(tet_count);

  AssemblyByteModel model;
  model.kernel = tets * (connectivity + coordinates + fields);
  model.full_assembly = tets * (connectivity + coordinates + fields + values + searched) + zeroing;
  model.scatter_stored = tets * (connectivity + stored_element_matrix + values + searched) + zeroing;
  return model;
}

}  // namespace foehn::bench
