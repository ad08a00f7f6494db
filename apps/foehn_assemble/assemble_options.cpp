#include "assemble_options.hpp"

#include <petscsys.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include "foehn/petsc/assembler_options.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::app {

namespace {

constexpr std::array<std::pair<OperatorKind, const char*>, 7> operator_names{{
    {OperatorKind::mass, "mass"},
    {OperatorKind::advection, "advection"},
    {OperatorKind::diffusion, "diffusion"},
    {OperatorKind::advection_diffusion, "advection_diffusion"},
    {OperatorKind::stabilisation, "stabilisation"},
    {OperatorKind::divergence, "divergence"},
    {OperatorKind::momentum, "momentum"},
}};

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

OperatorKind parse_operator(const std::string& text) {
  for (const auto& [kind, name] : operator_names)
    if (text == name) return kind;
  fail(ErrorCategory::invalid_input, "unknown operator '", text,
       "' (mass, advection, diffusion, advection_diffusion, stabilisation, divergence, momentum)");
}

struct RawOptions {
  std::array<char, PETSC_MAX_PATH_LEN> input{}, output{}, rhs_output{}, petsc_binary{};
  std::array<char, 256> op{}, velocity{}, tensor{}, source{};
  PetscInt cells_x = 0, cells_y = 0, cells_z = 0, target_tets = 0, seed = 1, repeat = 1;
  PetscInt numbering = 0;
  PetscBool isotropic = PETSC_FALSE;
  // Which options were given: generator options clash with -i, and coefficients that the
  // operator ignores are pointed out.
  PetscBool cells_x_set = PETSC_FALSE, cells_y_set = PETSC_FALSE, cells_z_set = PETSC_FALSE;
  PetscBool target_set = PETSC_FALSE;
  PetscBool velocity_set = PETSC_FALSE, tensor_set = PETSC_FALSE, isotropic_set = PETSC_FALSE;
  PetscBool source_set = PETSC_FALSE, scale_set = PETSC_FALSE, dt_set = PETSC_FALSE;
  PetscBool theta_set = PETSC_FALSE, density_set = PETSC_FALSE, viscosity_set = PETSC_FALSE;
};

PetscErrorCode query_options(AssembleToolOptions& o, RawOptions& r) {
  r.cells_x = o.mountain.cells_x;
  r.cells_y = o.mountain.cells_y;
  r.cells_z = o.mountain.cells_z;
  // PetscOptionsString leaves the buffer alone when the option is absent: put defaults there.
  std::snprintf(r.op.data(), r.op.size(), "%s", "mass");
  std::snprintf(r.velocity.data(), r.velocity.size(), "%s", "10,0,0");
  const char* numberings[] = {"natural", "shuffled", "reordered"};

  PetscOptionsBegin(PETSC_COMM_WORLD, nullptr, "foehn-assemble options", nullptr);
  PetscCall(PetscOptionsString(
      "-i", "Input mesh (.msh Gmsh 2.2/4.1, .vtu); default: generate Mountainwave3D", nullptr, "",
      r.input.data(), r.input.size(), nullptr));
  PetscCall(PetscOptionsInt("-cells_x", "generated mesh: cells along x", nullptr, r.cells_x,
                            &r.cells_x, &r.cells_x_set));
  PetscCall(PetscOptionsInt("-cells_y", "generated mesh: cells along y", nullptr, r.cells_y,
                            &r.cells_y, &r.cells_y_set));
  PetscCall(PetscOptionsInt("-cells_z", "generated mesh: cells along z", nullptr, r.cells_z,
                            &r.cells_z, &r.cells_z_set));
  PetscCall(PetscOptionsInt("-target_tets",
                            "generated mesh: scale the cell counts to about this many tets",
                            nullptr, r.target_tets, &r.target_tets, &r.target_set));
  PetscCall(PetscOptionsEList("-numbering", "Node and tet numbering of the mesh", nullptr,
                              numberings, 3, numberings[0], &r.numbering, nullptr));
  PetscCall(
      PetscOptionsInt("-seed", "Seed of -numbering shuffled", nullptr, r.seed, &r.seed, nullptr));
  PetscCall(PetscOptionsString(
      "-operator", "mass|advection|diffusion|advection_diffusion|stabilisation|divergence|momentum",
      nullptr, "mass", r.op.data(), r.op.size(), nullptr));
  PetscCall(PetscOptionsString(
      "-velocity", "Velocity u,v,w (m/s) | none | field:NAME (advection*, momentum)", nullptr,
      "10,0,0", r.velocity.data(), r.velocity.size(), &r.velocity_set));
  PetscCall(PetscOptionsString("-tensor",
                               "Diagonal diffusivity kxx,kyy,kzz | field:NAME (9 or 3 components)",
                               nullptr, "", r.tensor.data(), r.tensor.size(), &r.tensor_set));
  PetscCall(PetscOptionsBool("-isotropic",
                             "K = I without a tensor field (the default when no -tensor)", nullptr,
                             r.isotropic, &r.isotropic, &r.isotropic_set));
  PetscCall(PetscOptionsString("-source",
                               "Right-hand side from f = constant (1) | linear (x+y+z; momentum: "
                               "(x,y,z)) | none | field:NAME",
                               nullptr, "none", r.source.data(), r.source.size(), &r.source_set));
  PetscCall(PetscOptionsReal("-scale",
                             "Factor of mass, advection, diffusion, stabilisation, divergence",
                             nullptr, o.scale, &o.scale, &r.scale_set));
  PetscCall(PetscOptionsReal("-dt", "Time step (advection_diffusion, momentum)", nullptr, o.dt,
                             &o.dt, &r.dt_set));
  PetscCall(PetscOptionsReal("-theta", "Implicitness of advection_diffusion, in [0,1]", nullptr,
                             o.theta, &o.theta, &r.theta_set));
  PetscCall(PetscOptionsReal("-density", "Density of momentum", nullptr, o.density, &o.density,
                             &r.density_set));
  PetscCall(PetscOptionsReal("-viscosity", "Viscosity of momentum", nullptr, o.viscosity,
                             &o.viscosity, &r.viscosity_set));
  PetscCall(PetscOptionsString("-o", "Write the matrix (MatrixMarket coordinate, .mtx)", nullptr,
                               "", r.output.data(), r.output.size(), nullptr));
  PetscCall(PetscOptionsString(
      "-rhs_o", "Write the right-hand side (MatrixMarket array, .mtx); needs -source", nullptr, "",
      r.rhs_output.data(), r.rhs_output.size(), nullptr));
  PetscCall(PetscOptionsString("-petsc_binary",
                               "Write the matrix (and right-hand side) in PETSc binary format",
                               nullptr, "", r.petsc_binary.data(), r.petsc_binary.size(), nullptr));
  PetscCall(PetscOptionsInt("-repeat", "Assemble this many times and report median and min time",
                            nullptr, r.repeat, &r.repeat, nullptr));
  PetscOptionsEnd();
  return 0;
}

void check_positive(const char* option, double value) {
  if (!(value > 0.0) || !std::isfinite(value))
    fail(ErrorCategory::invalid_input, option, " must be a positive number, got ", value);
}

}  // namespace

