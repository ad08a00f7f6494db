"""Issue 55: assembly from Python is as strict as the command line. Results go into the caller's
out= arrays or are refused (never into a hidden copy); fields of any dtype or layout count with
their in-place edits; only live petsc4py Mats and Vecs reach PETSc (never an int, a Vec as a Mat
or a destroyed Mat: each of those once killed the interpreter or was silently replaced)."""
import numpy as np
import pytest

import foehn
from conftest import identity_tensor


def diffusion(mesh, source=None):
    n = mesh.node_count
    return foehn.Operator("diffusion", tensor=identity_tensor(n),
                          source=np.ones(n) if source is None else source)


@pytest.fixture
def small():
    return foehn.Mesh.box((3, 3, 2), (1.0, 1.0, 0.5))


def test_out_arrays_of_the_right_kind_are_written(small):
    assembler = foehn.Assembler(small, backend="cpu")
    op = diffusion(small)
    expected_values, expected_rhs = assembler.assemble(op, rhs=True)
    out = np.zeros(assembler.value_count(op))
    rhs_out = np.zeros(small.node_count)
    values, right = assembler.assemble(op, out=out, rhs_out=rhs_out)
    assert values is out and right is rhs_out
    np.testing.assert_array_equal(out, expected_values)
    np.testing.assert_array_equal(rhs_out, expected_rhs)
    assert np.abs(out).max() > 0  # written, not left as zeros


@pytest.mark.parametrize("kind", ["float32", "int64", "strided", "readonly", "list"])
@pytest.mark.parametrize("target", ["out", "rhs_out"])
def test_out_arrays_foehn_cannot_write_in_place_are_refused(small, kind, target):
    assembler = foehn.Assembler(small, backend="cpu")
    op = diffusion(small)
    count = assembler.value_count(op) if target == "out" else small.node_count
    if kind == "float32":
        array = np.zeros(count, dtype=np.float32)
    elif kind == "int64":
        array = np.zeros(count, dtype=np.int64)
    elif kind == "strided":
        array = np.zeros(2 * count)[::2]
    elif kind == "readonly":
        array = np.zeros(count)
        array.flags.writeable = False
    else:
        array = [0.0] * count
    with pytest.raises(TypeError):
        assembler.assemble(op, **{target: array})
    if isinstance(array, np.ndarray):
        assert not np.any(array)  # nothing was written anywhere the caller can see


@pytest.mark.parametrize("target", ["out", "rhs_out"])
def test_out_arrays_of_the_wrong_size_are_refused(small, target):
    assembler = foehn.Assembler(small, backend="cpu")
    with pytest.raises(ValueError, match=target):
        assembler.assemble(diffusion(small), **{target: np.zeros(7)})


@pytest.mark.parametrize("layout", ["float32", "fortran", "strided", "int64"])
def test_in_place_edits_of_any_field_count(small, layout):
    """A field that is not C-contiguous float64 is read through a copy refreshed before every
    assembly: the edit counts exactly as for a float64 field."""
    n = small.node_count
    assembler = foehn.Assembler(small, backend="cpu")
    base = np.arange(n, dtype=float) % 7 + 1.0
    if layout == "float32":
        field = base.astype(np.float32)
    elif layout == "fortran":
        field = np.asfortranarray(np.tile(np.eye(3), (n, 1, 1)) * base[:, None, None])
    elif layout == "strided":
        field = np.repeat(base, 2)[::2]
    else:
        field = base.astype(np.int64)
    name = "tensor" if layout == "fortran" else "source"
    op = diffusion(small)
    op.set(**{name: field})
    before = assembler.assemble(op, rhs=True)
    field *= 3
    after = assembler.assemble(op, rhs=True)
    reference = diffusion(small)
    reference.set(**{name: np.array(field, dtype=np.float64, order="C")})
    expected = assembler.assemble(reference, rhs=True)
    np.testing.assert_array_equal(after[0], expected[0])
    np.testing.assert_array_equal(after[1], expected[1])
    assert not np.array_equal(before[1] if name == "source" else before[0],
                              after[1] if name == "source" else after[0])


@pytest.mark.parametrize("value", [np.ones(96, dtype=complex), np.array(["1.0"] * 96),
                                   np.array([object()] * 96)])
