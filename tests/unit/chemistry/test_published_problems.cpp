// The four classic stiff test problems shipped as mechanisms, integrated by every Rosenbrock method
// and compared with the published reference solutions of the Test Set for IVP Solvers (Mazzia &
// Magherini, Univ. Bari; computed with RADAU5 in quadruple-like precision, rtol = atol = 1.1e-18):
// ROBER at t = 1e11, HIRES at t = 321.8122, OREGO at t = 360, POLLU at t = 60 (the solut
// routines of rober.f, hires.f, orego.f, pollu.f; the same values appear in Hairer & Wanner's
// test drivers). Checked: |y - y_ref| <= 100 (atol + rtol |y_ref|) per species (global errors
// exceed the local tolerance by a modest factor), and the significant correct digits are printed.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "foehn/chemistry/rosenbrock_solver.hpp"

namespace fc = foehn::chemistry;

namespace {

struct PublishedProblem {
  const char* file;
  double end_time;
  std::vector<double> initial;    // mechanism (file) species order
  std::vector<double> reference;  // at end_time
  std::vector<double> external;   // per-cell external rates (HIRES: its constant source)
};

const PublishedProblem problems[] = {
    {"robertson.json",
     1e11,
     {1.0, 0.0, 0.0},
     {0.2083340149701255e-7, 0.8333360770334713e-13, 0.9999999791665050},
     {}},
    {"hires.json",
     321.8122,
     {1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0057},
     {0.7371312573325668e-3, 0.1442485726316185e-3, 0.5888729740967575e-4, 0.1175651343283149e-2,
      0.2386356198831331e-2, 0.6238968252742796e-2, 0.2849998395185769e-2, 0.2850001604814231e-2},
     {0.0007}},
    {"orego.json",
     360.0,
     {1.0, 2.0, 3.0},
     {0.1000814870318523e1, 0.1228178521549917e4, 0.1320554942846706e3},
     {}},
    {"pollu.json",
     60.0,
     {0, 0.2, 0, 0.04, 0, 0, 0.1, 0.3, 0.01, 0, 0, 0, 0, 0, 0, 0, 0.007, 0, 0, 0},
     {0.5646255480022769e-01, 0.1342484130422339e+00, 0.4139734331099427e-08,
      0.5523140207484359e-02, 0.2018977262302196e-06, 0.1464541863493966e-06,
      0.7784249118997964e-01, 0.3245075353396018e+00, 0.7494013383880406e-02,
      0.1622293157301561e-07, 0.1135863833257075e-07, 0.2230505975721359e-02,
      0.2087162882798630e-03, 0.1396921016840158e-04, 0.8964884856898295e-02,
      0.4352846369330103e-17, 0.6899219696263405e-02, 0.1007803037365946e-03,
      0.1772146513969984e-05, 0.5682943292316392e-04},
     {}},
};

}  // namespace

TEST(PublishedProblems, EveryMethodMatchesTheReferenceSolutions) {
  for (const PublishedProblem& p : problems) {
    const fc::Mechanism m = fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/" + p.file);
    ASSERT_EQ(m.species.size(), p.initial.size()) << p.file;
    ASSERT_EQ(m.external_rate_names.size(), p.external.size()) << p.file;
    for (auto method : {fc::RosenbrockMethod::ros2, fc::RosenbrockMethod::ros3,
                        fc::RosenbrockMethod::rodas3, fc::RosenbrockMethod::rodas4}) {
      // Second order needs a looser tolerance to finish in reasonable time.
      const double rtol = method == fc::RosenbrockMethod::ros2 ? 1e-6 : 1e-8;
      const double atol = 1e-6 * rtol;
      fc::RosenbrockOptions options;
      options.method = method;
      options.control.relative_tolerance = rtol;
      options.control.initial_step = 1e-8;
      options.control.max_steps = 2000000;
      options.absolute_tolerance.assign(m.species.size(), atol);
      fc::CpuChemistrySolver solver(m, options);
      fc::ChemistryBatch batch = fc::make_batch(m, 1);
      batch.concentrations = p.initial;
      batch.external_rates = p.external;
      const fc::ChemistryStepReport report = solver.solve(batch, p.end_time);
      double worst_relative = 0.0;
      for (std::size_t i = 0; i < p.reference.size(); ++i) {
        const double error = std::abs(batch.concentrations[i] - p.reference[i]);
        EXPECT_LE(error, 100.0 * (atol + rtol * std::abs(p.reference[i])))
            << p.file << " " << fc::rosenbrock_method_name(method) << " species "
            << m.species[i].name << ": " << batch.concentrations[i] << " vs " << p.reference[i];
        if (std::abs(p.reference[i]) > 1e3 * atol)
          worst_relative = std::max(worst_relative, error / std::abs(p.reference[i]));
      }
      std::printf("%-15s %-6s rtol %.0e: %6lld steps, %5.2f significant correct digits\n", p.file,
                  std::string(fc::rosenbrock_method_name(method)).c_str(), rtol,
                  static_cast<long long>(report.accepted),
                  -std::log10(std::max(worst_relative, 1e-17)));
    }
  }
}
