// CB05-sized random mechanisms for benchmarks, calibrated against the sparsity of real
// tropospheric mechanisms (CAM trop_mozart: 95 implicit species, 737 Jacobian nonzeros = 8.2%,
// 87 LU fill-ins with a good ordering; CB05: 79 species, 186 reactions, 25 photolysis).
//
// The model and why each rule is there:
//
// 1. Roles. The first H = clamp(species / 5, 2, 8) species are the hubs of real chemistry, in this
//    order: OH, HO2, NO, NO2, O3, NO3, XO2 (lumped organic peroxy, CB05's operator), C2O3 (acyl
//    peroxy). Then, when there is room, the inorganic/peroxide sinks HNO3, H2O2, ROOH, PAN. The
//    rest are organics "C<k>" (closed shell) and "R<k>" (organic radicals, ~15%), ordered by k
//    from primary VOCs (k = 0) to small end products (CO/HCHO-like, k = m-1).
//    Hubs give the Jacobian its few dense rows/columns; everything else is sparse.
// 2. Fixed inorganic core (~29 reactions, only those whose species exist): the NO-NO2-O3
//    photostationary cycle, HOx cycling (HO2 + NO -> OH + NO2, OH + O3), NO3 chemistry,
//    termination to sinks (OH + NO2 -> HNO3 (Troe), HO2 + HO2 -> H2O2, XO2 + HO2 -> ROOH,
//    C2O3 + NO2 <-> PAN (Troe + first-order thermal decomposition)), and sink photolysis back to
//    radicals (H2O2, HNO3, ROOH, O3 -> 2 OH). This is what makes real mechanisms stiff: OH, NO3,
//    organic radicals live for ms-s, HO2/XO2 for s-min, sinks and reservoirs for hours-days.
// 3. Every organic is the first reactant of one "covering" reaction (no inert species), then
//    the remaining reactions are extra channels of random organics (a channel = co-reactant or
//    photolysis or decomposition; never the same channel twice for one organic). Closed-shell
//    organics react with OH (most), O3, NO3, photolyse, or (rarely) decompose thermally like
//    PAN analogues; organic radicals decompose fast (first-order Arrhenius, 10..1e4 s^-1 at
//    298 K: ms lifetimes, like alkoxy radicals) or react with NO or HO2.
// 4. Downhill cascades. Each organic has ONE fixed set of 1-2 organic products downstream of it
//    (index > k; often one of the common end products), shared by all its channels, as in
//    CB05 where OLE + OH/O3/NO3 all give FORM + ALD2. Radical products are hubs (XO2, HO2,
//    OH, NO2, C2O3). So the pattern is triangular plus hub rows/columns, and extra channels add
//    only a few Jacobian entries: this is what keeps 80/190 at ~690 nonzeros (~11%) and the
//    Markowitz fill-in at 5-11% of them (seeds 1..10; trop_mozart: 8.2% and 12%). The previous
//    generator (random downstream products per reaction, any species as second reactant) gave
//    ~870 nonzeros and 475-703 fill-ins: random products couple everything into cycles.
// 5. Bounded mass. Every species has a weight w ("heavy atoms": OH 1, HO2 3, NO 1, NO2 3, O3 2,
//    NO3 5, XO2 2, C2O3 4, HNO3 4, H2O2 2, ROOH 4, PAN 7, organics 2..16 decreasing downstream)
//    and every reaction has sum(yield * w(products)) <= sum(w(reactants)) (the core conserves
//    it exactly; organic reactions have their yields scaled down when they would exceed it).
//    Hence sum_i w_i y_i never grows: no unbounded autocatalysis, every concentration stays
//    below sum(w y(0)) / min w, while photolysis of a heavy species into two light radicals
//    (H2O2 -> 2 OH, carbonyl -> 2 HO2) is still allowed: that is the realistic radical source.
//    Yields also sum to at most (number of reactants + 2): the radical-production term.
//    The synthetic mechanism has no emissions (CB05 in CAMP has none either).
// 6. Rate constants in tropospheric ranges (cm^3 molecule^-1 s^-1): organic + OH 1e-12..5e-11,
//    + O3 ~1e-18..1e-15, + NO3 ~1e-16..1e-12, radical + NO ~1e-11, radical + HO2 ~1e-11;
//    photolysis rates are set per cell by make_synthetic_batch.
// 7. Absolute tolerance 1e-3 molecule cm^-3 for every species (CAMP's CB05 uses 1e-3 or 1).
// Random numbers come from std::mt19937_64 (sequence fixed by the standard) turned into doubles
// by hand (not std::uniform_real_distribution, whose algorithm is library-specific), so a seed
// gives the same structure with every standard library (parameters up to the last bits of
// std::pow/std::exp).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {
namespace {

// snprintf instead of "S" + std::to_string(i): GCC 12 raises a false -Wrestrict on the latter.
std::string numbered_name(const char* prefix, int number) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%s%d", prefix, number);
  return buffer;
}