std::string_view to_string(OperatorKind kind) {
  for (const auto& [k, name] : operator_names)
    if (k == kind) return name;
  return "?";
}

std::set<std::string> options_used_by(OperatorKind op) {
  switch (op) {
    case OperatorKind::mass:
      return {"-scale", "-source"};
    case OperatorKind::advection:
      return {"-scale", "-velocity", "-source"};
    case OperatorKind::diffusion:
      return {"-scale", "-tensor", "-isotropic", "-source"};
    case OperatorKind::advection_diffusion:
      return {"-dt", "-theta", "-velocity", "-tensor", "-isotropic", "-source"};
    case OperatorKind::stabilisation:
      return {"-scale"};
    case OperatorKind::divergence:
      return {"-scale"};
    case OperatorKind::momentum:
      return {"-dt", "-density", "-viscosity", "-velocity", "-source"};
  }
  return {};
}

AssembleToolOptions read_assemble_tool_options() {
  AssembleToolOptions o;
  RawOptions r;
  try {
    FOEHN_PETSC_CHECK(query_options(o, r));
  } catch (const Error& error) {
    // PETSc rejects malformed values (e.g. -repeat ten); to the user that is bad input.
    fail(ErrorCategory::invalid_input,
         "invalid option value (PETSc printed the details above): ", error.what());
  }
  // Wrong values are invalid_input naming the option and the accepted values (exit code 2).
  o.assembler = petsc::assembler_options_from_database(PETSC_COMM_WORLD, "", o.assembler);
  PetscBool strategy_given = PETSC_FALSE;
  FOEHN_PETSC_CHECK(PetscOptionsHasName(nullptr, nullptr, "-foehn_assembly", &strategy_given));
  o.strategy_given = strategy_given == PETSC_TRUE;
  o.input = r.input.data();
  o.matrix_output = r.output.data();
  o.rhs_output = r.rhs_output.data();
  o.petsc_binary = r.petsc_binary.data();
  o.op = parse_operator(r.op.data());
  o.velocity = parse_velocity(r.velocity.data());
  o.tensor = parse_tensor(r.tensor.data(), r.isotropic == PETSC_TRUE);
  o.source = parse_source(r.source.data());

  const bool generator_set = r.cells_x_set || r.cells_y_set || r.cells_z_set || r.target_set;
  if (!o.input.empty() && generator_set)
    fail(ErrorCategory::invalid_input,
         "-cells_x/-cells_y/-cells_z/-target_tets describe the generated mesh; they cannot be "
         "combined with -i");
  if (r.target_tets < 0)
    fail(ErrorCategory::invalid_input, "-target_tets must be positive, got ", r.target_tets);
  o.mountain.cells_x = static_cast<int>(r.cells_x);
  o.mountain.cells_y = static_cast<int>(r.cells_y);
  o.mountain.cells_z = static_cast<int>(r.cells_z);
  if (r.target_tets > 0)
    o.mountain = mountain_options_for_tets(static_cast<std::size_t>(r.target_tets), o.mountain);
  if (o.input.empty()) check_mountain_options(o.mountain);
  o.numbering = static_cast<MeshNumbering>(r.numbering);
  o.seed = r.seed;

  if (!std::isfinite(o.scale))
    fail(ErrorCategory::invalid_input, "-scale must be finite, got ", o.scale);
  check_positive("-dt", o.dt);
  if (!(o.theta >= 0.0 && o.theta <= 1.0))
    fail(ErrorCategory::invalid_input, "-theta must lie in [0, 1], got ", o.theta);
  if (!(o.density >= 0.0) || !std::isfinite(o.density))
    fail(ErrorCategory::invalid_input, "-density must be 0 or more, got ", o.density);
  if (!(o.viscosity >= 0.0) || !std::isfinite(o.viscosity))
    fail(ErrorCategory::invalid_input, "-viscosity must be 0 or more, got ", o.viscosity);
  if (r.repeat < 1 || r.repeat > 1000000)
    fail(ErrorCategory::invalid_input, "-repeat must be between 1 and 1000000, got ", r.repeat);
  o.repeat = static_cast<int>(r.repeat);

  const std::pair<const char*, PetscBool> flags[] = {
      {"-velocity", r.velocity_set}, {"-tensor", r.tensor_set},   {"-isotropic", r.isotropic_set},
      {"-source", r.source_set},     {"-scale", r.scale_set},     {"-dt", r.dt_set},
      {"-theta", r.theta_set},       {"-density", r.density_set}, {"-viscosity", r.viscosity_set}};
  for (const auto& [name, set] : flags)
    if (set == PETSC_TRUE) o.given.insert(name);

  const std::set<std::string> used = options_used_by(o.op);
  if ((o.op == OperatorKind::advection || o.op == OperatorKind::advection_diffusion) &&
      o.velocity.kind == CoefficientSpec::Kind::absent)
    fail(ErrorCategory::invalid_input, "the ", to_string(o.op),
         " operator needs a velocity: -velocity u,v,w or field:NAME, not none");
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
    fail(ErrorCategory::invalid_input, "the ", to_string(o.op),
         " operator has no right-hand side (-rhs_o)");
  const std::array<const std::string*, 3> outputs{&o.matrix_output, &o.rhs_output, &o.petsc_binary};
  for (std::size_t a = 0; a < outputs.size(); ++a)
    for (std::size_t b = a + 1; b < outputs.size(); ++b)
      if (!outputs[a]->empty() && *outputs[a] == *outputs[b])
        fail(ErrorCategory::invalid_input, "the same file '", *outputs[a],
             "' is given for two outputs");
  return o;
}

}  // namespace foehn::app
