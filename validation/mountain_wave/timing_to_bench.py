#!/usr/bin/env python3
"""Turns the timing.json files of validation/mountain_wave/run_on_device.sh perf runs into one
benchmark result in the format of docs/benchmarks.md (bench/results/mountainwave-*.json + .md):
per configuration the mean timestep, its speedup over one CPU core with the same solver
settings, the assembly share of the step, and the published Table 9 numbers beside them.

    timing_to_bench.py --runs DIR --commit abc1234 --device "NVIDIA H100 80GB HBM3" \
        --tets 552960 --out bench/results/mountainwave-h100-20261122
"""
import argparse
import json
import os
import sys
from datetime import date

CONFIGS = [("perf-1cpu", "1_cpu_core"), ("perf-1gpu", "1_cpu_core_1_gpu"),
           ("perf-4cpu", "4_cpu_cores"), ("perf-4gpu", "4_cpu_cores_1_gpu")]
MATRIX_ROWS = ("temperature_matrix", "water_vapor_matrix", "cloud_water_matrix",
               "rain_water_matrix", "momentum_matrix", "pressure_correction_matrix",
               "divergence_matrix", "stabilisation_matrix", "projection_matrix")
# Table 9 of the seed paper (A100 + AMD EPYC, 554,394 tets), seconds per timestep.
PUBLISHED = [("1_cpu_core", 41.838), ("1_cpu_core_1_gpu", 17.147), ("4_cpu_cores", 13.376),
             ("4_cpu_cores_1_gpu", 4.880)]


def rows_of(path):
    with open(path) as f:
        table = json.load(f)
    return {row["key"]: row["seconds_per_step"] for row in table["rows"]}, table["steps"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--tets", type=int, required=True)
    parser.add_argument("--command", default="validation/mountain_wave/run_on_device.sh perf 554394")
    parser.add_argument("--out", required=True, help="path without extension")
    args = parser.parse_args()

    cases, lines = [], []
    for suffix, settings in (("", "default solver settings"), ("-fast", "fast solver settings")):
        if not os.path.isdir(os.path.join(args.runs, CONFIGS[0][0] + suffix)):
            continue  # a call that ran only the defaults
        baseline = None
        for folder, name in CONFIGS:
            path = os.path.join(args.runs, folder + suffix, "timing.json")
            if not os.path.exists(path):
                sys.exit(f"missing {path}")
            rows, steps = rows_of(path)
            total = rows["total"]
            assembly = sum(rows[key] for key in MATRIX_ROWS)
            if baseline is None:
                baseline = total
            variant = name + ("_fast_solvers" if suffix else "")
            cases.append({
                "name": "mountainwave_timestep", "size": args.tets, "size_unit": "tets",
                "variant": variant, "time_ms": total * 1e3, "repeats": steps,
                "throughput": args.tets / total, "throughput_unit": "tets/s",
                "baseline": "1_cpu_core" + ("_fast_solvers" if suffix else ""),
                "speedup_vs_baseline": baseline / total,
                "assembly_fraction": assembly / total,
                "petsc_fraction": rows["petsc_total"] / total})
            lines.append(f"| {variant} | {total:.3f} | {baseline / total:.2f}x | "
                         f"{100 * assembly / total:.2f}% | {100 * rows['petsc_total'] / total:.1f}% |")
    for name, seconds in PUBLISHED:
        cases.append({"name": "mountainwave_timestep", "size": 554394, "size_unit": "tets",
                      "variant": "published_a100_" + name, "time_ms": seconds * 1e3,
                      "repeats": 0, "throughput": 554394 / seconds, "throughput_unit": "tets/s",
                      "baseline": "published_a100_1_cpu_core",
                      "speedup_vs_baseline": PUBLISHED[0][1] / seconds, "published": True})
        lines.append(f"| published_a100_{name} | {seconds:.3f} | {PUBLISHED[0][1] / seconds:.2f}x | – | – |")

    report = {"area": "mountainwave", "device": args.device, "commit": args.commit,
              "command": args.command, "date": date.today().isoformat(), "cases": cases}
    with open(args.out + ".json", "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    with open(args.out + ".md", "w") as f:
        f.write(f"# mountainwave on {args.device}\n\n- commit `{args.commit}`, {report['date']}\n"
                f"- command: `{args.command}`\n- mean timestep after 2 warm-up steps; speedup against "
                "one CPU core with the same solver settings; assembly = the matrix rows of Table 10 "
                "(assembly + hand-off to PETSc)\n\n"
                "| configuration | s / step | speedup | assembly | PETSc |\n|---|---:|---:|---:|---:|\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
