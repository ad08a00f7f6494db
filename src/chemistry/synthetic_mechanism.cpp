// CB05-sized random mechanisms for benchmarks. Structure mirrors real tropospheric mechanisms:
// mostly bimolecular A + B -> products, a few photolysis reactions, 1-3 products with yields,
// downhill oxidation cascades, a "hub" bias (a few radicals such as OH/HO2/NO take part in many reactions) that gives the
// Jacobian its realistic dense rows/columns.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {
namespace {

// snprintf instead of "S" + std::to_string(i): GCC 12 raises a false -Wrestrict on the latter.
std::string numbered_name(char prefix, int number) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%c%d", prefix, number);
  return buffer;
}

}  // namespace

Mechanism make_synthetic_mechanism(int species, int reactions, std::uint64_t seed) {
  if (species < 4 || reactions < 1) {
    fail(ErrorCategory::invalid_input, "make_synthetic_mechanism: need at least 4 species and 1 reaction (got ",
         species, ", ", reactions, ")");
  }
  Mechanism m;
  m.name = "synthetic";
  for (int i = 0; i < species; ++i) {
    Species s;
    s.name = numbered_name('S', i);
    m.species.push_back(std::move(s));
  }
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int hubs = std::max(2, species / 10);  // CB05: OH HO2 NO NO2 NO3 O3 XO2 C2O3
  // A second reactant is a hub radical with probability 0.85, otherwise any species.
  auto pick_reactant = [&]() {
    if (unit(random) < 0.85) return static_cast<int>(random() % static_cast<std::uint64_t>(hubs));
    return static_cast<int>(random() % static_cast<std::uint64_t>(species));
  };
  auto pick_any = [&]() { return static_cast<int>(random() % static_cast<std::uint64_t>(species)); };
  // Oxidation cascades run downhill (a VOC breaks into smaller products, rarely back), so a
  // product is a hub radical (30%) or a species after the first reactant: real mechanisms are
  // nearly triangular plus hub rows/columns, which keeps LU fill-in small (CAM trop_mozart:
  // 737 Jacobian nonzeros, 87 fill-ins for 95 species). Fully random products would couple
  // everything into cycles and overstate fill-in several-fold.
  auto pick_product = [&](int first) {
    if (unit(random) < 0.3 || first + 1 >= species) return static_cast<int>(random() % static_cast<std::uint64_t>(hubs));
    return first + 1 + static_cast<int>(random() % static_cast<std::uint64_t>(species - first - 1));
  };
  for (int r = 0; r < reactions; ++r) {
    Reaction reaction;
    // The first `species` reactions cover every species once as a reactant, so none is inert.
    const int first = r < species ? r : pick_any();
    reaction.reactants.push_back({first, 1.0});
    if (unit(random) < 0.06) {
      reaction.type = ReactionType::photolysis;
      reaction.name = numbered_name('j', r);
      reaction.external_rate = static_cast<int>(m.external_rate_names.size());
      m.external_rate_names.push_back(reaction.name);
    } else {
      reaction.type = ReactionType::arrhenius;
      // Log-uniform A in [1e-14, 1e-10] cm^3/s, C in [-2000, 500] K: tropospheric range.
      reaction.parameters = {std::pow(10.0, -14.0 + 4.0 * unit(random)), 0.0, -2000.0 + 2500.0 * unit(random),
                             300.0, 0.0, 0.0, 0.0, 0.0};
      if (unit(random) < 0.9) {
        int second = pick_reactant();
        if (second == first) second = (first + 1) % species;
        reaction.reactants.push_back({second, 1.0});
      }
    }
    const int product_count = 1 + static_cast<int>(random() % 3);
    for (int p = 0; p < product_count; ++p) {
      const int product = pick_product(first);
      bool duplicate = false;
      for (const SpeciesAmount& a : reaction.products) duplicate = duplicate || a.species == product;
      if (!duplicate) reaction.products.push_back({product, p == 0 ? 1.0 : 0.1 + 0.9 * unit(random)});
    }
    m.reactions.push_back(std::move(reaction));
  }
  return m;
}

}  // namespace foehn::chemistry
