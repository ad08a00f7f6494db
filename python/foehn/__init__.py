"""Foehn from Python: GPU finite-element assembly for unstructured-mesh atmospheric models,
handed to PETSc (petsc4py), plus chemistry and particle transport. See docs/python.md.

    import foehn
    mesh = foehn.Mesh.box((16, 16, 16))
    assembler = foehn.Assembler(mesh, backend="auto")
    A = assembler.assemble_scipy(foehn.Operator("diffusion", nu=1.0))
"""
# petsc4py first, when present: it initialises PETSc (and MPI) from its own options, and Foehn
# never does; both then share one libpetsc.
try:
    import petsc4py.PETSc  # noqa: F401
except ImportError:
    pass

from . import _foehn
from ._foehn import (CudaError, Error, FileError, InternalError, InvalidInputError,
                     NumericalError, OutOfMemoryError, PetscError, UnavailableError)
from .assembly import Assembler, Matrix, Operator, assemble_petsc, operator_names
from .mesh import Mesh
from . import chemistry, particles

__version__ = _foehn.version()


def has_cuda():
    """Whether this build of Foehn has the CUDA backend."""
    return _foehn.has_cuda()


def cuda_device_count():
    """CUDA devices this process sees (0 without a GPU or without the CUDA backend)."""
    return _foehn.cuda_device_count()


__all__ = ["Assembler", "CudaError", "Error", "FileError", "InternalError", "InvalidInputError",
           "Matrix", "Mesh", "NumericalError", "Operator", "OutOfMemoryError", "PetscError",
           "UnavailableError", "assemble_petsc", "chemistry", "cuda_device_count", "has_cuda",
           "operator_names", "particles"]
