#pragma once
// The one list of built-in operators: every backend is instantiated for it, and the typed
// tests run over it. Adding a built-in operator means writing it in operators.hpp, adding it
// here, and testing it; no backend changes (backends work from what an operator declares, see
// operator_interface.hpp). Operators of a user's own code are made assemblable with
// FOEHN_DEFINE_OPERATOR (foehn/fe/define_operator.hpp) instead.

#include "foehn/fe/operators.hpp"

// Applies MACRO(Op) to every built-in operator, fully qualified (explicit instantiations at
// namespace scope).
#define FOEHN_FOR_EACH_BUILTIN_OPERATOR(MACRO)   \
  MACRO(::foehn::fe::MassOperator)               \
  MACRO(::foehn::fe::AdvectionOperator)          \
  MACRO(::foehn::fe::DiffusionOperator)          \
  MACRO(::foehn::fe::AdvectionDiffusionOperator) \
  MACRO(::foehn::fe::StabilisationOperator)      \
  MACRO(::foehn::fe::DivergenceOperator)         \
  MACRO(::foehn::fe::MomentumOperator)

namespace foehn::fe {

template <class... Ops>
struct OperatorList {
  static constexpr int size = sizeof...(Ops);
};

namespace detail {
template <class List>
struct DropLeadingVoid;
template <class... Ops>
struct DropLeadingVoid<OperatorList<void, Ops...>> {
  using type = OperatorList<Ops...>;
};
}  // namespace detail

#define FOEHN_DETAIL_OPERATOR_TYPE(Op) , Op
// The same list as a type, e.g. for typed tests: OperatorList<MassOperator, ...>.
using BuiltinOperators = typename detail::DropLeadingVoid<
    OperatorList<void FOEHN_FOR_EACH_BUILTIN_OPERATOR(FOEHN_DETAIL_OPERATOR_TYPE)>>::type;
#undef FOEHN_DETAIL_OPERATOR_TYPE

}  // namespace foehn::fe
