"""Issue 55: parcel transport from Python is as strict as foehn-trajectories. The met grid's
axes are read by the function that reads a met file's (global, regular longitudes; regular
latitudes, regional or pole to pole), winds must have the declared shape, and parcels, times and
physics outside what the command line accepts are refused."""
import numpy as np
import pytest

import foehn
from foehn import particles

EARTH_RADIUS = 6.37122e6  # m, Foehn's sphere
LON = np.radians(np.arange(0.0, 360.0, 2.0))
LEVELS = np.array([100000.0, 50000.0, 10000.0])
DAY = 86400.0


def grid(lat_degrees, u=15.0, lon=LON, shape=None):
    lat = np.radians(lat_degrees)
    shape = shape or (LEVELS.size, lat.size, lon.size)
    wind, zero = np.full(shape, u), np.zeros(shape)
    return particles.MetGrid(lon, lat, LEVELS, 0.0, DAY, wind, zero, zero, wind, zero, zero)


def test_a_regional_latitude_band_moves_parcels_at_the_wind_speed():
    band = grid(np.arange(0.0, 20.1, 1.0))
    lat0 = np.radians([5.0, 10.0, 15.0])
    result = particles.transport(band, np.zeros(3), lat0, np.full(3, 70000.0), 0.0, 600.0, 36,
                                 backend="cpu", scheme="rk4")
    speed = result["longitude"] * EARTH_RADIUS * np.cos(lat0) / (600.0 * 36)
    np.testing.assert_allclose(speed, 15.0, rtol=1e-6)
    np.testing.assert_array_equal(result["status"], 0)


def test_a_parcel_leaving_a_regional_band_is_frozen_and_flagged():
    lat = np.radians(np.arange(0.0, 20.1, 1.0))
    shape = (LEVELS.size, lat.size, LON.size)
    v = np.full(shape, 30.0)
    zero = np.zeros(shape)
    moving_north = particles.MetGrid(LON, lat, LEVELS, 0.0, DAY, zero, v, zero, zero, v, zero)
    result = particles.transport(moving_north, [0.0], [np.radians(19.5)], [70000.0], 0.0, 600.0,
                                 10, backend="cpu")
    assert result["status"][0] == 1 and result["report"]["left_domain"] == 1


@pytest.mark.parametrize("lon, fragment", [
    (np.radians(np.arange(0.0, 20.1, 1.0)), "covering 2 pi radians"),  # regional: not possible
    (np.arange(0.0, 360.0, 2.0), "covering 2 pi radians"),              # degrees, not radians
    (np.radians(np.r_[0.0, 3.0, np.arange(4.0, 360.0, 2.0)]), "lon\\[1\\]"),  # irregular
    (np.radians(np.arange(0.0, 360.1, 2.0)), "repeats the first"),
    (np.radians(np.arange(358.0, -1.0, -2.0)), "increasing"),
])
def test_longitude_axes_the_command_line_refuses_are_refused(lon, fragment):
    with pytest.raises(foehn.InvalidInputError, match=fragment):
        grid(np.arange(-88.0, 88.1, 2.0), lon=lon)


@pytest.mark.parametrize("lat, fragment", [
    (np.degrees(np.arange(-88.0, 88.1, 2.0)), "leave \\[-pi/2, pi/2\\]"),  # degrees given
    (np.array([0.0, 1.0, 3.0, 4.0]), "not regularly spaced"),
    (np.array([0.0, 0.0]), "not regularly spaced"),
    (np.array([0.0, np.nan]), "not a finite number"),
])
def test_latitude_axes_the_command_line_refuses_are_refused(lat, fragment):
    with pytest.raises(foehn.InvalidInputError, match=fragment):
        grid(np.degrees(np.radians(lat)))


def test_winds_of_another_shape_than_the_axes_are_refused():
    lat = np.arange(-88.0, 88.1, 2.0)
    with pytest.raises(foehn.InvalidInputError, match="levels, nlat, nlon"):
        grid(lat, shape=(LEVELS.size, LON.size, lat.size))  # transposed
    with pytest.raises(foehn.InvalidInputError, match="levels, nlat, nlon"):
        grid(lat, shape=(LEVELS.size * lat.size * LON.size,))  # flat


