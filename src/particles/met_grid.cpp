#include "foehn/particles/met_grid.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "foehn/particles/met_axes.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles {

void MetGridGeometry::validate() const {
  using std::numbers::pi;
  if (nlon < 2 || nlat < 2 || pressure_levels.size() < 2) {
    fail(ErrorCategory::invalid_input, "MetGrid: need at least 2 longitudes, 2 latitudes and 2 ",
         "pressure levels, got ", nlon, " x ", nlat, " x ", pressure_levels.size());
  }
  if (!std::isfinite(first_longitude) || !std::isfinite(first_latitude) ||
      !std::isfinite(latitude_spacing) || !(latitude_spacing > 0.0)) {
    fail(ErrorCategory::invalid_input, "MetGrid: first longitude/latitude must be finite and the ",
         "latitude spacing finite and > 0 (got ", latitude_spacing, ")");
  }
  const double last_latitude = first_latitude + (nlat - 1) * latitude_spacing;
  constexpr double slack = 1e-9;  // rounding of pole-to-pole spacings
  if (first_latitude < -0.5 * pi - slack || last_latitude > 0.5 * pi + slack) {
    fail(ErrorCategory::invalid_input, "MetGrid: latitudes [", first_latitude, ", ", last_latitude,
         "] rad leave [-pi/2, pi/2]");
  }
  const bool increasing = pressure_levels[1] > pressure_levels[0];
  for (std::size_t k = 0; k < pressure_levels.size(); ++k) {
    if (!std::isfinite(pressure_levels[k])) {
      fail(ErrorCategory::invalid_input, "MetGrid: pressure level ", k, " is not finite");
    }
    // Parcels are clamped into the levels and heights take log(p0 / p): a level <= 0 gave
    // parcels NaN positions, which crashed foehn-trajectories in transport_step.
    if (!(pressure_levels[k] > 0.0)) {
      fail(ErrorCategory::invalid_input, "MetGrid: pressure level ", k, " is ", pressure_levels[k],
           " Pa; pressure levels must be positive");
    }
    if (k > 0 && (increasing ? !(pressure_levels[k] > pressure_levels[k - 1])
                             : !(pressure_levels[k] < pressure_levels[k - 1]))) {
      fail(ErrorCategory::invalid_input, "MetGrid: pressure levels are not strictly monotonic at ",
           "level ", k, " (", pressure_levels[k - 1], " then ", pressure_levels[k], " Pa)");
    }
  }
  if (!std::isfinite(t0) || !std::isfinite(t1) || !(t1 > t0)) {
    fail(ErrorCategory::invalid_input, "MetGrid: need finite t1 > t0, got t0 = ", t0,
         " s, t1 = ", t1, " s");
  }
}

namespace {
void validate_wind(const WindLevel& wind, std::size_t points, const char* level) {
  const std::vector<double>* components[3] = {&wind.u, &wind.v, &wind.omega};
  const char* names[3] = {"u", "v", "omega"};
  for (int c = 0; c < 3; ++c) {
    if (components[c]->size() != points) {
      fail(ErrorCategory::invalid_input, "MetGrid: ", names[c], " at ", level, " has ",
           components[c]->size(), " values, the grid has ", points, " points");
    }
    for (std::size_t i = 0; i < points; ++i) {
      if (!std::isfinite((*components[c])[i])) {
        fail(ErrorCategory::invalid_input, "MetGrid: ", names[c], " at ", level,
             " is not finite at point ", i);
      }
    }
  }
}

MetGridView make_view(const MetGridGeometry& g, const double* levels, const double* wind) {
  MetGridView view;
  view.nlon = g.nlon;
  view.nlat = g.nlat;
  view.nlev = static_cast<int>(g.pressure_levels.size());
  view.first_longitude = g.first_longitude;
  view.longitude_spacing = 2.0 * std::numbers::pi / g.nlon;
  view.first_latitude = g.first_latitude;
  view.latitude_spacing = g.latitude_spacing;
  view.pressure_levels = levels;
  view.t0 = g.t0;
  view.t1 = g.t1;
  view.wind = wind;
  return view;
}
}  // namespace

namespace detail {
// Shared with the CUDA constructor (declared there): both validate the same way.
void validate_met_input(const MetGridGeometry& geometry, const WindLevel& at_t0,
                        const WindLevel& at_t1) {
  geometry.validate();
  validate_wind(at_t0, geometry.point_count(), "t0");
  validate_wind(at_t1, geometry.point_count(), "t1");
}
}  // namespace detail

MetGrid::MetGrid(MetGridGeometry geometry, const WindLevel& at_t0, const WindLevel& at_t1)
    : geometry_(std::move(geometry)) {
  detail::validate_met_input(geometry_, at_t0, at_t1);
  const std::size_t points = geometry_.point_count();
  wind_.resize(2 * points * 3);
  const WindLevel* levels[2] = {&at_t0, &at_t1};
  for (int l = 0; l < 2; ++l) {
    double* out = wind_.data() + l * points * 3;
    for (std::size_t i = 0; i < points; ++i) {
      out[3 * i + 0] = levels[l]->u[i];
      out[3 * i + 1] = levels[l]->v[i];
      out[3 * i + 2] = levels[l]->omega[i];
    }
  }
}

