#!/usr/bin/env python3
"""Compares a model's mountain-wave sections with steady linear theory.

    python3 validation/linear_theory/compare_to_linear_theory.py --model MODEL.h5 --out DIR
        [--theory THEORY.h5] [--min-correlation 0.8] [--max-peak-error 0.3] [--band 10000]

MODEL.h5 (and THEORY.h5) follow the layout of docs/linear_theory.md. Without --theory the
linear solution is computed on the model's own grid, for the case in the model file's
attributes (h0, a, U, N, theta0, g; command-line values override them). For every height of the
horizontal sections: pattern correlation of w, peak updraft and downdraft with their relative
errors, RMS difference; printed as a table and written to DIR/comparison.json, with
model | theory | difference PNGs.

Exit codes: 0 every checked height passes, 1 some fails, 2 bad input.
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scientific_python import ensure_modules  # noqa: E402

PROGRAM = "compare_to_linear_theory.py"


def build_parser():
    p = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Pattern correlation, peak and RMS errors of a model's w against linear "
                    "mountain-wave theory.")
    p.add_argument("--model", required=True, help="model sections (HDF5, docs/linear_theory.md)")
    p.add_argument("--out", required=True, help="output folder (created if missing)")
    p.add_argument("--theory", default=None,
                   help="theory sections on the same grid (default: computed on the model grid)")
    p.add_argument("--min-correlation", type=float, default=0.8,
                   help="pass: pattern correlation of w >= this (default 0.8)")
    p.add_argument("--max-peak-error", type=float, default=0.3,
                   help="pass: |relative error| of peak updraft and downdraft <= this "
                        "(default 0.3)")
    p.add_argument("--band", type=float, default=10000.0,
                   help="width of the lateral damping bands left out of the checked window, m "
                        "(default 10000; 0 = whole window)")
    p.add_argument("--length-x", type=float, default=None,
                   help="model domain length along x, centred on the mountain, m (default: "
                        "the model's length_x attribute, else the extent of its x axis)")
    p.add_argument("--length-y", type=float, default=None, help="the same along y")
    p.add_argument("--heights", default=None,
                   help="heights to check, m (default: every horizontal section of the model)")
    p.add_argument("--section-max-z", type=float, default=10000.0,
                   help="top of the window in the y = 0 section, m (default 10000: below the "
                        "absorbing layer)")
    p.add_argument("--section-min-z", type=float, default=1000.0,
                   help="bottom of the window in the y = 0 section, m (default 1000: linear "
                        "theory puts the ground at z = 0, the model at z = h)")
    p.add_argument("--check-section", action="store_true",
                   help="the y = 0 section must pass too (default: reported only)")
    case = p.add_argument_group("case (override the model file's attributes)")
    for name, unit in (("h0", "m"), ("a", "m"), ("U", "m/s"), ("N", "1/s"), ("theta0", "K"),
                       ("g", "m/s^2")):
        case.add_argument(f"--{name}", type=float, default=None, help=unit)
    case.add_argument("--hydrostatic", action="store_true", help="hydrostatic theory")
    num = p.add_argument_group("numerics of the theory (docs/linear_theory.md)")
    num.add_argument("--max-spacing", type=float, default=None, help="m (default 250)")
    num.add_argument("--pad", default=None, help="PX[,PY] (default 32,4)")
    num.add_argument("--transform", choices=("fft", "analytic"), default="fft")
    p.add_argument("--no-plots", action="store_true", help="numbers only")
    return p


# -- metrics --------------------------------------------------------------------------------------

def field_metrics(model, theory, mask):
    """Numbers comparing two arrays over mask & finite(model) & finite(theory)."""
    import numpy as np

    valid = mask & np.isfinite(model) & np.isfinite(theory)
    count = int(np.count_nonzero(valid))
    result = {"points": count}
    if count < 2:
        result["error"] = "fewer than two valid points in the window"
        return result
    m, t = model[valid], theory[valid]
    dm, dt = m - m.mean(), t - t.mean()
    norm = math.sqrt(float(np.sum(dm * dm)) * float(np.sum(dt * dt)))
    result["correlation"] = float(np.sum(dm * dt) / norm) if norm > 0 else float("nan")
    result["peak_up_model"], result["peak_up_theory"] = float(m.max()), float(t.max())
    result["peak_down_model"], result["peak_down_theory"] = float(m.min()), float(t.min())
    for kind in ("up", "down"):
        ref = result[f"peak_{kind}_theory"]
        result[f"peak_{kind}_rel_error"] = ((result[f"peak_{kind}_model"] - ref) / abs(ref)
                                            if ref != 0 else float("nan"))
    result["rms_difference"] = float(np.sqrt(np.mean((m - t) ** 2)))
    result["rms_theory"] = float(np.sqrt(np.mean(t ** 2)))
    result["normalised_rms_difference"] = (result["rms_difference"] / result["rms_theory"]
                                           if result["rms_theory"] > 0 else float("nan"))
    return result


def _json_safe(value):
    """NaN and infinities become null (JSON has no NaN)."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def passes(metrics, min_correlation, max_peak_error):
    if "error" in metrics:
        return False
    values = (metrics["correlation"], metrics["peak_up_rel_error"],
              metrics["peak_down_rel_error"])
    if not all(math.isfinite(v) for v in values):
        return False
    return (metrics["correlation"] >= min_correlation
            and abs(metrics["peak_up_rel_error"]) <= max_peak_error
            and abs(metrics["peak_down_rel_error"]) <= max_peak_error)


