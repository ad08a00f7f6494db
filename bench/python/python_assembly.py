"""Assembly through Python against the same call made in C++, on the GPU (issue 38's target:
within 5 % at 5 M tets, CuPy fields, device Mat).

Each case times `repeats` calls of the public Python API (foehn.Assembler.assemble into CuPy
arrays; foehn.Matrix.assemble into an AIJCUSPARSE Mat) and, in the same process on the same
objects, `repeats` calls of the C ABI function behind it, looped in C++ (the module's
time_assemble_values / time_assemble). Their ratio is the Python overhead. Results are checked
against the CPU backend (the deterministic strategy: bitwise) before they are written.

PETSc is initialised by petsc4py when it is installed, else here through ctypes (the GPU host
has no petsc4py): PETSC_OPTIONS supplies -use_gpu_aware_mpi 0. Writes the BENCHMARKS.md JSON.

usage: python_assembly.py OUT.json [--tets N] [--repeats R] [--commit C]
"""
import argparse
import ctypes
import datetime
import json
import os
import statistics
import time

import numpy as np

import foehn

try:
    from petsc4py import PETSc
except ImportError:
    PETSc = None


def loaded_library(fragment):
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if fragment in os.path.basename(path):
                return path
    raise RuntimeError(f"{fragment} is not loaded")


class CtypesPetsc:
    """The few PETSc calls a device Mat needs, where petsc4py is missing."""

    def __init__(self):
        self.lib = ctypes.CDLL(loaded_library("libpetsc.so"))
        self.mpi = ctypes.CDLL(loaded_library("libmpi.so"))
        self.check(self.lib.PetscInitializeNoArguments(), "PetscInitializeNoArguments")
        self.mpi.MPI_Comm_f2c.restype = ctypes.c_void_p
        self.comm_self = ctypes.c_void_p(self.mpi.MPI_Comm_f2c(1))  # MPI_COMM_SELF

    @staticmethod
    def check(code, what):
        if code != 0:
            raise RuntimeError(f"{what}: PETSc error {code}")

    def device_mat(self, rows, block):
        mat = ctypes.c_void_p()
        self.check(self.lib.MatCreate(self.comm_self, ctypes.byref(mat)), "MatCreate")
        self.check(self.lib.MatSetSizes(mat, rows, rows, -1, -1), "MatSetSizes")
        self.check(self.lib.MatSetBlockSizes(mat, block, block), "MatSetBlockSizes")
        self.check(self.lib.MatSetType(mat, b"aijcusparse"), "MatSetType")
        return mat

    def destroy(self, mat):
        self.check(self.lib.MatDestroy(ctypes.byref(mat)), "MatDestroy")

    def finalize(self):
        self.check(self.lib.PetscFinalize(), "PetscFinalize")


def median_python_seconds(call, repeats, trials):
    """Median over `trials` of the mean seconds of `repeats` calls (each call synchronises)."""
    samples = []
    for _ in range(trials):
        start = time.perf_counter()
        for _ in range(repeats):
            call()
        samples.append((time.perf_counter() - start) / repeats)
    return statistics.median(samples)


