"""How arrays cross into Foehn: host arrays become C-contiguous float64 NumPy arrays (a copy only
when they are not already), device arrays (CuPy, or anything with DLPack on a CUDA device) are
used where they lie. Values Foehn cannot take as they are (complex numbers, strings, objects,
counts that are not whole numbers) are refused, never rounded or truncated."""
import numbers

import numpy as np

from . import _foehn

_DLPACK_CUDA = 2  # kDLCUDA
# NumPy kinds that are numbers Foehn's doubles hold exactly as meant: float, signed and
# unsigned integers (booleans too: 0 and 1). Complex values would lose their imaginary part,
# strings and objects are no numbers.
_REAL_KINDS = "fiub"


def is_device_array(values):
    """True for an array in CUDA device memory (DLPack device type CUDA)."""
    if isinstance(values, np.ndarray):
        return False
    device = getattr(values, "__dlpack_device__", None)
    return device is not None and device()[0] == _DLPACK_CUDA


def _is_cupy(values):
    return type(values).__module__.split(".")[0] == "cupy"


def host_doubles(values, name):
    """values as a C-contiguous float64 NumPy array; a clear error for what is not real numbers
    (complex arrays are refused: their imaginary part would be dropped)."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as error:
        raise _foehn.InvalidInputError(f"{name}: not an array of numbers ({error})") from None
    if array.dtype.kind not in _REAL_KINDS:
        raise _foehn.InvalidInputError(
            f"{name}: an array of real numbers expected, got dtype {array.dtype}"
            + (" (the imaginary part would be lost)" if array.dtype.kind == "c" else ""))
    return np.ascontiguousarray(array, dtype=np.float64)


def finite_doubles(values, name):
    """host_doubles, refusing NaN and infinite values (naming the first)."""
    array = host_doubles(values, name)
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise _foehn.InvalidInputError(
            f"{name}: value {bad[0]} is {array.ravel()[bad[0]]}, not a finite number")
    return array


def count(value, name, minimum=None):
    """A whole number (int, NumPy integer) as an int; 4.7, "4", True and None are refused, not
    truncated or read as a count."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise _foehn.InvalidInputError(
            f"{name}: a whole number expected, got {value!r} ({type(value).__name__})")
    value = int(value)
    if minimum is not None and value < minimum:
        raise _foehn.InvalidInputError(f"{name}: {value} is below {minimum}")
    return value


def real(value, name):
    """A real number (or a 0-d array of one) as a float; complex numbers, strings and None are
    refused."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "fiu":
        return float(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise _foehn.InvalidInputError(
            f"{name}: a real number expected, got {value!r} ({type(value).__name__})")
    return float(value)


def doubles(values, name):
    """A float64 C-contiguous array where `values` lies: NumPy for host data, CuPy (converted on
    the device when needed) for CuPy arrays, other device arrays as they are (they must already
    be float64 and contiguous)."""
    if not is_device_array(values):
        return host_doubles(values, name)
    if _is_cupy(values):
        import cupy

        if values.dtype.kind not in _REAL_KINDS:
            raise _foehn.InvalidInputError(
                f"{name}: an array of real numbers expected, got dtype {values.dtype}")
        return cupy.ascontiguousarray(values, dtype=cupy.float64)
    return values


def refresh(converted, original):
    """Copies `original` (the caller's array) into `converted` (the float64 C-contiguous copy
    Foehn reads) when they differ, so that the caller's in-place edits count."""
    if converted is original:
        return
    if is_device_array(converted):
        import cupy

        cupy.copyto(converted, cupy.asarray(original).reshape(converted.shape), casting="unsafe")
    else:
        np.copyto(converted, np.asarray(original).reshape(converted.shape), casting="unsafe")


def result_array(values, expected_count, name):
    """The caller's out= array, checked to be one Foehn writes into in place: float64,
    C-contiguous, writeable, `expected_count` values. Anything else is refused (TypeError for the
    kind of array, ValueError for its size), never written into a hidden copy."""
    if isinstance(values, np.ndarray):
        if values.dtype != np.float64:
            raise TypeError(f"{name}: a float64 array is written in place, got dtype "
                            f"{values.dtype} (the results would go into a copy)")
        if not values.flags.c_contiguous:
            raise TypeError(f"{name}: a C-contiguous array is written in place, got a strided "
                            "one (the results would go into a copy)")
        if not values.flags.writeable:
            raise TypeError(f"{name}: the array is read-only")
    elif is_device_array(values):
        dtype = getattr(values, "dtype", None)
        if dtype is not None and str(dtype) != "float64":
            raise TypeError(f"{name}: a float64 device array is written in place, got dtype "
                            f"{dtype}")
        flags = getattr(values, "flags", None)
        if flags is not None and not flags.c_contiguous:
            raise TypeError(f"{name}: a C-contiguous device array is written in place")
    else:
        raise TypeError(f"{name}: a NumPy or CUDA (CuPy, DLPack) array expected, got "
                        f"{type(values).__name__}")
    if values.size != expected_count:
        raise _foehn.InvalidInputError(
            f"{name}: {values.size} values, {expected_count} expected")
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
