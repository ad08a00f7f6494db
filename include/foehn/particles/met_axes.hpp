#pragma once
// A met grid's horizontal axes from its coordinate values: the one reading of them that the met
// file reader (foehn-trajectories, met_netcdf.hpp) and the Python MetGrid share.
//
// Longitudes: nlon regular, increasing values covering a full turn once (Foehn's met grids are
// global in longitude, met_grid.hpp: a regional longitude range cannot be described, and read
// as global it once moved parcels at the wrong speed); latitudes: nlat regular values in either
// direction (regional or pole to pole). A value may lie met_axis_regularity_tolerance x the
// spacing off its regular place: enough for coordinates stored as float (0.1 degree grids:
// about 2e-4), far below a misplaced row. invalid_input, naming `source` and the first bad
// value, otherwise.

#include <span>
#include <string>

namespace foehn::particles {

inline constexpr double met_axis_regularity_tolerance = 1e-3;

enum class AngleUnit { degrees, radians };

struct HorizontalAxes {
  int nlon = 0, nlat = 0;
  double first_longitude = 0.0;          // rad
  double first_latitude = 0.0;           // rad, the southernmost
  double latitude_spacing = 0.0;         // rad, > 0
  bool latitude_north_to_south = false;  // the values' order (the geometry's is ascending)
};

HorizontalAxes describe_horizontal_axes(std::span<const double> longitudes,
                                        std::span<const double> latitudes, AngleUnit unit,
                                        const std::string& source);

}  // namespace foehn::particles
