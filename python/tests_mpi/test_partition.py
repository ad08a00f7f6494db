"""A mesh from the caller's own partition, from Python on several ranks (mpiexec -n 2 python -m
pytest): each rank gives its nodes (owned first, then halo) and tets; the operator assembled into
one PETSc Mat equals the serial one, and a bad argument on one rank is an error on every rank.
Run with one communicator from mpi4py (when installed) and one from petsc4py."""
import numpy as np
import pytest

PETSc = pytest.importorskip("petsc4py.PETSc")

import foehn  # noqa: E402


def communicators():
    comms = [("petsc4py", PETSc.COMM_WORLD)]
    try:
        from mpi4py import MPI
        comms.append(("mpi4py", MPI.COMM_WORLD))
    except ImportError:
        pass
    return comms


def my_part(mesh, rank, size):
    """Tets by their centroid's x slab; nodes owned by the lowest rank whose tets use them."""
    points, tets = mesh.points, mesh.tets
    x = points[tets].mean(axis=1)[:, 0]
    edges = np.linspace(x.min(), x.max() + 1e-9, size + 1)
    tet_rank = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, size - 1)
    owner = np.full(len(points), size)
    for r in range(size):
        used = np.unique(tets[tet_rank == r])
        owner[used] = np.minimum(owner[used], r)
    mine = tets[tet_rank == rank]
    owned = np.flatnonzero(owner == rank)
    halo = np.setdiff1d(np.unique(mine), owned)
    local = np.concatenate([owned, halo])
    position = np.full(len(points), -1)
    position[local] = np.arange(len(local))
    return local, len(owned), position[mine]


@pytest.mark.parametrize("label, comm", communicators())
def test_partitioned_assembly_equals_serial(label, comm):
    rank, size = PETSc.COMM_WORLD.rank, PETSc.COMM_WORLD.size
    whole = foehn.Mesh.box((6, 4, 3), (3.0, 2.0, 1.0))
    local, owned, tets = my_part(whole, rank, size)
    part = foehn.Mesh.from_partition(comm, whole.points[local], tets, node_ids=local,
                                     owned_nodes=owned)
    assert part.distributed and part.owned_node_count == owned
    np.testing.assert_array_equal(part.points, whole.points[local])
    # A caller's partition has no boundary triangles: refused on every rank, not empty.
    with pytest.raises(foehn.InvalidInputError, match="no boundary triangles"):
        part.boundary_nodes()

    tensor = np.tile(np.eye(3), (len(local), 1, 1))
    op = foehn.Operator("diffusion", tensor=tensor, source=whole.points[local, 0].copy())
    matrix = foehn.Assembler(part, backend="cpu").matrix(op)
    rhs = matrix.create_vec()
    mat = matrix.assemble(op, rhs)
    assert mat.getSize() == (whole.node_count, whole.node_count)

    serial = foehn.Assembler(whole, backend="cpu")
    full_op = foehn.Operator("diffusion", tensor=np.tile(np.eye(3), (whole.node_count, 1, 1)),
                             source=whole.points[:, 0].copy())
    expected, expected_rhs = serial.assemble_scipy(full_op, rhs=True)
    # x = y^2 at every node, in PETSc's numbering of this rank's owned nodes.
    numbers = part.petsc_numbers()
    x = mat.createVecRight()
    start, _ = x.getOwnershipRange()
    values = np.empty(owned)
    values[numbers[:owned] - start] = whole.points[local[:owned], 1] ** 2
    x.setArray(values)
    y = mat.createVecLeft()
    mat.mult(x, y)
    reference = expected @ (whole.points[:, 1] ** 2)
    mine = np.empty(owned)
    mine[:] = y.getArray()[numbers[:owned] - start]
    np.testing.assert_allclose(mine, reference[local[:owned]], rtol=1e-12, atol=1e-12)
    got_rhs = rhs.getArray()[numbers[:owned] - start]
    np.testing.assert_allclose(got_rhs, expected_rhs[local[:owned]], rtol=1e-12, atol=1e-15)


def test_a_bad_rank_fails_every_rank():
    rank = PETSc.COMM_WORLD.rank
    whole = foehn.Mesh.box((4, 2, 2))
    local, owned, tets = my_part(whole, rank, PETSc.COMM_WORLD.size)
    if rank == PETSc.COMM_WORLD.size - 1:
        tets = tets.copy()
        tets[0, 0] = len(local) + 7  # out of range on the last rank only
    with pytest.raises(foehn.InvalidInputError):
        foehn.Mesh.from_partition(PETSc.COMM_WORLD, whole.points[local], tets, local, owned)


def test_node_ids_must_be_integers():
    whole = foehn.Mesh.box((4, 2, 2))
    local, owned, tets = my_part(whole, PETSc.COMM_WORLD.rank, PETSc.COMM_WORLD.size)
    with pytest.raises(foehn.InvalidInputError, match="node_ids"):
        foehn.Mesh.from_partition(PETSc.COMM_WORLD, whole.points[local], tets,
                                  local.astype(float) + 0.5, owned)


def test_a_negative_node_id_on_one_rank_fails_every_rank():
    rank, size = PETSc.COMM_WORLD.rank, PETSc.COMM_WORLD.size
    whole = foehn.Mesh.box((4, 2, 2))
    local, owned, tets = my_part(whole, rank, size)
    ids = local.copy()
    if rank == size - 1:
        ids[0] = -7
    with pytest.raises(foehn.InvalidInputError, match="negative|rank"):
        foehn.Mesh.from_partition(PETSc.COMM_WORLD, whole.points[local], tets, ids, owned)
