"""-Δu = f on a box, assembled by Foehn into a petsc4py Mat, solved with petsc4py's KSP (CG +
GAMG). u = x² + y² + z² (f = -6) on the boundary; prints the largest nodal error (P1: O(h²):
7.2e-3 on 8³ cells, 1.8e-3 on 16³, 4.5e-4 on 32³).
Any PETSc option applies: python poisson.py -ksp_monitor -pc_type jacobi."""
import sys

try:
    import petsc4py
except ImportError:
    print("poisson: petsc4py is not installed (docs/python.md): skipped")
    sys.exit(77)
require_installed = "--require-installed" in sys.argv  # for the test of an installed package
petsc4py.init([a for a in sys.argv if a != "--require-installed"])
from petsc4py import PETSc  # noqa: E402
import numpy as np  # noqa: E402
import foehn  # noqa: E402

mesh = foehn.Mesh.box((16, 16, 16))  # [-0.5, 0.5]² x [0, 1], 24,576 tets
x, y, z = mesh.points.T
exact = x**2 + y**2 + z**2
n = mesh.node_count
op = foehn.Operator("diffusion", tensor=np.tile(np.eye(3), (n, 1, 1)), source=np.full(n, -6.0))
matrix = foehn.Assembler(mesh).matrix(op)  # on the GPU where there is one
b = matrix.create_vec()
A = matrix.assemble(op, b)
boundary = mesh.boundary_nodes().astype(PETSc.IntType)
u = A.createVecRight()
u.setValues(boundary, exact[boundary])
u.assemble()
A.zeroRowsColumns(boundary, 1.0, u, b)  # u = exact on the boundary
ksp = PETSc.KSP().create()
ksp.setOperators(A)
ksp.setType("cg")
ksp.getPC().setType("gamg")
ksp.setTolerances(rtol=1e-10)
ksp.setFromOptions()
ksp.solve(b, u)
error = np.abs(u.getArray() - exact).max()
print(f"Poisson: {n} nodes, {ksp.getIterationNumber()} CG iterations, max error {error:.2e}")

if require_installed and "site-packages" not in foehn.__file__:
    sys.exit(f"foehn came from {foehn.__file__}, not an installed package")
sys.exit(0 if error < 2.5e-3 and ksp.getConvergedReason() > 0 else 1)  # 1.8e-3; 8³: 7.2e-3
