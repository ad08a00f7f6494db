#!/usr/bin/env python3
"""Wave drag: the horizontally integrated momentum flux u'w' of the linear solution is the same
at every height (Eliassen-Palm: only propagating modes carry it) and equals, for the bell,
Smith's (1980) closed form (hydrostatic) or an adaptive quadrature of the continuous spectrum
(non-hydrostatic)."""

import sys
import unittest

from linear_theory_testlib import bell_flux_quadrature, run, smith_bell_drag_flux

HEIGHTS = (0.0, 700.0, 2000.0, 5000.0, 9000.0, 15000.0)


class MomentumFlux(unittest.TestCase):
    def setUp(self):
        import numpy as np
        import mountain_wave as mw

        self.np, self.mw = np, mw
        self.x = np.arange(-15000.0, 15000.0 + 1, 250.0)

    def fluxes(self, case, pad=(8.0, 4.0)):
        solver = self.mw.LinearMountainWave.for_window(case, self.x, self.x, 250.0, pad,
                                                       fields=("w",))
        return [solver.momentum_flux(z) for z in HEIGHTS]

    def assert_constant(self, fluxes):
        for value in fluxes:
            self.assertAlmostEqual(value / fluxes[0], 1.0, delta=1e-10)

    def test_hydrostatic_bell_matches_smith(self):
        mw = self.mw
        for case in (mw.Case(hydrostatic=True), mw.Case(hydrostatic=True, U=-10.0),
                     mw.Case(hydrostatic=True, h0=100.0, a=3000.0, U=15.0, N=0.012)):
            with self.subTest(case=case):
                fluxes = self.fluxes(case)
                self.assert_constant(fluxes)
                exact = smith_bell_drag_flux(case.h0, case.a, case.U, case.N)
                self.assertAlmostEqual(fluxes[0] / exact, 1.0, delta=2e-4)

    def test_nonhydrostatic_bell_matches_quadrature(self):
        try:
            import scipy  # noqa: F401
        except ImportError:
            self.skipTest("scipy missing (python3-scipy)")
        mw = self.mw
        # Smith's formula checks the quadrature itself first.
        self.assertAlmostEqual(bell_flux_quadrature(400.0, 1000.0, 10.0, 0.01, True)
                               / smith_bell_drag_flux(400.0, 1000.0, 10.0, 0.01), 1.0,
                               delta=1e-9)
        for case in (mw.Case(), mw.Case(U=-10.0), mw.Case(a=2000.0, N=0.008)):
            with self.subTest(case=case):
                fluxes = self.fluxes(case)
                self.assert_constant(fluxes)
                reference = bell_flux_quadrature(case.h0, case.a, case.U, case.N)
                # Trapezoidal sum over a square-root edge at |k| = N/U: converges like P^-1.5;
                # measured 0.09% at P = 240 km for the default case.
                self.assertAlmostEqual(fluxes[0] / reference, 1.0, delta=3e-3)
        # N a / U = 1 keeps about 31% of the hydrostatic drag.
        ratio = self.fluxes(mw.Case())[0] / smith_bell_drag_flux(400.0, 1000.0, 10.0, 0.01)
        self.assertAlmostEqual(ratio, 0.3125, delta=0.003)

    def test_wide_mountain_approaches_hydrostatic(self):
        # N a / U = 20: non-hydrostatic corrections are O((U / N a)^2).
        mw = self.mw
        x = self.np.arange(-200000.0, 200000.0 + 1, 2000.0)
        case = mw.Case(a=20000.0, h0=100.0)
        solver = mw.LinearMountainWave.for_window(case, x, x, 2000.0, (8.0, 4.0), fields=("w",))
        flux = solver.momentum_flux(3000.0)
        exact = smith_bell_drag_flux(case.h0, case.a, case.U, case.N)
        self.assertGreater(flux / exact, 0.99)      # measured 0.9972
        self.assertLess(flux / exact, 0.999)


if __name__ == "__main__":
    sys.exit(run(__name__, needs=("numpy",)))
