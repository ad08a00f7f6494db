#!/usr/bin/env python3
"""The evanescent limit: without stratification (N = 0) the linear solution is potential flow,
whose field over the bell is known in closed form (a point source at z = -a); a narrow mountain
(N a / U = 0.05) is nearly that: its w decays with height and it radiates almost no momentum."""

import sys
import unittest

from linear_theory_testlib import (potential_flow_bell_w, relative_max_error, run,
                                   smith_bell_drag_flux)


class Evanescence(unittest.TestCase):
    def setUp(self):
        import numpy as np
        import mountain_wave as mw

        self.np, self.mw = np, mw

    def test_potential_flow_closed_form(self):
        np, mw = self.np, self.mw
        case = mw.Case(N=0.0)
        x = np.arange(-15000.0, 15000.0 + 1, 125.0)
        y = np.arange(-6000.0, 6000.0 + 1, 125.0)
        solver = mw.LinearMountainWave.for_window(case, x, y, 125.0, (8.0, 8.0), fields=("w",))
        X, Y = np.meshgrid(x, y)
        for z in (0.0, 300.0, 1000.0, 3000.0):
            with self.subTest(z=z):
                w = solver.horizontal(x, y, z)["w"]
                exact = potential_flow_bell_w(X, Y, z, case.h0, case.a, case.U)
                self.assertLess(relative_max_error(w, exact), 1e-5)
        # No propagating modes at all: the flux vanishes to round-off.
        self.assertLess(abs(solver.momentum_flux(500.0)),
                        1e-12 * abs(smith_bell_drag_flux(case.h0, case.a, case.U, 0.01)))

    def test_narrow_mountain_decays_and_hardly_radiates(self):
        np, mw = self.np, self.mw
        case = mw.Case(a=50.0, h0=20.0)                # N a / U = 0.05
        self.assertAlmostEqual(case.froude_inverse, 0.05)
        x = np.arange(-1500.0, 1500.0 + 1, 12.5)
        solver = mw.LinearMountainWave.for_window(case, x, x, 12.5, (8.0, 4.0), fields=("w",))
        X, Y = np.meshgrid(x, x)
        peak0 = np.max(np.abs(solver.horizontal(x, x, 0.0)["w"]))
        for z in (25.0, 50.0):
            with self.subTest(z=z):
                w = solver.horizontal(x, x, z)["w"]
                exact = potential_flow_bell_w(X, Y, z, case.h0, case.a, case.U)
                # Near the narrow mountain the stratification is a small correction to
                # potential flow (measured 0.2% and 0.6%)...
                self.assertLess(relative_max_error(w, exact), 0.01)
                # ...and |w| falls like (a / (a + z))^3.
                ratio = np.max(np.abs(w)) / peak0
                self.assertAlmostEqual(ratio / (case.a / (case.a + z)) ** 3, 1.0, delta=0.01)
        # Ten half-widths up, less than 0.2% of the surface w is left (0.09% measured; potential
        # flow alone: 0.075%), where the N a / U = 1 mountain keeps 4% (propagating waves).
        narrow = np.max(np.abs(solver.horizontal(x, x, 10 * case.a)["w"])) / peak0
        self.assertLess(narrow, 2e-3)
        wide_case = mw.Case()
        xw = np.arange(-15000.0, 15000.0 + 1, 250.0)
        wide = mw.LinearMountainWave.for_window(wide_case, xw, xw, 250.0, (8.0, 4.0),
                                                fields=("w",))
        ratio_wide = (np.max(np.abs(wide.horizontal(xw, xw, 10 * wide_case.a)["w"]))
                      / np.max(np.abs(wide.horizontal(xw, xw, 0.0)["w"])))
        self.assertGreater(ratio_wide, 0.03)
        # Only the modes with |k| < N/U, a sliver of the spectrum, propagate: the drag is a tiny
        # fraction of the hydrostatic drag of the same mountain (3.3e-4 measured).
        ratio = solver.momentum_flux(0.0) / smith_bell_drag_flux(case.h0, case.a, case.U,
                                                                  case.N)
        self.assertGreater(ratio, 0.0)
        self.assertLess(ratio, 1e-3)


if __name__ == "__main__":
    sys.exit(run(__name__, needs=("numpy",)))
