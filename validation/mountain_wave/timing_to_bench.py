#!/usr/bin/env python3
"""Turns the timing.json and run.json files of a validation/mountain_wave/run_on_device.sh perf
call into one benchmark result in the format of docs/benchmarks.md (bench/results/
mountainwave-*.json + .md): per configuration the mean timestep, its speedup over one CPU core and
over all host cores, the per-step breakdown (assembly, hand-off, PETSc setup, solve, other), the
Krylov iterations per system, and the published Table 9 numbers beside them.

    timing_to_bench.py --runs DIR --commit abc1234 --device "NVIDIA H100 80GB HBM3" \\
        --out bench/results/mountainwave-h100-20261124-553k
"""
import argparse
import json
import os
import sys
from datetime import date

# (folder, variant name); the all-cores run is named after its rank count.
CONFIGS = [("perf-1cpu", "1_cpu_core"), ("perf-allcpu", None), ("perf-1gpu", "1_cpu_core_1_gpu"),
           ("perf-4gpu", "4_cpu_cores_1_gpu"),
           ("perf-4gpu-devicesolves", "4_cpu_cores_1_gpu_solves_on_gpu"),
           ("perf-4gpu-mps", "4_cpu_cores_1_gpu_mps_solves_on_gpu"),
           ("perf-1gpu-hostsolves", "1_cpu_core_1_gpu_solves_on_cpu")]
MATRIX_ROWS = ("temperature_matrix", "water_vapor_matrix", "cloud_water_matrix",
               "rain_water_matrix", "momentum_matrix", "pressure_correction_matrix",
               "divergence_matrix", "stabilisation_matrix", "projection_matrix")
# Table 9 of the seed paper (A100 + AMD EPYC, 554,394 tets), seconds per timestep.
PUBLISHED = [("1_cpu_core", 41.838), ("1_cpu_core_1_gpu", 17.147), ("4_cpu_cores", 13.376),
             ("4_cpu_cores_1_gpu", 4.880)]


def load(folder):
    with open(os.path.join(folder, "timing.json")) as f:
        table = json.load(f)
    with open(os.path.join(folder, "run.json")) as f:
        run = json.load(f)
    return {row["key"]: row["seconds_per_step"] for row in table["rows"]}, table["steps"], run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--command", default="validation/mountain_wave/run_on_device.sh perf 554394")
    parser.add_argument("--protocol", default="mean timestep after 2 warm-up steps",
                        help="how the steps were timed, for the markdown")
    parser.add_argument("--out", required=True, help="path without extension")
    args = parser.parse_args()

    cases, lines = [], []
    one_core = all_cores = None
    tets = None
    for folder, name in CONFIGS:
        path = os.path.join(args.runs, folder)
        if not os.path.exists(os.path.join(path, "timing.json")):
            if folder in ("perf-1cpu", "perf-1gpu"):
                sys.exit(f"missing {path}/timing.json")
            continue
        rows, steps, run = load(path)
        tets = run["tets"]
        if name is None:
            name = f"{run['ranks']}_cpu_cores"
        total = rows["total"]
        if folder == "perf-1cpu":
            one_core = total
        if folder == "perf-allcpu":
            all_cores = total
        timed = run["timed_steps"]
        split = timed["seconds_per_step"]
        matrices = sum(rows[key] for key in MATRIX_ROWS)
        breakdown = {"assembly": split["assembly"], "handoff": split["handoff"],
                     "petsc_setup": rows["petsc_setup"], "petsc_solve": rows["petsc_solve"],
                     "other": rows["other"]}
        case = {"name": "mountainwave_timestep", "size": tets, "size_unit": "tets", "variant": name,
                "solves": run["solves"], "ranks": run["ranks"], "time_ms": total * 1e3,
                "repeats": steps, "throughput": tets / total, "throughput_unit": "tets/s",
                "baseline": "1_cpu_core", "speedup_vs_baseline": one_core / total,
                "matrix_rows_fraction": matrices / total,
                "petsc_fraction": rows["petsc_total"] / total,
                "breakdown_seconds_per_step": breakdown,
                "handoff_fraction_of_assembly": split["handoff"] / max(split["assembly"], 1e-300),
                "assembly_and_handoff_fraction_of_step": (split["assembly"] + split["handoff"]) / total,
                "krylov_iterations_per_step": timed["krylov_iterations_per_step"]}
        if all_cores is not None and folder != "perf-allcpu":
            case["speedup_vs_all_cores"] = all_cores / total
        cases.append(case)
        its = timed["krylov_iterations_per_step"]
        lines.append(
            f"| {name} | {run['solves']} | {total:.4f} | {one_core / total:.2f}x | "
            + (f"{all_cores / total:.2f}x" if all_cores else "–")
            + f" | {split['assembly']:.4f} | {split['handoff']:.4f} | {rows['petsc_setup']:.4f} | "
            f"{rows['petsc_solve']:.4f} | {rows['other']:.4f} | "
            + " / ".join(f"{its[k]:.0f}" for k in ("theta", "qv", "qc", "qr", "momentum", "pressure",
                                                    "projection"))
            + " |")
    for name, seconds in PUBLISHED:
        cases.append({"name": "mountainwave_timestep", "size": 554394, "size_unit": "tets",
                      "variant": "published_a100_" + name, "time_ms": seconds * 1e3,
                      "repeats": 0, "throughput": 554394 / seconds, "throughput_unit": "tets/s",
                      "baseline": "published_a100_1_cpu_core",
                      "speedup_vs_baseline": PUBLISHED[0][1] / seconds, "published": True})
        lines.append(f"| published_a100_{name} (554,394 tets) | – | {seconds:.3f} | "
                     f"{PUBLISHED[0][1] / seconds:.2f}x | – | | | | | | |")

    report = {"area": "mountainwave", "device": args.device, "commit": args.commit,
              "command": args.command, "date": date.today().isoformat(),
              "protocol": args.protocol, "cases": cases}
    with open(args.out + ".json", "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    with open(args.out + ".md", "w") as f:
        f.write(f"# mountainwave on {args.device}, {tets:,} tets\n\n- commit `{args.commit}`, "
                f"{report['date']}\n- command: `{args.command}`\n- {args.protocol} "
                "(seconds, the largest over ranks); speedups against one CPU core and against "
                "all host cores CPU-only, same solver options; breakdown: assembly kernels, edits + "
                "hand-off to PETSc, PETSc setup (preconditioner builds), PETSc solve, other; "
                "Krylov iterations per step (theta / qv / qc / qr / momentum / pressure / "
                "projection, summed over the Picard iterations)\n\n"
                "| configuration | solves | s / step | vs 1 core | vs all cores | assembly | "
                "hand-off | PETSc setup | PETSc solve | other | iterations |\n"
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
