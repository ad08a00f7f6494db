#!/usr/bin/env python3
"""Turns the issue-54 runs of bench/scaling/run_on_device.sh (modes syncs, latency, physics; the
folder its scaling-runs.tar.gz unpacks into) into results in the format of docs/benchmarks.md:

    syncs_to_bench.py --runs A=DIR [--runs B=DIR ...] --commit A=abc1234 [--commit B=...]
        --device "NVIDIA H200" --command "..." --out bench/results/mountainwave-syncs-h200x2-20261128

Each run becomes one case: the time step (time_ms), gpus, ranks and "mpi" (cuda-aware or
host-staged), and per step the halo exchanges, messages and reductions (run.json's
communication_per_step), kernels and host waits where counted (-count_cuda_calls), and the same
per linear system. A case on several GPUs carries its speed-up against the one-GPU run of the same
mesh and variant from the same device call; a run whose variant has no one-GPU run in its call
is compared with that call's "after" one-GPU run and says so in "baseline". The latency runs
(bench_exchange_latency, one JSON per MPI) are merged into <out's folder>/exchange-latency-*.json
with "mpi" on every case. Runs pair only within their device call ("device_call" on every case).
"""
import argparse
import json
import os
import re
import sys

# syncs-<tets>-<variant>-<n>gpu-staged|aware (device calls) or -<n>cpu-host (CPU ranks with
# -foehn_solver_defaults device: the GPU's algorithms and so its counts, without a GPU).
NAME = re.compile(r"^syncs-(\d+)-(.+)-(\d+)(gpu|cpu)-(staged|aware|host)$")


def per_step(counts):
    return {key: round(value, 2) for key, value in counts.items()} if counts else None


def load_case(folder, call):
    match = NAME.match(os.path.basename(folder))
    with open(os.path.join(folder, "run.json")) as f:
        run = json.load(f)
    tets, variant, count, kind, route = match.groups()
    gpus = count if kind == "gpu" else 0
    timed = run["timed_steps"]
    seconds = timed["seconds_per_step"]["total"]
    case = {"name": "mountainwave_timestep", "size": run["tets"], "size_unit": "tets",
            "variant": variant, "gpus": int(gpus), "ranks": run["ranks"], "mpi": run["mpi"],
            "device_call": call, "run": os.path.basename(folder),
            "time_ms": seconds * 1e3, "repeats": timed["steps"],
            "throughput": run["tets"] / seconds, "throughput_unit": "tets/s",
            "communication_per_step": per_step(timed["communication_per_step"]),
            "cuda_calls_per_step": per_step(timed.get("cuda_calls_per_step")),
            "systems": {s["name"]: {"krylov_iterations": round(s["krylov_iterations_per_step"], 2),
                                    "solve_seconds": s["seconds_per_step"]["solve"],
                                    "communication": per_step(s["communication_per_step"]),
                                    "cuda_calls": per_step(s.get("cuda_calls_per_step"))}
                        for s in timed["systems"] if s["solves_per_step"] > 0}}
    if route == "aware" and run["mpi"] != "cuda-aware":
        sys.exit(f"{folder}: run under the CUDA-aware MPI but PETSc staged its messages")
    if kind == "cpu":
        case["mpi"] = "host"  # CPU vectors: nothing to stage
    # A physics run (the default case's hour) also has the comparison with linear theory
    # (validation/linear_theory/compare_to_linear_theory.py --out <run>/lt) and the divergence
    # diagnostic at its end.
    theory = os.path.join(folder, "lt", "comparison.json")
    if os.path.exists(theory):
        with open(theory) as f:
            heights = json.load(f)["heights"]
        case["simulated_seconds"] = run["time"]
        case["max_divergence_at_end"] = run["max_divergence"]
        case["linear_theory_w"] = {
            f"z{int(h['z'])}": {key: round(h["w"][key], 4) for key in
                                ("correlation", "peak_up_model", "peak_down_model")}
            for h in heights}
    return case


def syncs(case):
    comm = case["communication_per_step"]
    return comm["halo_exchanges"] + comm["reductions"]


def add_speedups(cases):
    # Fewer synchronisations than the "before" variant of the same call, size and ranks.
    before = {(c["device_call"], c["size"], c["ranks"], c["gpus"]): c for c in cases
              if c["variant"] == "before"}
    for case in cases:
        base = before.get((case["device_call"], case["size"], case["ranks"], case["gpus"]))
        if base is not None and syncs(case) > 0:
            case["syncs_vs_before"] = round(syncs(base) / syncs(case), 3)
    one_gpu = {(c["device_call"], c["size"], c["variant"]): c for c in cases if c["gpus"] == 1}
    for case in cases:
        if case["gpus"] <= 1:
            continue
        key = (case["device_call"], case["size"], case["variant"])
        base, label = one_gpu.get(key), "1_gpu"
        if base is None:
            base, label = one_gpu.get((case["device_call"], case["size"], "after")), "1_gpu_after"
        if base is not None:
            case["baseline"] = label
            case["speedup_vs_baseline"] = round(base["time_ms"] / case["time_ms"], 3)


