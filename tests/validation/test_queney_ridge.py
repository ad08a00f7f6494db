#!/usr/bin/env python3
"""The 2D hydrostatic limit: the FFT code run on a y-uniform Witch-of-Agnesi ridge against
Queney's closed-form solution, both its periodic sum (exact for the FFT problem: agreement to
round-off) and the unbounded-domain formula (agreement once the period is long)."""

import math
import sys
import unittest

from linear_theory_testlib import queney_infinite, queney_periodic, relative_max_error, run

H0, A, U, N = 400.0, 1000.0, 10.0, 0.01
HEIGHTS = (0.0, 1000.0, 2500.0, 4000.0, 7853.98, 10000.0)


class QueneyRidge(unittest.TestCase):
    def setUp(self):
        import numpy as np
        import mountain_wave as mw

        self.np, self.mw = np, mw
        self.case = mw.Case(h0=H0, a=A, U=U, N=N, hydrostatic=True, terrain="ridge")
        self.x = np.arange(-20000.0, 20000.0 + 1, 100.0)
        self.y = np.array([-300.0, 0.0, 300.0])

    def test_periodic_solution_to_round_off(self):
        # Analytic terrain spectrum at 100 m = a/10: the modes left out beyond the Nyquist
        # wavenumber weigh exp(-10 pi) ~ 2e-14.
        np = self.np
        solver = self.mw.LinearMountainWave.for_window(self.case, self.x, self.y, 100.0, 4.0,
                                                       transform="analytic")
        period = solver.grid_x.period
        ell, q = N / U, math.pi / period
        for z in HEIGHTS:
            with self.subTest(z=z):
                fields = solver.horizontal(self.x, self.y, z)
                eta, w, u = queney_periodic(self.x, z, H0, A, U, N, period)
                # The solution has no k = 0 mode; the period means of the periodic formula are
                # eta: h0 a (pi/P) cos(lz), u: U h0 a l (pi/P) sin(lz).
                eta = eta - H0 * A * q * math.cos(ell * z)
                u = u - U * H0 * A * ell * q * math.sin(ell * z)
                theta = -self.case.dtheta_dz * eta
                for row in range(3):          # uniform in y
                    self.assertLess(relative_max_error(fields["w"][row], w), 1e-11)
                    self.assertLess(relative_max_error(fields["u"][row], u), 1e-11)
                    self.assertLess(relative_max_error(fields["theta"][row], theta), 1e-11)
                self.assertLess(np.max(np.abs(fields["v"])), 1e-12 * np.max(np.abs(w)))

    def test_fft_of_sampled_ridge_matches_unbounded_queney(self):
        # The default path (FFT of the sampled terrain) with a long period approaches the
        # unbounded-domain solution (measured 8e-6 of the peak at P = 640 km).
        solver = self.mw.LinearMountainWave.for_window(self.case, self.x, self.y, 125.0, 16.0,
                                                       fields=("w", "u"))
        x = self.x[::5]
        for z in HEIGHTS:
            with self.subTest(z=z):
                fields = solver.horizontal(x, self.y[1:2], z)
                _, w, u = queney_infinite(x, z, H0, A, U, N)
                self.assertLess(relative_max_error(fields["w"][0], w), 5e-5)

    def test_upstream_phase_tilt(self):
        # Radiation condition: at l z = pi/2 the displacement is -h0 a x/(x^2 + a^2), i.e. the
        # crest has moved upstream (x < 0). With the wrong sign of m it would move downstream.
        np = self.np
        solver = self.mw.LinearMountainWave.for_window(self.case, self.x, self.y, 100.0, 4.0,
                                                       transform="analytic", fields=("theta",))
        z = 0.5 * math.pi * U / N
        theta = solver.section(self.x, [z], y0=0.0)["theta"][0]
        eta = -theta / self.case.dtheta_dz
        self.assertAlmostEqual(self.x[int(np.argmax(eta))], -A, delta=100.0)
        self.assertAlmostEqual(self.x[int(np.argmin(eta))], A, delta=100.0)


if __name__ == "__main__":
    sys.exit(run(__name__, needs=("numpy",)))
