// Compiled mechanism: forcing against right-hand sides written from the literature, Jacobian
// against central differences, O-atom conservation, sparse LU against dense Gaussian
// elimination, and the fill-in of the minimum-degree order.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "foehn/chemistry/compiled_mechanism.hpp"
#include "foehn/runtime/error.hpp"

namespace fc = foehn::chemistry;
using Vector = std::vector<double>;

namespace {

fc::Mechanism load(const char* name) {
  return fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/" + name);
}

// Rate constants at 298 K, 1 atm with external rates `external` (all 0.0007 when empty: HIRES).
Vector rates(const fc::CompiledMechanism& c, Vector external = {}) {
  if (external.empty()) external.assign(static_cast<std::size_t>(c.external_rate_count), 0.0007);
  Vector k(static_cast<std::size_t>(c.reaction_count()));
  fc::compute_rate_constants(c.view(), 298.15, 101325.0, external.data(), k.data());
  return k;
}

// Forcing with y and f in MECHANISM (file) order, to compare with published equations.
Vector forcing(const fc::CompiledMechanism& c, const Vector& k, const Vector& y_file) {
  const std::size_t n = y_file.size();
  Vector y(n), f(n), f_file(n);
  for (std::size_t p = 0; p < n; ++p) y[p] = y_file[static_cast<std::size_t>(c.species_order[p])];
  fc::compute_forcing(c.view(), k.data(), y.data(), f.data());
  for (std::size_t p = 0; p < n; ++p) f_file[static_cast<std::size_t>(c.species_order[p])] = f[p];
  return f_file;
}

// Relative per entry, with floor_fraction * max|expected| as the floor for entries that cancel
// to ~0 (floor_fraction 1: a norm-wise comparison).
void expect_close(const Vector& actual, const Vector& expected, double tolerance, const char* what,
                  double floor_fraction = 1e-3) {
  ASSERT_EQ(actual.size(), expected.size());
  double scale = 0.0;
  for (double e : expected) scale = std::max(scale, std::abs(e));
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_LE(std::abs(actual[i] - expected[i]),
              tolerance * std::max(std::abs(expected[i]), floor_fraction * scale))
        << what << " entry " << i << ": " << actual[i] << " vs " << expected[i];
  }
}

Vector random_state(std::size_t n, unsigned seed, double low = 0.1, double high = 1.0) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> draw(low, high);
  Vector y(n);
  for (double& v : y) v = draw(random);
  return y;
}

// Dense Jacobian (compiled order) from the sparse slots.
std::vector<Vector> dense_jacobian(const fc::CompiledMechanism& c, const Vector& k,
                                   const Vector& y) {
  const fc::CompiledMechanismView v = c.view();
  Vector values(static_cast<std::size_t>(v.nonzero_count));
  fc::compute_jacobian(v, k.data(), y.data(), values.data());
  std::vector<Vector> dense(y.size(), Vector(y.size(), 0.0));
  for (int i = 0; i < v.species_count; ++i) {
    for (int s = v.row_start[i]; s < v.row_start[i + 1]; ++s)
      dense[static_cast<std::size_t>(i)][static_cast<std::size_t>(v.column[s])] =
          values[static_cast<std::size_t>(s)];
  }
  return dense;
}

