#!/usr/bin/env python3
"""Call B's comparison: the final checkpoints of the runs from the adapted mesh, GPU against CPU.

    python3 compare_checkpoints.py device/call_b > device/call_b/comparison.json

Deterministic assembly with the solves on the host must be bitwise the CPU run; with the solves
on the GPU (every system to 1e-13) the largest difference per field is reported with the field's
largest magnitude.
"""
import json
import sys

import h5py
import numpy as np


def fields(path):
    with h5py.File(path, "r") as f:
        return {name: f["nodes"][name][()] for name in f["nodes"]}


folder = sys.argv[1]
cpu, gpu_host = fields(f"{folder}/cpu/checkpoint_000010.h5"), fields(f"{folder}/gpu_host/checkpoint_000010.h5")
cpu_tight, gpu_tight = (fields(f"{folder}/{run}/checkpoint_000010.h5") for run in ("cpu_tight", "gpu_tight"))
result = {
    "gpu_host_solves_vs_cpu_bitwise": {name: bool(np.array_equal(cpu[name], gpu_host[name])) for name in cpu},
    "gpu_solves_tight_vs_cpu_tight": {
        name: {"max_abs_difference": float(np.max(np.abs(cpu_tight[name] - gpu_tight[name]))),
               "max_abs_value": float(np.max(np.abs(cpu_tight[name])))}
        for name in cpu_tight if name != "coordinates"},
}
json.dump(result, sys.stdout, indent=1)
print()
