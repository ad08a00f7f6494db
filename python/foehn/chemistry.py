"""Chemistry: mechanisms (Foehn JSON, OpenAtmos v1 JSON/YAML as MICM reads them, KPP) and the
Rosenbrock solvers over many independent cells, on the CPU or the GPU."""
import os

import numpy as np

from . import _foehn
from ._arrays import (count, finite_doubles, host_doubles, is_device_array, real,
                      wait_for_producers)

_FORMATS = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".def": "kpp", ".eqn": "kpp",
            ".kpp": "kpp"}


class Mechanism:
    """A chemical mechanism: Mechanism.read(path), Mechanism.parse(text, format) or
    Mechanism.synthetic(species, reactions, seed). Concentrations are in its
    `concentration_unit` ("molecule cm-3" for Foehn JSON and KPP, "mol m-3" for OpenAtmos)."""

    def __init__(self, handle):
        self._handle = handle

    @classmethod
    def read(cls, path):
        return cls(_foehn.Mechanism.read(os.fspath(path)))

    @classmethod
    def parse(cls, text, format="json", source="<string>", include_folder="."):
        """format: "json" (Foehn's or OpenAtmos v1, told apart by "version"), "yaml" or "kpp"
        (#INCLUDE names resolved against include_folder)."""
        return cls(_foehn.Mechanism.parse(text, format, source, os.fspath(include_folder)))

    @classmethod
    def synthetic(cls, species=80, reactions=190, seed=1):
        """The CB05-sized random tropospheric mechanism of the benchmarks."""
        return cls(_foehn.Mechanism.synthetic(count(species, "species"),
                                              count(reactions, "reactions"), count(seed, "seed")))

    name = property(lambda self: self._handle.name)
    species = property(lambda self: list(self._handle.species), doc="Species in order.")
    constant_species = property(lambda self: list(self._handle.constant_species))
    reactions = property(lambda self: list(self._handle.reactions), doc="Equations in order.")
    external_rates = property(lambda self: list(self._handle.external_rates),
                              doc="Per-cell rates (photolysis, emissions, ...) by name.")
    concentration_unit = property(lambda self: self._handle.concentration_unit)

    def in_unit(self, unit):
        """The same mechanism in "molecule cm-3" or "mol m-3" (rate constants converted)."""
        return Mechanism(self._handle.in_unit(unit))

    def to_json(self):
        return self._handle.to_json()

    def to_openatmos(self, format="json"):
        """OpenAtmos v1 text as MICM reads it (in mol m-3)."""
        if format == "yaml":
            return self._handle.to_openatmos_yaml()
        return self._handle.to_openatmos_json()

    def write(self, path):
        """Foehn JSON (.json) or OpenAtmos v1 (.yaml, or .json with openatmos=True)."""
        text = self.to_openatmos("yaml") if str(path).endswith((".yaml", ".yml")) else self.to_json()
        with open(path, "w") as f:
            f.write(text)

    def __repr__(self):
        return (f"foehn.chemistry.Mechanism({self.name!r}, {len(self.species)} species, "
                f"{len(self.reactions)} reactions)")


class Solver:
    """A Rosenbrock solver for `mechanism` on many cells.

    backend "cpu", "cuda" or "auto"; method "ros2", "ros3", "rodas3", "rodas4"; rtol; atol a
    number or one per species (default: each species' own); GPU strategy "automatic",
    "thread_per_cell", "block_per_cell" and layout "interleaved", "block_interleaved",
    "per_cell". A cell keeps its last step size from one solve to the next. Values outside
    foehn-box's ranges (rtol in (0, 1], atol > 0, max_steps >= 1, steps > 0, max_step 0 or >=
    min_step) are refused.
    """

    def __init__(self, mechanism, backend="auto", method="rodas3", rtol=1e-4, atol=None,
                 max_steps=100000, initial_step=1e-3, min_step=1e-30, max_step=0.0,
                 strategy="automatic", layout="interleaved", throw_on_failure=True):
        self.mechanism = mechanism
        species = len(mechanism.species)
        tolerances = [] if atol is None else list(np.broadcast_to(
            finite_doubles(atol, "atol"), (species,)))
        self._handle = _foehn.ChemistrySolver(
            mechanism._handle, backend, method, real(rtol, "rtol"), tolerances,
            count(max_steps, "max_steps"), real(initial_step, "initial_step"),
            real(min_step, "min_step"), real(max_step, "max_step"), strategy, layout,
            bool(throw_on_failure))

    @property
    def uses_gpu(self):
        return self._handle.uses_gpu

    def solve(self, concentrations, temperature, pressure, duration, external_rates=None):
        """Integrates every cell over `duration` seconds, in place.

        concentrations: (cells, species) float64 C-contiguous array, NumPy, or CuPy on the cuda
        backend (never leaves the GPU); temperature [K] and pressure [Pa]: one per cell (or one
        number for all); external_rates: (cells, len(mechanism.external_rates)) or None (zero).
        Returns the step statistics; a failed cell raises NumericalError."""
        if isinstance(concentrations, np.ndarray):
            if concentrations.dtype != np.float64 or not concentrations.flags.c_contiguous:
                raise _foehn.InvalidInputError(
                    "concentrations: a C-contiguous float64 array is updated in place")
        elif not is_device_array(concentrations):
            raise _foehn.InvalidInputError("concentrations: a NumPy or CuPy array expected")
        cells = concentrations.shape[0] if concentrations.ndim > 1 else 1
        t = np.broadcast_to(host_doubles(temperature, "temperature"), (cells,)).copy()
        p = np.broadcast_to(host_doubles(pressure, "pressure"), (cells,)).copy()
        rates = None if external_rates is None else host_doubles(external_rates, "external_rates")
        wait_for_producers([concentrations])
        return self._handle.solve(concentrations, t, p, rates, real(duration, "duration"))


def _by_name(values, names, what, kind):
    """One row of values in `names` order from {name: value} (others 0) or a sequence."""
    row = np.zeros((1, len(names)))
    if isinstance(values, dict):
        for name, value in values.items():
            if name not in names:
                raise _foehn.InvalidInputError(f"{what}: no {kind} '{name}' ({', '.join(names)})")
            row[0, names.index(name)] = real(value, f"{what}['{name}']")
    else:
        row[0, :] = host_doubles(values, what)
    return row


def box(mechanism, initial, times, temperature=298.15, pressure=101325.0, external_rates=None,
        backend="cpu", **solver_options):
    """A box run of one cell: concentrations at each of `times` (s, increasing, from 0).

    initial: {species: concentration} (others 0) or an array of one value per species;
    external_rates: {name: value} or an array. Returns a (len(times), species) NumPy array, row
    0 the initial state when times[0] == 0."""
    species = mechanism.species
    state = _by_name(initial, species, "initial", "species")
    rates = None
    if external_rates is not None:
        rates = _by_name(external_rates, mechanism.external_rates, "external_rates", "rate")
    solver = Solver(mechanism, backend=backend, **solver_options)
    times = finite_doubles(times, "times")
    if times.ndim != 1:
        raise _foehn.InvalidInputError(f"times: a 1-D array expected, got shape {times.shape}")
    out = np.empty((len(times), len(species)))
    now = 0.0
    for i, t in enumerate(times):
        if t < now:
            raise _foehn.InvalidInputError(
                f"times: {t} after {now}: times must increase from 0 (s)")
        if t > now:
            solver.solve(state, temperature, pressure, t - now, rates)
            now = t
        out[i] = state[0]
    return out


__all__ = ["Mechanism", "Solver", "box"]
