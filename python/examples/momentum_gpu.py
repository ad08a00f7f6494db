"""The mountain-wave momentum matrix (M/dt + A(u) + ν S, 3 x 3 blocks) of the default
Mountainwave3D mesh, assembled on the GPU from CuPy fields (read in place, never copied to the
host) into CuPy arrays and into a petsc4py AIJCUSPARSE Mat, and checked against the CPU
(bitwise: the deterministic strategy sums as the CPU does). Exits 77 (skipped) without a GPU or
CuPy. python momentum_gpu.py [cells_x cells_y cells_z]"""
import sys

import numpy as np
import foehn

if foehn.cuda_device_count() == 0:
    print("momentum_gpu: no CUDA device: skipped")
    sys.exit(77)
try:
    import cupy
except ImportError:
    print("momentum_gpu: no CuPy (pip install cupy-cuda13x): skipped")
    sys.exit(77)

cells = tuple(int(c) for c in sys.argv[1:4]) or (48, 48, 20)
mesh = foehn.Mesh.mountain(cells)  # 276,480 tets by default
x, y, z = cupy.asarray(mesh.points).T
# 10 m/s over the mountain with a wave-like perturbation, made on the GPU.
velocity = cupy.stack([10.0 + 0.5 * cupy.sin(x / 3000.0), 0.1 * cupy.cos(y / 3000.0),
                       0.2 * cupy.sin(x / 2000.0) * cupy.exp(-z / 4000.0)], axis=1)
dt, viscosity = 20.0, 10.0  # the default case's time step and kinematic viscosity
momentum = foehn.Operator("momentum", density_over_dt=1.0 / dt, viscosity=viscosity,
                          advecting_velocity=velocity, body_force=cupy.zeros_like(velocity))
gpu = foehn.Assembler(mesh, backend="cuda", strategy="deterministic")
values, rhs = gpu.assemble(momentum, rhs=True)  # CuPy arrays
print(f"momentum: {mesh.tet_count} tets, {gpu.nnz} 3x3 blocks assembled on the GPU "
      f"({type(values).__module__}.{type(values).__name__})")

host = foehn.Operator("momentum", density_over_dt=1.0 / dt, viscosity=viscosity,
                      advecting_velocity=cupy.asnumpy(velocity),
                      body_force=np.zeros((mesh.node_count, 3)))
expected = foehn.Assembler(mesh, backend="cpu").assemble(host)
same = np.array_equal(cupy.asnumpy(values), expected)
print(f"momentum: GPU values bitwise equal to the CPU's: {same}")

try:
    from petsc4py import PETSc
except ImportError:
    PETSc = None
if PETSc is not None:
    matrix = gpu.matrix(momentum)  # AIJCUSPARSE where PETSc has CUDA: values stay on the GPU
    b = matrix.create_vec()
    A = matrix.assemble(momentum, b)
    print(f"momentum: petsc4py Mat {A.getType()} {A.getSize()}, block sizes {A.getBlockSizes()}, "
          f"Frobenius norm {A.norm(PETSc.NormType.FROBENIUS):.6e}")
sys.exit(0 if same else 1)
