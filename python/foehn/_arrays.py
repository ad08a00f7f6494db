"""How arrays cross into Foehn: host arrays become C-contiguous float64 NumPy arrays (a copy only
when they are not already), device arrays (CuPy, or anything with DLPack on a CUDA device) are
used where they lie."""
import numpy as np

from . import _foehn

_DLPACK_CUDA = 2  # kDLCUDA


def is_device_array(values):
    """True for an array in CUDA device memory (DLPack device type CUDA)."""
    if isinstance(values, np.ndarray):
        return False
    device = getattr(values, "__dlpack_device__", None)
    return device is not None and device()[0] == _DLPACK_CUDA


def _is_cupy(values):
    return type(values).__module__.split(".")[0] == "cupy"


def host_doubles(values, name):
    """values as a C-contiguous float64 NumPy array; a clear error for what is not numbers."""
    try:
        array = np.ascontiguousarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise _foehn.InvalidInputError(f"{name}: not an array of numbers ({error})") from None
    return array


def doubles(values, name):
    """A float64 C-contiguous array where `values` lies: NumPy for host data, CuPy (converted on
    the device when needed) for CuPy arrays, other device arrays as they are (they must already
    be float64 and contiguous)."""
    if not is_device_array(values):
        return host_doubles(values, name)
    if _is_cupy(values):
        import cupy

        return cupy.ascontiguousarray(values, dtype=cupy.float64)
    return values


def wait_for_producers(arrays):
    """Device arrays are complete before Foehn's streams, which do not synchronise with anyone
    else's, read them: CuPy's are waited for on CuPy's current stream; those of any other DLPack
    producer (PyTorch, JAX, ...), whose streams Foehn cannot know, by waiting for the device."""
    device = [a for a in arrays if a is not None and is_device_array(a)]
    if any(not _is_cupy(a) for a in device):
        _foehn.synchronize_device()
    elif device:
        import cupy

        cupy.cuda.get_current_stream().synchronize()


def empty_like_memory(count, device):
    """An uninitialised float64 array of `count` values: CuPy on the device, NumPy on the host."""
    if device:
        try:
            import cupy
        except ImportError:
            raise _foehn.UnavailableError(
                "device results need CuPy (pip install cupy-cuda13x), or pass out= arrays"
            ) from None
        return cupy.empty(count, dtype=cupy.float64)
    return np.empty(count, dtype=np.float64)


def indices(values, name, columns):
    """Node numbers of any integer type as int32 or int64, shape (rows, columns). Unsigned values
    beyond int64, floats and booleans are refused, not wrapped or truncated."""
    array = np.asarray(values)
    if array.dtype.kind not in "iu" or array.dtype == np.bool_:
        raise _foehn.InvalidInputError(f"{name}: integers expected, got dtype {array.dtype}")
    if array.ndim == 1 and array.size % columns == 0:
        array = array.reshape(-1, columns)
    if array.ndim != 2 or array.shape[1] != columns:
        raise _foehn.InvalidInputError(
            f"{name}: an array of shape (rows, {columns}) expected, got {array.shape}")
    if array.dtype in (np.int32, np.int64):
        return np.ascontiguousarray(array)
    if array.size and array.dtype == np.uint64 and array.max() > np.iinfo(np.int64).max:
        raise _foehn.InvalidInputError(
            f"{name}: node number {array.max()} does not fit a 64-bit signed integer")
    return np.ascontiguousarray(array, dtype=np.int64)


def fortran_comm(comm):
    """The Fortran handle of an mpi4py communicator (py2f) or a petsc4py one (fortran)."""
    if hasattr(comm, "py2f"):
        return comm.py2f()
    if hasattr(comm, "fortran"):
        return comm.fortran
    raise _foehn.InvalidInputError(
        f"comm: an mpi4py or petsc4py communicator expected, got {type(comm).__name__}")
