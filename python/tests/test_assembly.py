"""FE assembly through Python: properties of the operators, the SciPy and petsc4py hand-offs, the
GPU with CuPy fields against the CPU, and refused inputs."""
import numpy as np
import pytest

import foehn
from conftest import identity_tensor

VOLUME = 2.0 * 3.0 * 1.5


def test_mass_matrix_integrates_one(box):
    assembler = foehn.Assembler(box, backend="cpu")
    mass = assembler.assemble_scipy(foehn.Operator("mass"))
    assert mass.shape == (box.node_count, box.node_count)
    assert mass.sum() == pytest.approx(VOLUME, rel=1e-13)
    assert abs(mass - mass.T).max() < 1e-15


def test_diffusion_matrix_is_exact_for_linear_functions(box):
    assembler = foehn.Assembler(box, backend="cpu")
    op = foehn.Operator("diffusion", tensor=identity_tensor(box.node_count),
                        source=np.ones(box.node_count))
    stiffness, rhs = assembler.assemble_scipy(op, rhs=True)
    np.testing.assert_allclose(stiffness @ np.ones(box.node_count), 0.0, atol=1e-13)
    gradient = np.array([0.3, -1.2, 2.0])
    linear = box.points @ gradient
    assert linear @ (stiffness @ linear) == pytest.approx(gradient @ gradient * VOLUME, rel=1e-12)
    assert rhs.sum() == pytest.approx(VOLUME, rel=1e-13)


def test_values_follow_the_pattern(box):
    assembler = foehn.Assembler(box, backend="cpu")
    op = foehn.Operator("momentum", density_over_dt=2.0, viscosity=0.1,
                        advecting_velocity=np.ones((box.node_count, 3)))
    assert op.block_shape == (3, 3)
    values = assembler.assemble(op)
    offsets, columns = assembler.pattern
    assert values.shape == (len(columns) * 9,)
    assert offsets[-1] == len(columns) == assembler.nnz
    csr = assembler.assemble_scipy(op)
    row, block = 5, offsets[5] + 1
    np.testing.assert_array_equal(
        csr[3 * row:3 * row + 3, 3 * columns[block]:3 * columns[block] + 3].toarray(),
        values.reshape(-1, 3, 3)[block])


@pytest.mark.parametrize("field, values, fragment", [
    ("tensor", np.ones(5), "tensor"),
    ("source", np.full(210, np.nan), "source"),
])
def test_bad_fields_are_invalid_input(box, field, values, fragment):
    assembler = foehn.Assembler(box, backend="cpu")
    op = foehn.Operator("diffusion", tensor=identity_tensor(box.node_count))
    op.set(**{field: values})
    with pytest.raises(foehn.InvalidInputError, match=fragment):
        assembler.assemble(op)


def test_unknown_names_are_invalid_input():
    with pytest.raises(foehn.InvalidInputError, match="mass, advection"):
        foehn.Operator("laplace")
    with pytest.raises(foehn.InvalidInputError, match="viscosity"):
        foehn.Operator("diffusion", viscosity=1.0)
    with pytest.raises(foehn.InvalidInputError, match="strategy|backend"):
        foehn.Assembler(foehn.Mesh.box((2, 2, 2)), backend="tpu")


def test_gpu_backend_without_a_device_says_so(box):
    if foehn.cuda_device_count() > 0:
        pytest.skip("a device exists")
    with pytest.raises(foehn.UnavailableError):
        foehn.Assembler(box, backend="cuda")
    assert not foehn.Assembler(box, backend="auto").uses_gpu


