#!/usr/bin/env python3
"""Convergence of the linear solution in the FFT period and grid spacing, for the numbers quoted
in docs/linear_theory.md. Prints Markdown tables; about a minute on one core.

    python3 validation/linear_theory/convergence.py [--h0 400 --a 1000 --U 10 --N 0.01]

Errors are max |w - w_ref| over the 60 km x 60 km window divided by max |w_ref| ("max") and the
RMS of the difference divided by the RMS of w_ref ("rms"), w_ref being a longer period or a
finer grid. Period and spacing act on different modes (the period on the small wavenumbers of
the far wake, the spacing on large ones, which are evanescent), so they are studied one at a
time.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scientific_python import ensure_modules  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(prog="convergence.py", description=__doc__.split("\n")[0])
    for name, default in (("h0", 400.0), ("a", 1000.0), ("U", 10.0), ("N", 0.01)):
        p.add_argument(f"--{name}", type=float, default=default)
    args = p.parse_args(argv)
    ensure_modules(["numpy"], "convergence.py")
    import numpy as np
    import mountain_wave as mw

    case = mw.Case(h0=args.h0, a=args.a, U=args.U, N=args.N)
    heights = (2000.0, 5000.0, 10000.0)

    def fields(spacing, pad, zs, window_step):
        x = np.arange(-30000.0, 30000.0 + 1, window_step)
        start = time.time()
        s = mw.LinearMountainWave.for_window(case, x, x, spacing, pad, fields=("w",))
        out = {z: s.horizontal(x, x, z)["w"] for z in zs}
        return out, time.time() - start, s

    def errors(value, ref):
        return (np.max(np.abs(value - ref)) / np.max(np.abs(ref)),
                np.sqrt(np.mean((value - ref) ** 2)) / np.sqrt(np.mean(ref ** 2)))

    def table(title, rows, ref, zs, label):
        print(f"\n{title}\n")
        print(f"| {label} | grid | " + " | ".join(f"z = {z / 1000:g} km max / rms" for z in zs)
              + " | peak up, down at " + f"{zs[0] / 1000:g} km | s |")
        print("|" + "---|" * (len(zs) + 4))
        for key, (values, seconds, s) in rows:
            cells = []
            for z in zs:
                e_max, e_rms = errors(values[z], ref[z])
                cells.append(f"{e_max:.1e} / {e_rms:.1e}")
            w = values[zs[0]]
            print(f"| {key} | {s.grid_x.n} x {s.grid_y.n} | " + " | ".join(cells)
                  + f" | {w.max():.4f}, {w.min():.4f} | {seconds:.2f} |")

    print(f"# Convergence of linear theory: h0 = {case.h0:g} m, a = {case.a:g} m, "
          f"U = {case.U:g} m/s, N = {case.N:g} 1/s (N a/U = {case.froude_inverse:g}), "
          "non-hydrostatic")

    # 1. Period along the flow (500 m is ample at z >= 2 km: the modes beyond it decay).
    ref, _, _ = fields(500.0, (64.0, 4.0), heights, 500.0)
    rows = [(f"{px:g} ({60 * px:g} km)", fields(500.0, (px, 4.0), heights, 500.0))
            for px in (2.0, 4.0, 8.0, 16.0, 32.0)]
    table("Period along x (P_x / 60 km), P_y = 4 x 60 km, spacing 500 m; reference P_x = 64",
          rows, ref, heights, "P_x")

    # 2. Period across the flow.
    ref, _, _ = fields(500.0, (32.0, 16.0), heights, 500.0)
    rows = [(f"{py:g} ({60 * py:g} km)", fields(500.0, (32.0, py), heights, 500.0))
            for py in (1.5, 2.0, 4.0, 8.0)]
    table("Period along y (P_y / 60 km), P_x = 32 x 60 km, spacing 500 m; reference P_y = 16",
          rows, ref, heights, "P_y")

    # 3. Grid spacing (short periods: spacing and period act on different modes).
    low = (0.0, 500.0, 2000.0, 5000.0)
    ref, _, _ = fields(62.5, (4.0, 2.0), low, 1000.0)
    rows = [(f"{dx:g} m", fields(dx, (4.0, 2.0), low, 1000.0)) for dx in (1000.0, 500.0, 250.0,
                                                                          125.0)]
    table("FFT grid spacing, P = 240 x 120 km, compared on a 1 km window grid; reference 62.5 m",
          rows, ref, low, "spacing")

    # 4. Wave drag against an adaptive quadrature of the continuous spectrum (needs scipy).
    try:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                        "tests", "validation"))
        from linear_theory_testlib import bell_flux_quadrature, smith_bell_drag_flux

        quad = bell_flux_quadrature(case.h0, case.a, case.U, case.N)
        smith = smith_bell_drag_flux(case.h0, case.a, case.U, case.N)
        print(f"\nMomentum flux: quadrature {quad:.6g} m^4/s^2 = {quad / smith:.4f} x hydrostatic "
              f"(Smith 1980: {smith:.6g})\n")
        print("| P_x | flux / quadrature - 1 |")
        print("|---|---|")
        x = np.arange(-30000.0, 30000.0 + 1, 500.0)
        for px in (2.0, 4.0, 8.0, 16.0, 32.0):
            s = mw.LinearMountainWave.for_window(case, x, x, 250.0, (px, 4.0), fields=("w",))
            print(f"| {px:g} | {s.momentum_flux(0.0) / quad - 1:.1e} |")
    except ImportError as error:
        print(f"\n(momentum flux table skipped: {error})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
