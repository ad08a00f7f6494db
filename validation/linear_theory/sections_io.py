"""The HDF5 layout shared by the linear theory and the dynamical core ("mountain-wave sections").

Both write fields sampled on a regular grid in this layout, and compare_to_linear_theory.py reads
either. docs/linear_theory.md describes it; in short (float64 everywhere, SI units, the mountain
summit at x = y = 0, z measured from the flat ground z = 0, NaN = no value at that point, e.g.
below the terrain or outside the mesh):

    /                     attributes: layout = "foehn.mountain_wave_sections", layout_version = 1,
                          source, h0, a, U, N, theta0, g, optional length_x, length_y, time, ...
    /x [nx], /y [ny]      axes of the horizontal sections, increasing
    /horizontal/z [nh]    heights of the horizontal sections
    /horizontal/<f> [nh][ny][nx]      f = w (required), theta, u, v, p (optional)
    /section_y0/x [nxs], /section_y0/z [nzs]   (attribute y: the section's y, normally 0)
    /section_y0/<f> [nzs][nxs]

At least one of the two groups must be present; each present group must hold w.
"""

import os
from dataclasses import dataclass, field

import numpy as np

LAYOUT = "foehn.mountain_wave_sections"
LAYOUT_VERSION = 1
KNOWN_FIELDS = ("w", "theta", "u", "v", "p")
CASE_ATTRIBUTES = ("h0", "a", "U", "N", "theta0", "g")
_UNITS = {"w": "m s-1", "u": "m s-1", "v": "m s-1", "theta": "K", "p": "m2 s-2"}
_DESCRIPTIONS = {
    "w": "vertical velocity",
    "u": "perturbation of the x velocity (total u = U + u)",
    "v": "y velocity",
    "theta": "potential-temperature perturbation theta - theta_bar(z), "
             "theta_bar = theta0 (1 + N^2 z / g)",
    "p": "kinematic pressure perturbation p'/rho0",
}


class LayoutError(ValueError):
    """A file that does not follow the layout; the message names the file and the problem."""


@dataclass
class Sections:
    x: np.ndarray = None                     # [nx]
    y: np.ndarray = None                     # [ny]
    heights: np.ndarray = None               # [nh]
    horizontal: dict = field(default_factory=dict)   # name -> [nh, ny, nx]
    section_x: np.ndarray = None             # [nxs]
    section_z: np.ndarray = None             # [nzs]
    section_y: float = 0.0
    section: dict = field(default_factory=dict)      # name -> [nzs, nxs]
    attrs: dict = field(default_factory=dict)

    @property
    def has_horizontal(self):
        return self.heights is not None and "w" in self.horizontal

    @property
    def has_section(self):
        return self.section_z is not None and "w" in self.section


def _write_dataset(group, name, data, units=None, description=None):
    dataset = group.create_dataset(name, data=np.asarray(data, dtype=np.float64))
    if units:
        dataset.attrs["units"] = units
    if description:
        dataset.attrs["description"] = description
    return dataset


def write_sections(path, sections):
    """Writes `sections` to `path` (under a temporary name, then renamed, so an interrupted run
    leaves no half-written file)."""
    import h5py

    check_sections(sections, str(path))
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with h5py.File(tmp, "w") as f:
            f.attrs["layout"] = LAYOUT
            f.attrs["layout_version"] = LAYOUT_VERSION
            for key, value in sections.attrs.items():
                if key in ("layout", "layout_version") or value is None:
                    continue
                f.attrs[key] = value
            if sections.has_horizontal:
                _write_dataset(f, "x", sections.x, "m", "x of the horizontal sections")
                _write_dataset(f, "y", sections.y, "m", "y of the horizontal sections")
                group = f.create_group("horizontal")
                _write_dataset(group, "z", sections.heights, "m", "heights of the sections")
                for name, values in sections.horizontal.items():
                    _write_dataset(group, name, values, _UNITS.get(name),
                                   _DESCRIPTIONS.get(name))
            if sections.has_section:
                group = f.create_group("section_y0")
                group.attrs["y"] = float(sections.section_y)
                _write_dataset(group, "x", sections.section_x, "m", "x of the section")
                _write_dataset(group, "z", sections.section_z, "m", "heights of the section")
                for name, values in sections.section.items():
                    _write_dataset(group, name, values, _UNITS.get(name), _DESCRIPTIONS.get(name))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _axis(where, name, values):
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise LayoutError(f"{where}: {name} must be a non-empty 1D array")
    if not np.all(np.isfinite(values)):
        raise LayoutError(f"{where}: {name} has non-finite values")
    if values.size > 1 and np.any(np.diff(values) <= 0):
        raise LayoutError(f"{where}: {name} must be strictly increasing")
    return values