# -- inputs ---------------------------------------------------------------------------------------

def _same_axis(a, b, tol=1e-6):
    import numpy as np

    return a is not None and b is not None and a.shape == b.shape and np.allclose(a, b, rtol=0,
                                                                                   atol=tol)


def _select_heights(model_heights, wanted):
    import numpy as np

    if wanted is None:
        return list(range(model_heights.size))
    indices = []
    for z in wanted:
        hits = np.nonzero(np.abs(model_heights - z) <= 1e-6 * max(1.0, abs(z)))[0]
        if hits.size == 0:
            raise ValueError(f"the model has no horizontal section at z = {z:g} m "
                             f"(it has {', '.join(f'{h:g}' for h in model_heights)})")
        indices.append(int(hits[0]))
    return indices


def _case_from(args, attrs):
    import mountain_wave as mw

    values = {}
    for name in ("h0", "a", "U", "N", "theta0", "g"):
        given = getattr(args, name)
        if given is not None:
            values[name] = given
        elif name in attrs:
            values[name] = float(attrs[name])
    hydrostatic = args.hydrostatic or bool(int(attrs.get("hydrostatic", 0) or 0))
    case = mw.Case(**values, hydrostatic=hydrostatic)
    case.check()
    missing = [n for n in ("h0", "a", "U", "N") if n not in values]
    return case, missing


def _theory_for(model, args, case, fields):
    """Theory sections on the model's axes: computed, or read from --theory and checked."""
    import mountain_wave as mw
    from sections_io import read_sections

    if args.theory:
        theory = read_sections(args.theory)
        if model.has_horizontal:
            if not theory.has_horizontal:
                raise ValueError(f"{args.theory}: no horizontal sections")
            if not (_same_axis(model.x, theory.x) and _same_axis(model.y, theory.y)):
                raise ValueError(f"{args.theory}: x/y axes differ from the model's; leave out "
                                 "--theory to compute the theory on the model grid")
            for z in model.heights:
                if not any(abs(z - t) <= 1e-6 * max(1.0, abs(z)) for t in theory.heights):
                    raise ValueError(f"{args.theory}: no horizontal section at z = {z:g} m")
        if model.has_section and theory.has_section:
            if not (_same_axis(model.section_x, theory.section_x)
                    and _same_axis(model.section_z, theory.section_z)):
                raise ValueError(f"{args.theory}: section axes differ from the model's")
        return theory
    max_spacing = args.max_spacing if args.max_spacing else mw.DEFAULT_MAX_SPACING
    if args.pad:
        pads = [float(v) for v in args.pad.split(",")]
        pad = (pads[0], pads[-1])
    else:
        pad = mw.DEFAULT_PAD
    theory, _ = mw.compute_sections(
        case,
        x=model.x, y=model.y, heights=model.heights if model.has_horizontal else None,
        section_x=model.section_x if model.has_section else None,
        section_z=model.section_z if model.has_section else None,
        section_y=model.section_y, fields=tuple(fields), max_spacing=max_spacing, pad=pad,
        transform=args.transform)
    return theory


