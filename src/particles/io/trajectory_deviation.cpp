#include "foehn/particles/io/trajectory_deviation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "foehn/runtime/error.hpp"

namespace foehn::particles {

namespace {

double log_pressure_height(double p) {
  return scale_height * std::log(reference_pressure / p);
}

// (id, slot) pairs sorted by id; invalid_input naming the set for a repeated id.
std::vector<std::pair<std::int64_t, std::size_t>> sorted_ids(const ParticleSet& set,
                                                             const char* which) {
  std::vector<std::pair<std::int64_t, std::size_t>> ids(set.size());
  for (std::size_t i = 0; i < set.size(); ++i) ids[i] = {set.id[i], i};
  std::sort(ids.begin(), ids.end());
  for (std::size_t i = 1; i < ids.size(); ++i) {
    if (ids[i].first == ids[i - 1].first) {
      fail(ErrorCategory::invalid_input, "compare_trajectories: parcel id ", ids[i].first,
           " occurs more than once in run ", which);
    }
  }
  return ids;
}

// Path lengths are distances: a negative or non-finite one would make a wrong percentage.
void require_path_lengths(const std::vector<double>& lengths, const ParticleSet& set,
                          const char* which, const char* kind) {
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (!(lengths[i] >= 0.0) || !std::isfinite(lengths[i])) {
      fail(ErrorCategory::invalid_input, "compare_trajectories: run ", which, " has the ", kind,
           " path length ", lengths[i], " m for parcel id ", set.id[i],
           "; path lengths are finite and >= 0");
    }
  }
}

// Explicit paths, or the path quantities when the set carries both, or nothing.
std::optional<AccumulatedPaths> paths_of(const ParticleSet& set, const AccumulatedPaths* given,
                                         const char* which) {
  std::optional<AccumulatedPaths> paths;
  if (given != nullptr) {
    if (given->horizontal_m.size() != set.size() || given->vertical_m.size() != set.size()) {
      fail(ErrorCategory::invalid_input, "compare_trajectories: run ", which, " has ", set.size(),
           " parcels but ", given->horizontal_m.size(), " horizontal and ",
           given->vertical_m.size(), " vertical path lengths");
    }
    paths = *given;
  } else if (set.has_quantity(path_horizontal_quantity) &&
             set.has_quantity(path_vertical_quantity)) {
    paths = AccumulatedPaths{set.quantity(path_horizontal_quantity),
                             set.quantity(path_vertical_quantity)};
  } else {
    return std::nullopt;
  }
  require_path_lengths(paths->horizontal_m, set, which, "horizontal");
  require_path_lengths(paths->vertical_m, set, which, "vertical");
  return paths;
}

std::optional<double> relative_percent(double deviation, double length_a, double length_b) {
  const double total = length_a + length_b;
  if (!(total > 0.0)) return std::nullopt;  // neither parcel moved: the ratio means nothing
  return 200.0 * deviation / total;
}

// nlohmann writes a NaN (a summary of no values) as null, which JSON readers take.
nlohmann::ordered_json summary_json(const DeviationSummary& s) {
  return {{"count", s.count}, {"mean", s.mean}, {"sd", s.standard_deviation},
          {"min", s.min},     {"max", s.max},   {"median", s.median}};
}

}  // namespace

double horizontal_chord_distance(double lon_a, double lat_a, double lon_b, double lat_b) {
  const double ca = std::cos(lat_a), cb = std::cos(lat_b);
  const double dx = ca * std::cos(lon_a) - cb * std::cos(lon_b);
  const double dy = ca * std::sin(lon_a) - cb * std::sin(lon_b);
  const double dz = std::sin(lat_a) - std::sin(lat_b);
  return earth_radius * std::sqrt(dx * dx + dy * dy + dz * dz);
}

void PathLength::add_step(const ParcelPosition& from, const ParcelPosition& to) {
  horizontal_m +=
      horizontal_chord_distance(from.longitude, from.latitude, to.longitude, to.latitude);
  vertical_m += std::fabs(log_pressure_height(to.pressure) - log_pressure_height(from.pressure));
}

DeviationSummary summarise(std::vector<double> values) {
  DeviationSummary s;
  s.count = values.size();
  if (values.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.mean = s.standard_deviation = s.min = s.max = s.median = nan;
    return s;
  }
  const double n = static_cast<double>(values.size());
  double sum = 0.0;
  for (double v : values) sum += v;
  s.mean = sum / n;
  double squares = 0.0;  // two passes: no cancellation when the spread is small
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.standard_deviation = values.size() > 1 ? std::sqrt(squares / (n - 1.0)) : 0.0;
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  s.min = *low;
  s.max = *high;
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  s.median = values[middle];
  if (values.size() % 2 == 0) {
    const double below =
        *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
    s.median = 0.5 * (below + s.median);
  }
  return s;
}

