"""Particles: air parcels transported through a met grid (winds on longitude x latitude x
pressure at two times) on the CPU or the GPU, with MPTRAC-like physics. Results are plain arrays
that xarray takes as they are (to_xarray)."""
import numpy as np

from . import _foehn
from ._arrays import count, finite_doubles, real


def _axis(values, name):
    array = finite_doubles(values, name)
    if array.ndim != 1:
        raise _foehn.InvalidInputError(f"{name}: a 1-D array expected, got shape {array.shape}")
    return array


class MetGrid:
    """Winds on a longitude-latitude grid, global in longitude, global or regional in latitude,
    at two times t0 < t1.

    longitudes: nlon increasing values, equally spaced, covering the globe once (radians, e.g.
    np.arange(nlon) * 2 * np.pi / nlon); latitudes: nlat equally spaced values in radians,
    increasing or decreasing, pole to pole or a regional band; pressure_levels (Pa, monotonic).
    u, v (m/s) and omega (Pa/s) at t0 and t1: arrays of shape (levels, nlat, nlon). The axes are
    read as foehn-trajectories reads a met file's (the same function): a regional or irregular
    longitude axis, irregular latitudes, degrees instead of radians and winds of another shape
    are refused.
    """

    def __init__(self, longitudes, latitudes, pressure_levels, t0, t1, u0, v0, omega0, u1, v1,
                 omega1):
        longitudes = _axis(longitudes, "longitudes")
        latitudes = _axis(latitudes, "latitudes")
        levels = _axis(pressure_levels, "pressure_levels")
        shape = (levels.size, latitudes.size, longitudes.size)
        winds = []
        for values, name in ((u0, "u0"), (v0, "v0"), (omega0, "omega0"), (u1, "u1"), (v1, "v1"),
                             (omega1, "omega1")):
            array = finite_doubles(values, name)
            if array.shape != shape:
                raise _foehn.InvalidInputError(
                    f"{name}: shape {array.shape}, expected (levels, nlat, nlon) = {shape}")
            winds.append(array)
        if latitudes.size > 1 and latitudes[-1] < latitudes[0]:
            # North to south (as ERA5 stores them): the grid's latitudes ascend.
            latitudes = latitudes[::-1]
            winds = [w[:, ::-1, :] for w in winds]
        self._handle = _foehn.MetGrid(
            longitudes, np.ascontiguousarray(latitudes), [float(p) for p in levels],
            real(t0, "t0"), real(t1, "t1"), *(np.ascontiguousarray(w).ravel() for w in winds))


def transport(grid, longitude, latitude, pressure, t_start, dt, steps, *, backend="auto",
              scheme="midpoint", diffusion=False, subgrid_wind=False, decay_time_troposphere=0.0,
              decay_time_stratosphere=0.0, seed=0, track_path_length=False, first_step_index=0):
    """Moves parcels (radians, radians, Pa) `steps` steps of `dt` seconds from t_start.

    The whole run must lie within the grid's times [t0, t1]; latitudes within [-pi/2, pi/2],
    longitudes within [-2 pi, 2 pi]; decay times >= 0 (0: no decay). Returns a dict of NumPy
    arrays by parcel: longitude, latitude, pressure, time, status (0 active, 1 left a regional
    grid: frozen where it left), the quantities the physics keeps (mass with decay, subgrid
    winds, path lengths), and "report" (counts)."""
    lon, lat, p, time, status, report, quantities = _foehn.transport_parcels(
        grid._handle, finite_doubles(longitude, "longitude").ravel(),
        finite_doubles(latitude, "latitude").ravel(),
        finite_doubles(pressure, "pressure").ravel(), real(t_start, "t_start"), real(dt, "dt"),
        count(steps, "steps", 0), count(first_step_index, "first_step_index", 0), backend,
        scheme, bool(diffusion), bool(subgrid_wind),
        real(decay_time_troposphere, "decay_time_troposphere"),
        real(decay_time_stratosphere, "decay_time_stratosphere"), count(seed, "seed", 0),
        bool(track_path_length))
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
