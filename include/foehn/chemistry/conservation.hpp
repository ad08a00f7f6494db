#pragma once
// Linear combinations of concentrations that a mechanism's reactions cannot change: the vectors
// w with w^T S = 0 for the stoichiometry matrix S (net change of each non-constant species per
// reaction). Every Rosenbrock stage keeps them exactly in exact arithmetic (w^T J = 0), so a
// total that drifts beyond the tolerance shows a wrong answer (clipping, cancellation with huge
// rates, a blown-up step): the solver refuses it (rosenbrock.hpp, CellChecks).

#include <string>
#include <vector>

#include "foehn/chemistry/mechanism.hpp"

namespace foehn::chemistry {

// sum_j weight[j] y[species[j]] (mechanism species order), integer weights without a common
// factor, most of them positive.
struct ConservedTotal {
  std::vector<int> species;
  std::vector<double> weight;
};

struct ConservationAnalysis {
  std::vector<ConservedTotal> totals;  // a basis of the left null space of S
  // Empty when the totals were found; otherwise why none are checked (a yield that is not a
  // ratio of small integers, a mechanism too large for the exact elimination, an overflow).
  std::string not_checked;
};

// Exact Gaussian elimination in rational arithmetic on the stoichiometry (reactant coefficients
// are integers, yields are read as p/q with q <= 1e6). Deterministic: the same mechanism gives
// the same totals in the same order.
[[nodiscard]] ConservationAnalysis find_conserved_totals(const Mechanism& mechanism);

// "A + B + C", "2 A + B", "NO + NO2 - X".
[[nodiscard]] std::string describe_conserved_total(const Mechanism& mechanism,
                                                   const ConservedTotal& total);

}  // namespace foehn::chemistry
