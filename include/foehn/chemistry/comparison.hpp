#pragma once
// Error measures for comparing a chemistry solution against a reference (e.g. Foehn's Rosenbrock
// solvers against CVODE). Host-only, no solver dependencies. Inputs are [cell][species] arrays in
// the same species order for reference and candidate.

#include <cstdint>
#include <vector>

namespace foehn::chemistry {

struct SpeciesError {
  int species = -1;           // index in the inputs' species order; -1: no species
  double nrmse = 0.0;         // normalised root-mean-square error over cells
  double max_relative = 0.0;  // max over cells of |x - y| / max(|x|, absolute_floor)
};

// Per-species NRMSE over cells as in the CAMP GPU thesis: sqrt(mean_cells (x - y)^2) divided by
// the reference's range max_cells x - min_cells x (x = reference, y = candidate). A species whose
// reference is the same in every cell has range 0 and is normalised by max_cells |x| instead; a
// species whose reference is 0 in every cell has no scale at all and is LEFT OUT of the result
// (so entries are identified by `species`, not by position) — max_relative_error still sees it.
// `max_relative` uses `absolute_floor` as in max_relative_error. Species whose reference never
// exceeds `unresolved_below` in magnitude are left out too: with an absolute tolerance atol,
// values far below atol (a radical at 1e-13 molecule cm^-3 at night) are noise that both
// solvers are allowed, and their range would make any NRMSE look large. Throws foehn::Error
// (invalid_input) on negative counts or sizes other than cells * species.
[[nodiscard]] std::vector<SpeciesError> species_nrmse(const std::vector<double>& reference,
                                                      const std::vector<double>& candidate,
                                                      std::int64_t cells, int species,
                                                      double absolute_floor = 0.0,
                                                      double unresolved_below = 0.0);

// The entry with the largest NRMSE (NaN counts as largest: a NaN in the candidate must not hide);
// SpeciesError{} (species -1) for an empty list.
[[nodiscard]] SpeciesError worst_species(const std::vector<SpeciesError>& errors);

// max over entries |x - y| / max(|x|, absolute_floor), x = reference. The floor keeps species
// near zero (radicals at night) from dominating; with floor 0 an entry with x = 0 gives 0 when
// y = 0 and infinity otherwise. NaN anywhere gives NaN. Throws foehn::Error (invalid_input) when
// the sizes differ or the floor is negative or not finite.
[[nodiscard]] double max_relative_error(const std::vector<double>& reference,
                                        const std::vector<double>& candidate,
                                        double absolute_floor);

}  // namespace foehn::chemistry
