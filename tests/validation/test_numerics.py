#!/usr/bin/env python3
"""The numerical machinery: FFT grids laid over the requested axes, the three evaluation paths
(inverse FFT, explicit Fourier sums at arbitrary points, the folded y = y0 section) agreeing,
the FFT and exact terrain spectra agreeing, and convergence with the period."""

import sys
import unittest

from linear_theory_testlib import relative_max_error, run


class Grids(unittest.TestCase):
    def test_fft_sizes_and_axes(self):
        import numpy as np
        import mountain_wave as mw

        self.assertEqual([mw.next_fft_size(n) for n in (1, 7, 241, 1921, 7681)],
                         [1, 8, 243, 1944, 7776])
        np.testing.assert_allclose(mw.parse_axis("-1000:1000:500"), [-1000, -500, 0, 500, 1000])
        np.testing.assert_allclose(mw.parse_axis("2000, 5000"), [2000, 5000])
        for bad in ("1:0:1", "0:1:0", "0:1", ""):
            with self.assertRaises(ValueError):
                mw.parse_axis(bad)
        # A regular axis becomes part of the grid (spacing divided by an integer), centred in a
        # period of about pad window lengths.
        axis = np.arange(-30000.0, 30000.0 + 1, 600.0)
        grid = mw.axis_grid_for(axis, 250.0, 8.0)
        self.assertAlmostEqual(grid.spacing, 200.0)
        self.assertGreaterEqual(grid.period, 8 * 60000.0)
        indices = grid.indices_of(axis)
        self.assertIsNotNone(indices)
        np.testing.assert_array_equal(np.diff(indices), 3)
        self.assertIsNone(grid.indices_of(axis + 10.0))

    def test_bad_cases_rejected(self):
        import mountain_wave as mw

        for bad in (mw.Case(U=0.0), mw.Case(a=-1.0), mw.Case(N=-0.01), mw.Case(terrain="cone"),
                    mw.Case(h0=float("nan"))):
            with self.assertRaises(ValueError):
                bad.check()


class EvaluationPaths(unittest.TestCase):
    def setUp(self):
        import numpy as np
        import mountain_wave as mw

        self.np, self.mw = np, mw
        self.x = np.arange(-20000.0, 20000.0 + 1, 500.0)
        self.solver = mw.LinearMountainWave.for_window(mw.Case(), self.x, self.x, 250.0,
                                                       (4.0, 2.0))

    def test_grid_points_explicit_sums_and_section_agree(self):
        np = self.np
        s = self.solver
        xo = self.x[::4] + 137.0                   # off the FFT grid
        yo = np.array([-2345.0, 0.0, 812.5])
        for z in (0.0, 2000.0, 5000.0):
            on_grid = s.horizontal(self.x, self.x, z)
            off_grid = s.horizontal(xo, yo, z)
            section = s.section(xo, [z], y0=812.5)
            row0 = s.section(self.x, [z], y0=0.0)
            j0 = int(np.argmin(np.abs(self.x)))
            for name in s.fields:
                with self.subTest(z=z, field=name):
                    scale = np.max(np.abs(on_grid[name]))
                    self.assertLess(np.max(np.abs(off_grid[name][2] - section[name][0])),
                                    1e-12 * scale)
                    self.assertLess(np.max(np.abs(on_grid[name][j0] - row0[name][0])),
                                    1e-12 * scale)
                    # Explicit sums at grid points reproduce the inverse FFT (one y off the
                    # grid sends the whole request down the explicit path).
                    ys = np.array([self.x[40], self.x[41], 1.234])
                    explicit = s.horizontal(self.x[:7], ys, z, names=(name,))
                    self.assertLess(np.max(np.abs(explicit[name][:2] - on_grid[name][40:42, :7])),
                                    1e-12 * scale)

    def test_uneven_levels_match_even_levels(self):
        np = self.np
        even = self.solver.section(self.x, np.arange(0.0, 16000.0 + 1, 200.0), names=("w",))
        uneven = self.solver.section(self.x, [0.0, 3000.0, 16000.0], names=("w",))
        for i, level in enumerate((0, 15, 80)):
            self.assertLess(np.max(np.abs(even["w"][level] - uneven["w"][i])), 1e-12)

    def test_fft_and_exact_terrain_spectra_agree(self):
        mw = self.mw
        exact = mw.LinearMountainWave.for_window(mw.Case(), self.x, self.x, 250.0, (4.0, 2.0),
                                                 transform="analytic", fields=("w", "theta"))
        for z in (1000.0, 2000.0, 5000.0):
            a = self.solver.horizontal(self.x, self.x, z, names=("w", "theta"))
            b = exact.horizontal(self.x, self.x, z)
            self.assertLess(relative_max_error(a["w"], b["w"]), 1e-5)


class PeriodConvergence(unittest.TestCase):
    def test_error_falls_with_the_period_along_the_flow(self):
        # The lee-wave wake decays like x^-1.5 downstream; images one period away set the error.
        # 500 m spacing is ample at z >= 2 km (the modes it misses are evanescent).
        import numpy as np
        import mountain_wave as mw

        x = np.arange(-30000.0, 30000.0 + 1, 1000.0)
        case = mw.Case()

        def w(pad):
            s = mw.LinearMountainWave.for_window(case, x, x, 500.0, pad, fields=("w",))
            return s.horizontal(x, x, 5000.0)["w"]

        reference = w((32.0, 4.0))
        errors = [relative_max_error(w((p, 4.0)), reference) for p in (4.0, 8.0, 16.0)]
        self.assertLess(errors[1], 0.7 * errors[0])
        self.assertLess(errors[2], 0.7 * errors[1])
        self.assertLess(errors[2], 0.01)
        # Across the flow the period hardly matters.
        self.assertLess(relative_max_error(w((32.0, 2.0)), reference), 2e-3)


if __name__ == "__main__":
    sys.exit(run(__name__, needs=("numpy",)))
