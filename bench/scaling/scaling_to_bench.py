#!/usr/bin/env python3
"""Turns the runs of bench/scaling/run_on_device.sh (the folder its scaling-runs.tar.gz unpacks
into) into one benchmark result in the format of docs/benchmarks.md: bench/results/
mountainwave-scaling-<device>-<date>.json + .md. Every case carries gpus and ranks; a case on
several GPUs carries "baseline": "1_gpu" and its speedup against the one-GPU run of the same
mesh (strong scaling, Krylov variants, CUDA-aware MPI) from the same device call, a weak-scaling
case its efficiency (one GPU's step time / two GPUs' at twice the tets).

    scaling_to_bench.py --runs DIR --commit abc1234 --device "NVIDIA H200" \\
        --command "bench/scaling/run_on_device.sh tests krylov strong" \\
        --out bench/results/mountainwave-scaling-h200-20261126

Several device calls go into one result with --runs LABEL=DIR once per call (each with its own
--krylov variants file as LABEL=FILE where it differs): runs pair only within their call, and
every case carries "device_call": LABEL.
"""
import argparse
import json
import os
import re
import sys
from datetime import date

PHASES = ("assembly", "handoff")


def load_run(runs, name):
    """timing.json rows, run.json and the set-up seconds of one run, or None."""
    folder = os.path.join(runs, name)
    try:
        with open(os.path.join(folder, "timing.json")) as f:
            table = json.load(f)
        with open(os.path.join(folder, "run.json")) as f:
            run = json.load(f)
    except OSError:
        return None
    setup = None
    log = os.path.join(runs, name + ".log")
    if os.path.exists(log):
        with open(log, errors="replace") as f:
            text = f.read()
        found = re.search(r"setup ([0-9.]+) s", text)
        setup = float(found.group(1)) if found else None
    rows = {row["key"]: row["seconds_per_step"] for row in table["rows"]}
    return {"rows": rows, "run": run, "setup": setup}


def case_of(name, data, variant, gpus):
    rows, run = data["rows"], data["run"]
    total = rows["total"]
    split = run["timed_steps"]["seconds_per_step"]
    case = {"name": "mountainwave_timestep", "size": run["tets"], "size_unit": "tets",
            "variant": variant, "run": name, "gpus": gpus, "ranks": run["ranks"],
            "solves": run["solves"], "time_ms": total * 1e3,
            "repeats": run["timed_steps"].get("steps", 0),
            "throughput": run["tets"] / total, "throughput_unit": "tets/s",
            "breakdown_seconds_per_step": {
                "assembly": split["assembly"], "handoff": split["handoff"],
                "petsc_setup": rows["petsc_setup"], "petsc_solve": rows["petsc_solve"],
                "other": rows["other"]},
            "krylov_iterations_per_step": run["timed_steps"]["krylov_iterations_per_step"]}
    if data["setup"] is not None:
        case["setup_seconds"] = data["setup"]
    if run.get("gpu_memory_bytes_per_tet"):
        case["gpu_memory_bytes_per_tet"] = run["gpu_memory_bytes_per_tet"]
        case["gpu_memory_max_bytes_per_rank"] = run["gpu_memory_max_bytes_per_rank"]
    return case


def gpus_in(name):
    found = re.search(r"(\d+)gpu", name)
    return int(found.group(1)) if found else 1


