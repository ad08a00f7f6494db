#!/usr/bin/env python3
"""compare_to_linear_theory.py: theory against itself gives correlation 1 and no error, a scaled
field gives exactly the scale as peak error, thresholds decide the exit code, bad input gives 2,
and the JSON and PNGs are written."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from linear_theory_testlib import COMPARE_SCRIPT, LINEAR_THEORY_SCRIPT, run

NUMERICS = ["--pad", "4,2"]
GRID = ["--x=-16000:16000:500", "--y=-12000:12000:500", "--section-z", "0:12000:500",
        "--heights", "2000,5000"]


def compare(*args):
    return subprocess.run([sys.executable, COMPARE_SCRIPT, *args], capture_output=True,
                          text=True, timeout=300)


class CompareTool(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="foehn_compare_test_")
        result = subprocess.run([sys.executable, LINEAR_THEORY_SCRIPT, "--out", cls.tmp,
                                 "--no-plots", "--fields", "w,theta", *GRID, *NUMERICS],
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        cls.theory = os.path.join(cls.tmp, "linear_theory.h5")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def model_file(self, name, edit):
        """A copy of the theory file changed by edit(h5py.File), posing as a model output."""
        import h5py

        path = os.path.join(self.tmp, name + ".h5")
        shutil.copy(self.theory, path)
        with h5py.File(path, "r+") as f:
            f.attrs["source"] = "test model"
            for key in ("hydrostatic", "terrain"):
                if key in f.attrs:
                    del f.attrs[key]
            edit(f)
        return path

    def run_compare(self, model, *extra):
        out = tempfile.mkdtemp(dir=self.tmp)
        result = compare("--model", model, "--out", out, *NUMERICS, *extra)
        report = None
        path = os.path.join(out, "comparison.json")
        if os.path.exists(path):
            with open(path) as f:
                report = json.load(f)
        return result, report, out

    def test_theory_against_itself(self):
        result, report, out = self.run_compare(self.theory, "--check-section")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertTrue(report["pass"])
        self.assertEqual([h["z"] for h in report["heights"]], [2000.0, 5000.0])
        for entry in report["heights"] + [report["section_y0"]]:
            for name in ("w", "theta"):
                metrics = entry[name]
                self.assertAlmostEqual(metrics["correlation"], 1.0, delta=1e-12)
                self.assertAlmostEqual(metrics["peak_up_rel_error"], 0.0, delta=1e-12)
                self.assertAlmostEqual(metrics["peak_down_rel_error"], 0.0, delta=1e-12)
                self.assertLess(metrics["rms_difference"], 1e-12)
        # The window leaves out the 10 km bands of the 32 x 24 km domain: 12 x 4 km -> 25 x 9.
        self.assertEqual(report["window"]["x"], [-6000.0, 6000.0])
        self.assertEqual(report["heights"][0]["w"]["points"], 25 * 9)
        self.assertEqual(report["heights"][0]["w_whole_window"]["points"], 65 * 49)
        for png in ("compare_w_z2000.png", "compare_w_z5000.png", "compare_theta_z2000.png",
                    "compare_w_section_y0.png"):
            self.assertTrue(os.path.getsize(os.path.join(out, png)) > 1000, png)
        self.assertIn("pass", result.stdout)
        # The same against the stored theory file instead of a recomputed one.
        result, report, _ = self.run_compare(self.theory, "--theory", self.theory, "--band", "0",
                                             "--no-plots")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertAlmostEqual(report["heights"][1]["w"]["correlation"], 1.0, delta=1e-12)
        self.assertEqual(report["heights"][0]["w"]["points"], 65 * 49)

    def test_scaled_field_peak_errors_and_thresholds(self):
        def scale(factor):
            def edit(f):
                f["horizontal/w"][...] = factor * f["horizontal/w"][()]
            return edit

        model = self.model_file("scaled125", scale(1.25))
        result, report, _ = self.run_compare(model, "--no-plots")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        for entry in report["heights"]:
            w = entry["w"]
            self.assertAlmostEqual(w["correlation"], 1.0, delta=1e-12)
            self.assertAlmostEqual(w["peak_up_rel_error"], 0.25, delta=1e-12)
            self.assertAlmostEqual(w["peak_down_rel_error"], -0.25, delta=1e-12)
            self.assertAlmostEqual(w["normalised_rms_difference"], 0.25, delta=1e-12)
        # 25% fails a 20% threshold; correlation alone passes.
        result, report, _ = self.run_compare(model, "--no-plots", "--max-peak-error", "0.2")
        self.assertEqual(result.returncode, 1)
        self.assertFalse(report["pass"])
        self.assertIn("FAIL", result.stdout)
        model = self.model_file("scaled060", scale(0.6))
        result, report, _ = self.run_compare(model, "--no-plots")
        self.assertEqual(result.returncode, 1)
        self.assertAlmostEqual(report["heights"][0]["w"]["peak_up_rel_error"], -0.4, delta=1e-12)
        result, _, _ = self.run_compare(model, "--no-plots", "--max-peak-error", "0.45")
        self.assertEqual(result.returncode, 0)

    def test_pattern_errors_lower_the_correlation(self):
        import numpy as np

        def flip(f):
            f["horizontal/w"][...] = -f["horizontal/w"][()]

        result, report, _ = self.run_compare(self.model_file("flipped", flip), "--no-plots",
                                             "--max-peak-error", "10")
        self.assertEqual(result.returncode, 1)
        self.assertAlmostEqual(report["heights"][0]["w"]["correlation"], -1.0, delta=1e-12)

        def shift_and_mask(f):
            w = f["horizontal/w"][()]
            f["horizontal/w"][...] = np.roll(w, 4, axis=2)        # 2 km downstream
            section = f["section_y0/w"][()]
            section[:2, :] = np.nan                                 # "below the terrain"
            f["section_y0/w"][...] = section

        result, report, _ = self.run_compare(self.model_file("shifted", shift_and_mask),
                                             "--no-plots", "--band", "0")
        correlation = report["heights"][0]["w"]["correlation"]
        self.assertLess(correlation, 0.8)
        self.assertEqual(result.returncode, 1)
        # NaN points are left out of the section's numbers, not propagated.
        self.assertAlmostEqual(report["section_y0"]["w"]["correlation"], 1.0, delta=1e-12)

    def test_bad_input_exit_code_2(self):
        import h5py

        def drop_w(f):
            del f["horizontal/w"]

        def bad_shape(f):
            w = f["horizontal/w"][()]
            del f["horizontal/w"]
            f["horizontal/w"] = w[:, :, :-1]

        def wrong_layout(f):
            f.attrs["layout"] = "something else"

        for name, edit, message in (("drop_w", drop_w, "no w dataset"),
                                    ("bad_shape", bad_shape, "expected [z][y][x]"),
                                    ("wrong_layout", wrong_layout, "layout attribute")):
            with self.subTest(name=name):
                result, report, _ = self.run_compare(self.model_file(name, edit))
                self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
                self.assertIn(message, result.stderr)
                self.assertIsNone(report)
        for extra in (["--heights", "3000"], ["--band", "20000"], ["--min-correlation", "2"]):
            with self.subTest(extra=extra):
                result, _, _ = self.run_compare(self.theory, "--no-plots", *extra)
                self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        not_hdf5 = os.path.join(self.tmp, "not.h5")
        with open(not_hdf5, "w") as f:
            f.write("text")
        result, _, _ = self.run_compare(not_hdf5)
        self.assertEqual(result.returncode, 2)
        self.assertIn("not a readable HDF5 file", result.stderr)
        # A stored theory on another grid is refused rather than silently misaligned.
        other = os.path.join(self.tmp, "other")
        subprocess.run([sys.executable, LINEAR_THEORY_SCRIPT, "--out", other, "--no-plots",
                        "--fields", "w", "--x=-16000:16000:1000", "--y=-12000:12000:500",
                        "--heights", "2000,5000", *NUMERICS], check=True, capture_output=True)
        result, _, _ = self.run_compare(self.theory, "--theory",
                                        os.path.join(other, "linear_theory.h5"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("axes differ", result.stderr)
        with h5py.File(self.theory, "r") as f:     # the input was not touched
            self.assertEqual(f.attrs["source"], "linear_theory")


if __name__ == "__main__":
    sys.exit(run(__name__, needs=("numpy", "h5py", "matplotlib")))