def test_fields_that_are_not_real_numbers_are_refused(small, value):
    op = diffusion(small)
    with pytest.raises(foehn.InvalidInputError, match="source"):
        op.set(source=value[:small.node_count])


@pytest.mark.parametrize("value", [1j, np.complex128(2.0), "2.0"])
def test_parameters_that_are_not_real_numbers_are_refused(value):
    op = foehn.Operator("momentum")
    with pytest.raises(foehn.InvalidInputError, match="viscosity"):
        op.set(viscosity=value)


def test_cuda_without_a_device_says_so():
    if foehn.cuda_device_count() > 0:
        pytest.skip("a CUDA device is present")
    mesh = foehn.Mesh.box((2, 2, 2))
    with pytest.raises(foehn.UnavailableError, match="no CUDA device is available|without CUDA"):
        foehn.Assembler(mesh, backend="cuda")


def test_only_live_petsc4py_mats_are_taken(small, petsc):
    PETSc = petsc
    assembler = foehn.Assembler(small, backend="cpu")
    op = diffusion(small)
    numpy_address = np.zeros(64).ctypes.data
    vec = PETSc.Vec().createSeq(small.node_count)
    for bad in (12345, numpy_address, vec, "mat", 0.0):
        with pytest.raises(TypeError, match="petsc4py PETSc.Mat"):
            foehn.Matrix(assembler, op, bad)
    dead = foehn.Assembler(small, backend="cpu").matrix(op).mat
    dead.destroy()
    with pytest.raises(foehn.InvalidInputError, match="destroyed"):
        foehn.Matrix(assembler, op, dead)
    with pytest.raises(foehn.InvalidInputError, match="destroyed"):
        foehn.assemble_petsc(assembler, op, PETSc.Mat())
    # The interpreter is alive and a good Mat still works, with the values SciPy gets.
    matrix = foehn.Matrix(assembler, op)
    rhs = matrix.create_vec()
    mat = matrix.assemble(op, rhs)
    reference, reference_rhs = assembler.assemble_scipy(op, rhs=True)
    x = mat.createVecRight()
    x.setArray(small.points[:, 0])
    y = mat.createVecLeft()
    mat.mult(x, y)
    np.testing.assert_allclose(y.getArray(), reference @ small.points[:, 0], atol=1e-13)
    np.testing.assert_allclose(rhs.getArray(), reference_rhs, atol=1e-15)


def test_only_live_petsc4py_vecs_are_right_hand_sides(small, petsc):
    PETSc = petsc
    assembler = foehn.Assembler(small, backend="cpu")
    op = diffusion(small)
    matrix = assembler.matrix(op)
    for bad in (12345, np.zeros(small.node_count), matrix.mat):
        with pytest.raises(TypeError, match="petsc4py PETSc.Vec"):
            matrix.assemble(op, bad)
    dead = matrix.create_vec()
    dead.destroy()
    with pytest.raises(foehn.InvalidInputError, match="destroyed"):
        matrix.assemble(op, dead)
    assert matrix.assemble(op) is matrix.mat


def test_device_out_arrays_and_fields_follow_the_same_rules(small, cupy):
    """On the GPU: a CuPy out= of another dtype or layout is refused; a float32 CuPy field's
    in-place edit counts (values equal the CPU's for the edited float64 field)."""
    gpu = foehn.Assembler(small, backend="cuda", strategy="deterministic")
    n = small.node_count
    source = cupy.ones(n, dtype=cupy.float32)
    op = foehn.Operator("diffusion", tensor=cupy.asarray(identity_tensor(n)), source=source)
    count = gpu.value_count(op)
    for bad in (cupy.zeros(count, dtype=cupy.float32), cupy.zeros(2 * count)[::2]):
        with pytest.raises(TypeError):
            gpu.assemble(op, out=bad)
    source *= 5
    _, rhs = gpu.assemble(op, rhs=True)
    cpu = foehn.Assembler(small, backend="cpu")
    _, expected = cpu.assemble(diffusion(small, source=np.full(n, 5.0)), rhs=True)
    np.testing.assert_array_equal(cupy.asnumpy(rhs), expected)
