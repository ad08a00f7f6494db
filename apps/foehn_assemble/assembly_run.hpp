#pragma once
// The assembly itself: nodal coefficient fields built from the options, the chosen operator
// assembled -repeat times with fe::Assembler (the backend of -foehn_backend; host fields and
// host results, which the outputs need), and the time of each repetition.

#include <string>
#include <vector>

#include "assemble_options.hpp"
#include "foehn/fe/assembler.hpp"
#include "foehn/mesh/tet_mesh.hpp"

namespace foehn::app {

struct AssemblyRun {
  std::string summary;          // operator, block shape and coefficients, for the report
  fe::BlockCsrMatrix matrix;    // the last repetition's values
  std::vector<double> rhs;      // node_count * block_rows entries; empty without -source
  std::vector<double> seconds;  // wall time of each repetition
};

// Throws foehn::Error (invalid_input) for a coefficient the mesh cannot provide (unknown
// node field, wrong number of components, field: on a generated mesh) or that the operator
// rejects (non-finite values, missing required velocity).
AssemblyRun run_assembly(const TetMesh& mesh, fe::Assembler& assembler,
                         const AssembleToolOptions& options);

// Nodal values of a coefficient with `components` per node (1 scalar, 3 vector, 9 tensor),
// interleaved as operators.hpp expects; empty for an absent one. A constant gives the same
// value at every node (for 9 components: the diagonal tensor), linear gives x+y+z (scalar) or
// (x, y, z) (vector), and field:NAME copies the mesh's node field (a 3-component field for a
// tensor is its diagonal).
std::vector<double> nodal_field(const TetMesh& mesh, const CoefficientSpec& spec, int components,
                                const std::string& option);

}  // namespace foehn::app