def cases_of_call(args, folder, krylov):
    """The cases of the runs of one device call (the folder its tarball unpacks into)."""
    names = sorted(d for d in os.listdir(folder)
                   if os.path.isdir(os.path.join(folder, d)))
    runs = {n: load_run(folder, n) for n in names}
    runs = {n: d for n, d in runs.items() if d is not None}
    def variants_of(path):
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return [line.rstrip("\n") for line in f if not line.startswith("#")]

    krylov_variants = variants_of(krylov)
    memory_variants = variants_of(args.memory)
    calls = dict(item.split("=", 1) for item in args.calls.split(",") if "=" in item)
    best_main = min((d["rows"]["total"] for n, d in runs.items() if n.startswith("main-")),
                    default=None)

    cases = []
    for name, data in runs.items():
        gpus = gpus_in(name)
        if name.startswith("strong-") or name.startswith("weak-") or name.startswith("large-"):
            kind, tets = name.split("-")[0], name.split("-")[1]
            case = case_of(name, data, f"{kind}_{gpus}gpu", gpus)
            one = runs.get(f"{kind}-{tets}-1gpu")
            if one is None and kind == "weak":  # the same case, run once as strong scaling's
                one = runs.get(f"strong-{tets}-1gpu")
            if gpus > 1 and one is not None:
                ratio = one["rows"]["total"] / data["rows"]["total"]
                case["baseline"] = "1_gpu"
                if kind == "strong":
                    case["speedup_vs_baseline"] = ratio
                else:
                    case["weak_scaling_efficiency"] = ratio
                    case["tets_per_gpu"] = data["run"]["tets"] / gpus
        elif name.startswith("krylov-"):
            index = name.split("-")[-1]
            text = "defaults"
            if index.isdigit() and 0 < int(index) <= len(krylov_variants):
                text = krylov_variants[int(index) - 1].strip() or "defaults"
            case = case_of(name, data, "krylov: " + text, gpus)
            one = runs.get("krylov-1gpu-defaults")
            if gpus > 1 and one is not None:
                case["baseline"] = "1_gpu"
                case["speedup_vs_baseline"] = one["rows"]["total"] / data["rows"]["total"]
        elif name.startswith("ucx-"):
            case = case_of(name, data, name[len("ucx-"):], gpus)
            # The one-GPU run of the same mesh in the same call (older calls: the Krylov one).
            one = runs.get(f"ucx-{name.split('-')[1]}-1gpu") or runs.get("krylov-1gpu-defaults")
            if one is not None and one["run"]["tets"] == data["run"]["tets"]:
                case["baseline"] = "1_gpu"
                case["speedup_vs_baseline"] = one["rows"]["total"] / data["rows"]["total"]
        elif name.startswith("hostptap-"):
            tets = name.split("-")[1]
            case = case_of(name, data, f"galerkin_products_on_host_{gpus}gpu", gpus)
            one = runs.get(f"hostptap-{tets}-1gpu")
            if gpus > 1 and one is not None:
                case["baseline"] = "1_gpu"
                case["speedup_vs_baseline"] = one["rows"]["total"] / data["rows"]["total"]
        elif name.startswith("clear-"):
            case = case_of(name, data, name.split("-", 2)[2], gpus)
        elif name.startswith("memory-"):
            index = name.split("-")[-1]
            text = "defaults"
            if index.isdigit() and 0 < int(index) <= len(memory_variants):
                text = memory_variants[int(index) - 1].strip() or "defaults"
            case = case_of(name, data, "memory: " + text, gpus)
        elif name.startswith("main-"):
            case = case_of(name, data, "main_job_" + name[len("main-"):], data["run"]["ranks"])
            case["name"] = "main_job_timestep"
            case["gpus"] = min(args.host_gpus, data["run"]["ranks"])
            case["baseline"] = "best_launch"
            case["speedup_vs_baseline"] = best_main / data["rows"]["total"]
        else:
            continue
        for prefix, call in calls.items():
            if name.startswith(prefix):
                case["device_call"] = call
        cases.append(case)
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", required=True, action="append",
                        help="DIR, or LABEL=DIR once per device call")
    parser.add_argument("--commit", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--command", required=True)
    parser.add_argument("--krylov", default=[], action="append",
                        help="the variants file of the krylov runs, to name them (LABEL=FILE "
                             "for one call; bench/scaling/krylov_variants.txt where none)")
    parser.add_argument("--memory", default="bench/scaling/memory_variants.txt",
                        help="the variants file of the memory runs, to name them")
    parser.add_argument("--calls", default="",
                        help="which device call made which runs: 'prefix=call,...' (ratios "
                             "only pair runs of one call)")
    parser.add_argument("--host-gpus", type=int, default=2,
                        help="GPUs of the host (the main job's launches put one rank on each)")
    parser.add_argument("--out", required=True, help="path without extension")
    args = parser.parse_args()

    krylov_files = dict(item.split("=", 1) if "=" in item else ("", item)
                        for item in args.krylov)
    cases = []
    for item in args.runs:
        label, folder = item.split("=", 1) if "=" in item else ("", item)
        krylov = krylov_files.get(label, krylov_files.get("", "bench/scaling/krylov_variants.txt"))
        for case in cases_of_call(args, folder, krylov):
            if label:
                case["device_call"] = label
                case["run"] = f"{label}/{case['run']}"
            cases.append(case)
    if not cases:
        sys.exit(f"no runs with timing.json and run.json under {', '.join(args.runs)}")
    report = {"area": "mountainwave", "device": args.device, "commit": args.commit,
              "command": args.command, "date": date.today().isoformat(),
              "protocol": "per-step mean of the timed steps after the warm-up steps, the "
                          "slowest rank; one rank per GPU; solves on the GPUs; speedups from "
                          "runs of the same device call",
              "cases": cases}
    with open(args.out + ".json", "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    with open(args.out + ".md", "w") as f:
        f.write(f"# mountain-wave core on 1 to {max(c['gpus'] for c in cases)} GPUs: {args.device}\n\n- commit `{args.commit}`, "
                f"{report['date']}\n- command: `{args.command}`\n- {report['protocol']}\n\n"
                "| run | tets | gpus | s / step | vs 1 GPU | set-up s | GPU B/tet | assembly | "
                "hand-off | PETSc setup | PETSc solve | other |\n"
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for c in cases:
            b = c["breakdown_seconds_per_step"]
            ratio = c.get("speedup_vs_baseline", c.get("weak_scaling_efficiency"))
            f.write(f"| {c['run']} ({c['variant']}) | {c['size']:,} | {c['gpus']} | "
                    f"{c['time_ms'] / 1e3:.4f} | " + (f"{ratio:.2f}x" if ratio else "–") +
                    f" | {c.get('setup_seconds', float('nan')):.1f} | "
                    f"{c.get('gpu_memory_bytes_per_tet', float('nan')):.0f} | "
                    f"{b['assembly']:.4f} | {b['handoff']:.4f} | {b['petsc_setup']:.4f} | "
                    f"{b['petsc_solve']:.4f} | {b['other']:.4f} |\n")


if __name__ == "__main__":
    main()
