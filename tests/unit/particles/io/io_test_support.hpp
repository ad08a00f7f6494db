#pragma once
// Shared by the foehn_particles_io tests: a small synthetic met grid whose wind values are
// exact in float, a met file written with raw netCDF-C calls (independent of our writer, with
// knobs to break it in every way the reader must reject), and error-message checks.

#include <netcdf.h>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "foehn/particles/met_grid.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::particles::io_test {

inline constexpr double pi = std::numbers::pi;

// 8 x 5 x 3 points: longitudes from -180 degrees every 45, latitudes -90..90 every 45,
// levels 1000, 850, 500 hPa (decreasing).
inline MetGridGeometry small_geometry() {
  MetGridGeometry g;
  g.nlon = 8;
  g.nlat = 5;
  g.first_longitude = -pi;
  g.first_latitude = -0.5 * pi;
  g.latitude_spacing = 0.25 * pi;
  g.pressure_levels = {100000.0, 85000.0, 50000.0};
  g.t0 = 0.0;
  g.t1 = 3600.0;
  return g;
}

// A value unique to (component, time, level, row, column), exact in float, and below the
// reader's plausibility limits (500 m/s, 1000 Pa/s) up to time index 3.
inline double wind_value(int component, int time, std::size_t k, std::size_t j, std::size_t i) {
  return (static_cast<double>(i) + 10.0 * static_cast<double>(j) + 100.0 * static_cast<double>(k) +
          1000.0 * time) *
         0.125 *
         (component == 0   ? 1.0
          : component == 1 ? -0.5
                           : 0.001953125);
}

inline WindLevel small_wind(const MetGridGeometry& g, int time) {
  WindLevel w;
  for (std::size_t k = 0; k < g.pressure_levels.size(); ++k)
    for (std::size_t j = 0; j < static_cast<std::size_t>(g.nlat); ++j)
      for (std::size_t i = 0; i < static_cast<std::size_t>(g.nlon); ++i) {
        w.u.push_back(wind_value(0, time, k, j, i));
        w.v.push_back(wind_value(1, time, k, j, i));
        w.omega.push_back(wind_value(2, time, k, j, i));
      }
  return w;
}

inline void nc(int status) {
  ASSERT_EQ(status, NC_NOERR) << nc_strerror(status);
}

// An ERA5-like met file written with netCDF-C directly: classic format, latitudes north to
// south as float, levels in hPa as int, time in hours since 1900, float winds with a
// _FillValue attribute, w for the vertical velocity. Every member can be changed to make a
// bad file. Grid values: wind_value(c, t, k, j_file, i) with j_file the file's row.
struct RawMetFile {
  std::vector<double> time_hours{1.0, 7.0};
  std::vector<double> lev_hpa{1000.0, 850.0, 500.0};
  std::vector<double> lat{90.0, 45.0, 0.0, -45.0, -90.0};
  std::vector<double> lon{0.0, 45.0, 90.0, 135.0, 180.0, 225.0, 270.0, 315.0};
  std::optional<std::string> lev_units = "millibars";
  std::string time_units = "hours since 1900-01-01 00:00:00.0";
  std::vector<std::string> winds{"u", "v", "w"};
  std::vector<std::string> wind_dims{"time", "lev", "lat", "lon"};
  std::optional<double> fill_value = -32767.0;
  int format = 0;  // nc_create mode: 0 classic, NC_64BIT_OFFSET, NC_64BIT_DATA or NC_NETCDF4
  bool time_unlimited = false;  // time as the record dimension (ERA5 downloads have it)
  nc_type time_type = NC_INT;
  // One value replaced after the regular ones: (variable, flat index in the file, value).
  std::optional<std::string> poke_variable;
  std::size_t poke_index = 0;
  double poke_value = 0.0;

