#!/usr/bin/env python3
"""Issue 56's device results in bench/results' format (../shared/design/BENCHMARKS.md), from the
archives bench/adapt/gpu_issue56_20261202.sh wrote, unpacked under
bench/results/logs/issue56/part1 and part2:

    /usr/bin/python3 bench/adapt/issue56_to_bench.py DEVICE COMMIT

runs validation/linear_theory/compare_to_linear_theory.py on every run's last sections and
writes bench/results/mountainwave-adaptive-parallel-h200-20261202.{json,md}.
"""
import json
import pathlib
import statistics
import subprocess
import sys

repo = pathlib.Path(__file__).resolve().parents[2]
logs = repo / "bench/results/logs/issue56"
stem = repo / "bench/results/mountainwave-adaptive-parallel-h200-20261202"
COMMAND = "PART=1 bash bench/adapt/gpu_issue56_20261202.sh; PART=2 bash bench/adapt/gpu_issue56_20261202.sh"


def step_ms(folder):
    for line in (folder / "timing.md").read_text().splitlines():
        if line.startswith("| Total timestep duration"):
            return 1000 * float(line.split("|")[2])
    return None


def accuracy(folder):
    sections = folder / "sections_latest.h5"
    out_dir = folder / "linear_theory"
    if not (out_dir / "comparison.json").exists():
        if not sections.exists():
            return {}
        subprocess.run([sys.executable, str(repo / "validation/linear_theory/compare_to_linear_theory.py"),
                        "--model", str(sections), "--out", str(out_dir), "--no-plots"], check=False)
    comparison = json.loads((out_dir / "comparison.json").read_text())
    out = {}
    for height in comparison["heights"]:
        w = height["w"]
        z = int(height["z"] / 1000)
        out[f"w_correlation_{z}km"] = round(w["correlation"], 4)
        out[f"w_peak_up_error_{z}km"] = round(w["peak_up_rel_error"], 4)
        out[f"w_peak_down_error_{z}km"] = round(w["peak_down_rel_error"], 4)
    return out


def worst_peak(case):
    """The largest |peak error| of w at 2 and 5 km, up and down, as "12.3%", or "-"."""
    peaks = [case.get(f"w_peak_{d}_error_{z}km") for d in ("up", "down") for z in (2, 5)]
    worst = max((abs(p) for p in peaks if p is not None), default=None)
    return f"{100 * worst:.1f}%" if worst is not None else "-"


def run_case(folder, variant):
    run = json.loads((folder / "run.json").read_text())
    cycles = run["adaptations"]
    case = {"name": folder.name, "variant": variant, "size": run["nodes"],
            "size_unit": "nodes (final mesh)", "tets": run["tets"], "steps": run["steps"],
            "ranks": run["ranks"], "time_ms": step_ms(folder),
            "time_unit": "mean step after warm-up, last mesh",
            "run_seconds": round(run["run_seconds"], 2)}
    if cycles:
        remesh = [c["seconds"]["remesh"] for c in cycles]
        case.update({
            "adaptations": len(cycles),
            "adapt_overlap": run.get("adapt_overlap", False),
            "adapt_seconds": round(run["adapt_seconds"], 2),
            "adapt_fraction_of_run": round(run["adapt_seconds"] / run["run_seconds"], 3),
            "remesh_seconds_median": round(statistics.median(remesh), 2),
            "waited_seconds_total": round(sum(c.get("waited_seconds", 0) for c in cycles), 2),
            "metric_seconds_median": round(statistics.median(c["seconds"]["metric"] for c in cycles), 2),
            "transfer_seconds_median": round(statistics.median(c["seconds"]["transfer"] for c in cycles), 2),
            "new_model_seconds_median": round(statistics.median(c["seconds"]["new_model"] for c in cycles), 2),
            "remesh_parts": cycles[-1]["remesh"]["parts"],
            "remesh_threads": cycles[-1]["remesh"]["threads"],
            "nodes_per_cycle": [c["nodes_after"] for c in cycles],
            "quality_last": cycles[-1]["quality"],
            "min_dihedral_degrees_worst": min(c["quality"]["min_dihedral_degrees"] for c in cycles),
            "worst_aspect_ratio_worst": max(c["quality"]["worst_aspect_ratio"] or 1e300 for c in cycles),
        })
    case.update(accuracy(folder))
    return case


