#!/usr/bin/env python3
"""The adaptive run's results in bench/results' format (../shared/design/BENCHMARKS.md), from the
device outputs under device/ (README.md beside this file says which call wrote which):

    python3 bench/results/logs/issue37/to_bench.py

writes bench/results/mountainwave-adaptive-{h100,h200}-20261128.{json,md}.
"""
import json
import pathlib
import statistics

here = pathlib.Path(__file__).resolve().parent
results = here.parents[1]
PUBLISHED_FIXED_NODES = 99944  # the fixed mesh of 558,150 tets (-mesh_tets 554394 -horizontal_growth 1.15)


def load(path):
    return json.loads((here / path).read_text())


def step_ms(folder):
    for line in (here / folder / "timing.md").read_text().splitlines():
        if line.startswith("| Total timestep duration"):
            return 1000 * float(line.split("|")[2])
    raise ValueError(folder)


def accuracy(folder):
    comparison = load(f"{folder}/linear_theory/comparison.json")
    out = {}
    for height in comparison["heights"]:
        w = height["w"]
        z = int(height["z"] / 1000)
        out[f"w_correlation_{z}km"] = round(w["correlation"], 4)
        out[f"w_peak_up_error_{z}km"] = round(w["peak_up_rel_error"], 4)
        out[f"w_peak_down_error_{z}km"] = round(w["peak_down_rel_error"], 4)
    return out


def run_case(name, folder, variant, extra=None):
    run = load(f"{folder}/run.json")
    cycles = run["adaptations"]
    case = {
        "name": name,
        "size": run["nodes"], "size_unit": "nodes (final mesh)",
        "tets": run["tets"],
        "variant": variant,
        "steps": run["steps"],
        "time_ms": round(step_ms(folder), 2),
        "time_unit": "mean step after warm-up, last mesh",
        "run_seconds": round(run["run_seconds"], 2),
        "max_divergence": run["max_divergence"],
        "ranks": run["ranks"],
    }
    if cycles:
        case.update({
            "adaptations": len(cycles),
            "adapt_seconds": round(run["adapt_seconds"], 2),
            "adapt_fraction_of_run": round(run["adapt_seconds"] / run["run_seconds"], 3),
            "remesh_seconds_median": round(statistics.median(c["seconds"]["remesh"] for c in cycles), 2),
            "metric_seconds_median": round(statistics.median(c["seconds"]["metric"] for c in cycles), 2),
            "transfer_seconds_median": round(statistics.median(c["seconds"]["transfer"] for c in cycles), 2),
            "new_model_seconds_median": round(statistics.median(c["seconds"]["new_model"] for c in cycles), 2),
            "nodes_per_cycle": [c["nodes_after"] for c in cycles],
        })
    if (here / folder / "linear_theory").exists():
        case.update(accuracy(folder))
    case["fraction_of_published_fixed_nodes"] = round(run["nodes"] / PUBLISHED_FIXED_NODES, 3)
    case.update(extra or {})
    return case


def write(short, device, commit, command, cases, notes):
    stem = results / f"mountainwave-adaptive-{short}-20261128"
    record = {"area": "mountainwave", "device": device, "commit": commit, "command": command,
              "date": "2026-11-28", "cases": cases, "notes": notes}
    stem.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    rows = ["| case | variant | nodes | tets | step ms | adapt share | remesh s (median) | "
            "corr 2 km | corr 5 km | worst of 4 peaks |", "|" + "---|" * 10]
    for c in cases:
        peaks = [c.get(f"w_peak_{d}_error_{z}km") for d in ("up", "down") for z in (2, 5)]
        worst = max((abs(p) for p in peaks if p is not None), default=None)
        rows.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            c["name"], c["variant"], c["size"], c["tets"], c.get("time_ms", "-"),
            c.get("adapt_fraction_of_run", "-"), c.get("remesh_seconds_median", "-"),
            c.get("w_correlation_2km", "-"), c.get("w_correlation_5km", "-"),
            f"{100 * worst:.1f}%" if worst is not None else "-"))
    text = (f"# Mountain wave, adaptive run ({device}, {commit}, 2026-11-28)\n\n`{command}`\n\n"
            + "\n".join(rows) + "\n\n" + "\n".join(f"- {n}" for n in notes) + "\n")
    stem.with_suffix(".md").write_text(text)


validation = load("device/call_b/comparison.json")
tight = validation["gpu_solves_tight_vs_cpu_tight"]
write("h100", "NVIDIA H100 80GB HBM3", "faf0123",
      "bash bench/results/logs/issue37/adaptive_run.sh; "
      "bash bench/results/logs/issue37/adapted_mesh_validation.sh",
      [run_case("default_case_fixed", "device/call_a/fixed", "fixed_mesh"),
       run_case("default_case_adaptive", "device/call_a/adaptive", "adapt_every_20_steps"),
       {"name": "fixed_mesh_validation_from_adapted", "size": 50307, "size_unit": "nodes",
        "tets": 274773, "variant": "mesh_adapted_at_2800s_cpu_vs_gpu", "steps": 10,
        "bitwise_gpu_assembly_host_solves": all(validation["gpu_host_solves_vs_cpu_bitwise"].values()),
        "max_abs_difference_velocity_gpu_solves_tight": tight["velocity"]["max_abs_difference"],
        "max_abs_difference_theta_gpu_solves_tight": tight["theta"]["max_abs_difference"],
        "max_rel_error_vs_reference": max(v["max_abs_difference"] / v["max_abs_value"]
                                          for v in tight.values() if v["max_abs_value"] > 0)}],
      ["Ratios within one call (call A): the adapted mesh's step against the fixed mesh's.",
       "The adaptation share is rank 0's wall time in adaptations over the whole run's; Mmg "
       "(serial, on the host) is nearly all of it.",
       f"Published fixed mesh: {PUBLISHED_FIXED_NODES} nodes, w correlations 0.988 / 0.973 "
       "(measured at f7de253).",
       "fixed_mesh_validation_from_adapted (call B): the mesh adapted at 2800 s read with -mesh, "
       "10 steps from t = 0. GPU assembly (deterministic) with host solves: bitwise the CPU run "
       f"({all(validation['gpu_host_solves_vs_cpu_bitwise'].values())}). GPU solves, every system "
       f"to 1e-13: max |du| {tight['velocity']['max_abs_difference']:.1e} m/s, max |dtheta'| "
       f"{tight['theta']['max_abs_difference']:.1e} K."])
write("h200", "NVIDIA H200", "a9e16a5",
      "bash bench/results/logs/issue37/fewer_nodes_and_two_gpus.sh",
      [run_case("default_case_adaptive_45k_nodes", "device/call_c/fewer_nodes",
                "adapt_every_20_steps_adapt_nodes_45000"),
       run_case("default_case_adaptive_two_gpus", "device/call_c/two_gpus",
                "adapt_every_20_steps_2_ranks_1_gpu_each")],
      ["Call C ran on a two-H200 host; the 45k-node run used one GPU (CUDA_VISIBLE_DEVICES=0).",
       "The two-GPU run covers 1200 s (two adaptations): the gather, adapt and redistribute path "
       "with one GPU per rank."])
