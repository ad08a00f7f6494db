#!/usr/bin/env python3
"""Steady linear mountain-wave theory for the Mountainwave3D case: writes the reference fields
(HDF5, layout in docs/linear_theory.md) and PNG plots of w.

    python3 validation/linear_theory/linear_theory.py --out DIR [--h0 400 --a 1000 --U 10
        --N 0.01] [--heights 2000,5000] [--hydrostatic] [...]   (--help lists everything)

Exit codes: 0 success, 2 bad input (arguments, unwritable output), 1 anything else.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scientific_python import ensure_modules  # noqa: E402

PROGRAM = "linear_theory.py"


def build_parser():
    p = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Steady linear (Boussinesq) mountain waves over a bell mountain by a 2D FFT "
                    "of the terrain: HDF5 sections and PNG plots.")
    p.add_argument("--out", required=True, help="output folder (created if missing)")
    p.add_argument("--name", default="linear_theory", help="base name of the HDF5 file")
    case = p.add_argument_group("case (defaults: Mountainwave3D, issue 6)")
    case.add_argument("--h0", type=float, default=400.0, help="mountain height, m")
    case.add_argument("--a", type=float, default=1000.0, help="half-width, m")
    case.add_argument("--U", type=float, default=10.0, help="wind along x, m/s")
    case.add_argument("--N", type=float, default=0.01, help="buoyancy frequency, 1/s")
    case.add_argument("--theta0", type=float, default=293.15, help="reference theta, K")
    case.add_argument("--g", type=float, default=9.81, help="gravity, m/s^2")
    case.add_argument("--hydrostatic", action="store_true",
                      help="hydrostatic dispersion relation m^2 = N^2 K^2 / (U k)^2")
    case.add_argument("--terrain", choices=("bell", "ridge"), default="bell",
                      help="bell h0/(1+r^2/a^2)^1.5 (default) or the y-uniform ridge "
                           "h0 a^2/(x^2+a^2)")
    out = p.add_argument_group("sampling")
    out.add_argument("--heights", default="2000,5000",
                     help="heights of the horizontal sections, m: list or start:stop:step")
    out.add_argument("--x", default="-30000:30000:250", help="x axis of the sections, m")
    out.add_argument("--y", default="-30000:30000:250", help="y axis of the sections, m")
    out.add_argument("--section-x", default=None, help="x axis of the y = 0 section (default: --x)")
    out.add_argument("--section-z", default="0:16000:200", help="z axis of the section, m")
    out.add_argument("--section-y", type=float, default=0.0, help="y of the vertical section, m")
    out.add_argument("--no-section", action="store_true", help="no vertical section")
    out.add_argument("--fields", default="w,theta,u,v,p",
                     help="fields to write (w is always written): w,theta,u,v,p")
    num = p.add_argument_group("numerics (docs/linear_theory.md)")
    num.add_argument("--max-spacing", type=float, default=None,
                     help="largest FFT grid spacing, m (default 250)")
    num.add_argument("--pad", default=None,
                     help="FFT period / window length, one value or PX,PY (default 32,4)")
    num.add_argument("--transform", choices=("fft", "analytic"), default="fft",
                     help="terrain spectrum from the FFT of the sampled terrain (default) or "
                          "from its exact transform")
    p.add_argument("--no-plots", action="store_true", help="HDF5 only")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    ensure_modules(["numpy", "h5py"] + ([] if args.no_plots else ["matplotlib"]), PROGRAM)
    import numpy as np
    import mountain_wave as mw
    from sections_io import write_sections

    try:
        case = mw.Case(h0=args.h0, a=args.a, U=args.U, N=args.N, theta0=args.theta0, g=args.g,
                       hydrostatic=args.hydrostatic, terrain=args.terrain)
        case.check()
        heights = mw.parse_axis(args.heights)
        x, y = mw.parse_axis(args.x), mw.parse_axis(args.y)
        section_x = mw.parse_axis(args.section_x) if args.section_x else x
        section_z = None if args.no_section else mw.parse_axis(args.section_z)
        fields = ["w"] + [f for f in args.fields.split(",") if f and f != "w"]
        for name in fields:
            if name not in mw.FIELDS:
                raise ValueError(f"unknown field {name!r} (known: {', '.join(mw.FIELDS)})")
        max_spacing = args.max_spacing if args.max_spacing else mw.DEFAULT_MAX_SPACING
        if args.pad:
            pads = [float(v) for v in args.pad.split(",")]
            if len(pads) not in (1, 2):
                raise ValueError("--pad takes one value or two (PX,PY)")
            pad = (pads[0], pads[-1])
        else:
            pad = mw.DEFAULT_PAD
        if not (max_spacing > 0) or min(pad) < 1:
            raise ValueError("--max-spacing must be > 0 and --pad >= 1")
        for axis, label in ((x, "--x"), (y, "--y"), (section_x, "--section-x")):
            if axis.size > 1 and np.any(np.diff(axis) <= 0):
                raise ValueError(f"{label} must be increasing")
    except ValueError as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return 2

    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as error:
        print(f"{PROGRAM}: cannot create {args.out}: {error.strerror}", file=sys.stderr)
        return 2
    if not os.access(args.out, os.W_OK):
        print(f"{PROGRAM}: {args.out}: not writable", file=sys.stderr)
        return 2

    start = time.time()
    result, solver = mw.compute_sections(
        case, x, y, heights, section_x, section_z, args.section_y, fields=tuple(fields),
        max_spacing=max_spacing, pad=pad, transform=args.transform)
    g = solver.grid_x, solver.grid_y
    print(f"{PROGRAM}: N a/U = {case.froude_inverse:.3g}, "
          f"{'hydrostatic' if case.hydrostatic else 'non-hydrostatic'}, "
          f"FFT grid {g[0].n} x {g[1].n} at {g[0].spacing:g} x {g[1].spacing:g} m "
          f"(period {g[0].period / 1000:g} x {g[1].period / 1000:g} km), "
          f"{time.time() - start:.1f} s")
    result.attrs["length_x"] = float(x[-1] - x[0])
    result.attrs["length_y"] = float(y[-1] - y[0])
    h5 = os.path.join(args.out, f"{args.name}.h5")
    try:
        write_sections(h5, result)
    except OSError as error:
        print(f"{PROGRAM}: cannot write {h5}: {error}", file=sys.stderr)
        return 2
    print(f"  wrote {h5}")
    flux = solver.momentum_flux(0.0)
    if case.terrain == "bell":
        smith = -np.pi / 4 * case.N * case.U * case.h0 ** 2 * case.a
        print(f"  momentum flux (integral of u'w' per unit density) {flux:.4g} m^4/s^2 "
              f"(hydrostatic, Smith 1980: {smith:.4g})")
    print(f"  {'z [m]':>8} {'max w':>9} {'min w':>9} {'max th':>8} {'min th':>8}")
    for i, z in enumerate(result.heights):
        w = result.horizontal["w"][i]
        th = result.horizontal.get("theta")
        ths = (f"{th[i].max():8.3f} {th[i].min():8.3f}" if th is not None else "")
        print(f"  {z:8.0f} {w.max():9.4f} {w.min():9.4f} {ths}")

    if not args.no_plots:
        import plots

        for i, z in enumerate(result.heights):
            path = os.path.join(args.out, f"w_z{z:g}.png")
            plots.plot_horizontal(path, x, y, result.horizontal["w"][i],
                                  f"linear theory: w at z = {z:g} m (U = {case.U:g} m/s, "
                                  f"N = {case.N:g} 1/s, h0 = {case.h0:g} m, a = {case.a:g} m)",
                                  mountain_a=case.a)
            print(f"  wrote {path}")
        if result.has_section:
            terrain = case.height(result.section_x, result.section_y)
            for name in ("w", "theta"):
                if name not in result.section:
                    continue
                path = os.path.join(args.out, f"{name}_section_y{result.section_y:g}.png")
                plots.plot_section(path, result.section_x, result.section_z,
                                   result.section[name],
                                   f"linear theory: {name} in the section y = "
                                   f"{result.section_y:g} m", name=name, terrain=terrain)
                print(f"  wrote {path}")
    print(f"{PROGRAM}: done in {time.time() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
