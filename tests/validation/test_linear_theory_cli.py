#!/usr/bin/env python3
"""linear_theory.py as a user runs it: the HDF5 file in the documented layout, the plots, the
numbers in it (checked against the surface condition), exit code 2 on bad input."""

import os
import subprocess
import sys
import tempfile
import unittest

from linear_theory_testlib import LINEAR_THEORY_SCRIPT, bell_dhdx, run

SMALL = ["--x=-12000:12000:500", "--y=-8000:8000:500", "--pad", "4,2",
         "--section-z", "0:8000:500", "--heights", "0,2000,5000"]


def run_script(*args):
    return subprocess.run([sys.executable, LINEAR_THEORY_SCRIPT, *args], capture_output=True,
                          text=True, timeout=300)


class LinearTheoryCli(unittest.TestCase):
    def test_writes_layout_and_plots(self):
        import h5py
        import numpy as np

        with tempfile.TemporaryDirectory() as out:
            result = run_script("--out", out, *SMALL)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("FFT grid", result.stdout)
            path = os.path.join(out, "linear_theory.h5")
            with h5py.File(path, "r") as f:
                self.assertEqual(f.attrs["layout"], "foehn.mountain_wave_sections")
                self.assertEqual(int(f.attrs["layout_version"]), 1)
                for name, value in (("h0", 400.0), ("a", 1000.0), ("U", 10.0), ("N", 0.01),
                                    ("theta0", 293.15), ("g", 9.81)):
                    self.assertEqual(float(f.attrs[name]), value)
                x, y = f["x"][()], f["y"][()]
                np.testing.assert_allclose(x, np.arange(-12000.0, 12001.0, 500.0))
                np.testing.assert_allclose(y, np.arange(-8000.0, 8001.0, 500.0))
                np.testing.assert_allclose(f["horizontal/z"][()], [0.0, 2000.0, 5000.0])
                for name in ("w", "theta", "u", "v", "p"):
                    self.assertEqual(f["horizontal/" + name].shape, (3, y.size, x.size))
                    self.assertIn("units", f["horizontal/" + name].attrs)
                self.assertEqual(f["section_y0/w"].shape, (17, x.size))
                np.testing.assert_allclose(f["section_y0/x"][()], x)
                self.assertEqual(float(f["section_y0"].attrs["y"]), 0.0)
                w0 = f["horizontal/w"][0]
                X, Y = np.meshgrid(x, y)
                exact = 10.0 * bell_dhdx(X, Y, 400.0, 1000.0)
                self.assertLess(np.max(np.abs(w0 - exact)), 1e-3 * np.max(np.abs(exact)))
                # The section's lowest level is the y = 0 row of the z = 0 section.
                np.testing.assert_allclose(f["section_y0/w"][0], w0[y.size // 2], atol=1e-12)
            for png in ("w_z0.png", "w_z2000.png", "w_z5000.png", "w_section_y0.png",
                        "theta_section_y0.png"):
                with open(os.path.join(out, png), "rb") as image:
                    self.assertEqual(image.read(8), b"\x89PNG\r\n\x1a\n", png)
            self.assertEqual([n for n in os.listdir(out) if ".tmp." in n], [])

    def test_hydrostatic_option_and_no_plots(self):
        import h5py

        with tempfile.TemporaryDirectory() as out:
            result = run_script("--out", out, "--name", "hydro", "--hydrostatic", "--no-plots",
                                "--no-section", "--fields", "w", *SMALL)
            self.assertEqual(result.returncode, 0, result.stderr)
            with h5py.File(os.path.join(out, "hydro.h5"), "r") as f:
                self.assertEqual(int(f.attrs["hydrostatic"]), 1)
                self.assertNotIn("section_y0", f)
                self.assertEqual(sorted(f["horizontal"].keys()), ["w", "z"])
            self.assertEqual(sorted(os.listdir(out)), ["hydro.h5"])

    def test_bad_input_exit_code_2(self):
        with tempfile.TemporaryDirectory() as out:
            blocker = os.path.join(out, "file")
            open(blocker, "w").close()
            for args in (["--U", "0"], ["--a", "-5"], ["--fields", "w,q"], ["--pad", "0.5"],
                         ["--heights", "5:1:1"], ["--bogus"]):
                with self.subTest(args=args):
                    result = run_script("--out", out, "--no-plots", *args)
                    self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
                    self.assertTrue(result.stderr.strip())
            result = run_script("--out", os.path.join(blocker, "sub"), "--no-plots", *SMALL)
            self.assertEqual(result.returncode, 2)
            self.assertIn("cannot create", result.stderr)


if __name__ == "__main__":
    sys.exit(run(__name__, needs=("numpy", "h5py", "matplotlib")))
