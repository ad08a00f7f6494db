#pragma once
// Options of foehn-assemble, read from the PETSc options database.

#include <array>
#include <set>
#include <string>

#include "foehn/fe/assembler.hpp"
#include "foehn/mesh/mountain.hpp"

namespace foehn::app {

enum class MeshNumbering { natural, shuffled, reordered };

// A nodal coefficient as given on the command line: absent, a constant (one value per
// component), a named node field of the -i mesh ("field:NAME"), or the linear function of
// the coordinates that -source linear means.
struct CoefficientSpec {
  enum class Kind { absent, constant, linear, field };
  Kind kind = Kind::absent;
  std::array<double, 3> value{};  // constant: u,v,w / kxx,kyy,kzz / 1
  std::string field;              // field: node field name
  std::string text;               // as given, for the summary line
};

struct AssembleToolOptions {
  std::string input;             // -i: mesh file; empty: generate Mountainwave3D
  bool fix_orientation = false;  // -fix_orientation: flip inverted tets, inward boundary faces
  MountainMeshOptions mountain;  // -cells_x/-cells_y/-cells_z/-target_tets
  MeshNumbering numbering = MeshNumbering::natural;
  long long seed = 1;

  std::string op = "mass";   // -operator: a built-in operator's name (operator_list.hpp)
  CoefficientSpec velocity;  // default 10,0,0: the mountain-wave inflow
  CoefficientSpec tensor;    // absent: K = I (the operator's Laplacian path)
  CoefficientSpec source;    // absent: no right-hand side
  double scale = 1.0;
  double dt = 1.0;
  double theta = 0.5;
  double density = 1.0;
  double viscosity = 1.0;

  std::string matrix_output;  // -o: .mtx
  std::string rhs_output;     // -rhs_o: .mtx (array)
  std::string petsc_binary;   // -petsc_binary: Mat (then Vec) in PETSc's binary format
  int repeat = 1;

  // -foehn_backend / -foehn_assembly (the names petsc::assembler_options_from_database reads,
  // declared in the tool's own option table). The backend defaults to cpu, not auto: the tool's
  // matrices are diffed bitwise between runs, and a GPU found by auto would change them at
  // round-off with the fused strategies (stabilisation may differ in the last bit even with
  // deterministic).
  fe::AssemblerOptions assembler{.backend = "cpu"};
  bool strategy_given = false;  // -foehn_assembly given: pointed out when the CPU assembles

  // Coefficient options given explicitly (e.g. "-dt"), to point out those the chosen
  // operator does not use.
  std::set<std::string> given;
};

// Reads every option (so -help lists them all, each with its range) and checks their values,
// the options that go together, the paths they name and the memory a generated mesh needs;
// throws foehn::Error (invalid_input) naming the option for a bad value. With -help only the
// listing.
AssembleToolOptions read_assemble_tool_options();

}  // namespace foehn::app