MetGrid::MetGrid(MetGridGeometry geometry, std::vector<double> interleaved_wind)
    : geometry_(std::move(geometry)), wind_(std::move(interleaved_wind)) {
  geometry_.validate();
  if (wind_.size() != 2 * geometry_.point_count() * 3) {
    fail(ErrorCategory::invalid_input, "MetGrid: the interleaved wind has ", wind_.size(),
         " values, the grid needs 2 x ", geometry_.point_count(), " x 3");
  }
  for (std::size_t i = 0; i < wind_.size(); ++i) {
    if (!std::isfinite(wind_[i])) {
      fail(ErrorCategory::invalid_input, "MetGrid: interleaved wind value ", i, " is not finite");
    }
  }
}

void MetGrid::advance(const WindLevel& next, double t_next) {
  if (!std::isfinite(t_next) || !(t_next > geometry_.t1)) {
    fail(ErrorCategory::invalid_input, "MetGrid::advance: the next met time ", t_next,
         " s must be finite and after t1 = ", geometry_.t1, " s");
  }
  const std::size_t points = geometry_.point_count();
  validate_wind(next, points, "the next time");
  std::copy(wind_.begin() + static_cast<std::ptrdiff_t>(points * 3), wind_.end(), wind_.begin());
  double* out = wind_.data() + points * 3;
  for (std::size_t i = 0; i < points; ++i) {
    out[3 * i + 0] = next.u[i];
    out[3 * i + 1] = next.v[i];
    out[3 * i + 2] = next.omega[i];
  }
  geometry_.t0 = geometry_.t1;
  geometry_.t1 = t_next;
}

namespace detail {
// Shared with the CUDA DeviceMetGrid::advance.
void validate_next_met_time(const MetGridGeometry& geometry, const WindLevel& next, double t_next) {
  if (!std::isfinite(t_next) || !(t_next > geometry.t1)) {
    fail(ErrorCategory::invalid_input, "DeviceMetGrid::advance: the next met time ", t_next,
         " s must be finite and after t1 = ", geometry.t1, " s");
  }
  validate_wind(next, geometry.point_count(), "the next time");
}
}  // namespace detail

MetGridView MetGrid::view() const noexcept {
  return make_view(geometry_, geometry_.pressure_levels.data(), wind_.data());
}

MetGridView DeviceMetGrid::view() const noexcept {
  return make_view(geometry_, levels_.data(), wind_.data());
}

HorizontalAxes describe_horizontal_axes(std::span<const double> lon, std::span<const double> lat,
                                        AngleUnit unit, const std::string& source) {
  const bool degrees = unit == AngleUnit::degrees;
  const double turn = degrees ? 360.0 : 2.0 * std::numbers::pi;
  const double to_radians = degrees ? std::numbers::pi / 180.0 : 1.0;
  const char* turn_name = degrees ? "360 degrees" : "2 pi radians";
  const double tolerance = met_axis_regularity_tolerance;
  const std::size_t n = lon.size();
  if (n < 2) fail(ErrorCategory::invalid_input, source, ": need at least 2 longitudes, got ", n);
  if (!std::isfinite(lon[0]))
    fail(ErrorCategory::invalid_input, source, ": longitude 0 is ", lon[0]);
  const double spacing = turn / static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double expected = lon[0] + static_cast<double>(i) * spacing;
    if (!(std::fabs(lon[i] - expected) <= tolerance * spacing)) {
      const bool repeats = std::fabs(lon[n - 1] - lon[0] - turn) <= tolerance * spacing;
      fail(ErrorCategory::invalid_input, source, ": longitudes are not ", n,
           " regular increasing points covering ", turn_name, " (spacing ", spacing, "): lon[", i,
           "] = ", lon[i], ", expected ", expected,
           repeats ? "; the last longitude repeats the first, drop it"
                   : "; Foehn's met grids are global in longitude");
    }
  }
  const std::size_t m = lat.size();
  if (m < 2) fail(ErrorCategory::invalid_input, source, ": need at least 2 latitudes, got ", m);
  const double lat_spacing = (lat[m - 1] - lat[0]) / static_cast<double>(m - 1);
  for (std::size_t j = 0; j < m; ++j) {
    const double expected = lat[0] + static_cast<double>(j) * lat_spacing;
    if (lat_spacing == 0.0 || !std::isfinite(lat_spacing) ||
        !(std::fabs(lat[j] - expected) <= tolerance * std::fabs(lat_spacing))) {
      fail(ErrorCategory::invalid_input, source,
           ": latitudes are not regularly spaced and monotonic: lat[", j, "] = ", lat[j],
           ", expected ", expected, " (spacing ", lat_spacing, ")");
    }
  }
  HorizontalAxes axes;
  axes.nlon = static_cast<int>(n);
  axes.nlat = static_cast<int>(m);
  axes.first_longitude = lon[0] * to_radians;
  axes.latitude_north_to_south = lat_spacing < 0.0;
  axes.first_latitude = (axes.latitude_north_to_south ? lat[m - 1] : lat[0]) * to_radians;
  axes.latitude_spacing = std::fabs(lat_spacing) * to_radians;
  return axes;
}

MetGridGeometry make_global_geometry(int nlon, int nlat, std::vector<double> pressure_levels,
                                     double t0, double t1) {
  MetGridGeometry g;
  g.nlon = nlon;
  g.nlat = nlat;
  g.first_longitude = 0.0;
  g.first_latitude = -0.5 * std::numbers::pi;
  g.latitude_spacing = nlat > 1 ? std::numbers::pi / (nlat - 1) : 0.0;
  g.pressure_levels = std::move(pressure_levels);
  g.t0 = t0;
  g.t1 = t1;
  return g;
}

}  // namespace foehn::particles