def test_petsc_matrix_and_vector_equal_scipy(box, petsc):
    assembler = foehn.Assembler(box, backend="cpu")
    op = foehn.Operator("diffusion", tensor=identity_tensor(box.node_count),
                        source=box.points[:, 0].copy())
    expected, expected_rhs = assembler.assemble_scipy(op, rhs=True)
    matrix = assembler.matrix(op)
    rhs = matrix.create_vec()
    mat = matrix.assemble(op, rhs)
    assert mat.getSize() == expected.shape
    x = np.random.default_rng(1).standard_normal(box.node_count)
    y = mat.createVecLeft()
    mat.mult(_vec(mat, x), y)
    np.testing.assert_allclose(y.getArray(), expected @ x, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(rhs.getArray(), expected_rhs, rtol=1e-14)
    op.set(source=2 * box.points[:, 0])  # a second assembly into the same Mat and Vec
    matrix.assemble(op, rhs)
    np.testing.assert_allclose(rhs.getArray(), 2 * expected_rhs, rtol=1e-14)


def _vec(mat, values):
    vec = mat.createVecRight()
    vec.setArray(values)
    return vec


def test_momentum_blocks_into_petsc(box, petsc):
    assembler = foehn.Assembler(box, backend="cpu")
    op = foehn.Operator("momentum", density_over_dt=1.0, viscosity=0.5,
                        advecting_velocity=np.tile([1.0, 0.5, 0.0], (box.node_count, 1)))
    expected = assembler.assemble_scipy(op)
    mat = foehn.assemble_petsc(assembler, op)
    assert mat.getBlockSizes() == (3, 3)
    x = np.random.default_rng(2).standard_normal(3 * box.node_count)
    y = mat.createVecLeft()
    mat.mult(_vec(mat, x), y)
    np.testing.assert_allclose(y.getArray(), expected @ x, rtol=1e-12, atol=1e-12)


def test_gpu_with_cupy_fields_matches_the_cpu_bitwise(box, cupy):
    velocity = np.random.default_rng(3).standard_normal((box.node_count, 3))
    cpu = foehn.Assembler(box, backend="cpu")
    gpu = foehn.Assembler(box, backend="cuda", strategy="deterministic")
    assert gpu.uses_gpu
    host_op = foehn.Operator("momentum", density_over_dt=1.0, viscosity=0.1,
                             advecting_velocity=velocity)
    device_op = foehn.Operator("momentum", density_over_dt=1.0, viscosity=0.1,
                               advecting_velocity=cupy.asarray(velocity))
    expected, expected_rhs = cpu.assemble(host_op, rhs=True)
    values, rhs = gpu.assemble(device_op, rhs=True)
    assert isinstance(values, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(values), expected)
    np.testing.assert_array_equal(cupy.asnumpy(rhs), expected_rhs)
    # Host results from device fields, and device results from host fields.
    np.testing.assert_array_equal(gpu.assemble(device_op, memory="host"), expected)
    np.testing.assert_array_equal(cupy.asnumpy(gpu.assemble(host_op, memory="device")), expected)


def test_gpu_refuses_mixed_memories(box, cupy):
    op = foehn.Operator("diffusion", tensor=cupy.asarray(identity_tensor(box.node_count)),
                        source=np.ones(box.node_count))
    with pytest.raises(foehn.InvalidInputError, match="mix host and device"):
        foehn.Assembler(box, backend="cuda").assemble(op)


def test_gpu_into_a_device_petsc_matrix(box, cupy, petsc):
    if not petsc.Sys.hasExternalPackage("cuda"):
        pytest.skip("PETSc without CUDA")
    op = foehn.Operator("diffusion", tensor=cupy.asarray(identity_tensor(box.node_count)))
    expected = foehn.Assembler(box, backend="cpu").assemble_scipy(
        foehn.Operator("diffusion", tensor=identity_tensor(box.node_count)))
    mat = foehn.assemble_petsc(foehn.Assembler(box, backend="cuda"), op)
    assert "cusparse" in mat.getType()
    x = np.linspace(0, 1, box.node_count)
    y = mat.createVecLeft()
    mat.mult(_vec(mat, x), y)
    np.testing.assert_allclose(y.getArray(), expected @ x, rtol=1e-12, atol=1e-12)


def test_gpu_with_fields_from_another_dlpack_producer(box):
    """A PyTorch CUDA tensor (DLPack, not CuPy) is read in place like a CuPy array."""
    if foehn.cuda_device_count() == 0:
        pytest.skip("no CUDA device")
    torch = pytest.importorskip("torch")
    velocity = np.random.default_rng(6).standard_normal((box.node_count, 3))
    expected = foehn.Assembler(box, backend="cpu").assemble(
        foehn.Operator("momentum", density_over_dt=1.0, advecting_velocity=velocity))
    op = foehn.Operator("momentum", density_over_dt=1.0,
                        advecting_velocity=torch.from_numpy(velocity).cuda())
    values = foehn.Assembler(box, backend="cuda", strategy="deterministic").assemble(
        op, memory="host")
    np.testing.assert_array_equal(values, expected)
