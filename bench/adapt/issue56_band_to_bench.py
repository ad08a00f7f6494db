#!/usr/bin/env python3
"""Issue 56's second round (the band of later passes, short edges freed) in bench/results' format
(../shared/design/BENCHMARKS.md), from the archives of `PART=3 bash
bench/adapt/gpu_issue56_20261202.sh` unpacked under bench/results/logs/issue56/part3:

    /usr/bin/python3 bench/adapt/issue56_band_to_bench.py DEVICE COMMIT

writes bench/results/mountainwave-adaptive-band-h200-20261202.{json,md}. The runs' accuracy is
the comparison with linear theory made on the device (linear_theory/comparison.json).
"""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from issue56_to_bench import run_case, worst_peak  # noqa: E402  (the same fields as the first round)

repo = pathlib.Path(__file__).resolve().parents[2]
logs = repo / "bench/results/logs/issue56/part3"
stem = repo / "bench/results/mountainwave-adaptive-band-h200-20261202"
COMMAND = ("PART=3 SERIAL=1 METRIC=.gpu_inputs/adapt_metric_000040.vtu bash bench/adapt/gpu_issue56_20261202.sh"
           " (the metric: foehn-mountainwave -adapt_interval 20 -adapt_remesh_parts 1"
           " -adapt_write_metric, CPU, its adaptation at step 40)")


def scaling_cases():
    cases = []
    serial = None
    for name in ("band2", "band_variants", "no_short_edge_pass", "tets_balanced"):
        data = json.loads((logs / "scaling" / f"{name}.json").read_text())
        for s in data["cases"]:
            if s["name"] == "serial_mmg":
                serial = s
            variant = s["name"] if s["name"] == "serial_mmg" else (
                f"parallel_band{s['band_layers']}" +
                {"no_short_edge_pass": "_short_edges_left", "tets_balanced": "_tets_balanced"}.get(name, ""))
            cases.append({"name": "remesh_step_40_metric", "variant": variant, "threads": s["threads"],
                          "size": data["input_tets"], "size_unit": "tets in",
                          "time_ms": round(1000 * s["seconds"], 1), "repeats": 1,
                          "throughput": round(s["tets_per_second"]), "throughput_unit": "tets made/s",
                          "tets_out": s["tets"], "baseline": "serial_mmg",
                          "speedup_vs_baseline": round(serial["seconds"] / s["seconds"], 2),
                          "partition_seconds": s.get("partition_seconds"),
                          "quality": s["quality"], "passes": s.get("passes", [])})
    return cases


def main():
    device, commit = sys.argv[1], sys.argv[2]
    runs = {"fixed_default": "fixed_mesh", "adaptive_serial": "serial_mmg_wait",
            "adaptive_parallel_wait": "parallel_remesh_wait",
            "adaptive_parallel_overlap": "parallel_remesh_overlap"}
    cases = [run_case(logs / name, variant) for name, variant in runs.items()
             if (logs / name / "run.json").exists()]
    stopped = logs / "adaptive_parallel_wait" / "adaptive_parallel_wait.log"
    if not (logs / "adaptive_parallel_wait" / "run.json").exists() and stopped.exists():
        text = stopped.read_text()
        seconds = [float(line.split(" s (gather")[0].rsplit(" ", 1)[1])
                   for line in text.splitlines() if "adapted at step" in line and " s (gather" in line]
        cases.append({"name": "adaptive_parallel_wait", "variant": "parallel_remesh_wait",
                      "stopped": [line for line in text.splitlines() if "invalid input" in line][0],
                      "adaptations_done": len(seconds), "adapt_seconds_done": round(sum(seconds), 2)})
    fixed = cases[0]
    for c in cases[1:]:
        if "run_seconds" in c:
            c["run_seconds_vs_fixed_default"] = round(c["run_seconds"] / fixed["run_seconds"], 2)
    cases += scaling_cases()
    notes = [
        "One H200 host of 16 cores (gVisor), one call; no two-GPU or 32-core host was lent.",
        "remesh_step_40_metric: the metric of a CPU run's adaptation at step 40 (serial Mmg), carried to the device; serial Mmg and adapt::remesh_in_parallel (parts = threads) in the same call.",
        "parallel_bandN: later passes remesh a band of N layers around the nodes to free (0: the whole mesh in every pass); _short_edges_left: without freeing the edges below 0.6 x --hmin (75 m).",
        "adaptive_parallel_wait stopped with exit 2 at step 120 (an edge of 56.4 m left, CFL 4.09 above -cfl_max 4): its numbers are those of the steps it ran. The same case at commit 3351664 (METIS balancing tets, logs/issue56/part3_3351664) ran the hour in 82.5 s.",
        "tets_balanced: the parts balanced in tets rather than in expected Mmg work (balance_work false).",
        "After this call the repair passes were changed (one part each, undone and ended when they do not lengthen the shortest edge); on the same 16 parts the result is bitwise the same on any host, and the CPU's run of it is in docs/adaptivity.md.",
    ]
    record = {"area": "mountainwave", "device": device, "commit": commit, "command": COMMAND,
              "date": "2026-12-02", "cases": cases, "notes": notes}
    stem.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    rows = ["| case | nodes | step ms | run s | vs fixed | adapt share | remesh s (median) | waited s | "
            "corr 2 / 5 km | worst peak | min dihedral |", "|" + "---|" * 11]
    for c in cases:
        if "stopped" in c:
            rows.append(f"| {c['name']} | - | - | stopped | - | - | - | - | - | - | - |")
        if "run_seconds" not in c:
            continue
        rows.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} | {} |".format(
            c["name"], c["size"], round(c["time_ms"], 1) if c["time_ms"] else "-", c["run_seconds"],
            c.get("run_seconds_vs_fixed_default", "-"), c.get("adapt_fraction_of_run", "-"),
            c.get("remesh_seconds_median", "-"), c.get("waited_seconds_total", "-"),
            c.get("w_correlation_2km", "-"), c.get("w_correlation_5km", "-"),
            worst_peak(c),
            round(c["min_dihedral_degrees_worst"], 2) if "min_dihedral_degrees_worst" in c else "-"))
    rows += ["", "| remesh of one metric | threads | seconds | speedup vs serial Mmg | passes | tets out | "
             "shortest edge m | min dihedral | 1st pct dihedral | worst aspect |", "|" + "---|" * 10]
    for c in cases:
        if c["name"] != "remesh_step_40_metric":
            continue
        q = c["quality"]
        rows.append("| {} | {} | {:.2f} | {} | {} | {} | {:.1f} | {:.2f} | {:.2f} | {} |".format(
            c["variant"], c["threads"], c["time_ms"] / 1000, c["speedup_vs_baseline"],
            len(c["passes"]) or 1, c["tets_out"], q["shortest_edge"], q["min_dihedral_degrees"],
            q["dihedral_percentile_1_degrees"],
            round(q["worst_aspect_ratio"], 1) if q["worst_aspect_ratio"] else "inf"))
    text = (f"# Mountain wave, adaptive run with the banded parallel remesh ({device}, {commit}, "
            f"2026-12-02)\n\n`{COMMAND}`\n\n" + "\n".join(rows) + "\n\n" +
            "\n".join(f"- {n}" for n in notes + [c["stopped"] for c in cases if "stopped" in c]) + "\n")
    stem.with_suffix(".md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
