#pragma once
// The sequence of met fields a trajectory run walks through: a geometry and wind at times
// T_0 < T_1 < ... Synthetic sources sample their functor at start + k * interval (no end);
// the netCDF source lists every time of every file, in order.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "foehn/particles/met_grid.hpp"
#include "trajectory_options.hpp"

namespace foehn::app {

class MetSource {
 public:
  virtual ~MetSource() = default;
  // Geometry of every field (its t0/t1 are those of the first pair).
  virtual const particles::MetGridGeometry& geometry() const = 0;
  // Time of field `index`, or nothing past the last field.
  virtual std::optional<double> time(std::size_t index) const = 0;
  virtual particles::WindLevel wind(std::size_t index) const = 0;
  // Where the fields come from, for the log.
  virtual std::string describe() const = 0;
  // The date the met times count from, as the first file writes it ("1900-01-01 00:00:00"), or
  // empty when the fields have no date (synthetic fields, met files in plain seconds).
  virtual std::string time_reference() const { return {}; }
};

// invalid_input when the run's start lies outside the source's times, or the first met
// interval is not a whole number of steps.
std::unique_ptr<MetSource> make_met_source(const TrajectoryOptions& options);

}  // namespace foehn::app