TrajectoryDeviation compare_trajectories(const ParticleSet& a, const ParticleSet& b,
                                         const AccumulatedPaths* paths_a,
                                         const AccumulatedPaths* paths_b) {
  a.validate();
  b.validate();
  TrajectoryDeviation result;
  result.parcels_a = a.size();
  result.parcels_b = b.size();
  const auto ids_a = sorted_ids(a, "A");
  const auto ids_b = sorted_ids(b, "B");
  const std::optional<AccumulatedPaths> path_a = paths_of(a, paths_a, "A");
  const std::optional<AccumulatedPaths> path_b = paths_of(b, paths_b, "B");
  result.relative_available = path_a && path_b;

  std::vector<std::string> compared;
  for (const std::string& name : a.quantity_names())
    (b.has_quantity(name) ? compared : result.quantities_only_in_a).push_back(name);
  for (const std::string& name : b.quantity_names())
    if (!a.has_quantity(name)) result.quantities_only_in_b.push_back(name);

  std::size_t ia = 0, ib = 0;  // merge of the two id-sorted lists
  while (ia < ids_a.size() || ib < ids_b.size()) {
    if (ib == ids_b.size() || (ia < ids_a.size() && ids_a[ia].first < ids_b[ib].first)) {
      result.only_in_a.push_back(ids_a[ia++].first);
      continue;
    }
    if (ia == ids_a.size() || ids_b[ib].first < ids_a[ia].first) {
      result.only_in_b.push_back(ids_b[ib++].first);
      continue;
    }
    const std::size_t i = ids_a[ia++].second, j = ids_b[ib++].second;
    ParcelDeviation d;
    d.id = a.id[i];
    d.index_a = i;
    d.index_b = j;
    d.ahtd_m =
        horizontal_chord_distance(a.longitude[i], a.latitude[i], b.longitude[j], b.latitude[j]);
    d.vertical_offset_m = log_pressure_height(a.pressure[i]) - log_pressure_height(b.pressure[j]);
    d.avtd_m = std::fabs(d.vertical_offset_m);
    if (result.relative_available) {
      d.rhtd_percent = relative_percent(d.ahtd_m, path_a->horizontal_m[i], path_b->horizontal_m[j]);
      d.rvtd_percent = relative_percent(d.avtd_m, path_a->vertical_m[i], path_b->vertical_m[j]);
    }
    for (const std::string& name : compared) {
      const double qa = a.quantity(name)[i], qb = b.quantity(name)[j];
      const double absolute = std::fabs(qa - qb);
      const double scale = std::fabs(qa) + std::fabs(qb);
      d.quantity_absolute.push_back(absolute);
      d.quantity_relative_percent.push_back(scale > 0.0 ? 200.0 * absolute / scale : 0.0);
    }
    const double dt = std::fabs(a.time[i] - b.time[j]);
    if (dt > 0.0) ++result.time_mismatches;
    result.max_time_difference_s = std::max(result.max_time_difference_s, dt);
    if (a.status[i] != b.status[j]) ++result.status_mismatches;
    result.parcels.push_back(std::move(d));
  }

  std::vector<double> ahtd, avtd, rhtd, rvtd;
  for (const ParcelDeviation& d : result.parcels) {
    ahtd.push_back(d.ahtd_m);
    avtd.push_back(d.avtd_m);
    if (d.rhtd_percent) rhtd.push_back(*d.rhtd_percent);
    if (d.rvtd_percent) rvtd.push_back(*d.rvtd_percent);
  }
  result.ahtd_m = summarise(std::move(ahtd));
  result.avtd_m = summarise(std::move(avtd));
  result.rhtd_percent = summarise(std::move(rhtd));
  result.rvtd_percent = summarise(std::move(rvtd));
  for (std::size_t q = 0; q < compared.size(); ++q) {
    std::vector<double> absolute, relative;
    for (const ParcelDeviation& d : result.parcels) {
      absolute.push_back(d.quantity_absolute[q]);
      relative.push_back(d.quantity_relative_percent[q]);
    }
    result.quantities.push_back(QuantityDeviation{compared[q], summarise(std::move(absolute)),
                                                  summarise(std::move(relative))});
  }
  return result;
}

std::string deviation_json(const TrajectoryDeviation& r) {
  nlohmann::ordered_json json = {{"parcels_a", r.parcels_a},
                                 {"parcels_b", r.parcels_b},
                                 {"matched", r.parcels.size()},
                                 {"only_in_a", r.only_in_a},
                                 {"only_in_b", r.only_in_b},
                                 {"time_mismatches", r.time_mismatches},
                                 {"max_time_difference_s", r.max_time_difference_s},
                                 {"status_mismatches", r.status_mismatches},
                                 {"relative_available", r.relative_available},
                                 {"ahtd_m", summary_json(r.ahtd_m)},
                                 {"avtd_m", summary_json(r.avtd_m)}};
  if (r.relative_available) {
    json["rhtd_percent"] = summary_json(r.rhtd_percent);
    json["rvtd_percent"] = summary_json(r.rvtd_percent);
  }
  nlohmann::ordered_json quantities = nlohmann::ordered_json::array();
  for (const QuantityDeviation& q : r.quantities)
    quantities.push_back({{"name", q.name},
                          {"absolute", summary_json(q.absolute)},
                          {"relative_percent", summary_json(q.relative_percent)}});
  json["quantities"] = std::move(quantities);
  json["quantities_only_in_a"] = r.quantities_only_in_a;
  json["quantities_only_in_b"] = r.quantities_only_in_b;
  return json.dump(2) + "\n";
}

}  // namespace foehn::particles
