"""Particles: air parcels transported through a met grid (winds on longitude x latitude x
pressure at two times) on the CPU or the GPU, with MPTRAC-like physics. Results are plain arrays
that xarray takes as they are (to_xarray)."""
import numpy as np

from . import _foehn
from ._arrays import host_doubles


class MetGrid:
    """Winds on a global or regional longitude-latitude grid at two times t0 < t1.

    longitudes: nlon equally spaced values (radians; global grids wrap around); latitudes: nlat
    equally spaced values (radians, increasing); pressure_levels (Pa, monotonic). u, v (m/s) and
    omega (Pa/s) at t0 and t1: arrays of shape (levels, nlat, nlon).
    """

    def __init__(self, longitudes, latitudes, pressure_levels, t0, t1, u0, v0, omega0, u1, v1,
                 omega1):
        longitudes = host_doubles(longitudes, "longitudes")
        latitudes = host_doubles(latitudes, "latitudes")
        spacing = latitudes[1] - latitudes[0] if latitudes.size > 1 else 0.0
        winds = [host_doubles(w, name).ravel() for w, name in
                 ((u0, "u0"), (v0, "v0"), (omega0, "omega0"), (u1, "u1"), (v1, "v1"),
                  (omega1, "omega1"))]
        self._handle = _foehn.MetGrid(
            int(longitudes.size), int(latitudes.size), float(longitudes[0]) if longitudes.size
            else 0.0, float(latitudes[0]) if latitudes.size else 0.0, float(spacing),
            [float(p) for p in host_doubles(pressure_levels, "pressure_levels")], float(t0),
            float(t1), *winds)


def transport(grid, longitude, latitude, pressure, t_start, dt, steps, *, backend="auto",
              scheme="midpoint", diffusion=False, subgrid_wind=False, decay_time_troposphere=0.0,
              decay_time_stratosphere=0.0, seed=0, track_path_length=False, first_step_index=0):
    """Moves parcels (radians, radians, Pa) `steps` steps of `dt` seconds from t_start.

    Returns a dict of NumPy arrays by parcel: longitude, latitude, pressure, time, status
    (0 active, 1 left a regional grid: frozen where it left), the quantities the physics keeps
    (mass with decay, subgrid winds, path lengths), and "report" (counts)."""
    lon, lat, p, time, status, report, quantities = _foehn.transport_parcels(
        grid._handle, host_doubles(longitude, "longitude").ravel(),
        host_doubles(latitude, "latitude").ravel(), host_doubles(pressure, "pressure").ravel(),
        float(t_start), float(dt), int(steps), int(first_step_index), backend, scheme,
        bool(diffusion), bool(subgrid_wind), float(decay_time_troposphere),
        float(decay_time_stratosphere), int(seed), bool(track_path_length))
    result = {"longitude": lon, "latitude": lat, "pressure": p, "time": time, "status": status}
    result.update(quantities)
    result["report"] = dict(report)
    return result


def to_xarray(result):
    """The parcels of transport() as an xarray.Dataset on the dimension "parcel" (units in the
    attributes)."""
    import xarray

    units = {"longitude": "radian", "latitude": "radian", "pressure": "Pa", "time": "s"}
    data = {name: ("parcel", values, {"units": units[name]} if name in units else {})
            for name, values in result.items() if name != "report"}
    return xarray.Dataset(data, coords={"parcel": np.arange(len(result["longitude"]))},
                          attrs={k: v for k, v in result["report"].items()})
