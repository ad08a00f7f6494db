"""Steady linear mountain waves in uniform, uniformly stratified Boussinesq flow.

The reference solution the Mountainwave3D dynamical core is validated against: flow U along x
with buoyancy frequency N over isolated terrain h(x, y), linearised about the uniform state and
solved mode by mode in a doubly periodic domain by a 2D FFT of the terrain. docs/linear_theory.md
gives the equations, the numerical choices and their measured convergence.

For a Fourier mode exp(i(kx + ly)) of the vertical displacement eta (eta = h at z = 0):

    eta^(k, l, z) = h^(k, l) exp(i m z)
    m^2 = (N^2 - U^2 k^2) (k^2 + l^2) / (U^2 k^2)    (non-hydrostatic)
    m^2 = N^2 (k^2 + l^2) / (U^2 k^2)                (hydrostatic)

with m = sign(U k) sqrt(m^2) where m^2 > 0 (upward energy propagation) and m = i sqrt(-m^2)
where m^2 < 0 (decay with height). Then

    w^ = i k U eta^                 theta'^ = -(theta0 N^2 / g) eta^
    u^ = -k m w^ / (k^2 + l^2)      v^ = -l m w^ / (k^2 + l^2)      p^ = -U u^   (p = p'/rho0)

Modes with k = 0 (and the Nyquist modes of the grid) are set to zero.
"""

import math
from dataclasses import dataclass

import numpy as np

FIELDS = ("w", "u", "v", "theta", "p")
TERRAINS = ("bell", "ridge")
# Defaults of the FFT grid (docs/linear_theory.md, "Numerical choices"): spacing at most 250 m,
# period 32 window lengths along the flow (the lee-wave wake decays slowly downstream) and 4
# across it (the lateral images matter much less).
DEFAULT_MAX_SPACING = 250.0
DEFAULT_PAD = (32.0, 4.0)


@dataclass(frozen=True)
class Case:
    """The physical problem. Defaults: the Mountainwave3D case (include/foehn/mesh/mountain.hpp
    and issue 6)."""

    h0: float = 400.0          # mountain height, m
    a: float = 1000.0          # half-width, m
    U: float = 10.0            # uniform wind along x, m/s (either sign, not zero)
    N: float = 0.01            # buoyancy frequency, 1/s (N = 0: potential flow)
    theta0: float = 293.15     # reference potential temperature, K
    g: float = 9.81            # gravity, m/s^2
    hydrostatic: bool = False
    terrain: str = "bell"      # "bell": h0 / (1 + r^2/a^2)^(3/2); "ridge": h0 a^2 / (x^2 + a^2)

    def check(self):
        if self.terrain not in TERRAINS:
            raise ValueError(f"terrain must be one of {TERRAINS}, not {self.terrain!r}")
        for name in ("a", "theta0", "g"):
            if not (getattr(self, name) > 0 and math.isfinite(getattr(self, name))):
                raise ValueError(f"{name} must be positive and finite")
        if not (math.isfinite(self.U) and self.U != 0):
            raise ValueError("U must be finite and non-zero (linear theory about a moving state)")
        if not (math.isfinite(self.N) and self.N >= 0):
            raise ValueError("N must be finite and >= 0")
        if not math.isfinite(self.h0):
            raise ValueError("h0 must be finite")

    @property
    def froude_inverse(self):
        """N a / U: >> 1 hydrostatic waves, ~ 1 dispersive (non-hydrostatic), << 1 evanescent."""
        return self.N * self.a / abs(self.U)

    @property
    def dtheta_dz(self):
        """Background stratification d(theta_bar)/dz = theta0 N^2 / g, K/m."""
        return self.theta0 * self.N ** 2 / self.g

    def height(self, x, y):
        """Terrain height h(x, y), m (the mountain is centred at the origin)."""
        x = np.asarray(x, dtype=float)
        if self.terrain == "bell":
            y = np.asarray(y, dtype=float)
            return self.h0 / (1.0 + (x * x + y * y) / self.a ** 2) ** 1.5
        return self.h0 * self.a ** 2 / (x * x + self.a ** 2) + 0.0 * np.asarray(y, dtype=float)

    def terrain_transform(self, k, l):
        """Continuous Fourier transform H(k, l) = integral of h exp(-i(kx + ly)) dx dy.
        Bell: 2 pi h0 a^2 exp(-a K), K = sqrt(k^2 + l^2). Ridge (per unit length in y, l = 0):
        pi h0 a exp(-a |k|)."""
        if self.terrain == "bell":
            return 2.0 * math.pi * self.h0 * self.a ** 2 * np.exp(-self.a * np.hypot(k, l))
        return math.pi * self.h0 * self.a * np.exp(-self.a * np.abs(k))


