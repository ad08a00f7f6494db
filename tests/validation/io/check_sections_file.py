#!/usr/bin/env python3
"""The C++ sections writer against the Python layout: runs write_test_sections (a small
mountain mesh, fields linear in space), reads its file with validation/linear_theory/
sections_io.read_sections and checks shapes, axes, attributes, the exact linear values and NaN
below the terrain, then runs compare_to_linear_theory.py on it (it must accept the file: exit 0
or 1, a comparison.json, never 2 = bad input).

    check_sections_file.py WRITER [LAUNCHER ...]     exits 77 (skipped) without numpy/h5py
"""

import json
import os
import subprocess
import sys
import tempfile

LINEAR_THEORY_DIR = os.environ.get("FOEHN_LINEAR_THEORY_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "validation", "linear_theory")
sys.path.insert(0, LINEAR_THEORY_DIR)

try:
    import numpy as np
    import h5py  # noqa: F401  (sections_io imports it lazily)
except ImportError as missing:
    print(f"skipped: {missing} (apt-get install python3-numpy python3-h5py)")
    sys.exit(77)

import sections_io  # noqa: E402

U = 10.0


def u_of(x, y, z): return 10.0 + 1e-4 * x - 2e-4 * z   # noqa: E704  (as write_test_sections.cpp)
def v_of(x, y, z): return 3e-5 * y + 0 * x             # noqa: E704
def w_of(x, y, z): return 0.5 + 1e-5 * x + 2e-5 * y - 3e-5 * z  # noqa: E704
def theta_of(x, y, z): return -1e-4 * z + 2.0 + 0 * x  # noqa: E704
def p_of(x, y, z): return 1e-3 * (x + y + z)           # noqa: E704


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def check_close(name, model, expected):
    valid = np.isfinite(model)
    error = np.max(np.abs(model[valid] - expected[valid])) if valid.any() else 0.0
    if error > 1e-10:
        fail(f"{name}: largest difference from the linear field {error}")


def main():
    writer = sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="foehn_sections_") as tmp:
        path = os.path.join(tmp, "model_sections.h5")
        result = subprocess.run([*writer, path], capture_output=True, text=True, timeout=300)
        print(result.stdout, result.stderr)
        if result.returncode != 0:
            fail(f"writer exited {result.returncode}")
        if any(name.startswith("model_sections.h5.tmp") for name in os.listdir(tmp)):
            fail("a temporary file was left behind")

        s = sections_io.read_sections(path)  # raises LayoutError on any layout problem
        attrs = s.attrs
        if attrs.get("layout") != sections_io.LAYOUT or int(attrs.get("layout_version")) != 1:
            fail(f"layout attributes {attrs.get('layout')!r} {attrs.get('layout_version')!r}")
        for key, value in (("h0", 400.0), ("a", 1000.0), ("U", U), ("N", 0.01),
                           ("theta0", 293.15), ("g", 9.81), ("length_x", 60000.0),
                           ("length_y", 60000.0), ("time", 3600.0)):
            if attrs.get(key) != value:
                fail(f"attribute {key} = {attrs.get(key)!r}, expected {value}")
        if not isinstance(attrs.get("source"), str):
            fail("attribute source is not a string")

        axis = np.arange(-30000.0, 30000.0 + 1.0, 1000.0)
        if not (np.array_equal(s.x, axis) and np.array_equal(s.y, axis)
                and np.array_equal(s.heights, [2000.0, 5000.0])
                and np.array_equal(s.section_x, axis)
                and np.array_equal(s.section_z, np.arange(0.0, 16000.0 + 1.0, 500.0))
                and s.section_y == 0.0):
            fail("axes differ from the writer's grid")
        if sorted(s.horizontal) != ["p", "theta", "u", "v", "w"] or sorted(s.section) != sorted(
                s.horizontal):
            fail(f"fields {sorted(s.horizontal)} / {sorted(s.section)}")

        z, y, x = np.meshgrid(s.heights, s.y, s.x, indexing="ij")
        sz, sx = np.meshgrid(s.section_z, s.section_x, indexing="ij")
        sy = np.zeros_like(sx)
        for name, function, offset in (("w", w_of, 0.0), ("u", u_of, U), ("v", v_of, 0.0),
                                       ("theta", theta_of, 0.0), ("p", p_of, 0.0)):
            if not np.all(np.isfinite(s.horizontal[name])):
                fail(f"/horizontal/{name} has NaN above the terrain")
            check_close(f"/horizontal/{name}", s.horizontal[name], function(x, y, z) - offset)
            check_close(f"/section_y0/{name}", s.section[name], function(sx, sy, sz) - offset)
        w = s.section["w"]
        if not np.all(np.isnan(w[0])):
            fail("the section at z = 0 (below the terrain) is not all NaN")
        if not np.all(np.isfinite(w[s.section_z > 400.0])):
            fail("the section above the summit has NaN")
        with h5py.File(path, "r") as f:
            if f["horizontal/w"].attrs.get("units") not in ("m s-1", b"m s-1"):
                fail("/horizontal/w has no units")

        out = os.path.join(tmp, "comparison")
        compare = os.path.join(LINEAR_THEORY_DIR, "compare_to_linear_theory.py")
        result = subprocess.run([sys.executable, compare, "--model", path, "--out", out,
                                 "--no-plots", "--pad", "4,2"],
                                capture_output=True, text=True, timeout=300)
        print(result.stdout, result.stderr)
        if result.returncode not in (0, 1):
            fail(f"compare_to_linear_theory.py exited {result.returncode} (2 = bad input)")
        with open(os.path.join(out, "comparison.json")) as report:
            json.load(report)
    print("sections file OK")


if __name__ == "__main__":
    main()
