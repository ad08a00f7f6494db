"""Finds a Python interpreter that has the Debian scientific packages, before they are imported.

Debian installs numpy, scipy, matplotlib and h5py (python3-numpy, ...) for /usr/bin/python3.
When `python3` on the PATH is another interpreter (pyenv, a virtual environment without them),
the command-line scripts re-execute themselves once under /usr/bin/python3 so that
`python3 validation/linear_theory/linear_theory.py ...` works either way. This module imports
nothing outside the standard library.
"""

import importlib.util
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"
_GUARD = "FOEHN_LINEAR_THEORY_REEXEC"
_DEBIAN_NAMES = {
    "numpy": "python3-numpy",
    "scipy": "python3-scipy",
    "matplotlib": "python3-matplotlib",
    "h5py": "python3-h5py",
}


def missing_modules(modules):
    """Names in `modules` that this interpreter cannot import."""
    return [name for name in modules if importlib.util.find_spec(name) is None]


def ensure_modules(modules, program):
    """Returns when every module in `modules` can be imported; otherwise re-executes the running
    script under /usr/bin/python3 (once), or prints which Debian packages are missing and exits
    with status 2."""
    missing = missing_modules(modules)
    if not missing:
        return
    here = os.path.realpath(sys.executable or "")
    if (os.environ.get(_GUARD) != "1" and os.path.exists(SYSTEM_PYTHON)
            and os.path.realpath(SYSTEM_PYTHON) != here):
        os.environ[_GUARD] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    packages = " ".join(_DEBIAN_NAMES.get(name, name) for name in missing)
    sys.stderr.write(f"{program}: missing Python modules {', '.join(missing)} "
                     f"(Debian: apt-get install {packages})\n")
    sys.exit(2)