def markdown(report):
    lines = [f"# {report['area']} on {report['device']}, {report['date']}", "",
             f"- commits: {report['commit']}", f"- command: `{report['command']}`"]
    lines += [f"- {note}" for note in report["notes"]]
    lines += ["", "| call | tets | variant | GPUs (0: CPU) | ranks | MPI | s/step | vs 1 GPU | "
              "halo exchanges | reductions | fewer than before | messages | kernels | host waits |",
              "|---|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in report["cases"]:
        comm, calls = c["communication_per_step"], c["cuda_calls_per_step"] or {}
        speedup, fewer = c.get("speedup_vs_baseline"), c.get("syncs_vs_before")
        lines.append(
            f"| {c['device_call']} | {c['size']:,} | {c['variant']} | {c['gpus']} | {c['ranks']} | "
            f"{c['mpi']} | {c['time_ms'] / 1e3:.4f} | "
            f"{'' if speedup is None else f'{speedup:.2f}x'} | "
            f"{comm['halo_exchanges']:.0f} | {comm['reductions']:.0f} | "
            f"{'' if fewer is None else f'{fewer:.2f}x'} | {comm['messages']:.0f} | "
            f"{calls.get('kernel_launches', '-')} | {calls.get('host_synchronizations', '-')} |")
    return "\n".join(lines) + "\n"


def labelled(pairs, what):
    out = {}
    for pair in pairs:
        label, _, value = pair.partition("=")
        if not value:
            sys.exit(f"--{what} {pair}: expected LABEL=VALUE")
        out[label] = value
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", action="append", required=True, help="LABEL=DIR, once per call")
    p.add_argument("--commit", action="append", required=True, help="LABEL=COMMIT")
    p.add_argument("--device", required=True)
    p.add_argument("--command", required=True)
    p.add_argument("--date", default="2026-11-28")
    p.add_argument("--note", action="append", default=[])
    p.add_argument("--out", required=True, help="path without extension")
    args = p.parse_args()
    runs, commits = labelled(args.runs, "runs"), labelled(args.commit, "commit")
    cases, latency = [], []
    for call, folder in runs.items():
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isdir(path) and NAME.match(name) and os.path.exists(
                    os.path.join(path, "run.json")):
                cases.append(load_case(path, call))
            if os.path.isdir(path) and name.startswith("latency-"):
                route = "cuda-aware" if name.endswith("-aware") else "host-staged"
                for file in os.listdir(path):
                    if file.endswith(".json"):
                        with open(os.path.join(path, file)) as f:
                            result = json.load(f)
                        for case in result["cases"]:
                            latency.append(dict(case, mpi=route, device_call=call))
    add_speedups(cases)
    report = {"area": "mountainwave", "device": args.device,
              "commit": ", ".join(f"{k}: {v}" for k, v in commits.items()),
              "command": args.command, "date": args.date, "cases": cases, "notes": args.note}
    with open(args.out + ".json", "w") as f:
        json.dump({k: v for k, v in report.items() if k != "notes"} | {"notes": args.note}, f,
                  indent=1)
    with open(args.out + ".md", "w") as f:
        f.write(markdown(report))
    if latency:
        folder = os.path.dirname(args.out)
        stem = os.path.basename(args.out).replace("mountainwave-syncs", "exchange-latency")
        latency_report = {"area": "scaling", "device": args.device, "commit": report["commit"],
                          "command": "mpirun -n 2 bench_exchange_latency (Debian's Open MPI, "
                                     "then the CUDA-aware one)", "date": args.date,
                          "cases": latency}
        with open(os.path.join(folder, stem + ".json"), "w") as f:
            json.dump(latency_report, f, indent=1)
        lines = [f"# one halo exchange and one reduction, 2 ranks on 2 GPUs, {args.date}", "",
                 "| MPI | what | vectors | values | µs |", "|---|---|---|---:|---:|"]
        for c in latency:
            lines.append(f"| {c['mpi']} | {c['name']} | {c['variant']} | {c['size']} | "
                         f"{c['time_ms'] * 1e3:.1f} |")
        with open(os.path.join(folder, stem + ".md"), "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"wrote {args.out}.json and .md ({len(cases)} cases, {len(latency)} latency cases)")


if __name__ == "__main__":
    main()
