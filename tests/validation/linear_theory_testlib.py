"""Shared helpers of the linear-theory tests: module checks (skip code), the path to
validation/linear_theory, and closed-form references written independently of the FFT code.

Every test file ends with `sys.exit(run(__name__, needs=[...]))`: when a needed module is
missing it prints why and returns SKIP (77, the ctest SKIP_RETURN_CODE); otherwise it runs the
file's unittest cases and returns 0 or 1.
"""

import importlib.util
import math
import os
import sys
import unittest

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
LINEAR_THEORY_DIR = os.environ.get(
    "FOEHN_LINEAR_THEORY_DIR",
    os.path.normpath(os.path.join(HERE, "..", "..", "validation", "linear_theory")))
if LINEAR_THEORY_DIR not in sys.path:
    sys.path.insert(0, LINEAR_THEORY_DIR)

LINEAR_THEORY_SCRIPT = os.path.join(LINEAR_THEORY_DIR, "linear_theory.py")
COMPARE_SCRIPT = os.path.join(LINEAR_THEORY_DIR, "compare_to_linear_theory.py")


def run(module_name, needs=("numpy",)):
    missing = [name for name in needs if importlib.util.find_spec(name) is None]
    if missing:
        print(f"SKIP: {sys.executable} cannot import {', '.join(missing)} "
              f"(Debian: apt-get install {' '.join('python3-' + m for m in missing)})")
        return SKIP
    program = unittest.main(module=module_name, exit=False, verbosity=2)
    result = program.result
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1


def relative_max_error(value, reference):
    import numpy as np

    return float(np.max(np.abs(value - reference)) / np.max(np.abs(reference)))


# -- closed-form references ---------------------------------------------------------------------

def bell_dhdx(x, y, h0, a):
    """d/dx of h0 / (1 + r^2/a^2)^(3/2)."""
    r2 = (x * x + y * y) / (a * a)
    return -3.0 * h0 * x / (a * a) / (1.0 + r2) ** 2.5


def queney_infinite(x, z, h0, a, U, N):
    """Hydrostatic linear flow over the Witch of Agnesi ridge h = h0 a^2 / (x^2 + a^2) in an
    unbounded domain, l = N/U (Queney 1948; Durran 1990, "Mountain waves and downslope
    winds", eq. for the hydrostatic Witch; Smith 1979):
        eta = h0 a (a cos lz - x sin lz) / (x^2 + a^2)
        w = U d(eta)/dx = U h0 a ((x^2 - a^2) sin lz - 2 a x cos lz) / (x^2 + a^2)^2
        u = -U d(eta)/dz = U h0 a l (a sin lz + x cos lz) / (x^2 + a^2)
    Returns (eta, w, u)."""
    import numpy as np

    l = N / U
    s, c = np.sin(l * z), np.cos(l * z)
    d = x * x + a * a
    eta = h0 * a * (a * c - x * s) / d
    w = U * h0 * a * ((x * x - a * a) * s - 2.0 * a * x * c) / d ** 2
    u = U * h0 * a * l * (a * s + x * c) / d
    return eta, w, u


def queney_periodic(x, z, h0, a, U, N, period):
    """The same solution summed over the images x - n P (n = ..., -1, 0, 1, ...), in closed form:
    sum_n 1 / (a - i(x - nP)) = i (pi/P) cot(pi (x + i a) / P), so
        eta = h0 a Re[i exp(i l z) (pi/P) cot(pi (x + i a)/P)]
        w = U d(eta)/dx = -U h0 a (pi/P)^2 Re[i exp(i l z) / sin^2(pi (x + i a)/P)]
        u = -U d(eta)/dz = U h0 a l Re[exp(i l z) (pi/P) cot(pi (x + i a)/P)]
    The x-mean of eta and u (the k = 0 mode, which the FFT solution leaves out) is not removed
    here. Returns (eta, w, u)."""
    import numpy as np

    l = N / U
    q = math.pi / period
    zeta = q * (x + 1j * a)
    phase = np.exp(1j * l * z)
    cot = np.cos(zeta) / np.sin(zeta)
    eta = h0 * a * np.real(1j * phase * q * cot)
    w = -U * h0 * a * q * q * np.real(1j * phase / np.sin(zeta) ** 2)
    u = U * h0 * a * l * np.real(phase * q * cot)
    return eta, w, u


def potential_flow_bell_w(x, y, z, h0, a, U):
    """w of irrotational flow (N = 0) over the bell: the bell is the field of a point source at
    z = -a, so the displacement at height z is the bell of half-width a + z scaled by
    (a/(a+z))^2: eta = h0 a^2 (a + z) / ((a + z)^2 + r^2)^(3/2), and
    w = U d(eta)/dx = -3 U h0 a^2 (a + z) x / ((a + z)^2 + r^2)^(5/2)."""
    b = a + z
    return -3.0 * U * h0 * a * a * b * x / (b * b + x * x + y * y) ** 2.5


def smith_bell_drag_flux(h0, a, U, N):
    """Hydrostatic bell: integral of u'w' over the plane = -(pi/4) N U h0^2 a (Smith 1980:
    drag D = (pi/4) rho0 N U h0^2 a)."""
    return -math.pi / 4.0 * N * U * h0 * h0 * a


def bell_flux_quadrature(h0, a, U, N, hydrostatic=False):
    """The same integral by adaptive quadrature of the continuous spectrum (scipy), for either
    dispersion relation: integral u'w' = -(1/4 pi^2) sum over propagating modes of
    U^2 k^2 |H|^2 sqrt(N^2/U^2 - k^2) / K (non-hydrostatic, |k| < N/|U|) or of
    |U| N k^2 |H|^2 / K (hydrostatic), H = 2 pi h0 a^2 exp(-a K); sign(U) in front. In polar
    coordinates k = K cos(phi), the measure K dK dphi, four equal quadrants."""
    from scipy import integrate

    c = N / abs(U)
    kmax = 60.0 / a

    def spectrum2(K):
        return (2.0 * math.pi * h0 * a * a) ** 2 * math.exp(-2.0 * a * K)

    def integrand(K, phi):
        k = K * math.cos(phi)
        if hydrostatic:
            return abs(U) * N * k * k * spectrum2(K)          # (k^2/K) * K
        return U * U * k * k * math.sqrt(max(c * c - k * k, 0.0)) * spectrum2(K)

    def upper(phi):
        if hydrostatic:
            return kmax
        cosine = math.cos(phi)
        return kmax if cosine <= c / kmax else min(kmax, c / cosine)

    value, _ = integrate.dblquad(integrand, 0.0, math.pi / 2.0, 0.0, upper,
                                 epsabs=0.0, epsrel=1e-10)
    return -math.copysign(1.0, U) * 4.0 * value / (4.0 * math.pi ** 2)