def next_fft_size(n):
    """Smallest integer >= n whose prime factors are 2, 3 and 5."""
    n = max(1, int(n))
    while True:
        m = n
        for p in (2, 3, 5):
            while m % p == 0:
                m //= p
        if m == 1:
            return n
        n += 1


def regular_spacing(axis, rtol=1e-9):
    """The spacing of a strictly increasing, evenly spaced axis with two or more points, else
    None."""
    axis = np.asarray(axis, dtype=float)
    if axis.ndim != 1 or axis.size < 2:
        return None
    steps = np.diff(axis)
    step = (axis[-1] - axis[0]) / (axis.size - 1)
    if step <= 0 or np.max(np.abs(steps - step)) > rtol * max(step, abs(axis[0]), abs(axis[-1])):
        return None
    return step


@dataclass(frozen=True)
class AxisGrid:
    """One periodic FFT axis: n points x_j = origin + j * spacing, period n * spacing."""

    n: int
    spacing: float
    origin: float

    @property
    def period(self):
        return self.n * self.spacing

    def points(self):
        return self.origin + self.spacing * np.arange(self.n)

    def indices_of(self, axis, rtol=1e-7):
        """Grid indices of the points of `axis` when all are grid points (within rtol of the
        spacing) and lie in one period, else None."""
        axis = np.asarray(axis, dtype=float)
        j = (axis - self.origin) / self.spacing
        ji = np.rint(j)
        if np.any(np.abs(j - ji) > rtol) or np.any(ji < 0) or np.any(ji >= self.n):
            return None
        return ji.astype(np.int64)


