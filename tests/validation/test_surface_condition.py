#!/usr/bin/env python3
"""The lower boundary condition of the linear solution: w(z = 0) = U dh/dx, compared with the
analytic derivative of the bell (not with the FFT of the terrain), and theta'(z = 0) =
-(theta0 N^2 / g) h."""

import sys
import unittest

from linear_theory_testlib import bell_dhdx, relative_max_error, run


class SurfaceCondition(unittest.TestCase):
    def setUp(self):
        import numpy as np
        import mountain_wave as mw

        self.np, self.mw = np, mw
        self.x = np.arange(-15000.0, 15000.0 + 1, 250.0)
        self.y = np.arange(-10000.0, 10000.0 + 1, 250.0)
        self.X, self.Y = np.meshgrid(self.x, self.y)

    def surface_w_error(self, case, spacing, transform="fft"):
        solver = self.mw.LinearMountainWave.for_window(case, self.x, self.y, spacing, (8.0, 4.0),
                                                       transform=transform, fields=("w",))
        w = solver.horizontal(self.x, self.y, 0.0)["w"]
        exact = case.U * bell_dhdx(self.X, self.Y, case.h0, case.a)
        return relative_max_error(w, exact)

    def test_default_case_spectrally_accurate(self):
        # 125 m resolves the bell's spectrum exp(-aK) to exp(-8 pi): the FFT derivative is exact
        # to round-off and aliasing; 250 m (the default) leaves the modes beyond the Nyquist
        # wavenumber, exp(-4 pi) ~ 3e-6 of the spectrum, i.e. ~1e-4 of the peak slope.
        case = self.mw.Case()
        self.assertLess(self.surface_w_error(case, 125.0), 1e-7)
        self.assertLess(self.surface_w_error(case, 250.0), 5e-4)
        self.assertLess(self.surface_w_error(case, 125.0, transform="analytic"), 1e-7)

    def test_independent_of_dispersion_and_wind_sign(self):
        # The boundary condition does not depend on m: hydrostatic, reversed wind, N = 0 and a
        # different mountain all give U dh/dx at the ground.
        mw = self.mw
        for case in (mw.Case(hydrostatic=True), mw.Case(U=-10.0), mw.Case(N=0.0),
                     mw.Case(h0=150.0, a=2500.0, U=4.0, N=0.02)):
            with self.subTest(case=case):
                self.assertLess(self.surface_w_error(case, 125.0), 1e-7)

    def test_surface_theta_is_minus_displacement_times_stratification(self):
        # theta' = -(d theta_bar/dz) eta and eta(z = 0) = h, less its x-mean over the period
        # (the k = 0 modes are left out of the solution). Checked on the whole FFT grid.
        np, mw = self.np, self.mw
        case = mw.Case()
        solver = mw.LinearMountainWave.for_window(case, self.x, self.y, 125.0, (8.0, 4.0),
                                                  fields=("theta",))
        theta = solver.grid_field("theta", 0.0)
        gx, gy = solver.grid_x, solver.grid_y
        x = (gx.points() + 0.5 * gx.period) % gx.period - 0.5 * gx.period
        y = (gy.points() + 0.5 * gy.period) % gy.period - 0.5 * gy.period
        X, Y = np.meshgrid(x, y)
        r2 = (X * X + Y * Y) / case.a ** 2
        h = case.h0 / (1.0 + r2) ** 1.5
        expected = -(case.theta0 * case.N ** 2 / case.g) * (h - h.mean(axis=1, keepdims=True))
        self.assertLess(relative_max_error(theta, expected), 1e-7)
        # The peak is -theta0 N^2 h0 / g = -1.195 K for the default case.
        self.assertAlmostEqual(float(theta.min()), -1.1953, delta=0.01)


if __name__ == "__main__":
    sys.exit(run(__name__, needs=("numpy",)))
