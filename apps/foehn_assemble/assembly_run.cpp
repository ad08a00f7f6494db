#include "assembly_run.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <list>
#include <set>
#include <span>
#include <utility>
#include <variant>

#include "foehn/fe/builtin_operator_by_name.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "operator_inputs.hpp"

namespace foehn::app {

namespace {

using Kind = CoefficientSpec::Kind;

const MeshField& find_node_field(const TetMesh& mesh, const CoefficientSpec& spec,
                                 const std::string& option) {
  for (const MeshField& f : mesh.node_fields)
    if (f.name == spec.field) return f;
  std::string available;
  for (const MeshField& f : mesh.node_fields)
    available +=
        (available.empty() ? "" : ", ") + f.name + " (" + std::to_string(f.components) + ")";
  fail(ErrorCategory::invalid_input, option, " field:", spec.field,
       ": the mesh has no node field '", spec.field, "' (",
       available.empty() ? std::string("it has no node fields; they come from a .vtu given with -i")
                         : "node fields (components): " + available,
       ")");
}

// Shortest text that reads back as the same double: "0.1", not "0.10000000000000001".
std::string shortest(double value) {
  std::array<char, 32> text;
  const auto result = std::to_chars(text.data(), text.data() + text.size(), value);
  return std::string(text.data(), result.ptr);
}

std::string format_constant(const std::array<double, 3>& v) {
  return shortest(v[0]) + "," + shortest(v[1]) + "," + shortest(v[2]);
}

std::string describe(const CoefficientSpec& spec, const char* absent) {
  switch (spec.kind) {
    case Kind::absent:
      return absent;
    case Kind::constant:
      return spec.text == "constant" ? spec.text : format_constant(spec.value);
    case Kind::linear:
      return "linear";
    case Kind::field:
      return "field " + spec.field;
  }
  return "?";
}

// Finite inputs can still overflow: -scale 1e308 times an element integral is inf. Such a matrix
// is refused rather than written (a solver would only fail later, far from the cause).
void require_finite(std::span<const double> values, const char* what, const std::string& summary) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      fail(ErrorCategory::invalid_input, "the assembled ", what, " has a non-finite value (",
           values[i], " at value ", i, ") for ", summary,
           ": the inputs overflow double precision (-scale, -dt and the field values multiply the "
           "element integrals)");
}

// Each repetition is timed whole: for the CUDA backend that includes copying the host fields to
// the GPU and the values back, since the outputs are written from the host.
template <class Op>
AssemblyRun assemble_repeatedly(fe::Assembler& assembler, const Op& op, int repeat, bool with_rhs,
                                std::string summary) {
  AssemblyRun run;
  run.summary = std::string(Op::name) + " (" + std::to_string(Op::block_rows) + " x " +
                std::to_string(Op::block_cols) + " blocks)" + summary;
  run.matrix = assembler.create_matrix<Op>();
  if (with_rhs) run.rhs.resize(static_cast<std::size_t>(assembler.node_count() * Op::block_rows));
  for (int r = 0; r < repeat; ++r) {
    const Stopwatch watch;
    assembler.assemble(op, fe::Memory::host, run.matrix, run.rhs);
    run.seconds.push_back(watch.seconds());
  }
  require_finite(run.matrix.values, "matrix", run.summary);
  require_finite(run.rhs, "right-hand side", run.summary);
  return run;
}

}  // namespace

