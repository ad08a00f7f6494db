"""foehn-assemble against scikit-fem (PyPI) on an unstructured Gmsh mesh: the P1 mass, tensor
diffusion and advection matrices, assembled by scikit-fem's own forms on the same nodes and
tets, agree to 1e-13 relative (Frobenius) with the same sparsity.

usage: scikit_fem_operators.py FOEHN_ASSEMBLE WORK_DIR GEO_FILE
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import scipy.io
import scipy.sparse
from skfem import Basis, BilinearForm, ElementTetP1, MeshTet, asm

TOLERANCE = 1e-13
TENSOR = (2.0, 3.0, 0.5)
VELOCITY = (1.5, -2.0, 0.25)


def read_msh22(path):
    """Nodes (in file order) and the 4-node tets of an ASCII Gmsh 2.2 file."""
    with open(path) as f:
        lines = f.read().split("\n")
    nodes_at = lines.index("$Nodes")
    count = int(lines[nodes_at + 1])
    tags, points = {}, []
    for i, line in enumerate(lines[nodes_at + 2: nodes_at + 2 + count]):
        fields = line.split()
        tags[int(fields[0])] = i
        points.append([float(v) for v in fields[1:4]])
    elements_at = lines.index("$Elements")
    count = int(lines[elements_at + 1])
    tets = []
    for line in lines[elements_at + 2: elements_at + 2 + count]:
        fields = [int(v) for v in line.split()]
        if fields[1] == 4:  # 4-node tetrahedron: id, type, tag count, tags..., nodes
            tets.append([tags[n] for n in fields[3 + fields[2]:]])
    return np.array(points).T, np.array(tets, dtype=np.int64).T


def foehn_matrix(tool, mesh, operator, options, work):
    target = os.path.join(work, f"{operator}.mtx")
    # Gmsh orients each boundary surface by its curve loop: some face inward (Foehn refuses such
    # a mesh naming -fix_orientation, which flips them; the volume operators do not change).
    run = subprocess.run([tool, "-i", mesh, "-fix_orientation", "-operator", operator, *options,
                          "-o", target],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"foehn-assemble -operator {operator}: {run.stderr.strip()}")
    return scipy.sparse.csr_matrix(scipy.io.mmread(target))


def main():
    tool, work, geo = sys.argv[1:4]
    work = os.path.join(work, "scikit_fem")
    os.makedirs(work, exist_ok=True)
    mesh_file = os.path.join(work, "box.msh")
    if shutil.which("gmsh") is None:
        print("no gmsh program (Debian: gmsh): skipped")
        sys.exit(77)
    subprocess.run(["gmsh", "-3", geo, "-format", "msh22", "-o", mesh_file],
                   capture_output=True, check=True)
    points, tets = read_msh22(mesh_file)
    basis = Basis(MeshTet(points, tets), ElementTetP1(), intorder=2)
    print(f"mesh: {points.shape[1]} nodes, {tets.shape[1]} tets (gmsh, {os.path.basename(geo)})")

    @BilinearForm
    def mass(u, v, _):
        return u * v

    @BilinearForm
    def diffusion(u, v, _):
        return sum(k * u.grad[i] * v.grad[i] for i, k in enumerate(TENSOR))

    @BilinearForm
    def advection(u, v, _):  # row: test function N_i; column: N_j advected (docs/foehn_assemble.md)
        return v * sum(c * u.grad[i] for i, c in enumerate(VELOCITY))

    cases = [
        ("mass", [], mass),
        ("diffusion", ["-tensor", ",".join(map(str, TENSOR))], diffusion),
        ("advection", ["-velocity", ",".join(map(str, VELOCITY))], advection),
    ]
    failures = []
    for operator, options, form in cases:
        ours = foehn_matrix(tool, mesh_file, operator, options, work)
        theirs = scipy.sparse.csr_matrix(asm(form, basis))
        ours.sum_duplicates()
        theirs.sum_duplicates()
        # Stored entries, zeros included (advection has entries that cancel to zero exactly).
        same_pattern = (ours.shape == theirs.shape and np.array_equal(ours.indptr, theirs.indptr)
                        and np.array_equal(ours.indices, theirs.indices))
        difference = scipy.sparse.linalg.norm(ours - theirs) / scipy.sparse.linalg.norm(theirs)
        print(f"{operator}: {ours.shape[0]} rows, {ours.nnz} nonzeros (scikit-fem {theirs.nnz}), "
              f"relative Frobenius difference {difference:.2e}, same sparsity: {same_pattern}")
        if not same_pattern or not difference <= TOLERANCE:
            failures.append(operator)
    if failures:
        sys.exit(f"foehn-assemble and scikit-fem differ: {', '.join(failures)}")


if __name__ == "__main__":
    import scipy.sparse.linalg  # noqa: F401  (norm)
    main()
