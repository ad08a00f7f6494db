// Conserved totals of a mechanism by exact rational elimination (conservation.hpp). The
// stoichiometry of atmospheric mechanisms is small integers and short decimal yields, so 64-bit
// numerators and denominators with 128-bit intermediates suffice; an overflow gives up (no
// totals checked, and the reason says so) rather than return an inexact vector.

#include "foehn/chemistry/conservation.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <sstream>

namespace foehn::chemistry {
namespace {

__extension__ typedef __int128 Wide;  // GCC and Clang; __extension__: no -Wpedantic warning

struct Overflow {};

struct Rational {
  std::int64_t num = 0;
  std::int64_t den = 1;
};

std::int64_t narrow(Wide value) {
  if (value > INT64_MAX || value < -INT64_MAX) throw Overflow{};
  return static_cast<std::int64_t>(value);
}

Wide wide_gcd(Wide a, Wide b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    const Wide r = a % b;
    a = b;
    b = r;
  }
  return a;
}

Rational make(Wide num, Wide den) {
  if (den < 0) {
    num = -num;
    den = -den;
  }
  const Wide g = wide_gcd(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  return {narrow(num), narrow(den)};
}

Rational operator-(Rational a, Rational b) {
  return make(static_cast<Wide>(a.num) * b.den - static_cast<Wide>(b.num) * a.den,
              static_cast<Wide>(a.den) * b.den);
}
Rational operator*(Rational a, Rational b) {
  return make(static_cast<Wide>(a.num) * b.num, static_cast<Wide>(a.den) * b.den);
}
Rational operator/(Rational a, Rational b) {
  return make(static_cast<Wide>(a.num) * b.den, static_cast<Wide>(a.den) * b.num);
}

// x as p/q with q <= 1e6 (continued fractions), or nothing when no such ratio is within
// 1e-12 |x| (the yield is then not a short decimal or simple fraction).
std::optional<Rational> to_rational(double x) {
  constexpr std::int64_t max_denominator = 1000000;
  const bool negative = x < 0.0;
  const double target = std::fabs(x);
  std::int64_t p0 = 0, q0 = 1, p1 = 1, q1 = 0;
  double rest = target;
  for (int iteration = 0; iteration < 40; ++iteration) {
    const double whole = std::floor(rest);
    if (whole > 1e12) break;
    const auto a = static_cast<std::int64_t>(whole);
    const std::int64_t p2 = a * p1 + p0, q2 = a * q1 + q0;
    if (q2 > max_denominator) break;
    p0 = p1;
    q0 = q1;
    p1 = p2;
    q1 = q2;
    if (std::fabs(static_cast<double>(p1) / static_cast<double>(q1) - target) <=
        4.0 * 2.220446049250313e-16 * std::max(1.0, target))
      return make(negative ? -p1 : p1, q1);
    const double fraction = rest - whole;
    if (fraction <= 0.0) break;
    rest = 1.0 / fraction;
  }
  return std::nullopt;
}

std::string format_amount(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

}  // namespace

ConservationAnalysis find_conserved_totals(const Mechanism& mechanism) {
  ConservationAnalysis analysis;
  // State species (constant ones are held fixed and carry no weight).
  std::vector<int> column_of(mechanism.species.size(), -1);
  std::vector<int> species_of;
  for (std::size_t s = 0; s < mechanism.species.size(); ++s) {
    if (mechanism.species[s].constant) continue;
    column_of[s] = static_cast<int>(species_of.size());
    species_of.push_back(static_cast<int>(s));
  }
  const std::size_t n = species_of.size();
  const std::size_t reactions = mechanism.reactions.size();
  if (n == 0) return analysis;
  constexpr double max_entries = 4.0e6;  // the elimination's work grows with R n rank
  if (static_cast<double>(n) * static_cast<double>(reactions) > max_entries) {
    analysis.not_checked = "the mechanism is too large for the exact elimination (" +
                           std::to_string(reactions) + " reactions x " + std::to_string(n) +
                           " species)";
    return analysis;
  }
  // Rows: reactions, columns: state species; entry = net change.
  std::vector<std::vector<Rational>> rows(reactions, std::vector<Rational>(n));
  try {
    for (std::size_t r = 0; r < reactions; ++r) {
      const Reaction& reaction = mechanism.reactions[r];
      auto add = [&](const SpeciesAmount& entry, double sign) {
        const int column = column_of[static_cast<std::size_t>(entry.species)];
        if (column < 0) return true;
        const std::optional<Rational> amount = to_rational(entry.amount);
        if (!amount) return false;
        Rational& cell = rows[r][static_cast<std::size_t>(column)];
        cell = sign > 0 ? cell - Rational{-amount->num, amount->den} : cell - *amount;
        return true;
      };
      for (const SpeciesAmount& entry : reaction.reactants) add(entry, -1.0);
      for (const SpeciesAmount& entry : reaction.products) {
        if (!add(entry, 1.0)) {
          analysis.not_checked = "a yield of reaction '" + reaction.name + "' (" +
                                 format_amount(entry.amount) + ") is not a ratio of small integers";
          return analysis;
        }
      }
    }
    // Reduced row echelon form.
    std::vector<int> pivot_column;
    std::size_t rank = 0;
    for (std::size_t column = 0; column < n && rank < reactions; ++column) {
      std::size_t pivot = rank;
      while (pivot < reactions && rows[pivot][column].num == 0) ++pivot;
      if (pivot == reactions) continue;
      std::swap(rows[pivot], rows[rank]);
      const Rational lead = rows[rank][column];
      for (std::size_t j = column; j < n; ++j)
        if (rows[rank][j].num != 0) rows[rank][j] = rows[rank][j] / lead;
      for (std::size_t r = 0; r < reactions; ++r) {
        if (r == rank || rows[r][column].num == 0) continue;
        const Rational factor = rows[r][column];
        for (std::size_t j = column; j < n; ++j)
          if (rows[rank][j].num != 0) rows[r][j] = rows[r][j] - factor * rows[rank][j];
      }
      pivot_column.push_back(static_cast<int>(column));
      ++rank;
    }
    // One total per free column: w_free = 1, w_pivot(r) = -rows[r][free] (w^T S = 0 is S^T w = 0).
    std::vector<bool> is_pivot(n, false);
    for (int c : pivot_column) is_pivot[static_cast<std::size_t>(c)] = true;
    for (std::size_t free = 0; free < n; ++free) {
      if (is_pivot[free]) continue;
      std::vector<Rational> w(n);
      w[free] = {1, 1};
      for (std::size_t r = 0; r < rank; ++r)
        w[static_cast<std::size_t>(pivot_column[r])] = Rational{0, 1} - rows[r][free];
      Wide common = 1;  // least common multiple of the denominators
      for (const Rational& x : w)
        if (x.num != 0) common = common / wide_gcd(common, x.den) * x.den;
      narrow(common);
      std::vector<Wide> integer(n, 0);
      Wide divisor = 0;
      int positive = 0, negative = 0;
      for (std::size_t j = 0; j < n; ++j) {
        if (w[j].num == 0) continue;
        integer[j] = static_cast<Wide>(w[j].num) * (common / w[j].den);
        divisor = wide_gcd(divisor, integer[j]);
        (integer[j] > 0 ? positive : negative) += 1;
      }
      const double sign = negative > positive ? -1.0 : 1.0;
      ConservedTotal total;
      for (std::size_t j = 0; j < n; ++j) {
        if (integer[j] == 0) continue;
        total.species.push_back(species_of[j]);
        total.weight.push_back(sign * static_cast<double>(narrow(integer[j] / divisor)));
      }
      analysis.totals.push_back(std::move(total));
    }
  } catch (const Overflow&) {
    analysis.totals.clear();
    analysis.not_checked = "the exact elimination of the stoichiometry overflowed 64 bits";
  }
  return analysis;
}

std::string describe_conserved_total(const Mechanism& mechanism, const ConservedTotal& total) {
  std::string text;
  for (std::size_t j = 0; j < total.species.size(); ++j) {
    const double w = total.weight[j];
    if (j == 0) {
      if (w < 0) text += "-";
    } else {
      text += w < 0 ? " - " : " + ";
    }
    if (std::fabs(w) != 1.0) text += format_amount(std::fabs(w)) + " ";
    text += mechanism.species[static_cast<std::size_t>(total.species[j])].name;
  }
  return text;
}

}  // namespace foehn::chemistry
