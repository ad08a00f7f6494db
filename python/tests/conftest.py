"""Shared fixtures of the Python package's tests (pytest). GPU tests skip where no CUDA device
(or no CuPy) exists; PETSc tests where petsc4py is missing."""
import numpy as np
import pytest

import foehn


def _cupy_or_none():
    if foehn.cuda_device_count() == 0:
        return None
    try:
        import cupy
    except ImportError:
        return None
    return cupy


@pytest.fixture
def cupy():
    module = _cupy_or_none()
    if module is None:
        pytest.skip("no CUDA device or no CuPy")
    return module


@pytest.fixture
def petsc():
    petsc4py = pytest.importorskip("petsc4py")
    from petsc4py import PETSc

    del petsc4py
    return PETSc


def tet_volumes(points, tets):
    p = points[tets]
    return np.abs(np.einsum("ij,ij->i", p[:, 1] - p[:, 0],
                            np.cross(p[:, 2] - p[:, 0], p[:, 3] - p[:, 0]))) / 6.0


@pytest.fixture
def box():
    """A 6 x 5 x 4 box of 2 x 3 x 1.5 (non-cubic cells, every tet shape of the split)."""
    return foehn.Mesh.box((6, 5, 4), (2.0, 3.0, 1.5))


def identity_tensor(nodes):
    return np.tile(np.eye(3), (nodes, 1, 1))