def axis_grid_for(axis, max_spacing, pad, min_points=1):
    """An FFT axis covering `axis` (the window where fields are wanted) with spacing at most
    `max_spacing` and period about `pad` times the window length (at least the window plus one
    point). An evenly spaced `axis` becomes a subset of the grid (spacing = axis spacing / r for
    an integer r) so fields on it need no interpolation; the window sits in the middle of the
    period. The mountain is at 0 wherever the window is: terrain is sampled at the image of each
    grid point nearest to the origin."""
    axis = np.atleast_1d(np.asarray(axis, dtype=float))
    if not (max_spacing > 0) or not (pad >= 1):
        raise ValueError("max_spacing must be > 0 and pad >= 1")
    step = regular_spacing(axis)
    if step is not None:
        ratio = max(1, math.ceil(step / max_spacing - 1e-9))
        spacing = step / ratio
        span_points = (axis.size - 1) * ratio + 1
        n = next_fft_size(max(min_points, span_points + 1,
                              math.ceil(pad * (axis[-1] - axis[0]) / spacing - 1e-9)))
        origin = axis[0] - ((n - span_points) // 2) * spacing
        return AxisGrid(n, spacing, origin)
    # A single point or an uneven axis: a grid centred on the window; fields are then evaluated
    # by explicit Fourier sums at the requested points.
    lo, hi = float(np.min(axis)), float(np.max(axis))
    spacing = float(max_spacing)
    n = next_fft_size(max(min_points, math.ceil(pad * (hi - lo) / spacing - 1e-9),
                          math.ceil((hi - lo) / spacing) + 2))
    centre = 0.5 * (lo + hi)
    origin = centre - (n // 2) * spacing
    return AxisGrid(n, spacing, origin)


class LinearMountainWave:
    """The linear steady solution on one periodic FFT grid.

    The spectrum of each field at z = 0 is built once; fields at any height follow by
    multiplying with exp(i m z). Arrays in spectral space have shape (grid_y.n, grid_x.n // 2 + 1)
    (numpy rfft2 layout, index [l, k])."""

    def __init__(self, case, grid_x, grid_y, transform="fft", fields=FIELDS):
        case.check()
        if transform not in ("fft", "analytic"):
            raise ValueError("transform must be 'fft' or 'analytic'")
        for name in fields:
            if name not in FIELDS:
                raise ValueError(f"unknown field {name!r}; known: {', '.join(FIELDS)}")
        self.case, self.grid_x, self.grid_y, self.transform = case, grid_x, grid_y, transform
        self.fields = tuple(fields)
        nx, ny = grid_x.n, grid_y.n
        self.k = 2.0 * math.pi * np.fft.rfftfreq(nx, d=grid_x.spacing)[None, :]
        self.l = 2.0 * math.pi * np.fft.fftfreq(ny, d=grid_y.spacing)[:, None]

        # Modes kept: k > 0 (k = 0 carries no w, and its displacement is undetermined in steady
        # flow along x), no Nyquist column or row (their sign is ambiguous on an even grid).
        keep = np.ones((ny, self.k.shape[1]), dtype=bool)
        keep[:, 0] = False
        if nx % 2 == 0:
            keep[:, -1] = False
        if ny % 2 == 0:
            keep[ny // 2, :] = False
        self.keep = keep

        eta = self._terrain_spectrum() * keep
        U, N = case.U, case.N
        k = np.where(keep, self.k, 1.0)          # placeholders where modes are dropped
        K2 = np.where(keep, self.k ** 2 + self.l ** 2, 1.0)
        if case.hydrostatic:
            m2 = N ** 2 * K2 / (U * k) ** 2
        else:
            m2 = (N ** 2 - (U * k) ** 2) * K2 / (U * k) ** 2
        m = np.where(m2 >= 0.0, np.sign(U * k) * np.sqrt(np.abs(m2)), 1j * np.sqrt(np.abs(m2)))
        self.m = np.where(keep, m, 0.0).astype(complex)
        del m, m2

        w = 1j * k * U * eta
        base = {}
        for name in self.fields:
            if name == "w":
                base[name] = w
            elif name == "theta":
                base[name] = -case.dtheta_dz * eta
            elif name == "u":
                base[name] = -k * self.m * w / K2
            elif name == "v":
                base[name] = -self.l * self.m * w / K2
            elif name == "p":
                base[name] = U * k * self.m * w / K2
        self._eta = eta          # the flux diagnostic rebuilds u and w from it
        self.base = {name: np.where(keep, value, 0.0) for name, value in base.items()}

    # -- construction helpers ------------------------------------------------------------------

    @classmethod
    def for_window(cls, case, x, y, max_spacing=DEFAULT_MAX_SPACING, pad=DEFAULT_PAD,
                   transform="fft", fields=FIELDS):
        """A solver whose grid covers the window spanned by axes x and y (see axis_grid_for);
        pad is one number or a pair (x, y). For the ridge the y axis is a short uniform one."""
        pad_x, pad_y = (pad, pad) if np.isscalar(pad) else pad
        grid_x = axis_grid_for(x, max_spacing, pad_x)
        if case.terrain == "ridge":
            grid_y = axis_grid_for(y, max_spacing, 1.0, min_points=8)
        else:
            grid_y = axis_grid_for(y, max_spacing, pad_y)
        return cls(case, grid_x, grid_y, transform=transform, fields=fields)

    def _terrain_spectrum(self):
        gx, gy, case = self.grid_x, self.grid_y, self.case
        if self.transform == "fft":
            x = gx.points()
            y = gy.points()
            # Nearest image of the mountain: the periodic extension of the sampled terrain is
            # then continuous and symmetric about the summit.
            x = (x + 0.5 * gx.period) % gx.period - 0.5 * gx.period
            y = (y + 0.5 * gy.period) % gy.period - 0.5 * gy.period
            h = case.height(x[None, :], y[:, None])
            return np.fft.rfft2(h)
        # Samples of the continuous transform: the DFT of h sampled at origin + j * spacing is
        # exp(i k origin) H(k) / spacing up to aliasing, which is negligible for smooth terrain.
        shift = np.exp(1j * (self.k * gx.origin + self.l * gy.origin))
        if case.terrain == "bell":
            spectrum = case.terrain_transform(self.k, self.l) / (gx.spacing * gy.spacing)
        else:
            spectrum = np.where(self.l == 0.0, case.terrain_transform(self.k, 0.0) * gy.n
                                / gx.spacing, 0.0)
        return spectrum * shift

    # -- spectral fields -----------------------------------------------------------------------

    def phase(self, z):
        """exp(i m z): the vertical structure of every mode at height z (m above z = 0)."""
        return np.exp(1j * self.m * float(z))

    def spectrum(self, name, z):
        return self.base[name] * self.phase(z)

    def _scale(self):
        return 2.0 / (self.grid_x.n * self.grid_y.n)

    # -- evaluation ----------------------------------------------------------------------------

    def grid_field(self, name, z):
        """Field `name` at height z on the whole periodic grid, shape (grid_y.n, grid_x.n)."""
        return np.fft.irfft2(self.spectrum(name, z), s=(self.grid_y.n, self.grid_x.n))

    def horizontal(self, x, y, z, names=None):
        """Fields on the horizontal section z = const at the points of axes x and y; returns
        {name: array[len(y), len(x)]}. Grid points are read from inverse FFTs, other points are
        evaluated by explicit (exact trigonometric) Fourier sums."""
        names = self.fields if names is None else names
        x = np.atleast_1d(np.asarray(x, dtype=float))
        y = np.atleast_1d(np.asarray(y, dtype=float))
        ix, iy = self.grid_x.indices_of(x), self.grid_y.indices_of(y)
        phase = self.phase(z)
        out = {}
        if ix is not None and iy is not None:
            for name in names:
                full = np.fft.irfft2(self.base[name] * phase, s=(self.grid_y.n, self.grid_x.n))
                out[name] = full[np.ix_(iy, ix)]
            return out
        ex = np.exp(1j * self.k[0][:, None] * (x[None, :] - self.grid_x.origin))   # (nk, nx)
        ey = np.exp(1j * self.l[:, 0][None, :] * (y[:, None] - self.grid_y.origin))  # (ny, nl)
        for name in names:
            out[name] = self._scale() * np.real(ey @ ((self.base[name] * phase) @ ex))
        return out

    def section(self, x, z, y0=0.0, names=None):
        """Fields on the vertical section y = y0 at the points of axis x and heights z; returns
        {name: array[len(z), len(x)]}.

        m depends on |l| only, so the sum over l is folded onto l >= 0 before the levels are
        visited (half the work); on evenly spaced z the phase exp(i m z) is advanced from level to
        level by one multiplication instead of a new exponential."""
        names = self.fields if names is None else names
        x = np.atleast_1d(np.asarray(x, dtype=float))
        z = np.atleast_1d(np.asarray(z, dtype=float))
        ny = self.grid_y.n
        half = (ny - 1) // 2                      # rows 1..half pair with ny-1..ny-half
        ey = np.exp(1j * self.l[:, 0] * (float(y0) - self.grid_y.origin))[:, None]
        folded = {}
        for name in names:
            a = self.base[name] * ey
            f = a[: half + 1].copy()
            f[1:] += a[ny - 1: ny - half - 1: -1]
            folded[name] = f
        m = self.m[: half + 1]
        ex = np.exp(1j * self.k[0][:, None] * (x[None, :] - self.grid_x.origin))   # (nk, nx)
        out = {name: np.empty((z.size, x.size)) for name in names}
        step = None
        dz = np.diff(z)
        if z.size > 2 and np.allclose(dz, dz[0], rtol=1e-12, atol=0.0):
            step = np.exp(1j * m * dz[0])
        phase = None
        for iz, level in enumerate(z):
            # Fresh exponentials every 32 levels bound the round-off of the recursion.
            if step is None or phase is None or iz % 32 == 0:
                phase = np.exp(1j * m * level)
            else:
                phase *= step
            for name in names:
                along = np.einsum("lk,lk->k", folded[name], phase)                   # (nk,)
                out[name][iz] = self._scale() * np.real(along @ ex)
        return out

    # -- diagnostics ---------------------------------------------------------------------------

    def momentum_flux(self, z):
        """Integral of u'w' over one period of the horizontal plane at height z, m^4/s^2 (per unit
        density). For the ridge it is per period in y; divide by grid_y.period for the flux per
        metre of ridge. The surface drag on the terrain is -rho0 times this. Independent of z: only
        propagating modes contribute, evanescent ones give u and w in quadrature."""
        k = np.where(self.keep, self.k, 1.0)
        K2 = np.where(self.keep, self.k ** 2 + self.l ** 2, 1.0)
        w = 1j * k * self.case.U * self._eta * self.phase(z)
        u = -k * self.m * w / K2
        total = np.sum(np.real(u * np.conj(w))[self.keep])
        n = self.grid_x.n * self.grid_y.n
        return self.grid_x.period * self.grid_y.period * 2.0 * total / n ** 2

    def describe(self):
        """Numbers that define the computation, for file attributes and logs."""
        return {
            "fft_nx": self.grid_x.n, "fft_ny": self.grid_y.n,
            "fft_dx": self.grid_x.spacing, "fft_dy": self.grid_y.spacing,
            "fft_period_x": self.grid_x.period, "fft_period_y": self.grid_y.period,
            "fft_origin_x": self.grid_x.origin, "fft_origin_y": self.grid_y.origin,
            "terrain_transform": self.transform,
        }


def parse_axis(text):
    """'start:stop:step' (stop included when it falls on the grid) or 'v1,v2,...' -> array."""
    text = text.strip()
    if ":" in text:
        parts = [float(p) for p in text.split(":")]
        if len(parts) != 3 or parts[2] <= 0 or parts[1] < parts[0]:
            raise ValueError(f"bad range {text!r}: want start:stop:step with step > 0")
        start, stop, step = parts
        count = int(math.floor((stop - start) / step + 1e-9)) + 1
        return start + step * np.arange(count)
    values = np.array([float(p) for p in text.split(",") if p.strip()])
    if values.size == 0:
        raise ValueError("empty list")
    return values


def case_attributes(case):
    """The case as HDF5 root attributes (see sections_io)."""
    return {"h0": case.h0, "a": case.a, "U": case.U, "N": case.N, "theta0": case.theta0,
            "g": case.g, "hydrostatic": int(case.hydrostatic), "terrain": case.terrain}


def compute_sections(case, x=None, y=None, heights=None, section_x=None, section_z=None,
                     section_y=0.0, fields=("w", "theta"), max_spacing=DEFAULT_MAX_SPACING,
                     pad=DEFAULT_PAD, transform="fft"):
    """The linear solution on horizontal sections (axes x, y at `heights`) and/or the vertical
    section y = section_y (axes section_x, section_z), as a sections_io.Sections. The FFT grid
    is laid over the horizontal window (or, with no horizontal sections, over a square window
    of the section's x extent centred on section_y)."""
    from sections_io import Sections

    have_horizontal = heights is not None and len(np.atleast_1d(heights)) > 0
    have_section = section_z is not None and len(np.atleast_1d(section_z)) > 0
    if not have_horizontal and not have_section:
        raise ValueError("nothing to compute: no heights and no section levels")
    if have_horizontal:
        window_x, window_y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    else:
        section_x = np.asarray(section_x, dtype=float)
        window_x = section_x
        half = 0.5 * max(section_x[-1] - section_x[0], 2.0 * max_spacing)
        window_y = np.array([section_y - half, section_y + half])
    solver = LinearMountainWave.for_window(case, window_x, window_y, max_spacing=max_spacing,
                                           pad=pad, transform=transform, fields=fields)
    out = Sections(attrs={"source": "linear_theory", **case_attributes(case),
                          **solver.describe()})
    if have_horizontal:
        out.x, out.y = window_x, window_y
        out.heights = np.atleast_1d(np.asarray(heights, dtype=float))
        per_height = [solver.horizontal(window_x, window_y, z) for z in out.heights]
        out.horizontal = {name: np.stack([level[name] for level in per_height])
                          for name in fields}
    if have_section:
        out.section_x = np.asarray(section_x, dtype=float)
        out.section_z = np.atleast_1d(np.asarray(section_z, dtype=float))
        out.section_y = float(section_y)
        out.section = solver.section(out.section_x, out.section_z, y0=section_y)
    out.attrs["momentum_flux"] = solver.momentum_flux(0.0)
    return out, solver