void expect_jacobian_matches_differences(const fc::Mechanism& m, Vector external, double low,
                                         double high) {
  const fc::CompiledMechanism c = fc::compile(m);
  const Vector k = rates(c, external);
  const std::size_t n = m.species.size();
  const Vector y = random_state(n, 11, low, high);  // compiled order
  const std::vector<Vector> jacobian = dense_jacobian(c, k, y);
  // Sum of |terms| of each f_i (same lists with |change|): the round-off of f_i is ~eps times it.
  fc::CompiledMechanism absolute = c;
  for (double& amount : absolute.change_amount) amount = std::abs(amount);
  Vector magnitude(n);
  fc::compute_forcing(absolute.view(), k.data(), y.data(), magnitude.data());
  for (std::size_t j = 0; j < n; ++j) {
    const double h = 1e-6 * y[j];
    Vector plus = y, minus = y, f_plus(n), f_minus(n);
    plus[j] += h;
    minus[j] -= h;
    fc::compute_forcing(c.view(), k.data(), plus.data(), f_plus.data());
    fc::compute_forcing(c.view(), k.data(), minus.data(), f_minus.data());
    for (std::size_t i = 0; i < n; ++i) {
      const double difference = (f_plus[i] - f_minus[i]) / (2.0 * h);
      // Mass action is at most quadratic in one species, so the central difference has no
      // truncation error: 1e-6 relative plus a bound on the quotient's round-off.
      const double round_off = 1e3 * 2.2e-16 * magnitude[i] / h;
      EXPECT_LE(std::abs(jacobian[i][j] - difference), 1e-6 * std::abs(difference) + round_off)
          << m.name << " J(" << i << "," << j << ")";
    }
  }
}

// Gaussian elimination with partial pivoting on a dense copy: the independent reference.
Vector dense_solve(std::vector<Vector> a, Vector b) {
  const std::size_t n = b.size();
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::abs(a[r][col]) > std::abs(a[pivot][col])) pivot = r;
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (std::size_t r = col + 1; r < n; ++r) {
      const double factor = a[r][col] / a[col][col];
      for (std::size_t c = col; c < n; ++c) a[r][c] -= factor * a[col][c];
      b[r] -= factor * b[col];
    }
  }
  Vector x(n);
  for (std::size_t i = n; i-- > 0;) {
    double sum = b[i];
    for (std::size_t c = i + 1; c < n; ++c) sum -= a[i][c] * x[c];
    x[i] = sum / a[i][i];
  }
  return x;
}

}  // namespace

TEST(CompiledMechanism, RobertsonForcingMatchesPublishedRhs) {
  const fc::CompiledMechanism c = fc::compile(load("robertson.json"));
  const Vector k = rates(c);
  for (const Vector& y : {Vector{1.0, 2e-5, 0.3}, Vector{0.7, 3.6e-5, 0.29}}) {
    const Vector expected = {-0.04 * y[0] + 1e4 * y[1] * y[2],
                             0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1],
                             3e7 * y[1] * y[1]};
    expect_close(forcing(c, k, y), expected, 1e-14, "robertson");
  }
}

TEST(CompiledMechanism, PolluForcingMatchesPublishedRhs) {
  const fc::CompiledMechanism c = fc::compile(load("pollu.json"));
  const Vector k = rates(c);
  const Vector yv = random_state(20, 3);
  const double* y = yv.data() - 1;  // 1-based as in the IVP test set
  const double r1 = .35 * y[1], r2 = .266e2 * y[2] * y[4], r3 = .123e5 * y[5] * y[2],
               r4 = .86e-3 * y[7], r5 = .82e-3 * y[7], r6 = .15e5 * y[7] * y[6], r7 = .13e-3 * y[9],
               r8 = .24e5 * y[9] * y[6], r9 = .165e5 * y[11] * y[2], r10 = .9e4 * y[11] * y[1],
               r11 = .22e-1 * y[13], r12 = .12e5 * y[10] * y[2], r13 = .188e1 * y[14],
               r14 = .163e5 * y[1] * y[6], r15 = .48e7 * y[3], r16 = .35e-3 * y[4],
               r17 = .175e-1 * y[4], r18 = .1e9 * y[16], r19 = .444e12 * y[16],
               r20 = .124e4 * y[17] * y[6], r21 = .21e1 * y[19], r22 = .578e1 * y[19],
               r23 = .474e-1 * y[1] * y[4], r24 = .178e4 * y[19] * y[1], r25 = .312e1 * y[20];
  const Vector expected = {-r1 - r10 - r14 - r23 - r24 + r2 + r3 + r9 + r11 + r12 + r22 + r25,
                           -r2 - r3 - r9 - r12 + r1 + r21,
                           -r15 + r1 + r17 + r19 + r22,
                           -r2 - r16 - r17 - r23 + r15,
                           -r3 + r4 + r4 + r6 + r7 + r13 + r20,
                           -r6 - r8 - r14 - r20 + r3 + r18 + r18,
                           -r4 - r5 - r6 + r13,
                           r4 + r5 + r6 + r7,
                           -r7 - r8,
                           -r12 + r7 + r9,
                           -r9 - r10 + r8 + r11,
                           r9,
                           -r11 + r10,
                           -r13 + r12,
                           r14,
                           -r18 - r19 + r16,
                           -r20,
                           r20,
                           -r21 - r22 - r24 + r23 + r25,
                           -r25 + r24};
  expect_close(forcing(c, k, yv), expected, 1e-14, "pollu");
}