def _theory_level(theory, name, z):
    import numpy as np

    i = int(np.argmin(np.abs(theory.heights - z)))
    return theory.horizontal[name][i]


# -- main -----------------------------------------------------------------------------------------

def main(argv=None):
    args = build_parser().parse_args(argv)
    ensure_modules(["numpy", "h5py"] + ([] if args.no_plots else ["matplotlib"]), PROGRAM)
    import numpy as np
    import mountain_wave as mw
    from sections_io import LayoutError, read_sections, write_sections

    try:
        if not (args.band >= 0) or not (-1 <= args.min_correlation <= 1) \
                or not (args.max_peak_error >= 0):
            raise ValueError("--band and --max-peak-error must be >= 0, --min-correlation in "
                             "[-1, 1]")
        if not (args.section_min_z < args.section_max_z):
            raise ValueError("--section-min-z must be below --section-max-z")
        model = read_sections(args.model)
        attrs = model.attrs
        case, missing = _case_from(args, attrs)
        wanted = mw.parse_axis(args.heights) if args.heights else None
        if wanted is not None and not model.has_horizontal:
            raise ValueError(f"{args.model}: --heights given but the file has no horizontal "
                             "sections")
        selected = _select_heights(model.heights, wanted) if model.has_horizontal else []
        fields = ["w"] + (["theta"] if ("theta" in model.horizontal or "theta" in model.section)
                          else [])
        length_x = args.length_x or attrs.get("length_x")
        length_y = args.length_y or attrs.get("length_y")
    except (LayoutError, ValueError) as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return 2
    if missing:
        print(f"{PROGRAM}: note: {args.model} does not give {', '.join(missing)}; using "
              f"{', '.join(f'{n} = {getattr(case, n):g}' for n in missing)}")
    try:
        os.makedirs(args.out, exist_ok=True)
        if not os.access(args.out, os.W_OK):
            raise OSError(f"{args.out}: not writable")
    except OSError as error:
        print(f"{PROGRAM}: cannot use {args.out}: {error}", file=sys.stderr)
        return 2
    try:
        theory = _theory_for(model, args, case, fields)
    except (LayoutError, ValueError) as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return 2
    if not args.theory:
        theory.attrs["length_x"] = float(length_x) if length_x else None
        theory.attrs["length_y"] = float(length_y) if length_y else None
        write_sections(os.path.join(args.out, "linear_theory_on_model_grid.h5"), theory)

    # The checked window: the domain minus the damping bands (domain from the file or the axes).
    def half_length(given, axes):
        if given:
            return 0.5 * float(given)
        extent = max(float(np.max(np.abs(a))) for a in axes if a is not None)
        return extent

    axes_x = [model.x, model.section_x]
    axes_y = [model.y]
    hx = half_length(length_x, axes_x)
    hy = half_length(length_y, axes_y) if model.has_horizontal else hx
    window_x = (-hx + args.band, hx - args.band)
    window_y = (-hy + args.band, hy - args.band)
    if window_x[0] >= window_x[1] or window_y[0] >= window_y[1]:
        print(f"{PROGRAM}: --band {args.band:g} leaves no window in a domain of "
              f"{2 * hx:g} x {2 * hy:g} m", file=sys.stderr)
        return 2

    report = {
        "model": os.path.abspath(args.model),
        "theory": os.path.abspath(args.theory) if args.theory else "computed on the model grid",
        "case": mw.case_attributes(case),
        "thresholds": {"min_correlation": args.min_correlation,
                       "max_peak_rel_error": args.max_peak_error},
        "window": {"x": list(window_x), "y": list(window_y), "band": args.band,
                   "section_min_z": args.section_min_z, "section_max_z": args.section_max_z},
        "heights": [],
    }
    if "time" in attrs:
        report["model_time"] = attrs["time"]
    all_pass = True
    rows = []
    if model.has_horizontal:
        X, Y = np.meshgrid(model.x, model.y)
        inside = ((X >= window_x[0]) & (X <= window_x[1]) & (Y >= window_y[0])
                  & (Y <= window_y[1]))
        everywhere = np.ones_like(inside)
        for i in selected:
            z = float(model.heights[i])
            entry = {"z": z}
            for name in fields:
                if name not in model.horizontal or name not in theory.horizontal:
                    continue
                mod = model.horizontal[name][i]
                theo = _theory_level(theory, name, z)
                entry[name] = field_metrics(mod, theo, inside)
                entry[name + "_whole_window"] = field_metrics(mod, theo, everywhere)
                if not args.no_plots:
                    import plots

                    plots.plot_comparison_horizontal(
                        os.path.join(args.out, f"compare_{name}_z{z:g}.png"), model.x, model.y,
                        mod, theo, f"{name} at z = {z:g} m: correlation "
                        f"{entry[name].get('correlation', float('nan')):.3f} in the dashed "
                        f"window", name=name, window=(window_x, window_y) if args.band > 0
                        else None, mountain_a=case.a)
            entry["pass"] = passes(entry["w"], args.min_correlation, args.max_peak_error)
            all_pass &= entry["pass"]
            report["heights"].append(entry)
            rows.append(("z = %g" % z, entry["w"], entry["pass"]))
    if model.has_section and not theory.has_section:
        print(f"{PROGRAM}: note: {args.theory} has no y = 0 section; the model's is not compared")
    if model.has_section and theory.has_section:
        X, Z = np.meshgrid(model.section_x, model.section_z)
        inside = ((X >= window_x[0]) & (X <= window_x[1]) & (Z >= args.section_min_z)
                  & (Z <= args.section_max_z))
        entry = {"y": model.section_y}
        for name in fields:
            if name not in model.section or name not in theory.section:
                continue
            entry[name] = field_metrics(model.section[name], theory.section[name], inside)
            if not args.no_plots:
                import plots

                terrain = case.height(model.section_x, model.section_y)
                plots.plot_comparison_section(
                    os.path.join(args.out, f"compare_{name}_section_y{model.section_y:g}.png"),
                    model.section_x, model.section_z, model.section[name], theory.section[name],
                    f"{name} in the section y = {model.section_y:g} m: correlation "
                    f"{entry[name].get('correlation', float('nan')):.3f} in the dashed window",
                    name=name, terrain=terrain,
                    window=(window_x, (args.section_min_z, min(args.section_max_z,
                                                float(model.section_z[-1])))))
        entry["pass"] = passes(entry["w"], args.min_correlation, args.max_peak_error)
        entry["checked"] = bool(args.check_section)
        if args.check_section:
            all_pass &= entry["pass"]
        report["section_y0"] = entry
        rows.append(("section y=%g" % model.section_y, entry["w"],
                     entry["pass"] if args.check_section else None))
    report["pass"] = bool(all_pass)

    print(f"{PROGRAM}: w of {args.model} against linear theory "
          f"(N a/U = {case.froude_inverse:.3g}, window x in [{window_x[0] / 1000:g}, "
          f"{window_x[1] / 1000:g}] km, y in [{window_y[0] / 1000:g}, {window_y[1] / 1000:g}] km)")
    print(f"  {'where':<14} {'corr':>6} {'up model':>9} {'up theory':>9} {'err':>7} "
          f"{'down model':>10} {'down theory':>11} {'err':>7} {'rms diff':>9} {'nrms':>6}  result")
    for label, m, ok in rows:
        verdict = "-" if ok is None else ("pass" if ok else "FAIL")
        if "error" in m:
            print(f"  {label:<14} {m['error']}  {verdict}")
            continue
        print(f"  {label:<14} {m['correlation']:6.3f} {m['peak_up_model']:9.4f} "
              f"{m['peak_up_theory']:9.4f} {100 * m['peak_up_rel_error']:6.1f}% "
              f"{m['peak_down_model']:10.4f} {m['peak_down_theory']:11.4f} "
              f"{100 * m['peak_down_rel_error']:6.1f}% {m['rms_difference']:9.4f} "
              f"{m['normalised_rms_difference']:6.3f}  {verdict}")
    print(f"  thresholds: correlation >= {args.min_correlation:g}, |peak error| <= "
          f"{100 * args.max_peak_error:g}%: {'PASS' if all_pass else 'FAIL'}")

    path = os.path.join(args.out, "comparison.json")
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(_json_safe(report), f, indent=2, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)
    print(f"  wrote {path}")
    return 0 if all_pass else 1


if __name__ == "__main__":
    sys.exit(main())
