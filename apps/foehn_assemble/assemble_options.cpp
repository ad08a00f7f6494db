#include "assemble_options.hpp"

#include <petscsys.h>

#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "foehn/fe/builtin_operator_by_name.hpp"
#include "foehn/petsc/option_table.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/memory_budget.hpp"
#include "operator_inputs.hpp"
#include "option_paths.hpp"
#include "petsc_application.hpp"

namespace foehn::app {

namespace {

using petsc::IntegerRange;
using petsc::OptionTable;
using petsc::RealRange;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "a,b,c": exactly three finite numbers. Parsed here rather than with PetscOptionsRealArray
// so that a typo gets a message saying what was expected instead of a PETSc traceback.
std::array<double, 3> parse_three_numbers(const std::string& option, const std::string& text,
                                          const char* meaning) {
  std::array<double, 3> values{};
  std::string_view rest = text;
  for (int k = 0; k < 3; ++k) {
    const std::size_t comma = rest.find(',');
    if ((k < 2) != (comma != std::string_view::npos))
      fail(ErrorCategory::invalid_input, option, " expects three comma-separated numbers ", meaning,
           ", got '", text, "'");
    std::string_view token = trim(rest.substr(0, comma));
    if (token.size() > 1 && token.front() == '+') token.remove_prefix(1);  // from_chars: no '+'
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), values[k]);
    if (token.empty() || ec != std::errc() || end != token.data() + token.size() ||
        !std::isfinite(values[k]))
      fail(ErrorCategory::invalid_input, option, " expects three comma-separated numbers ", meaning,
           ", got '", text, "' ('", token, "' is not a finite number)");
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return values;
}

bool parse_field(const std::string& option, const std::string& text, CoefficientSpec& spec) {
  constexpr std::string_view prefix = "field:";
  if (text.rfind(prefix, 0) != 0) return false;
  spec.kind = CoefficientSpec::Kind::field;
  spec.field = text.substr(prefix.size());
  if (spec.field.empty())
    fail(ErrorCategory::invalid_input, option,
         " field: needs the name of a node field of the -i mesh");
  return true;
}

CoefficientSpec parse_velocity(const std::string& text) {
  CoefficientSpec spec;
  spec.text = text;
  if (text == "none" || parse_field("-velocity", text, spec)) return spec;
  spec.kind = CoefficientSpec::Kind::constant;
  spec.value = parse_three_numbers("-velocity", text, "u,v,w (m/s), 'none' or 'field:NAME'");
  return spec;
}

CoefficientSpec parse_tensor(const std::string& text, bool isotropic) {
  CoefficientSpec spec;
  spec.text = text.empty() ? "identity" : text;
  if (text.empty()) return spec;
  if (isotropic)
    fail(ErrorCategory::invalid_input,
         "-isotropic and -tensor exclude each other (-isotropic is K = I)");
  if (parse_field("-tensor", text, spec)) return spec;
  spec.kind = CoefficientSpec::Kind::constant;
  spec.value = parse_three_numbers("-tensor", text, "kxx,kyy,kzz or 'field:NAME'");
  return spec;
}

CoefficientSpec parse_source(const std::string& text) {
  CoefficientSpec spec;
  spec.text = text;
  if (text.empty() || text == "none") return spec;
  if (parse_field("-source", text, spec)) return spec;
  if (text == "constant") {
    spec.kind = CoefficientSpec::Kind::constant;
    spec.value = {1.0, 1.0, 1.0};
    return spec;
  }
  if (text == "linear") {
    spec.kind = CoefficientSpec::Kind::linear;
    return spec;
  }
  fail(ErrorCategory::invalid_input, "-source expects constant, linear, none or field:NAME, got '",
       text, "'");
}

// The text of the options parsed after reading, and the generator's tet target.
struct RawOptions {
  std::string velocity = "10,0,0", tensor, source = "none";
  bool isotropic = false;
  long long target_tets = 0;
};

// Cells per axis of a generated mesh; their product is then checked against the 32-bit node
// and tet indices and the memory. -target_tets: at least one cell, at most what 32 bits index.
constexpr IntegerRange cells_range{1, 100000};
constexpr IntegerRange target_tets_range{6, INT_MAX};

// An option's help with the operators that read it: "Factor (mass, advection, ...)".
std::string used_by(const char* help, std::string_view option) {
  return std::string(help) + " (" + operators_using(option) + ")";
}

void declare(OptionTable& table, AssembleToolOptions& o, RawOptions& r) {
  table
      .input_path("-i", "Input mesh (.msh Gmsh 2.2/4.1, .vtu); default: generate Mountainwave3D",
                  &o.input)
      .flag("-fix_orientation",
            "-i mesh: repair inverted tets and inward boundary triangles (Gmsh orients a "
            "surface by its curve loop), as foehn-mesh -fix_orientation",
            &o.fix_orientation)
      .integer("-cells_x", "generated mesh: cells along x", &o.mountain.cells_x, cells_range)
      .integer("-cells_y", "generated mesh: cells along y", &o.mountain.cells_y, cells_range)
      .integer("-cells_z", "generated mesh: cells along z", &o.mountain.cells_z, cells_range)
      .integer("-target_tets", "generated mesh: scale the cell counts to about this many tets",
               &r.target_tets, target_tets_range)
      .choice("-numbering", "Node and tet numbering of the mesh", &o.numbering,
              {{"natural", MeshNumbering::natural},
               {"shuffled", MeshNumbering::shuffled},
               {"reordered", MeshNumbering::reordered}})
      .integer("-seed", "Seed of -numbering shuffled", &o.seed, {0, LLONG_MAX})
      .choice("-operator", "The operator to assemble", &o.op, fe::builtin_operator_names())
      .text("-velocity", used_by("Velocity u,v,w (m/s) | none | field:NAME", "-velocity"),
            &r.velocity)
      .text("-tensor",
            used_by("Diagonal diffusivity kxx,kyy,kzz | field:NAME (9 or 3 components)", "-tensor"),
            &r.tensor)
      .flag("-isotropic", "K = I without a tensor field (the default when no -tensor)",
            &r.isotropic)
      .text("-source",
            used_by("Right-hand side from f = constant (1) | linear (x+y+z; a vector: (x,y,z)) | "
                    "none | field:NAME",
                    "-source"),
            &r.source)
      .real("-scale", used_by("Factor", "-scale"), &o.scale, RealRange::any())
      .real("-dt", used_by("Time step, s", "-dt"), &o.dt, RealRange::above(0.0))
      .real("-theta", used_by("Implicitness", "-theta"), &o.theta, RealRange::closed(0.0, 1.0))
      .real("-density", used_by("Density", "-density"), &o.density, RealRange::at_least(0.0))
      .real("-viscosity", used_by("Viscosity", "-viscosity"), &o.viscosity,
            RealRange::at_least(0.0))
      .output_file("-o", "Write the matrix (MatrixMarket coordinate)", &o.matrix_output, {".mtx"})
      .output_file("-rhs_o", "Write the right-hand side (MatrixMarket array); needs -source",
                   &o.rhs_output, {".mtx"})
      .output_file("-petsc_binary", "Write the matrix (and right-hand side) in PETSc binary format",
                   &o.petsc_binary, {".bin", ".dat", ".petsc"})
      .integer("-repeat", "Assemble this many times and report median and min time", &o.repeat,
               {1, 1000000})
      .choice("-foehn_backend", "Where the operator is assembled (auto: the GPU if there is one)",
              &o.assembler.backend, {"cpu", "cuda", "auto"})
      .choice("-foehn_assembly", "CUDA assembly strategy", &o.assembler.strategy,
              fe::assembly_strategy_choices());
}

// Host bytes per node of a generated mesh, from its allocation to the written file (a P1 tet
// mesh of this generator has about 6 tets and 15 matrix blocks per node): the mesh (~150 B),
// a renumbering's copy of it (~150 B), the sparsity pattern (~64 B), the CPU assembler's map
// of each tet's 16 entries into the matrix (~400 B), the coefficient fields and right-hand
// side (~150 B); then per value of a matrix block, its 15 values (8 B each) and their copy in
// the point CSR written out (8 B value + 4 B column each).
double bytes_per_generated_node(std::string_view op) {
  return 900.0 + 15.0 * (8.0 + 12.0) * block_values(op);
}

// The generated mesh: its options exclude -i, it must fit 32-bit indices and the memory.
void check_mesh_options(const OptionTable& table, AssembleToolOptions& o, const RawOptions& r) {
  const bool target = table.was_set("-target_tets");
  const bool cells =
      table.was_set("-cells_x") || table.was_set("-cells_y") || table.was_set("-cells_z");
  if (!o.input.empty()) {
    if (cells || target)
      fail(ErrorCategory::invalid_input,
           "-cells_x/-cells_y/-cells_z/-target_tets describe the generated mesh; they cannot be "
           "combined with -i");
    require_input_file("-i", o.input);
    return;
  }
  // With -target_tets, given cell counts set the proportions that it scales.
  if (target)
    o.mountain = mountain_options_for_tets(static_cast<std::size_t>(r.target_tets), o.mountain);
  const MountainMeshOptions& m = o.mountain;
  const std::string request =
      target ? foehn::detail::concat("-target_tets ", r.target_tets)
             : foehn::detail::concat("-cells_x x -cells_y x -cells_z ", m.cells_x, " x ", m.cells_y,
                                     " x ", m.cells_z);
  const double tets = 6.0 * m.cells_x * m.cells_y * m.cells_z;
  const double nodes = (m.cells_x + 1.0) * (m.cells_y + 1.0) * (m.cells_z + 1.0);
  if (tets > INT32_MAX || nodes > INT32_MAX)
    fail(ErrorCategory::invalid_input, request, " gives ", tets,
         " tets, more than the 2147483647 that 32-bit indices address");
  const double per_node = bytes_per_generated_node(o.op);
  check_host_memory(foehn::detail::concat(request, " (", nodes, " nodes, about ", per_node,
                                          " B per node for the ", o.op, " operator)"),
                    nodes * per_node);
  check_mountain_options(m);
}

void check_operator_options(const AssembleToolOptions& o) {
  const std::set<std::string> used = options_used_by(o.op);
  std::visit(
      [&](const auto& op) {
        op.for_each_field([&](const fe::FieldRef&, int, const char* name, bool required) {
          const FieldInput* input = field_input(name);
          if (required && input && (o.*input->spec).kind == CoefficientSpec::Kind::absent)
            fail(ErrorCategory::invalid_input, "the ", o.op, " operator needs ", input->needed);
        });
      },
      fe::make_builtin_operator(o.op));
  // field:NAME reads node fields of the -i mesh; say so before generating a mesh for nothing.
  const std::pair<const char*, const CoefficientSpec*> specs[] = {
      {"-velocity", &o.velocity}, {"-tensor", &o.tensor}, {"-source", &o.source}};
  for (const auto& [name, spec] : specs)
    if (o.input.empty() && spec->kind == CoefficientSpec::Kind::field && used.count(name))
      fail(ErrorCategory::invalid_input, name, " field:", spec->field,
           " needs a mesh with node fields (-i mesh.vtu); the generated mesh has none");
  if (!o.rhs_output.empty() && o.source.kind == CoefficientSpec::Kind::absent)
    fail(ErrorCategory::invalid_input,
         "-rhs_o needs a right-hand side: -source constant|linear|field:NAME");
  if (!o.rhs_output.empty() && !used.count("-source"))
    fail(ErrorCategory::invalid_input, "the ", o.op, " operator has no right-hand side (-rhs_o)");
}

void check_outputs(const AssembleToolOptions& o) {
  const std::array<std::pair<const char*, const std::string*>, 3> outputs{
      {{"-o", &o.matrix_output}, {"-rhs_o", &o.rhs_output}, {"-petsc_binary", &o.petsc_binary}}};
  for (const auto& [option, path] : outputs)
    if (!path->empty()) require_output_file_not_folder(option, *path);
  for (std::size_t a = 0; a < outputs.size(); ++a)
    for (std::size_t b = a + 1; b < outputs.size(); ++b)
      if (!outputs[a].second->empty() && *outputs[a].second == *outputs[b].second)
        fail(ErrorCategory::invalid_input, outputs[a].first, " and ", outputs[b].first,
             " name the same file '", *outputs[a].second, "'");
}

}  // namespace

AssembleToolOptions read_assemble_tool_options() {
  AssembleToolOptions o;
  RawOptions r;
  OptionTable table(PETSC_COMM_WORLD, "foehn-assemble options");
  declare(table, o, r);
  table.read();
  if (help_requested()) return o;
  o.strategy_given = table.was_set("-foehn_assembly");
  o.velocity = parse_velocity(r.velocity);
  o.tensor = parse_tensor(r.tensor, r.isotropic);
  o.source = parse_source(r.source);
  for (const char* name : {"-velocity", "-tensor", "-isotropic", "-source", "-scale", "-dt",
                           "-theta", "-density", "-viscosity"})
    if (table.was_set(name)) o.given.insert(name);
  check_mesh_options(table, o, r);
  check_operator_options(o);
  check_outputs(o);
  return o;
}

}  // namespace foehn::app