TEST(CompiledMechanism, HiresAndOregoForcingMatchPublishedRhs) {
  const Vector yv = random_state(8, 5);
  const double* y = yv.data() - 1;
  const double f7 = 280.0 * y[6] * y[8] - 1.81 * y[7];
  const Vector hires = {
      -1.71 * y[1] + 0.43 * y[2] + 8.32 * y[3] + 0.0007,
      1.71 * y[1] - 8.75 * y[2],
      -10.03 * y[3] + 0.43 * y[4] + 0.035 * y[5],
      8.32 * y[2] + 1.71 * y[3] - 1.12 * y[4],
      -1.745 * y[5] + 0.43 * y[6] + 0.43 * y[7],
      -280.0 * y[6] * y[8] + 0.69 * y[4] + 1.71 * y[5] - 0.43 * y[6] + 0.69 * y[7],
      f7,
      -f7};
  const fc::CompiledMechanism hc = fc::compile(load("hires.json"));
  expect_close(forcing(hc, rates(hc), yv), hires, 1e-14, "hires");
  const Vector o = {30.0, 1.5, 400.0};
  const double s = 77.27, w = 0.161, q = 8.375e-6;
  const Vector orego = {s * (o[1] + o[0] * (1.0 - q * o[0] - o[1])),
                        (o[2] - (1.0 + o[0]) * o[1]) / s, w * (o[0] - o[2])};
  const fc::CompiledMechanism oc = fc::compile(load("orego.json"));
  expect_close(forcing(oc, rates(oc), o), orego, 1e-13, "orego");
}

TEST(CompiledMechanism, JacobianMatchesCentralDifferences) {
  expect_jacobian_matches_differences(load("pollu.json"), {}, 0.1, 1.0);
  expect_jacobian_matches_differences(load("hires.json"), {}, 0.1, 1.0);
  expect_jacobian_matches_differences(load("nox_stratosphere.json"),
                                      {1e-2, 1e-3, 1e-4, 1e-5, 1e-4, 1e5}, 1e6, 1e9);
  for (std::uint64_t seed : {1u, 7u, 13u, 21u, 42u}) {
    const fc::Mechanism synthetic = fc::make_synthetic_mechanism(80, 190, seed);
    expect_jacobian_matches_differences(
        synthetic, Vector(synthetic.external_rate_names.size(), 1e-3), 1e6, 1e9);
  }
}

TEST(CompiledMechanism, ChapmanConservesOxygenAtoms) {
  const fc::Mechanism m = load("chapman.json");
  const fc::CompiledMechanism c = fc::compile(m);
  const Vector k = rates(c, {1e-11, 5e-3, 4e-4});          // jO2, jO3 -> O1D, jO3 -> O
  const Vector y_file = {2.5e19, 5.2e18, 1e8, 1e2, 8e12};  // M O2 O O1D O3 [molecule cm^-3]
  const Vector f = forcing(c, k, y_file);
  EXPECT_EQ(f[0], 0.0);  // M is constant
  const double atoms = f[2] + f[3] + 2.0 * f[1] + 3.0 * f[4];
  const double scale =
      std::abs(f[2]) + std::abs(f[3]) + 2.0 * std::abs(f[1]) + 3.0 * std::abs(f[4]);
  EXPECT_LE(std::abs(atoms), 1e-14 * scale) << atoms << " of " << scale;
}

