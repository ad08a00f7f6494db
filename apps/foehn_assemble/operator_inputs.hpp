#pragma once
// How foehn-assemble's coefficient options reach the parameters and fields that an operator
// declares (for_each_parameter, for_each_field). The tool keeps no list of operators: -operator
// offers every built-in one by name (fe::builtin_operator_names), and an input without an option
// here keeps its default (a parameter its value, a field absent). An operator added to
// operator_list.hpp is therefore assembled by foehn-assemble at once.

#include <set>
#include <span>
#include <string>
#include <string_view>

#include "assemble_options.hpp"

namespace foehn::app {

// An operator parameter and the options its value comes from.
struct ParameterInput {
  std::string_view parameter;            // as the operator declares it
  std::span<const char* const> options;  // e.g. density_over_dt: -density and -dt
  double (*value)(const AssembleToolOptions&);
};

// An operator field and the coefficient option it is built from.
struct FieldInput {
  std::string_view field;   // as the operator declares it
  const char* option;       // "-velocity"
  std::string_view needed;  // what a required field asks for when the option says none
  CoefficientSpec AssembleToolOptions::*spec;
};

// The input for a declared parameter or field; nullptr where the tool has no option for it.
const ParameterInput* parameter_input(std::string_view parameter);
const FieldInput* field_input(std::string_view field);

// The options the named operator reads ("-scale", "-velocity", ...); -isotropic with -tensor.
std::set<std::string> options_used_by(std::string_view operator_name);

// The built-in operators that read `option`, comma-separated (for -help).
std::string operators_using(std::string_view option);

// Values in one matrix block of the named operator (block rows x block columns).
int block_values(std::string_view operator_name);

}  // namespace foehn::app
