// Particles: air parcels transported through a met grid (winds on longitude x latitude x
// pressure at two times), on the CPU reference or the GPU, with the MPTRAC-like physics of
// foehn/particles/transport.hpp. Positions arrive and return as NumPy arrays.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "foehn/particles/met_axes.hpp"
#include "foehn/particles/met_grid.hpp"
#include "foehn/particles/particle_set.hpp"
#include "foehn/particles/transport.hpp"
#include "foehn/particles/transport_checks.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::python {

namespace {

using namespace foehn::particles;

std::vector<double> copy_of(const HostDoubles& values) {
  return std::vector<double>(values.data(), values.data() + values.size());
}

struct GridHandle {
  std::optional<MetGrid> grid;
};

Integrator integrator_of(const std::string& name) {
  if (name == "euler") return Integrator::euler;
  if (name == "midpoint") return Integrator::midpoint;
  if (name == "rk4") return Integrator::rk4;
  fail(ErrorCategory::invalid_input, "scheme '", name, "' is not one of euler, midpoint, rk4");
}

}  // namespace

void register_particles(nb::module_& module) {
  nb::class_<GridHandle>(module, "MetGrid")
      .def(
          "__init__",
          [](GridHandle* self, HostDoubles longitudes, HostDoubles latitudes,
             std::vector<double> pressure_levels, double t0, double t1, HostDoubles u0,
             HostDoubles v0, HostDoubles omega0, HostDoubles u1, HostDoubles v1,
             HostDoubles omega1) {
            // The axes as foehn-trajectories reads a met file's (in radians here): global in
            // longitude, regular; the Python layer has put the latitudes in ascending order.
            const HorizontalAxes axes = describe_horizontal_axes(
                {longitudes.data(), longitudes.size()}, {latitudes.data(), latitudes.size()},
                AngleUnit::radians, "MetGrid");
            if (axes.latitude_north_to_south)
              fail(ErrorCategory::invalid_input, "MetGrid: latitudes must increase");
            MetGridGeometry geometry;
            geometry.nlon = axes.nlon;
            geometry.nlat = axes.nlat;
            geometry.first_longitude = axes.first_longitude;
            geometry.first_latitude = axes.first_latitude;
            geometry.latitude_spacing = axes.latitude_spacing;
            geometry.pressure_levels = std::move(pressure_levels);
            geometry.t0 = t0;
            geometry.t1 = t1;
            geometry.validate();
            new (self) GridHandle();
            self->grid.emplace(std::move(geometry),
                               WindLevel{copy_of(u0), copy_of(v0), copy_of(omega0)},
                               WindLevel{copy_of(u1), copy_of(v1), copy_of(omega1)});
          },
          nb::arg("longitudes"), nb::arg("latitudes"), nb::arg("pressure_levels"), nb::arg("t0"),
          nb::arg("t1"), nb::arg("u0"), nb::arg("v0"), nb::arg("omega0"), nb::arg("u1"),
          nb::arg("v1"), nb::arg("omega1"))
      .def_prop_ro("point_count",
                   [](const GridHandle& g) { return g.grid->geometry().point_count(); });

  // Returns (longitude, latitude, pressure, time, status, report, quantities).
  module.def(
      "transport_parcels",
      [](const GridHandle& grid, HostDoubles longitude, HostDoubles latitude, HostDoubles pressure,
         double t_start, double dt, int steps, std::int64_t first_step_index,
         const std::string& backend, const std::string& scheme, bool diffusion, bool subgrid_wind,
         double decay_time_troposphere, double decay_time_stratosphere, std::uint32_t seed,
         bool track_path_length) {
        const std::size_t n = longitude.size();
        if (latitude.size() != n || pressure.size() != n)
          fail(ErrorCategory::invalid_input, "longitude, latitude and pressure: ", n, ", ",
               latitude.size(), " and ", pressure.size(), " values (one per parcel expected)");
        ParticleSet parcels;
        for (std::size_t i = 0; i < n; ++i)
          parcels.add(longitude.data()[i], latitude.data()[i], pressure.data()[i], t_start,
                      static_cast<std::int64_t>(i));
        // The checks foehn-trajectories makes of its parcel files and its run, in radians.
        require_geographic_positions(parcels);
        const TransportClock clock{t_start, dt, steps, first_step_index};
        require_clock_within_met_times(clock, grid.grid->geometry());
        TransportSettings settings;
        settings.physics.scheme = integrator_of(scheme);
        settings.physics.diffusion = diffusion;
        settings.physics.subgrid_wind = subgrid_wind;
        settings.physics.decay_time_troposphere = decay_time_troposphere;
        settings.physics.decay_time_stratosphere = decay_time_stratosphere;
        settings.physics.seed = seed;
        settings.physics.track_path_length = track_path_length;
        if (settings.physics.decays())
          parcels.add_quantity("mass", 1.0);
        else
          settings.decaying_quantities.clear();
        settings.validate();  // before any device work: a negative decay time, ...
        const std::string chosen = chosen_backend(backend);
        TransportReport report;
        {
          nb::gil_scoped_release unlocked;
          if (chosen == "cpu") {
            report = transport(parcels, *grid.grid, clock, settings);
          } else {
            const Stream stream;
            DeviceMetGrid device_grid(*grid.grid, stream);
            DeviceParticleSet device = DeviceParticleSet::upload(parcels, stream);
            report = transport(device, device_grid, clock, settings, stream);
            device.download(parcels, stream);
          }
        }
        std::vector<std::uint8_t> status(n);
        for (std::size_t i = 0; i < n; ++i)
          status[i] = static_cast<std::uint8_t>(parcels.status[i]);
        nb::dict counts;
        counts["parcels"] = report.parcels;
        counts["active"] = report.active;
        counts["left_domain"] = report.left_domain;
        counts["vertical_clamps"] = report.vertical_clamps;
        nb::dict quantities;
        for (const std::string& name : parcels.quantity_names()) {
          std::vector<double> values = parcels.quantity(name);
          quantities[name.c_str()] = to_numpy(std::move(values), {n});
        }
        return nb::make_tuple(
            to_numpy(std::move(parcels.longitude), {n}), to_numpy(std::move(parcels.latitude), {n}),
            to_numpy(std::move(parcels.pressure), {n}), to_numpy(std::move(parcels.time), {n}),
            to_numpy(std::move(status), {n}), counts, quantities);
      },
      nb::arg("grid"), nb::arg("longitude"), nb::arg("latitude"), nb::arg("pressure"),
      nb::arg("t_start"), nb::arg("dt"), nb::arg("steps"), nb::arg("first_step_index"),
      nb::arg("backend"), nb::arg("scheme"), nb::arg("diffusion"), nb::arg("subgrid_wind"),
      nb::arg("decay_time_troposphere"), nb::arg("decay_time_stratosphere"), nb::arg("seed"),
      nb::arg("track_path_length"));
}

}  // namespace foehn::python