  void write(const std::filesystem::path& path) const {
    int file = -1;
    nc(nc_create(path.c_str(), NC_CLOBBER | format, &file));
    const auto dim = [&](const char* name, std::size_t n) {
      int id = -1;
      nc(nc_def_dim(file, name, n, &id));
      return id;
    };
    const int dims[4] = {dim("time", time_unlimited ? NC_UNLIMITED : time_hours.size()),
                         dim("lev", lev_hpa.size()), dim("lat", lat.size()),
                         dim("lon", lon.size())};
    const auto dim_id = [&](const std::string& name) {
      const char* names[4] = {"time", "lev", "lat", "lon"};
      for (int d = 0; d < 4; ++d)
        if (name == names[d]) return dims[d];
      return -1;
    };
    int time_var, lev_var, lat_var, lon_var;
    nc(nc_def_var(file, "time", time_type, 1, &dims[0], &time_var));
    nc(nc_def_var(file, "lev", NC_INT, 1, &dims[1], &lev_var));
    nc(nc_def_var(file, "lat", NC_FLOAT, 1, &dims[2], &lat_var));
    nc(nc_def_var(file, "lon", NC_FLOAT, 1, &dims[3], &lon_var));
    nc(nc_put_att_text(file, time_var, "units", time_units.size(), time_units.c_str()));
    if (lev_units)
      nc(nc_put_att_text(file, lev_var, "units", lev_units->size(), lev_units->c_str()));
    nc(nc_put_att_text(file, lat_var, "units", 13, "degrees_north"));
    nc(nc_put_att_text(file, lon_var, "units", 12, "degrees_east"));
    std::vector<int> wind_vars;
    int wind_dim_ids[4];
    for (int d = 0; d < 4; ++d) wind_dim_ids[d] = dim_id(wind_dims[d]);
    for (const std::string& name : winds) {
      int var = -1;
      nc(nc_def_var(file, name.c_str(), NC_FLOAT, 4, wind_dim_ids, &var));
      const std::string units = name == "u" || name == "v" ? "m s**-1" : "Pa s**-1";
      nc(nc_put_att_text(file, var, "units", units.size(), units.c_str()));
      if (fill_value) {
        const float fill = static_cast<float>(*fill_value);
        nc(nc_put_att_float(file, var, "_FillValue", NC_FLOAT, 1, &fill));
      }
      wind_vars.push_back(var);
    }
    nc(nc_enddef(file));
    const std::size_t start = 0, times = time_hours.size();  // sets the record count
    nc(nc_put_vara_double(file, time_var, &start, &times, time_hours.data()));
    nc(nc_put_var_double(file, lev_var, lev_hpa.data()));
    nc(nc_put_var_double(file, lat_var, lat.data()));
    nc(nc_put_var_double(file, lon_var, lon.data()));
    for (std::size_t c = 0; c < winds.size(); ++c) {
      const int component = winds[c] == "u" ? 0 : winds[c] == "v" ? 1 : 2;
      std::vector<double> values;
      for (std::size_t t = 0; t < time_hours.size(); ++t)
        for (std::size_t k = 0; k < lev_hpa.size(); ++k)
          for (std::size_t j = 0; j < lat.size(); ++j)
            for (std::size_t i = 0; i < lon.size(); ++i)
              values.push_back(wind_value(component, static_cast<int>(t), k, j, i));
      if (poke_variable && *poke_variable == winds[c]) values.at(poke_index) = poke_value;
      // With time unlimited this writes as many records as time got above.
      nc(nc_put_var_double(file, wind_vars[c], values.data()));
    }
    nc(nc_close(file));
  }
};

// Copies the first `keep` bytes of `from` to `to`: a file cut short by an interrupted copy.
inline void copy_truncated(const std::filesystem::path& from, const std::filesystem::path& to,
                           std::uintmax_t keep) {
  std::ifstream in(from, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_LE(keep, bytes.size());
  std::ofstream(to, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(keep));
}

// Where truncation tests cut a file of `size` bytes: inside the header, in the middle of the
// data and in its last bytes.
inline std::vector<std::uintmax_t> cut_points(std::uintmax_t size) {
  return {4, 40, 200, size / 3, size / 2, size - 8, size - 1};
}

// Runs `action`, expects a foehn::Error of `category` whose message holds every fragment.
template <class Action>
void expect_error(Action action, ErrorCategory category,
                  const std::vector<std::string>& fragments) {
  try {
    action();
    ADD_FAILURE() << "no foehn::Error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), category) << e.what();
    for (const std::string& fragment : fragments)
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << "'" << fragment << "' not in: " << e.what();
  }
}

}  // namespace foehn::particles::io_test
