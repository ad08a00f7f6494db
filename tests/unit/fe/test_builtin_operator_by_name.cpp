// Built-in operators chosen and set up by name (what the C ABI and foehn-assemble do), against
// what each operator declares.

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "foehn/fe/builtin_operator_by_name.hpp"

namespace foehn::fe {
namespace {

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
    return error.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(BuiltinOperatorByName, EveryListedOperatorIsMadeByItsNameInListOrder) {
  const std::vector<std::string> names = builtin_operator_names();
  ASSERT_EQ(static_cast<int>(names.size()), BuiltinOperators::size);
  EXPECT_EQ(names.front(), MassOperator::name);
  EXPECT_EQ(names.back(), MomentumOperator::name);
  for (const std::string& name : names) {
    const AnyBuiltinOperator op = make_builtin_operator(name);
    std::visit([&](const auto& o) { EXPECT_EQ(o.name, name); }, op);
  }
}

TEST(BuiltinOperatorByName, AnUnknownNameIsAnErrorListingTheKnownOnes) {
  const std::string message = error_of([] { make_builtin_operator("laplace"); });
  EXPECT_NE(message.find("unknown operator 'laplace'"), std::string::npos) << message;
  for (const std::string& name : builtin_operator_names())
    EXPECT_NE(message.find(name), std::string::npos) << name;
}

TEST(BuiltinOperatorByName, ParametersAreSetByTheirDeclaredNames) {
  AdvectionDiffusionOperator op;
  set_parameter(op, "theta", 0.75);
  set_parameter(op, "inverse_dt", 0.1);
  set_parameter(op, "skew_symmetric", 1.0);  // a bool parameter: non-zero is true
  EXPECT_EQ(op.theta, 0.75);
  EXPECT_EQ(op.inverse_dt, 0.1);
  EXPECT_TRUE(op.skew_symmetric);
  EXPECT_FALSE(op.conservative_form);
  set_parameter(op, "skew_symmetric", 0.0);
  EXPECT_FALSE(op.skew_symmetric);
}

TEST(BuiltinOperatorByName, AnUnknownOrNonFiniteParameterIsAnErrorNamingTheOperator) {
  MomentumOperator op;
  const std::string unknown = error_of([&] { set_parameter(op, "scale", 2.0); });
  EXPECT_NE(unknown.find("momentum operator has no parameter 'scale' (density_over_dt, viscosity)"),
            std::string::npos)
      << unknown;
  const std::string not_finite =
      error_of([&] { set_parameter(op, "viscosity", std::numeric_limits<double>::quiet_NaN()); });
  EXPECT_NE(not_finite.find("viscosity"), std::string::npos) << not_finite;
  EXPECT_EQ(op.viscosity, MomentumOperator{}.viscosity);  // left as it was
}

TEST(BuiltinOperatorByName, FieldsAreSetAndRemovedByTheirDeclaredNames) {
  const std::vector<double> velocity(12, 1.0);
  AdvectionOperator op;
  set_field(op, "velocity", field_ref(velocity));
  EXPECT_EQ(op.velocity.data, velocity.data());
  EXPECT_EQ(op.velocity.size, 12);
  EXPECT_EQ(op.source.data, nullptr);
  set_field(op, "velocity", FieldRef{});
  EXPECT_EQ(op.velocity.data, nullptr);
  const std::string unknown = error_of([&] { set_field(op, "tensor", FieldRef{}); });
  EXPECT_NE(unknown.find("advection operator has no field 'tensor' (velocity, source)"),
            std::string::npos)
      << unknown;
  EXPECT_EQ(field_names(StabilisationOperator{}), "none");
}

}  // namespace
}  // namespace foehn::fe