def main():
    device, commit = sys.argv[1], sys.argv[2]
    cases = []
    notes = [
        "One H200 host of 16 cores (gVisor); the two-GPU host was not lent this session, so the 32-thread and two-GPU cases were not run.",
        "remesh_step_140_metric: the metric the serial adaptive run gave Mmg at step 140 (adapt_metric_000140.vtu), remeshed by serial Mmg and by adapt::remesh_in_parallel at 4, 8 and 16 threads (parts = threads), each with a memory cap near each part's needs and with Mmg's default (arrays for 6 million tets a call).",
        "The adaptive runs with the parallel remesh (part2: waiting for it, overlapped, and overlapped with -adapt_nodes 100000) stopped with exit 2 at their second adaptation (step 40): the parallel remesh left edges of 49 m (48 m overlapped, 34 m at 100k nodes) where serial Mmg keeps them above 75 m, which the CFL check after an adaptation refuses (CFL 4.3 above -cfl_max 4). Their first adaptation took 16.0 s (waiting) and 13.4 s (overlapped, 12.5 s of it waited for) against serial Mmg's 25.6 s at step 20 here; they are not in the table and the parallel remesh is not the default.",
    ]
    runs = {"fixed_default": "fixed_mesh", "fixed_published": "fixed_mesh_published_size",
            "adaptive_serial": "serial_mmg_wait", "adaptive_parallel_wait": "parallel_remesh_wait",
            "adaptive_parallel_overlap": "parallel_remesh_overlap",
            "adaptive_overlap_100k": "parallel_remesh_overlap_100k_nodes", "two_gpus": "two_ranks_overlap"}
    for part in ("part1", "part2"):
        for name, variant in runs.items():
            folder = logs / part / name
            if (folder / "run.json").exists():
                cases.append(run_case(folder, variant))
    fixed = next((c for c in cases if c["name"] == "fixed_default"), None)
    for c in cases:
        if fixed and c is not fixed:
            c["run_seconds_vs_fixed_default"] = round(c["run_seconds"] / fixed["run_seconds"], 2)
    scaling_file = logs / "part1" / "scaling" / "remesh_scaling.json"
    if scaling_file.exists():
        scaling = json.loads(scaling_file.read_text())
        serial = scaling["cases"][0]
        for s in scaling["cases"]:
            cases.append({"name": "remesh_step_140_metric", "variant": s["name"], "threads": s["threads"],
                          "size": scaling["input_tets"], "size_unit": "tets in",
                          "time_ms": round(1000 * s["seconds"], 1), "repeats": 1,
                          "throughput": round(s["tets_per_second"]), "throughput_unit": "tets made/s",
                          "tets_out": s["tets"], "baseline": "serial_mmg",
                          "speedup_vs_baseline": round(serial["seconds"] / s["seconds"], 2),
                          "quality": s["quality"], "passes": s.get("passes", [])})
    record = {"area": "mountainwave", "device": device, "commit": commit, "command": COMMAND,
              "date": "2026-12-02", "cases": cases, "notes": notes}
    stem.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    rows = ["| case | variant | nodes | step ms | run s | vs fixed | adapt share | remesh s (median) | "
            "corr 2 / 5 km | worst peak | min dihedral |", "|" + "---|" * 11]
    for c in cases:
        if "run_seconds" not in c:
            continue
        rows.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} | {} |".format(
            c["name"], c["variant"], c["size"], round(c["time_ms"], 1) if c["time_ms"] else "-",
            c["run_seconds"], c.get("run_seconds_vs_fixed_default", "-"),
            c.get("adapt_fraction_of_run", "-"), c.get("remesh_seconds_median", "-"),
            c.get("w_correlation_2km", "-"), c.get("w_correlation_5km", "-"),
            worst_peak(c),
            round(c["min_dihedral_degrees_worst"], 2) if "min_dihedral_degrees_worst" in c else "-"))
    rows += ["", "| remesh of one metric | threads | seconds | tets/s | speedup vs serial Mmg | "
             "min dihedral | 1st pct dihedral | worst aspect |", "|" + "---|" * 8]
    for c in cases:
        if c["name"] != "remesh_step_140_metric":
            continue
        q = c["quality"]
        rows.append("| {} | {} | {:.2f} | {} | {} | {:.2f} | {:.2f} | {} |".format(
            c["variant"], c["threads"], c["time_ms"] / 1000, c["throughput"], c["speedup_vs_baseline"],
            q["min_dihedral_degrees"], q["dihedral_percentile_1_degrees"],
            round(q["worst_aspect_ratio"], 1) if q["worst_aspect_ratio"] else "inf"))
    text = (f"# Mountain wave, adaptive run with the parallel remesh ({device}, {commit}, 2026-12-02)\n\n"
            f"`{COMMAND}`\n\n" + "\n".join(rows) + "\n")
    stem.with_suffix(".md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
