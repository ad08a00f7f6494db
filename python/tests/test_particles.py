"""Parcels through a met grid from Python: a uniform zonal wind moves them along their latitude
circle at u / (R cos(lat)); the GPU agrees with the CPU; results go to xarray."""
import numpy as np
import pytest

import foehn
from foehn import particles

EARTH_RADIUS = 6.37122e6  # m, Foehn's (MPTRAC's) sphere


def zonal_grid(u=20.0):
    lon = np.radians(np.arange(0.0, 360.0, 2.0))
    lat = np.radians(np.arange(-88.0, 88.1, 2.0))
    levels = np.array([100000.0, 50000.0, 10000.0])
    shape = (levels.size, lat.size, lon.size)
    wind = np.full(shape, u)
    zero = np.zeros(shape)
    return particles.MetGrid(lon, lat, levels, 0.0, 86400.0, wind, zero, zero, wind, zero, zero)


def test_uniform_zonal_wind_moves_along_the_latitude_circle():
    grid = zonal_grid()
    lat0 = np.radians([-30.0, 0.0, 10.0, 45.0])
    lon0 = np.radians([10.0, 100.0, 200.0, 300.0])
    p0 = np.full(4, 70000.0)
    result = particles.transport(grid, lon0, lat0, p0, 0.0, 600.0, 36, backend="cpu",
                                 scheme="rk4")
    travelled = 20.0 * 600.0 * 36 / (EARTH_RADIUS * np.cos(lat0))
    moved = np.angle(np.exp(1j * (result["longitude"] - lon0)))
    np.testing.assert_allclose(moved, travelled, rtol=1e-6)
    np.testing.assert_allclose(result["latitude"], lat0, atol=1e-6)
    np.testing.assert_array_equal(result["pressure"], p0)
    np.testing.assert_array_equal(result["time"], 600.0 * 36)
    assert result["report"]["active"] == 4


def test_gpu_agrees_with_cpu():
    if foehn.cuda_device_count() == 0:
        pytest.skip("no CUDA device")
    grid = zonal_grid()
    rng = np.random.default_rng(5)
    lon, lat = rng.uniform(0, 2 * np.pi, 1000), rng.uniform(-1.2, 1.2, 1000)
    p = rng.uniform(20000.0, 90000.0, 1000)
    cpu = particles.transport(grid, lon, lat, p, 0.0, 300.0, 20, backend="cpu")
    gpu = particles.transport(grid, lon, lat, p, 0.0, 300.0, 20, backend="cuda")
    np.testing.assert_allclose(gpu["longitude"], cpu["longitude"], rtol=1e-12)
    np.testing.assert_allclose(gpu["latitude"], cpu["latitude"], rtol=1e-12, atol=1e-14)


def test_bad_inputs_are_refused():
    grid = zonal_grid()
    with pytest.raises(foehn.InvalidInputError, match="one per parcel"):
        particles.transport(grid, [0.0, 1.0], [0.0], [50000.0], 0.0, 60.0, 1)
    with pytest.raises(foehn.InvalidInputError, match="scheme"):
        particles.transport(grid, [0.0], [0.0], [50000.0], 0.0, 60.0, 1, scheme="leapfrog")
    lon = np.radians(np.arange(0.0, 360.0, 2.0))
    with pytest.raises(foehn.InvalidInputError):
        particles.MetGrid(lon, [0.0, 0.1], [1e5, 5e4], 0.0, 1.0, *([np.zeros(3)] * 6))


def test_results_as_xarray():
    xarray = pytest.importorskip("xarray")
    result = particles.transport(zonal_grid(), [0.0], [0.0], [50000.0], 0.0, 60.0, 2)
    dataset = particles.to_xarray(result)
    assert isinstance(dataset, xarray.Dataset)
    assert dataset["pressure"].attrs["units"] == "Pa"
    assert dataset.sizes["parcel"] == 1
