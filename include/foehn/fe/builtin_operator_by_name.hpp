#pragma once
// The built-in operators chosen and set up by name at run time, from what each operator declares
// (its `name`, for_each_parameter and for_each_field): the C ABI (foehn_operator_create, _set_*)
// and foehn-assemble's -operator both work through these, so an operator added to
// operator_list.hpp is reachable from C, Fortran and the command line with no change here.

#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "foehn/fe/operator_list.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {

namespace detail {
template <class List>
struct VariantOf;
template <class... Ops>
struct VariantOf<OperatorList<Ops...>> {
  using type = std::variant<Ops...>;
};

inline void append_name(std::string& names, std::string_view name) {
  if (!names.empty()) names += ", ";
  names += name;
}
}  // namespace detail

// Any built-in operator, by value (its parameters and the fields it points to).
using AnyBuiltinOperator = typename detail::VariantOf<BuiltinOperators>::type;

// The built-in operators' names, in the list's order.
inline std::vector<std::string> builtin_operator_names() {
  return [&]<class... Ops>(OperatorList<Ops...>) {
    return std::vector<std::string>{Ops::name...};
  }(BuiltinOperators{});
}

// The built-in operator called `name`, with its default parameters and no fields; an unknown
// name is an invalid_input error listing the known ones.
inline AnyBuiltinOperator make_builtin_operator(std::string_view name) {
  AnyBuiltinOperator chosen;
  bool found = false;
  auto consider = [&]<class Op>(Op candidate) {
    if (found || name != Op::name) return;
    chosen = candidate;
    found = true;
  };
  [&]<class... Ops>(OperatorList<Ops...>) { (consider(Ops{}), ...); }(BuiltinOperators{});
  if (!found) {
    std::string known;
    for (const std::string& known_name : builtin_operator_names())
      detail::append_name(known, known_name);
    fail(ErrorCategory::invalid_input, "unknown operator '", name, "' (", known, ")");
  }
  return chosen;
}

// The names op's parameters and fields are set by, comma-separated ("none" without any).
template <class Op>
std::string parameter_names(Op op) {
  std::string names;
  op.for_each_parameter([&](auto&, const char* name) { detail::append_name(names, name); });
  return names.empty() ? "none" : names;
}
template <class Op>
std::string field_names(const Op& op) {
  std::string names;
  op.for_each_field(
      [&](const FieldRef&, int, const char* name, bool) { detail::append_name(names, name); });
  return names.empty() ? "none" : names;
}

// Sets op's parameter `name` (a bool parameter is true for a non-zero value). A non-finite
// value, or a name op does not declare, is an invalid_input error naming the operator.
template <class Op>
void set_parameter(Op& op, std::string_view name, double value) {
  if (!std::isfinite(value))
    fail(ErrorCategory::invalid_input, "parameter ", name, " = ", value, " is not finite");
  bool found = false;
  op.for_each_parameter([&](auto& member, const char* parameter) {
    if (name != parameter) return;
    found = true;
    if constexpr (std::is_same_v<std::decay_t<decltype(member)>, bool>)
      member = value != 0.0;
    else
      member = value;
  });
  if (!found)
    fail(ErrorCategory::invalid_input, Op::name, " operator has no parameter '", name, "' (",
         parameter_names(op), ")");
}

// Points op's field `name` at `field` (FieldRef{} removes it); a name op does not declare is an
// invalid_input error naming the operator and its fields.
template <class Op>
void set_field(Op& op, std::string_view name, FieldRef field) {
  bool found = false;
  op.for_each_field([&](const FieldRef& member, int, const char* field_name, bool) {
    if (name != field_name) return;
    found = true;
    // for_each_field hands out op's own members, and op is not const.
    const_cast<FieldRef&>(member) = field;
  });
  if (!found)
    fail(ErrorCategory::invalid_input, Op::name, " operator has no field '", name, "' (",
         field_names(op), ")");
}

}  // namespace foehn::fe