std::vector<double> nodal_field(const TetMesh& mesh, const CoefficientSpec& spec, int components,
                                const std::string& option) {
  const std::size_t n = mesh.node_count();
  std::vector<double> values;
  switch (spec.kind) {
    case Kind::absent:
      return values;
    case Kind::constant:
      values.resize(n * components, 0.0);
      for (std::size_t i = 0; i < n; ++i)
        if (components == 9)
          for (int d = 0; d < 3; ++d) values[i * 9 + d * 4] = spec.value[d];
        else
          for (int c = 0; c < components; ++c) values[i * components + c] = spec.value[c];
      return values;
    case Kind::linear:
      if (components != 1 && components != 3)
        fail(ErrorCategory::invalid_input, option,
             " linear is defined for scalars and vectors only");
      values.resize(n * components);
      for (std::size_t i = 0; i < n; ++i) {
        const Point3& x = mesh.nodes[i];
        if (components == 1)
          values[i] = x[0] + x[1] + x[2];
        else
          for (int d = 0; d < 3; ++d) values[i * 3 + d] = x[d];
      }
      return values;
    case Kind::field: {
      const MeshField& f = find_node_field(mesh, spec, option);
      if (f.values.size() != n * static_cast<std::size_t>(f.components))
        fail(ErrorCategory::invalid_input, option, " field:", f.name, " has ", f.values.size(),
             " values for ", n, " nodes");
      if (f.components == components) return f.values;
      if (components == 9 && f.components == 3) {
        values.resize(n * 9, 0.0);  // a diagonal tensor given by its three diagonal entries
        for (std::size_t i = 0; i < n; ++i)
          for (int d = 0; d < 3; ++d) values[i * 9 + d * 4] = f.values[i * 3 + d];
        return values;
      }
      fail(ErrorCategory::invalid_input, option, " field:", f.name, " has ", f.components,
           " component(s); ", components == 9 ? "a tensor needs 9 (or 3 for its diagonal)" : "",
           components == 3 ? "this operator needs 3" : "",
           components == 1 ? "this operator needs 1" : "");
    }
  }
  return values;
}

// A diffusivity tensor with a negative diagonal entry is not positive semi-definite: the
// operator would be anti-diffusive, a matrix no solver should be handed (the viscosity's sign
// is checked the same way, as an option). Non-finite entries are refused with it.
void require_diffusive(const std::vector<double>& k, const CoefficientSpec& spec) {
  for (std::size_t node = 0; node < k.size() / 9; ++node)
    for (int d = 0; d < 3; ++d) {
      const double value = k[node * 9 + d * 4];
      if (!(value >= 0.0) || !std::isfinite(value))
        fail(ErrorCategory::invalid_input, "-tensor ", spec.text, ": diagonal entry ", d, " is ",
             value, " at node ", node, "; a diffusivity must be finite and >= 0");
    }
}

// ", dt 10, velocity 10,0,0, source none": the options the operator reads, in a fixed order.
std::string describe_inputs(const AssembleToolOptions& o) {
  const std::set<std::string> used = options_used_by(o.op);
  const std::pair<const char*, std::string> items[] = {
      {"-dt", "dt " + shortest(o.dt)},
      {"-theta", "theta " + shortest(o.theta)},
      {"-density", "density " + shortest(o.density)},
      {"-viscosity", "viscosity " + shortest(o.viscosity)},
      {"-scale", "scale " + shortest(o.scale)},
      {"-velocity", "velocity " + describe(o.velocity, "none")},
      {"-tensor", "tensor " + describe(o.tensor, "identity")},
      {"-source", "source " + describe(o.source, "none")}};
  std::string text;
  for (const auto& [option, item] : items)
    if (used.count(option)) text += ", " + item;
  return text;
}

AssemblyRun run_assembly(const TetMesh& mesh, fe::Assembler& assembler,
                         const AssembleToolOptions& o) {
  fe::AnyBuiltinOperator chosen = fe::make_builtin_operator(o.op);
  // The nodal fields the operator points to; a list, so that adding one moves none.
  std::list<std::vector<double>> fields;
  return std::visit(
      [&](auto& op) {
        std::vector<std::string> parameters;
        op.for_each_parameter([&](auto&, const char* name) { parameters.emplace_back(name); });
        for (const std::string& name : parameters)
          if (const ParameterInput* input = parameter_input(name))
            fe::set_parameter(op, name, input->value(o));
        std::vector<std::pair<std::string, int>> declared_fields;  // name, components per node
        op.for_each_field([&](const fe::FieldRef&, int components, const char* name, bool) {
          declared_fields.emplace_back(name, components);
        });
        bool with_rhs = false;
        for (const auto& [name, components] : declared_fields) {
          const FieldInput* input = field_input(name);
          if (!input) continue;
          const CoefficientSpec& spec = o.*input->spec;
          std::vector<double> values = nodal_field(mesh, spec, components, input->option);
          if (values.empty()) continue;
          if (components == 9) require_diffusive(values, spec);
          // -source fills the right-hand side, whatever the operator calls its load.
          with_rhs = with_rhs || std::string_view(input->option) == "-source";
          fe::set_field(op, name, fe::field_ref(fields.emplace_back(std::move(values))));
        }
        return assemble_repeatedly(assembler, op, o.repeat, with_rhs, describe_inputs(o));
      },
      chosen);
}

}  // namespace foehn::app
