#pragma once
// Deviations between two trajectory runs, MPTRAC's atm_dist measures with parcels matched by
// id (docs/particles_io.md, "Trajectory deviations"):
//   AHTD  chord distance between the two positions on a sphere of radius earth_radius
//         (6371.22 km, the radius of Foehn's integrators; MPTRAC uses 6367.421 km), m;
//   AVTD  |z_a - z_b| with z = H0 ln(P0 / p), H0 = 7 km, P0 = 101325 Pa, m;
//   RHTD  200 AHTD / (L_h,a + L_h,b), %, L_h the accumulated horizontal path length;
//   RVTD  200 AVTD / (L_v,a + L_v,b), %, L_v the accumulated vertical path length;
//   for each quantity both sets carry: |q_a - q_b| and 200 |q_a - q_b| / (|q_a| + |q_b|) %.
// Summaries: count, mean, sample standard deviation, min, max, median.
//
// Part of foehn_particles_io (Foehn::particles_io), never of libfoehn itself.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "foehn/particles/integrators.hpp"
#include "foehn/particles/particle_set.hpp"

namespace foehn::particles {

// Names of the path-length quantities (written by transport with track_path_length).
inline constexpr const char* path_horizontal_quantity = "path_horizontal_m";
inline constexpr const char* path_vertical_quantity = "path_vertical_m";

// Chord distance (m) between two positions (rad) on the sphere of radius earth_radius.
double horizontal_chord_distance(double lon_a, double lat_a, double lon_b, double lat_b);

// Accumulates one trajectory's path lengths step by step with the same measures as the
// transport physics: chord length per step and |dz| per step in log-pressure height.
struct PathLength {
  double horizontal_m = 0.0;
  double vertical_m = 0.0;
  void add_step(const ParcelPosition& from, const ParcelPosition& to);
};

// Path lengths of every parcel of a set, in the set's order.
struct AccumulatedPaths {
  std::vector<double> horizontal_m;
  std::vector<double> vertical_m;
};

struct DeviationSummary {
  std::size_t count = 0;  // values summarised; statistics are NaN when 0
  double mean = 0.0;
  double standard_deviation = 0.0;  // sample (n - 1); 0 for a single value
  double min = 0.0;
  double max = 0.0;
  double median = 0.0;
};
DeviationSummary summarise(std::vector<double> values);

// One matched parcel.
struct ParcelDeviation {
  std::int64_t id = 0;
  std::size_t index_a = 0, index_b = 0;  // slots in the two sets
  double ahtd_m = 0.0;
  double avtd_m = 0.0;                // |z_a - z_b|
  double vertical_offset_m = 0.0;     // z_a - z_b, signed
  std::optional<double> rhtd_percent;  // when path lengths are known and their sum > 0
  std::optional<double> rvtd_percent;
  std::vector<double> quantity_absolute;  // per compared quantity, |q_a - q_b|
  std::vector<double> quantity_relative_percent;
};

struct QuantityDeviation {
  std::string name;
  DeviationSummary absolute;
  DeviationSummary relative_percent;
};

struct TrajectoryDeviation {
  std::size_t parcels_a = 0, parcels_b = 0;
  std::vector<ParcelDeviation> parcels;      // matched parcels, ascending id
  std::vector<std::int64_t> only_in_a;       // ids with no partner, ascending
  std::vector<std::int64_t> only_in_b;
  std::size_t time_mismatches = 0;           // matched parcels whose times differ
  double max_time_difference_s = 0.0;
  std::size_t status_mismatches = 0;         // matched parcels whose statuses differ
  bool relative_available = false;           // RHTD/RVTD computed (path lengths known)
  DeviationSummary ahtd_m, avtd_m, rhtd_percent, rvtd_percent;
  std::vector<QuantityDeviation> quantities;  // those both sets carry, in a's order
  std::vector<std::string> quantities_only_in_a, quantities_only_in_b;
};

// Matches the parcels of `a` and `b` by id and compares them. Path lengths come from
// `paths_a`/`paths_b` when both are given, else from the quantities path_horizontal_m and
// path_vertical_m when both sets carry both; otherwise only absolute deviations are computed.
// invalid_input for an inconsistent set, a repeated id, or path arrays of the wrong length.
// No matching id is not an error here (the result says so); the tool rejects it.
TrajectoryDeviation compare_trajectories(const ParticleSet& a, const ParticleSet& b,
                                         const AccumulatedPaths* paths_a = nullptr,
                                         const AccumulatedPaths* paths_b = nullptr);

// The result as a JSON object (summaries, counts, missing ids; not the per-parcel values).
std::string deviation_json(const TrajectoryDeviation& deviation);

}  // namespace foehn::particles