def median_cpp_seconds(call, repeats, trials):
    return statistics.median(call(repeats) for _ in range(trials))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output")
    parser.add_argument("--tets", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--trials", type=int, default=7)
    parser.add_argument("--commit", default=os.environ.get("FOEHN_BENCH_COMMIT", "unknown"))
    args = parser.parse_args()
    import cupy

    petsc = None if PETSc is not None else CtypesPetsc()
    side = round((args.tets / 6 / 0.83) ** (1 / 3))  # x = y, z = 0.83 x (the default's shape)
    cells = (side, side, max(2, round(0.83 * side)))
    started = time.perf_counter()
    mesh = foehn.Mesh.mountain(cells)
    print(f"mesh {cells}: {mesh.tet_count} tets, {mesh.node_count} nodes "
          f"({time.perf_counter() - started:.1f} s)", flush=True)
    x, y, z = cupy.asarray(mesh.points).T
    velocity = cupy.stack([10.0 + 0.5 * cupy.sin(x / 3000.0), 0.1 * cupy.cos(y / 3000.0),
                           0.2 * cupy.sin(x / 2000.0) * cupy.exp(-z / 4000.0)], axis=1)
    host_velocity = cupy.asnumpy(velocity)
    operators = {
        "momentum": dict(density_over_dt=0.05, viscosity=10.0),
        "diffusion": dict(),
    }
    tensor = np.tile(np.diag([10.0, 10.0, 1.0]), (mesh.node_count, 1, 1))
    cases = []
    cpu = foehn.Assembler(mesh, backend="cpu")
    for strategy in ("deterministic", "fused_map"):
        gpu = foehn.Assembler(mesh, backend="cuda", strategy=strategy)
        for name, parameters in operators.items():
            if name == "momentum":
                device_op = foehn.Operator(name, advecting_velocity=velocity, **parameters)
                host_op = foehn.Operator(name, advecting_velocity=host_velocity, **parameters)
            else:
                device_op = foehn.Operator(name, tensor=cupy.asarray(tensor))
                host_op = foehn.Operator(name, tensor=tensor)
            rows, cols = device_op.block_shape
            values = cupy.empty(gpu.value_count(device_op))
            gpu.assemble(device_op, out=values)
            reference = cpu.assemble(host_op)
            error = float(np.max(np.abs(cupy.asnumpy(values) - reference)) /
                          np.max(np.abs(reference)))
            if strategy == "deterministic" and error != 0.0:
                raise RuntimeError(f"{name}: deterministic GPU values differ from the CPU ({error})")
            if error > 1e-14:
                raise RuntimeError(f"{name} {strategy}: GPU values differ by {error}")
            python = median_python_seconds(lambda: gpu.assemble(device_op, out=values),
                                           args.repeats, args.trials)
            native = median_cpp_seconds(
                lambda r: gpu._handle.time_assemble_values(device_op._handle, 1, values, r),
                args.repeats, args.trials)
            cases.append(case(f"{name}_values_cupy", mesh, strategy, python, native, args, error))
            print(cases[-1]["name"], strategy, f"python {python * 1e3:.3f} ms, C++ "
                  f"{native * 1e3:.3f} ms, ratio {python / native:.4f}", flush=True)

            if petsc is not None:
                mat = petsc.device_mat(mesh.node_count * rows, rows)
                matrix = foehn.Matrix._from_address(gpu, device_op, mat.value)  # ctypes Mat
            else:
                matrix = gpu.matrix(device_op)
            matrix.assemble(device_op)
            python = median_python_seconds(lambda: matrix.assemble(device_op), args.repeats,
                                           args.trials)
            native = median_cpp_seconds(
                lambda r: matrix._handle.time_assemble(device_op._handle, 1, r), args.repeats,
                args.trials)
            cases.append(case(f"{name}_device_mat", mesh, strategy, python, native, args, error))
            print(cases[-1]["name"], strategy, f"python {python * 1e3:.3f} ms, C++ "
                  f"{native * 1e3:.3f} ms, ratio {python / native:.4f}", flush=True)
            del matrix
            if petsc is not None:
                petsc.destroy(mat)
    properties = cupy.cuda.runtime.getDeviceProperties(0)
    result = {
        "area": "assembly",
        "device": properties["name"].decode(),
        "commit": args.commit,
        "command": f"bench/python/python_assembly.py --tets {args.tets} --repeats {args.repeats}",
        "date": datetime.date.today().isoformat(),
        "python": f"{os.sys.version.split()[0]}",
        "cupy": cupy.__version__,
        "petsc_from": "petsc4py" if PETSc is not None else "ctypes (no petsc4py on the host)",
        "cases": cases,
    }
    with open(args.output, "w") as f:
        json.dump(result, f, indent=2)
    if petsc is not None:
        petsc.finalize()


def case(name, mesh, strategy, python, native, args, error):
    return {
        "name": name, "size": mesh.tet_count, "size_unit": "tets", "variant": "python",
        "strategy": strategy, "time_ms": python * 1e3, "repeats": args.repeats * args.trials,
        "throughput": mesh.tet_count / python, "throughput_unit": "tets/s",
        "baseline": "cpp_same_call", "baseline_time_ms": native * 1e3,
        "python_over_cpp": python / native, "max_rel_error_vs_reference": error,
    }


if __name__ == "__main__":
    main()
