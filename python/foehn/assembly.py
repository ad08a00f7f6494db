"""FE assembly: operators with their parameters and fields by name, assemblers on the CPU or the
GPU, results as arrays (NumPy / CuPy), SciPy sparse matrices or petsc4py Mat and Vec."""
import numpy as np

from . import _foehn
from ._arrays import (doubles, empty_like_memory, is_device_array, real, refresh, result_array,
                      wait_for_producers)

_HOST, _DEVICE = 0, 1  # foehn_memory


def operator_names():
    """The built-in operators: mass, advection, diffusion, ..."""
    return list(_foehn.operator_names())


class Operator:
    """A built-in operator by name, e.g. Operator("diffusion", tensor=kappa) or
    Operator("momentum", density=rho, velocity=u, viscosity=mu, dt=20.0).

    Numbers set parameters, arrays set fields (P1 nodal: 1, 3 or 9 values per node, as (nodes,),
    (nodes, 3) or (nodes, 3, 3) arrays), None removes a field. All fields of one operator lie in
    one memory: NumPy on the host, or CuPy (any CUDA DLPack array) on the GPU, read in place.
    The operator keeps its arrays alive; changing them in place changes the next assembly (an
    array of another dtype or layout than C-contiguous float64 is read through a float64 copy
    that is refreshed from it before every assembly). Complex values are refused.
    """

    def __init__(self, name, **values):
        self._handle = _foehn.Operator(name)
        self._fields = {}  # name -> the float64 C-contiguous array Foehn reads
        self._originals = {}  # name -> the caller's array it is refreshed from
        self.set(**values)

    def set(self, **values):
        for name, value in values.items():
            if value is None:
                self._handle.set_field(name, None)
                self._fields.pop(name, None)
                self._originals.pop(name, None)
            elif np.ndim(value) == 0 and not is_device_array(value):
                self._handle.set_parameter(name, real(value, name))
            else:
                array = doubles(value, name)
                self._handle.set_field(name, array.reshape(-1))
                self._fields[name] = array
                self._originals[name] = value
        return self

    @property
    def name(self):
        return self._handle.name

    @property
    def block_shape(self):
        """(rows, columns) of each node block of the matrix: (1, 1), (1, 3) or (3, 3)."""
        return self._handle.block_shape

    @property
    def parameter_names(self):
        return list(self._handle.parameter_names)

    @property
    def field_names(self):
        return list(self._handle.field_names)

    def _field_memory(self):
        device = {is_device_array(a) for a in self._fields.values()}
        if len(device) > 1:
            raise _foehn.InvalidInputError(
                f"{self.name} operator: fields {sorted(self._fields)} mix host and device arrays")
        # Edits of the caller's arrays count even where Foehn reads a converted copy.
        for name, array in self._fields.items():
            refresh(array, self._originals[name])
        wait_for_producers(self._fields.values())
        return _DEVICE if device == {True} else _HOST

    def __repr__(self):
        return f"foehn.Operator({self.name!r}, fields={sorted(self._fields)})"


class Assembler:
    """Assembles operators on `mesh` (which it does not need afterwards).

    backend: "cpu", "cuda" or "auto" (the GPU where there is one); strategy (GPU): "staged",
    "fused_atomic", "fused_map", "deterministic", "row_gather" or "auto" (= deterministic: the
    CPU's sums, bitwise); stream: a CUDA stream to work on (a cupy.cuda.Stream or its ptr).
    """

    def __init__(self, mesh, backend="auto", strategy="auto", stream=None):
        pointer = getattr(stream, "ptr", stream) or 0
        self._handle = _foehn.Assembler(mesh._handle, backend, strategy, int(pointer))
        self.mesh = mesh
        offsets, columns = self._handle.pattern()
        self._pattern = (offsets, columns)

    @property
    def uses_gpu(self):
        return self._handle.uses_gpu

    @property
    def pattern(self):
        """The node pattern (CSR row offsets, column indices), 0-based local node numbers."""
        return self._pattern

    @property
    def node_count(self):
        return len(self._pattern[0]) - 1

    @property
    def nnz(self):
        """Node blocks in the pattern."""
        return len(self._pattern[1])

    def value_count(self, op):
        rows, cols = op.block_shape
        return self.nnz * rows * cols

    def assemble(self, op, *, rhs=False, out=None, rhs_out=None, memory=None):
        """Block-CSR values (nnz x rows x cols, row-major blocks, in pattern order) and, with
        rhs=True, the right-hand side (nodes x rows). Results are in `memory` ("host" or
        "device"; default: where the fields are) as NumPy or CuPy arrays, or in the out= and
        rhs_out= arrays given (float64, C-contiguous, writeable, of the exact size: any other
        array is refused with TypeError or ValueError, never filled through a copy); complete on
        return."""
        if memory not in (None, "host", "device"):
            raise _foehn.InvalidInputError(f"memory '{memory}' is not one of host, device")
        fields = op._field_memory()
        device = fields == _DEVICE if memory is None else memory == "device"
        count = self.value_count(op)
        values = (result_array(out, count, "out") if out is not None
                  else empty_like_memory(count, device))
        right = None
        if rhs or rhs_out is not None:
            count = self.node_count * op.block_shape[0]
            right = (result_array(rhs_out, count, "rhs_out") if rhs_out is not None
                     else empty_like_memory(count, device))
        wait_for_producers([values, right])
        self._handle.assemble_values(op._handle, fields, values, right)
        return (values, right) if right is not None else values

    def assemble_scipy(self, op, *, rhs=False):
        """The matrix as a SciPy CSR matrix (scalar rows: node * rows + component), and the
        right-hand side as a NumPy array with rhs=True."""
        import scipy.sparse

        result = self.assemble(op, rhs=rhs, memory="host")
        values, right = result if rhs else (result, None)
        rows, cols = op.block_shape
        offsets, columns = self._pattern
        n = self.node_count
        matrix = scipy.sparse.bsr_matrix(
            (values.reshape(-1, rows, cols), columns, offsets), shape=(n * rows, n * cols))
        return (matrix.tocsr(), right) if rhs else matrix.tocsr()

    def matrix(self, op, mat=None):
        """A PETSc matrix for `op`'s block shape fed by this assembler (see Matrix)."""
        return Matrix(self, op, mat)


