#include "met_source.hpp"

#include <cmath>
#include <sstream>

#include "foehn/particles/io/met_netcdf.hpp"
#include "foehn/particles/synthetic.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::app {

namespace {

using namespace foehn::particles;

// A synthetic functor sampled at start + k * interval, for ever.
template <class WindField>
class SyntheticSource final : public MetSource {
 public:
  SyntheticSource(MetGridGeometry geometry, WindField wind, double start, double interval,
                  std::string name)
      : geometry_(std::move(geometry)),
        wind_(wind),
        start_(start),
        interval_(interval),
        name_(std::move(name)) {
    geometry_.t0 = start;
    geometry_.t1 = start + interval;
  }
  const MetGridGeometry& geometry() const override { return geometry_; }
  std::optional<double> time(std::size_t index) const override {
    return start_ + static_cast<double>(index) * interval_;
  }
  WindLevel wind(std::size_t index) const override {
    return sample_on_grid(geometry_, wind_, *time(index));
  }
  std::string describe() const override {
    std::ostringstream s;
    s << name_ << " on " << geometry_.nlon << " x " << geometry_.nlat << " x "
      << geometry_.pressure_levels.size() << " points every " << interval_ << " s";
    return s.str();
  }

 private:
  MetGridGeometry geometry_;
  WindField wind_;
  double start_, interval_;
  std::string name_;
};

// Every time of every file, in order; the files must share one grid and their times must
// increase strictly across files.
class NetcdfSource final : public MetSource {
 public:
  explicit NetcdfSource(const std::vector<std::string>& paths) {
    for (const std::string& path : paths) files_.push_back(read_met_file_info(path));
    for (std::size_t f = 0; f < files_.size(); ++f) {
      if (f > 0) require_same_met_grid(files_.front(), files_[f]);
      for (std::size_t k = 0; k < files_[f].times.size(); ++k) {
        const double t = files_[f].times[k];
        if (!entries_.empty() && !(t > entries_.back().time)) {
          fail(ErrorCategory::invalid_input, "met file ", files_[f].path.string(), ": time ", t,
               " s (index ", k, ") does not come after ", entries_.back().time,
               " s of the previous field; give -met_files in time order");
        }
        entries_.push_back(Entry{f, k, t});
      }
    }
    if (entries_.size() < 2) {
      fail(ErrorCategory::invalid_input, "-met_files: need at least two met times in all, got ",
           entries_.size());
    }
    geometry_ = files_.front().geometry;
    geometry_.t0 = entries_[0].time;
    geometry_.t1 = entries_[1].time;
  }
  const MetGridGeometry& geometry() const override { return geometry_; }
  std::optional<double> time(std::size_t index) const override {
    if (index >= entries_.size()) return std::nullopt;
    return entries_[index].time;
  }
  WindLevel wind(std::size_t index) const override {
    const Entry& e = entries_.at(index);
    return read_met_wind(files_[e.file], e.time_index);
  }
  std::string describe() const override {
    std::ostringstream s;
    s << files_.size() << " netCDF file(s), " << entries_.size() << " times from "
      << entries_.front().time << " to " << entries_.back().time << " s, " << geometry_.nlon
      << " x " << geometry_.nlat << " x " << geometry_.pressure_levels.size() << " points";
    return s.str();
  }
  // require_same_met_grid made every file's reference the same instant.
  std::string time_reference() const override { return files_.front().time_reference; }

 private:
  struct Entry {
    std::size_t file, time_index;
    double time;
  };
  std::vector<MetFileInfo> files_;
  std::vector<Entry> entries_;
  MetGridGeometry geometry_;
};

}  // namespace

std::unique_ptr<MetSource> make_met_source(const TrajectoryOptions& o) {
  if (o.met == MetKind::netcdf) return std::make_unique<NetcdfSource>(o.met_files);
  const MetGridGeometry geometry =
      make_global_geometry(o.nlon, o.nlat, log_pressure_levels(o.nlev, 0.0, o.z_top), o.start_time,
                           o.start_time + o.met_interval);
  geometry.validate();
  if (o.met == MetKind::solid_body) {
    return std::make_unique<SyntheticSource<SolidBodyWind>>(geometry, o.solid_body, o.start_time,
                                                            o.met_interval, "solid-body rotation");
  }
  return std::make_unique<SyntheticSource<TurbulentWind>>(geometry, o.turbulent, o.start_time,
                                                          o.met_interval, "turbulent field");
}

}  // namespace foehn::app