struct HubRole {
  const char* name;
  double weight;
};
constexpr std::array<HubRole, 8> hub_roles = {{{"OH", 1}, {"HO2", 3}, {"NO", 1}, {"NO2", 3}, {"O3", 2},
                                               {"NO3", 5}, {"XO2", 2}, {"C2O3", 4}}};
enum Hub { OH = 0, HO2, NO, NO2, O3, NO3, XO2, C2O3 };

enum class Channel { oh, o3, no3, photolysis, decomposition, no, ho2 };

class Builder {
 public:
  Builder(int species, std::uint64_t seed) : random_(seed) {
    hubs_ = std::clamp(species / 5, 2, 8);
    m_.name = "synthetic";
    for (int h = 0; h < hubs_; ++h) add_species(hub_roles[static_cast<std::size_t>(h)].name, hub_roles[static_cast<std::size_t>(h)].weight);
    // Sinks only where their chemistry exists and at least 2 organics remain.
    auto sink = [&](int& index, const char* name, double weight, bool present) {
      if (present && species - static_cast<int>(m_.species.size()) > 2) index = add_species(name, weight);
    };
    sink(hno3_, "HNO3", 4, has(OH) && has(NO2));
    sink(h2o2_, "H2O2", 2, has(HO2));
    sink(rooh_, "ROOH", 4, has(XO2) && has(HO2));
    sink(pan_, "PAN", 7, has(C2O3) && has(NO2));
    first_organic_ = static_cast<int>(m_.species.size());
    organics_ = species - first_organic_;
    for (int k = 0; k < organics_; ++k) {
      // Radicals ~15%, never the primary VOCs (the first tenth).
      const bool radical = k >= std::max(1, organics_ / 10) && unit() < 0.15;
      const double weight = organics_ > 1 ? 2.0 + 14.0 * (organics_ - 1 - k) / (organics_ - 1) : 2.0;
      radical_.push_back(radical);
      add_species(numbered_name(radical ? "R" : "C", k), weight);
    }
    products_.resize(static_cast<std::size_t>(organics_));
    used_.resize(static_cast<std::size_t>(organics_));
  }

  Mechanism build(int reactions) {
    core();
    for (int k = 0; k < organics_; ++k) {
      bool added;
      if (radical_[static_cast<std::size_t>(k)]) {
        added = organic(k, unit() < 0.6 ? Channel::decomposition : Channel::no);
      } else {
        const double u = unit();
        added = organic(k, u < 0.70   ? Channel::oh
                           : u < 0.81 ? Channel::o3
                           : u < 0.91 ? Channel::no3
                           : u < 0.96 ? Channel::photolysis
                                      : Channel::decomposition);
      }
      // Small mechanisms may lack the co-reactant: OH always exists.
      if (!added) organic(k, Channel::oh);
    }
    // Extra channels of random organics until the count is reached (bounded number of tries:
    // small mechanisms may run out of distinct channels).
    for (int tries = 0; static_cast<int>(candidates_.size()) < reactions && tries < 100 * reactions; ++tries) {
      const int k = static_cast<int>(random_() % static_cast<std::uint64_t>(organics_));
      const double u = unit();
      Channel channel;
      if (radical_[static_cast<std::size_t>(k)]) {
        channel = u < 0.5 ? Channel::no : u < 0.85 ? Channel::ho2 : Channel::decomposition;
      } else {
        channel = u < 0.40 ? Channel::oh : u < 0.67 ? Channel::o3 : u < 0.93 ? Channel::no3
                  : u < 0.97 ? Channel::photolysis : Channel::decomposition;
      }
      organic(k, channel);
    }
    const auto count = std::min(static_cast<std::size_t>(reactions), candidates_.size());
    for (std::size_t r = 0; r < count; ++r) {
      Reaction& reaction = candidates_[r];
      if (reaction.type == ReactionType::photolysis) {
        reaction.external_rate = static_cast<int>(m_.external_rate_names.size());
        m_.external_rate_names.push_back(reaction.name);
      }
      m_.reactions.push_back(std::move(reaction));
    }
    return std::move(m_);
  }