class Matrix:
    """A PETSc Mat (petsc4py) that assemblies of this assembler write into.

    mat: a petsc4py Mat the caller created (sizes: owned nodes x block rows locally; AIJ, BAIJ or
    AIJCUSPARSE), or None: one is made on the mesh's communicator, AIJCUSPARSE when the assembler
    uses the GPU and PETSc has CUDA (values then never leave the GPU), AIJ otherwise, with the
    operator's block sizes. Needs petsc4py built against the PETSc Foehn uses. Anything but a
    live petsc4py Mat (a Vec, a destroyed Mat, an int address) is refused with TypeError or
    ValueError: an address cannot be checked without reading whatever lies there.
    """

    def __init__(self, assembler, op, mat=None):
        from petsc4py import PETSc

        self.assembler = assembler
        if mat is None:
            mat = _new_mat(PETSc, assembler, op)
        self.mat = mat
        self._handle = _foehn.Matrix(assembler.mesh._handle, assembler._handle, op._handle,
                                     _live_handle(PETSc, mat, PETSc.Mat, "mat"))

    @classmethod
    def _from_address(cls, assembler, op, address):
        """For bench/python on a host without petsc4py only: `address` must be a live Mat the
        caller made (through ctypes); nothing can check that."""
        matrix = cls.__new__(cls)
        matrix.assembler = assembler
        matrix.mat = address
        matrix._handle = _foehn.Matrix(assembler.mesh._handle, assembler._handle, op._handle,
                                       int(address))
        return matrix

    def create_vec(self):
        """A Vec for the right-hand side (the Mat's row layout and type)."""
        return self.mat.createVecLeft()

    def assemble(self, op, rhs=None):
        """Assembles `op` into the Mat (assembled, ready for a KSP) and, when given, its
        right-hand side into the Vec `rhs` (a live petsc4py Vec, overwritten). Collective."""
        vec = 0
        if rhs is not None:
            from petsc4py import PETSc

            vec = _live_handle(PETSc, rhs, PETSc.Vec, "rhs")
        self._handle.assemble(op._handle, op._field_memory(), vec)
        return self.mat


def _live_handle(PETSc, obj, kind, name):
    """The PETSc handle of a live petsc4py object of class `kind` (Mat or Vec). Ints, NumPy
    addresses, objects of another class and destroyed objects (handle 0) are refused: PETSc
    would crash on them, and a NULL Mat would silently become a new one."""
    if not isinstance(obj, kind):
        raise TypeError(f"{name}: a petsc4py PETSc.{kind.__name__} expected, got "
                        f"{type(obj).__module__}.{type(obj).__name__}")
    handle = obj.handle
    if not handle:
        raise _foehn.InvalidInputError(
            f"{name}: the PETSc.{kind.__name__} was destroyed (or never created)")
    return handle


def _new_mat(PETSc, assembler, op):
    rows, cols = op.block_shape
    mesh = assembler.mesh
    comm = mesh.comm if mesh.comm is not None else PETSc.COMM_SELF
    owned = mesh.owned_node_count
    mat = PETSc.Mat().create(comm=comm)
    mat.setSizes(((owned * rows, PETSc.DETERMINE), (owned * cols, PETSc.DETERMINE)))
    mat.setBlockSizes(rows, cols)
    on_gpu = assembler.uses_gpu and PETSc.Sys.hasExternalPackage("cuda")
    mat.setType(PETSc.Mat.Type.AIJCUSPARSE if on_gpu else PETSc.Mat.Type.AIJ)
    return mat


def assemble_petsc(assembler, op, mat=None, rhs=False):
    """One assembly into a new (or the given) petsc4py Mat and, with rhs=True, a new Vec:
    (mat, vec). For repeated assemblies keep a Matrix (the pattern is handed over once)."""
    matrix = Matrix(assembler, op, mat)
    vec = matrix.create_vec() if rhs else None
    matrix.assemble(op, vec)
    return (matrix.mat, vec) if rhs else matrix.mat