def check_sections(s, where):
    """Raises LayoutError unless `s` is consistent (axes, shapes, w present)."""
    if not s.has_horizontal and not s.has_section:
        raise LayoutError(f"{where}: neither /horizontal nor /section_y0 with a w dataset")
    if s.heights is not None:
        s.x = _axis(where, "/x", s.x)
        s.y = _axis(where, "/y", s.y)
        s.heights = _axis(where, "/horizontal/z", s.heights)
        shape = (s.heights.size, s.y.size, s.x.size)
        for name, values in s.horizontal.items():
            values = np.asarray(values, dtype=float)
            if values.shape != shape:
                raise LayoutError(f"{where}: /horizontal/{name} has shape {values.shape}, "
                                  f"expected [z][y][x] = {shape}")
            s.horizontal[name] = values
    if s.section_z is not None:
        s.section_x = _axis(where, "/section_y0/x", s.section_x)
        s.section_z = _axis(where, "/section_y0/z", s.section_z)
        shape = (s.section_z.size, s.section_x.size)
        for name, values in s.section.items():
            values = np.asarray(values, dtype=float)
            if values.shape != shape:
                raise LayoutError(f"{where}: /section_y0/{name} has shape {values.shape}, "
                                  f"expected [z][x] = {shape}")
            s.section[name] = values


def _attr_value(value):
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def read_sections(path):
    """Reads a file in the layout; raises LayoutError (missing file, not HDF5, wrong layout,
    missing or inconsistent datasets) with a message naming the file."""
    import h5py

    where = str(path)
    if not os.path.isfile(path):
        raise LayoutError(f"{where}: no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as error:
        raise LayoutError(f"{where}: not a readable HDF5 file ({error})") from None
    with f:
        attrs = {key: _attr_value(value) for key, value in f.attrs.items()}
        layout = attrs.get("layout")
        if layout is not None and layout != LAYOUT:
            raise LayoutError(f"{where}: layout attribute is {layout!r}, expected {LAYOUT!r}")
        version = attrs.get("layout_version", LAYOUT_VERSION)
        if int(version) > LAYOUT_VERSION:
            raise LayoutError(f"{where}: layout_version {version} is newer than this reader "
                              f"({LAYOUT_VERSION})")
        s = Sections(attrs=attrs)

        def read(node):
            if not isinstance(node, h5py.Dataset):
                raise LayoutError(f"{where}: {node.name} is not a dataset")
            return np.asarray(node[()], dtype=float)

        if "horizontal" in f:
            group = f["horizontal"]
            for required in ("z", "w"):
                if required not in group:
                    raise LayoutError(f"{where}: /horizontal has no {required} dataset")
            for axis in ("x", "y"):
                if axis not in f:
                    raise LayoutError(f"{where}: /horizontal needs the axis /{axis}")
            s.x, s.y, s.heights = read(f["x"]), read(f["y"]), read(group["z"])
            for name in KNOWN_FIELDS:
                if name in group:
                    s.horizontal[name] = read(group[name])
        if "section_y0" in f:
            group = f["section_y0"]
            for required in ("x", "z", "w"):
                if required not in group:
                    raise LayoutError(f"{where}: /section_y0 has no {required} dataset")
            s.section_x, s.section_z = read(group["x"]), read(group["z"])
            s.section_y = float(group.attrs.get("y", 0.0))
            for name in KNOWN_FIELDS:
                if name in group:
                    s.section[name] = read(group[name])
    check_sections(s, where)
    return s