 private:
  double unit() { return static_cast<double>(random_() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * unit(); }
  double log_uniform(double low, double high) { return low * std::pow(high / low, unit()); }
  bool has(int hub) const { return hub < hubs_; }
  int organic_index(int k) const { return first_organic_ + k; }

  int add_species(std::string name, double weight) {
    Species s;
    s.name = std::move(name);
    s.absolute_tolerance = 1.0e-3;
    m_.species.push_back(std::move(s));
    weight_.push_back(weight);
    return static_cast<int>(m_.species.size()) - 1;
  }

  // Adds a reaction when all its species exist (-1 = absent); products with yield <= 0 or absent
  // species are dropped; yields are scaled so that the weighted mass does not grow (rule 5).
  void add(ReactionType type, std::array<double, max_rate_parameters> parameters, std::vector<int> reactants,
           std::vector<SpeciesAmount> products) {
    Reaction r;
    r.type = type;
    r.parameters = parameters;
    double mass_in = 0.0;
    for (int s : reactants) {
      if (s < 0) return;
      bool merged = false;
      for (SpeciesAmount& a : r.reactants) {
        if (a.species == s) { a.amount += 1.0; merged = true; }
      }
      if (!merged) r.reactants.push_back({s, 1.0});
      mass_in += weight_[static_cast<std::size_t>(s)];
    }
    double mass_out = 0.0;
    for (const SpeciesAmount& p : products) {
      if (p.species < 0 || p.amount <= 0.0) continue;
      bool merged = false;
      for (SpeciesAmount& a : r.products) {
        if (a.species == p.species) { a.amount += p.amount; merged = true; }
      }
      if (!merged) r.products.push_back(p);
      mass_out += p.amount * weight_[static_cast<std::size_t>(p.species)];
    }
    if (mass_out > mass_in) {
      for (SpeciesAmount& a : r.products) a.amount *= mass_in / mass_out * (1.0 - 1e-12);
    }
    // And at most 2 more product molecules than reactant molecules (HCHO -> 2 HO2 + CO).
    double yields = 0.0;
    for (const SpeciesAmount& a : r.products) yields += a.amount;
    const double most = static_cast<double>(reactants.size()) + 2.0;
    if (yields > most) {
      for (SpeciesAmount& a : r.products) a.amount *= most / yields * (1.0 - 1e-12);
    }
    if (type == ReactionType::photolysis) r.name = numbered_name("j", static_cast<int>(candidates_.size()));
    candidates_.push_back(std::move(r));
  }

  int hub(int h) const { return has(h) ? h : -1; }
  static std::array<double, max_rate_parameters> arrhenius(double a, double c) { return {a, 0.0, c, 300.0, 0.0, 0.0, 0.0, 0.0}; }
  static std::array<double, max_rate_parameters> none() { return {}; }

  void core() {
    using T = ReactionType;
    const int oh = hub(OH), ho2 = hub(HO2), no = hub(NO), no2 = hub(NO2), o3 = hub(O3), no3 = hub(NO3), xo2 = hub(XO2),
              c2o3 = hub(C2O3);
    add(T::photolysis, none(), {no2}, {{no, 1}, {o3, 1}});
    add(T::arrhenius, arrhenius(3.0e-12, -1500), {no, o3}, {{no2, 1}});
    add(T::arrhenius, arrhenius(3.5e-12, 250), {ho2, no}, {{oh, 1}, {no2, 1}});
    add(T::arrhenius, arrhenius(1.7e-12, -940), {oh, o3}, {{ho2, 1}});
    add(T::arrhenius, arrhenius(1.0e-14, -490), {ho2, o3}, {{oh, 1}});
    add(T::troe, {2.0e-30, -3.0, 0.0, 2.5e-11, 0.0, 0.0, 0.6, 1.0}, {oh, no2}, {{hno3_, 1}});
    add(T::arrhenius, arrhenius(3.0e-13, 460), {ho2, ho2}, {{h2o2_, 1}});
    add(T::photolysis, none(), {h2o2_}, {{oh, 2}});
    add(T::photolysis, none(), {o3}, {{oh, 2}});  // O3 -> O(1D), O(1D) + H2O -> 2 OH (H2O a bath)
    add(T::arrhenius, arrhenius(1.4e-13, -2470), {no2, o3}, {{no3, 1}});
    add(T::photolysis, none(), {no3}, {{no2, 1}, {o3, 1}});
    add(T::arrhenius, arrhenius(1.8e-11, 110), {no3, no}, {{no2, 2}});
    add(T::arrhenius, arrhenius(2.9e-12, -160), {oh, h2o2_}, {{ho2, 1}});
    add(T::arrhenius, arrhenius(4.8e-11, 250), {oh, ho2}, {});
    add(T::cmaq_oh_hno3, {2.4e-14, 460, 2.7e-17, 2199, 6.5e-34, 1335, 0, 0}, {oh, hno3_}, {{no3, 1}});
    add(T::photolysis, none(), {hno3_}, {{oh, 1}, {no2, 1}});
    add(T::arrhenius, arrhenius(4.0e-12, 0), {ho2, no3}, {{oh, 1}, {no2, 1}});
    add(T::arrhenius, arrhenius(2.2e-11, 0), {oh, no3}, {{ho2, 1}, {no2, 1}});
    add(T::arrhenius, arrhenius(2.6e-12, 365), {xo2, no}, {{no2, 1}});
    add(T::arrhenius, arrhenius(7.5e-13, 700), {xo2, ho2}, {{rooh_, 1}});
    add(T::arrhenius, arrhenius(6.8e-14, 0), {xo2, xo2}, {});
    add(T::arrhenius, arrhenius(3.8e-12, 200), {oh, rooh_}, {{xo2, 1}});
    add(T::photolysis, none(), {rooh_}, {{oh, 1}, {ho2, 1}});
    add(T::arrhenius, arrhenius(8.1e-12, 270), {c2o3, no}, {{no2, 1}, {xo2, 1}});
    add(T::troe, {2.7e-28, -7.1, 0.0, 1.2e-11, -0.9, 0.0, 0.3, 1.0}, {c2o3, no2}, {{pan_, 1}});
    add(T::arrhenius, arrhenius(1.0e16, -13500), {pan_}, {{c2o3, 1}, {no2, 1}});  // thermal decomposition
    add(T::arrhenius, arrhenius(4.3e-13, 1040), {c2o3, ho2}, {{rooh_, 0.8}});
    add(T::arrhenius, arrhenius(2.9e-12, 500), {c2o3, c2o3}, {{xo2, 2}});
    add(T::arrhenius, arrhenius(2.0e-12, 500), {c2o3, xo2}, {{ho2, 0.9}});
  }

  // The fixed organic products of organic k (rule 4): 1-2 species downstream, often one of the
  // common end products (the last tenth).
  const std::vector<int>& products_of(int k) {
    std::vector<int>& list = products_[static_cast<std::size_t>(k)];
    if (!list.empty() || k == organics_ - 1) return list;
    const int count = unit() < 0.25 ? 2 : 1;
    const int tail = std::max(2, organics_ / 10);
    const int span = std::max(1, organics_ / 4);
    for (int p = 0; p < count; ++p) {
      int j;
      if (unit() < 0.3) {
        j = organics_ - 1 - static_cast<int>(random_() % static_cast<std::uint64_t>(tail));
      } else {
        const double u = unit();
        j = k + 1 + static_cast<int>(span * u * u);
      }
      j = std::clamp(j, k + 1, organics_ - 1);
      if (std::find(list.begin(), list.end(), j) == list.end()) list.push_back(j);
    }
    return list;
  }

  // Adds channel `channel` of organic k unless k already has it or its co-reactant is absent.
  bool organic(int k, Channel channel) {
    std::vector<Channel>& used = used_[static_cast<std::size_t>(k)];
    if (std::find(used.begin(), used.end(), channel) != used.end()) return false;
    const std::size_t before = candidates_.size();
    using T = ReactionType;
    const int self = organic_index(k);
    std::vector<SpeciesAmount> products;
    const std::vector<int>& organic_products = products_of(k);
    for (std::size_t p = 0; p < organic_products.size(); ++p) {
      products.push_back({organic_index(organic_products[p]), p == 0 ? uniform(0.5, 1.0) : uniform(0.1, 0.9)});
    }
    auto radical = [&](int h, double low, double high) { products.push_back({hub(h), uniform(low, high)}); };
    switch (channel) {
      case Channel::oh:
        radical(XO2, 0.5, 1.0);
        if (unit() < 0.25) radical(HO2, 0.1, 0.6);
        add(T::arrhenius, arrhenius(log_uniform(1e-12, 5e-11), uniform(-300, 500)), {hub(OH), self}, products);
        break;
      case Channel::o3:
        radical(OH, 0.1, 0.5);
        radical(HO2, 0.1, 0.4);
        add(T::arrhenius, arrhenius(log_uniform(1e-15, 1e-14), uniform(-2500, -500)), {hub(O3), self}, products);
        break;
      case Channel::no3:
        radical(XO2, 0.5, 1.0);
        if (unit() < 0.5) radical(NO2, 0.3, 1.0);  // otherwise an organic nitrate (lumped in the products)
        add(T::arrhenius, arrhenius(log_uniform(1e-14, 1e-12), uniform(-1500, 0)), {hub(NO3), self}, products);
        break;
      case Channel::photolysis:
        radical(HO2, 1.0, 2.0);
        if (unit() < 0.5) radical(XO2, 0.2, 1.0);
        add(T::photolysis, none(), {self}, products);
        break;
      case Channel::decomposition:
        if (radical_[static_cast<std::size_t>(k)]) {
          // Alkoxy-like: 10..1e4 s^-1 at 298 K.
          if (unit() < 0.5) radical(HO2, 0.5, 1.0);
          const double c = uniform(-5000, -3000);
          add(T::arrhenius, arrhenius(log_uniform(1e1, 1e4) * std::exp(-c / 298.15), c), {self}, products);
        } else {
          // PAN-like: 1e-5..1e-3 s^-1 at 298 K, strongly T dependent.
          radical(C2O3, 1.0, 1.0);
          radical(NO2, 1.0, 1.0);
          const double c = uniform(-14000, -12000);
          add(T::arrhenius, arrhenius(log_uniform(1e-5, 1e-3) * std::exp(-c / 298.15), c), {self}, products);
        }
        break;
      case Channel::no:
        radical(NO2, 1.0, 1.0);
        radical(HO2, 0.3, 1.0);
        add(T::arrhenius, arrhenius(uniform(2e-12, 9e-12), 360), {hub(NO), self}, products);
        break;
      case Channel::ho2:
        products.clear();  // RO2 + HO2 -> ROOH-like peroxide
        products.push_back({rooh_, 1.0});  // dropped when the mechanism has no ROOH
        add(T::arrhenius, arrhenius(log_uniform(3e-13, 1e-12), uniform(700, 1000)), {hub(HO2), self}, products);
        break;
    }
    if (candidates_.size() == before) return false;
    used.push_back(channel);
    return true;
  }

  std::mt19937_64 random_;
  Mechanism m_;
  std::vector<double> weight_;
  std::vector<bool> radical_;
  std::vector<std::vector<int>> products_;
  std::vector<std::vector<Channel>> used_;
  std::vector<Reaction> candidates_;
  int hubs_ = 0, first_organic_ = 0, organics_ = 0;
  int hno3_ = -1, h2o2_ = -1, rooh_ = -1, pan_ = -1;
};

}  // namespace

Mechanism make_synthetic_mechanism(int species, int reactions, std::uint64_t seed) {
  if (species < 4 || reactions < 1) {
    fail(ErrorCategory::invalid_input, "make_synthetic_mechanism: need at least 4 species and 1 reaction (got ",
         species, ", ", reactions, ")");
  }
  return Builder(species, seed).build(reactions);
}

}  // namespace foehn::chemistry