TEST(CompiledMechanism, SparseLuMatchesDenseGaussianElimination) {
  std::mt19937 random(17);
  std::uniform_real_distribution<double> log_gamma_h(-8.0, 1.0);
  struct Case {
    fc::Mechanism m;
    Vector external;
    double low, high;
  };
  const fc::Mechanism synthetic = fc::make_synthetic_mechanism(80, 190, 3);
  for (const Case& test :
       {Case{load("pollu.json"), {}, 0.01, 1.0}, Case{load("hires.json"), {}, 0.1, 1.0},
        Case{synthetic, Vector(synthetic.external_rate_names.size(), 1e-3), 1e6, 1e9}}) {
    for (fc::SpeciesOrdering ordering :
         {fc::SpeciesOrdering::natural, fc::SpeciesOrdering::minimum_degree,
          fc::SpeciesOrdering::markowitz}) {
      const fc::CompiledMechanism c = fc::compile(test.m, ordering);
      const fc::CompiledMechanismView v = c.view();
      const Vector k = rates(c, test.external);
      const std::size_t n = test.m.species.size();
      const Vector y = random_state(n, 23, test.low, test.high);
      for (int trial = 0; trial < 5; ++trial) {
        const double gamma_h = std::pow(10.0, log_gamma_h(random));
        Vector jacobian(static_cast<std::size_t>(v.nonzero_count)), lu(jacobian.size());
        fc::compute_jacobian(v, k.data(), y.data(), jacobian.data());
        fc::form_iteration_matrix(v, jacobian.data(), 1.0 / gamma_h, lu.data());
        std::vector<Vector> dense(n, Vector(n, 0.0));
        for (int i = 0; i < v.species_count; ++i) {
          for (int s = v.row_start[i]; s < v.row_start[i + 1]; ++s)
            dense[static_cast<std::size_t>(i)][static_cast<std::size_t>(v.column[s])] =
                lu[static_cast<std::size_t>(s)];
        }
        const Vector b = random_state(n, 31 + static_cast<unsigned>(trial), -1.0, 1.0);
        const Vector expected = dense_solve(dense, b);
        Vector x = b;
        fc::factor_in_place(v, lu.data());
        fc::solve(v, lu.data(), x.data());
        // Norm-wise: both solutions carry errors of order cond * eps in their small entries.
        expect_close(x, expected, 1e-12, test.m.name.c_str(), 1.0);
      }
    }
  }
}

TEST(CompiledMechanism, FillReducingOrdersDoNotAddFillIn) {
  const auto report = [](const std::string& what, const fc::Mechanism& m) {
    const fc::CompiledMechanism natural = fc::compile(m, fc::SpeciesOrdering::natural);
    const fc::CompiledMechanism degree = fc::compile(m, fc::SpeciesOrdering::minimum_degree);
    const fc::CompiledMechanism markowitz = fc::compile(m, fc::SpeciesOrdering::markowitz);
    EXPECT_EQ(natural.jacobian_nonzeros, degree.jacobian_nonzeros);
    EXPECT_EQ(natural.jacobian_nonzeros, markowitz.jacobian_nonzeros);
    std::printf(
        "%s: %d species, J nonzeros (with diagonal) %lld, fill-in natural %lld, minimum degree "
        "%lld, "
        "Markowitz %lld\n",
        what.c_str(), natural.species_count(), static_cast<long long>(natural.jacobian_nonzeros),
        static_cast<long long>(natural.fill_in), static_cast<long long>(degree.fill_in),
        static_cast<long long>(markowitz.fill_in));
    return std::array<std::int64_t, 3>{natural.fill_in, degree.fill_in, markowitz.fill_in};
  };
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto fill = report("synthetic seed " + std::to_string(seed),
                             fc::make_synthetic_mechanism(80, 190, seed));
    EXPECT_LE(fill[1], fill[0]);
    EXPECT_LE(fill[2], fill[0]);
  }
  for (const char* file : {"pollu.json", "hires.json", "nox_stratosphere.json", "chapman.json"}) {
    const auto fill = report(file, load(file));
    EXPECT_LE(fill[2], fill[0]) << file;
  }
}

