#include "operator_inputs.hpp"

#include <array>
#include <variant>

#include "foehn/fe/builtin_operator_by_name.hpp"

namespace foehn::app {

namespace {

constexpr std::array<const char*, 1> scale_option{"-scale"};
constexpr std::array<const char*, 1> dt_option{"-dt"};
constexpr std::array<const char*, 1> theta_option{"-theta"};
constexpr std::array<const char*, 2> density_dt_options{"-density", "-dt"};
constexpr std::array<const char*, 1> viscosity_option{"-viscosity"};

const std::array<ParameterInput, 5> parameter_inputs{{
    {"scale", scale_option, [](const AssembleToolOptions& o) { return o.scale; }},
    {"inverse_dt", dt_option, [](const AssembleToolOptions& o) { return 1.0 / o.dt; }},
    {"theta", theta_option, [](const AssembleToolOptions& o) { return o.theta; }},
    {"density_over_dt", density_dt_options,
     [](const AssembleToolOptions& o) { return o.density / o.dt; }},
    {"viscosity", viscosity_option, [](const AssembleToolOptions& o) { return o.viscosity; }},
}};

constexpr std::string_view velocity_needed = "a velocity: -velocity u,v,w or field:NAME, not none";
const std::array<FieldInput, 5> field_inputs{{
    {"velocity", "-velocity", velocity_needed, &AssembleToolOptions::velocity},
    {"advecting_velocity", "-velocity", velocity_needed, &AssembleToolOptions::velocity},
    {"tensor", "-tensor", "a tensor: -tensor kxx,kyy,kzz or field:NAME",
     &AssembleToolOptions::tensor},
    {"source", "-source", "a source: -source constant|linear|field:NAME",
     &AssembleToolOptions::source},
    {"body_force", "-source", "a body force: -source constant|linear|field:NAME",
     &AssembleToolOptions::source},
}};

}  // namespace

const ParameterInput* parameter_input(std::string_view parameter) {
  for (const ParameterInput& input : parameter_inputs)
    if (input.parameter == parameter) return &input;
  return nullptr;
}

const FieldInput* field_input(std::string_view field) {
  for (const FieldInput& input : field_inputs)
    if (input.field == field) return &input;
  return nullptr;
}

std::set<std::string> options_used_by(std::string_view operator_name) {
  std::set<std::string> used;
  fe::AnyBuiltinOperator chosen = fe::make_builtin_operator(operator_name);
  std::visit(
      [&](auto& op) {
        op.for_each_parameter([&](auto&, const char* name) {
          if (const ParameterInput* input = parameter_input(name))
            used.insert(input->options.begin(), input->options.end());
        });
        op.for_each_field([&](const fe::FieldRef&, int, const char* name, bool) {
          const FieldInput* input = field_input(name);
          if (!input) return;
          used.insert(input->option);
          if (std::string_view(input->option) == "-tensor") used.insert("-isotropic");
        });
      },
      chosen);
  return used;
}

std::string operators_using(std::string_view option) {
  std::string names;
  for (const std::string& name : fe::builtin_operator_names())
    if (options_used_by(name).count(std::string(option)))
      names += (names.empty() ? "" : ", ") + name;
  return names;
}

int block_values(std::string_view operator_name) {
  return std::visit(
      [](const auto& op) {
        using Op = std::decay_t<decltype(op)>;
        return Op::block_rows * Op::block_cols;
      },
      fe::make_builtin_operator(operator_name));
}

}  // namespace foehn::app
