#include "assembly_run.hpp"

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <span>

#include "foehn/runtime/error.hpp"

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
    const auto start = std::chrono::steady_clock::now();
    assembler.assemble(op, fe::Memory::host, run.matrix, run.rhs);
    run.seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
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

AssemblyRun run_assembly(const TetMesh& mesh, fe::Assembler& assembler,
                         const AssembleToolOptions& o) {
  // Operators without a right-hand side ignore -source (main points that out).
  const bool with_rhs = o.source.kind != Kind::absent && options_used_by(o.op).count("-source") > 0;
  const int source_components = o.op == OperatorKind::momentum ? 3 : 1;
  const std::vector<double> source =
      with_rhs ? nodal_field(mesh, o.source, source_components, "-source") : std::vector<double>{};
  const std::string source_text = ", source " + describe(o.source, "none");
  const std::string scale_text = ", scale " + shortest(o.scale);

  // Only the fields the operator reads are built, so an unused field:NAME is not looked up.
  const auto velocity = [&] { return nodal_field(mesh, o.velocity, 3, "-velocity"); };
  const auto tensor = [&] {
    std::vector<double> k = nodal_field(mesh, o.tensor, 9, "-tensor");
    require_diffusive(k, o.tensor);
    return k;
  };
  const std::string velocity_text = ", velocity " + describe(o.velocity, "none");
  const std::string tensor_text = ", tensor " + describe(o.tensor, "identity");

  switch (o.op) {
    case OperatorKind::mass: {
      fe::MassOperator op;
      op.scale = o.scale;
      op.source = fe::field_ref(source);
      return assemble_repeatedly(assembler, op, o.repeat, with_rhs, scale_text + source_text);
    }
    case OperatorKind::advection: {
      const std::vector<double> u = velocity();
      fe::AdvectionOperator op;
      op.scale = o.scale;
      op.velocity = fe::field_ref(u);
      op.source = fe::field_ref(source);
      return assemble_repeatedly(assembler, op, o.repeat, with_rhs,
                                 scale_text + velocity_text + source_text);
    }
    case OperatorKind::diffusion: {
      const std::vector<double> k = tensor();
      fe::DiffusionOperator op;
      op.scale = o.scale;
      op.tensor = fe::field_ref(k);
      op.source = fe::field_ref(source);
      return assemble_repeatedly(assembler, op, o.repeat, with_rhs,
                                 scale_text + tensor_text + source_text);
    }
    case OperatorKind::advection_diffusion: {
      const std::vector<double> u = velocity(), k = tensor();
      fe::AdvectionDiffusionOperator op;
      op.inverse_dt = 1.0 / o.dt;
      op.theta = o.theta;
      op.velocity = fe::field_ref(u);
      op.tensor = fe::field_ref(k);
      op.source = fe::field_ref(source);
      return assemble_repeatedly(assembler, op, o.repeat, with_rhs,
                                 ", dt " + shortest(o.dt) + ", theta " + shortest(o.theta) +
                                     velocity_text + tensor_text + source_text);
    }
    case OperatorKind::stabilisation: {
      fe::StabilisationOperator op;
      op.scale = o.scale;
      return assemble_repeatedly(assembler, op, o.repeat, false, scale_text);
    }
    case OperatorKind::divergence: {
      fe::DivergenceOperator op;
      op.scale = o.scale;
      return assemble_repeatedly(assembler, op, o.repeat, false, scale_text);
    }
    case OperatorKind::momentum: {
      const std::vector<double> w = velocity();
      fe::MomentumOperator op;
      op.density_over_dt = o.density / o.dt;
      op.viscosity = o.viscosity;
      op.advecting_velocity = fe::field_ref(w);
      op.body_force = fe::field_ref(source);
      return assemble_repeatedly(assembler, op, o.repeat, with_rhs,
                                 ", dt " + shortest(o.dt) + ", density " + shortest(o.density) +
                                     ", viscosity " + shortest(o.viscosity) + velocity_text +
                                     source_text);
    }
  }
  fail(ErrorCategory::internal, "operator not handled");
}

}  // namespace foehn::app