namespace foehn::chemistry {
namespace {

// A mechanism built in code (no reader, so none of its checks): "reactant_amount A ->
// product_yield B".
Mechanism a_to_b(double reactant_amount, double product_yield) {
  Mechanism m;
  m.species.resize(2);
  m.species[0].name = "A";
  m.species[1].name = "B";
  Reaction r;
  r.reactants = {SpeciesAmount{0, reactant_amount}};
  r.products = {SpeciesAmount{1, product_yield}};
  m.reactions = {r};
  return m;
}

// A mechanism built in code (no reader) with a runaway reactant coefficient: refused before it
// sizes the compiled system, naming the reaction and the limit (not a 10 GB allocation, not a
// silent cast of a coefficient >= 2^31).
TEST(CompiledMechanism, HugeReactantCoefficientsAreRefusedBeforeAnyAllocation) {
  for (const double coefficient : {1e9, 4294967297.0, 17.0, 2.5, 0.0}) {
    try {
      (void)compile(a_to_b(coefficient, 1.0));
      FAIL() << "coefficient " << coefficient << " was compiled";
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
      EXPECT_NE(std::string(error.what()).find("not an integer from 1 to 16"), std::string::npos)
          << error.what();
    }
  }
}

// A yield of 1e308 (or NaN) passed every reader and made the first step non-finite.
TEST(CompiledMechanism, HugeOrNonFiniteYieldsAreRefused) {
  for (const double yield : {1e308, 1001.0, -1e300, std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity()}) {
    try {
      (void)compile(a_to_b(1.0, yield));
      FAIL() << "yield " << yield << " was compiled";
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
      EXPECT_NE(std::string(error.what()).find("product yield"), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("of B is not a finite number of magnitude at most"),
                std::string::npos)
          << error.what();
    }
  }
  EXPECT_NO_THROW((void)compile(a_to_b(1.0, max_product_yield)));
}

// Choosing each pivot by scanning every species made both orderings quadratic: a chain of
// 300,000 species took minutes (100,000 took 17 s), now well under a second. Bounded here as a
// hang, not timed.
TEST(CompiledMechanism, LongChainsCompileInNearLinearTime) {
  constexpr int n = 300000;
  Mechanism m;
  m.species.resize(n);
  for (int i = 0; i < n; ++i)
    m.species[static_cast<std::size_t>(i)].name = std::string("S").append(std::to_string(i));
  for (int i = 0; i + 1 < n; ++i) {
    Reaction r;
    r.parameters[0] = 1.0;
    r.reactants = {SpeciesAmount{i, 1.0}};
    r.products = {SpeciesAmount{i + 1, 1.0}};
    m.reactions.push_back(r);
  }
  for (const SpeciesOrdering ordering :
       {SpeciesOrdering::markowitz, SpeciesOrdering::minimum_degree}) {
    const auto started = std::chrono::steady_clock::now();
    const CompiledMechanism c = compile(m, ordering);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
              60.0);
    EXPECT_EQ(c.species_count(), n);
    // A cascade is triangular: no fill, one nonzero per species and one per reaction.
    EXPECT_EQ(c.column.size(), static_cast<std::size_t>(2 * n - 1));
  }
}

}  // namespace
}  // namespace foehn::chemistry