def test_north_to_south_latitudes_give_the_same_motion():
    lat = np.radians(np.arange(-88.0, 88.1, 2.0))
    shape = (LEVELS.size, lat.size, LON.size)
    u = np.broadcast_to(10.0 + 20.0 * np.cos(lat)[None, :, None], shape).copy()
    v = np.broadcast_to(3.0 * np.sin(LON)[None, None, :], shape).copy()
    zero = np.zeros(shape)
    south_north = particles.MetGrid(LON, lat, LEVELS, 0.0, DAY, u, v, zero, u, v, zero)
    north_south = particles.MetGrid(LON, lat[::-1], LEVELS, 0.0, DAY, u[:, ::-1], v[:, ::-1],
                                    zero, u[:, ::-1], v[:, ::-1], zero)
    start = (np.radians([10.0, 200.0]), np.radians([-40.0, 33.0]), [60000.0, 30000.0])
    a = particles.transport(south_north, *start, 0.0, 900.0, 24, backend="cpu")
    b = particles.transport(north_south, *start, 0.0, 900.0, 24, backend="cpu")
    np.testing.assert_allclose(a["longitude"], b["longitude"], rtol=1e-13)
    np.testing.assert_allclose(a["latitude"], b["latitude"], rtol=1e-13)


@pytest.fixture
def world():
    return grid(np.arange(-88.0, 88.1, 2.0))


@pytest.mark.parametrize("lon, lat, fragment", [
    (0.0, 10.0, "latitude 10"),    # radians expected
    (0.0, 40.0, "latitude 40"),    # degrees given
    (0.0, -1.6, "latitude -1.6"),
    (1e300, 0.0, "longitude 1[.0-9]*e\\+300"),
    (-7.0, 0.0, "longitude -7"),
    (np.nan, 0.0, "not a finite number"),
    (0.0, np.inf, "not a finite number"),
])
def test_parcel_positions_outside_the_sphere_are_refused(world, lon, lat, fragment):
    with pytest.raises(foehn.InvalidInputError, match=fragment):
        particles.transport(world, [0.1, lon], [0.2, lat], [50000.0, 50000.0], 0.0, 60.0, 1,
                            backend="cpu")


@pytest.mark.parametrize("t_start, dt, steps", [
    (0.0, 600.0, 145),      # 87000 s: past t1 = 86400 s
    (-60.0, 60.0, 2),       # starts before t0
    (DAY, 60.0, 1),         # starts at t1, runs past it
    (600.0, -60.0, 11),     # backwards past t0
])
def test_runs_beyond_the_met_times_are_refused(world, t_start, dt, steps):
    with pytest.raises(foehn.InvalidInputError, match="met grid's times"):
        particles.transport(world, [0.0], [0.0], [50000.0], t_start, dt, steps, backend="cpu")


def test_runs_to_the_met_times_are_taken(world):
    forward = particles.transport(world, [0.0], [0.0], [50000.0], 0.0, 600.0, 144, backend="cpu")
    assert forward["time"][0] == DAY
    back = particles.transport(world, [0.0], [0.0], [50000.0], 600.0, -60.0, 10, backend="cpu")
    assert back["time"][0] == 0.0


@pytest.mark.parametrize("option, value, fragment", [
    ("decay_time_troposphere", -10.0, "decay times"),
    ("decay_time_stratosphere", -1.0, "decay times"),
    ("decay_time_troposphere", np.nan, "decay times"),
    ("decay_time_troposphere", 1j, "decay_time_troposphere"),
    ("seed", -1, "seed"),
    ("seed", 1.5, "seed"),
    ("first_step_index", -3, "first_step_index"),
    ("backend", "gpu", "unknown backend"),
])
def test_options_the_command_line_refuses_are_refused(world, option, value, fragment):
    with pytest.raises(foehn.InvalidInputError, match=fragment):
        particles.transport(world, [0.0], [0.0], [50000.0], 0.0, 60.0, 1,
                            **{"backend": "cpu", option: value})


@pytest.mark.parametrize("steps", [2.5, "3", None, -1])
def test_step_counts_must_be_whole_non_negative_numbers(world, steps):
    with pytest.raises(foehn.InvalidInputError, match="steps"):
        particles.transport(world, [0.0], [0.0], [50000.0], 0.0, 60.0, steps, backend="cpu")


def test_cuda_without_a_device_says_so(world):
    if foehn.cuda_device_count() > 0:
        pytest.skip("a CUDA device is present")
    with pytest.raises(foehn.UnavailableError, match="no CUDA device is available|without CUDA"):
        particles.transport(world, [0.0], [0.0], [50000.0], 0.0, 60.0, 1, backend="cuda")
