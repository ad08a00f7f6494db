"""PNG plots of mountain-wave sections (matplotlib, Agg backend: no display needed)."""

import os

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

_LABELS = {"w": "w [m/s]", "theta": "θ′ [K]", "u": "u′ [m/s]", "v": "v [m/s]",
           "p": "p′/ρ0 [m²/s²]"}
_CMAP = "RdBu_r"


def _symmetric_limit(*arrays):
    values = [np.nanmax(np.abs(a)) for a in arrays if a is not None and np.any(np.isfinite(a))]
    limit = max(values) if values else 1.0
    return limit if limit > 0 else 1.0


def _save(fig, path):
    tmp = f"{path}.tmp.{os.getpid()}.png"
    try:
        fig.savefig(tmp, dpi=110)
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.remove(tmp)


def _horizontal_panel(ax, x, y, values, limit, title, label, window=None, mountain_a=None):
    mesh = ax.pcolormesh(x / 1000.0, y / 1000.0, values, cmap=_CMAP, vmin=-limit, vmax=limit,
                         shading="nearest")
    ax.set_aspect("equal")
    ax.set_xlabel("x [km]")
    ax.set_ylabel("y [km]")
    ax.set_title(title, fontsize=10)
    if mountain_a:
        circle = plt.Circle((0.0, 0.0), mountain_a / 1000.0, fill=False, color="k", lw=0.7,
                            ls=":")
        ax.add_patch(circle)
    if window is not None:
        (x0, x1), (y0, y1) = window
        ax.plot(np.array([x0, x1, x1, x0, x0]) / 1000.0, np.array([y0, y0, y1, y1, y0]) / 1000.0,
                "k--", lw=0.7)
    plt.colorbar(mesh, ax=ax, label=label, shrink=0.85)


def _section_limit(z, *arrays, above=1000.0):
    """Colour limit of a section: the largest |value| above `above` metres (the surface values
    near the summit are several times larger and would wash out the waves aloft); the colour bar
    marks the clipping."""
    upper = np.asarray(z) >= above
    if np.count_nonzero(upper) >= 2:
        return _symmetric_limit(*[None if a is None else a[upper] for a in arrays])
    return _symmetric_limit(*arrays)


def _section_panel(ax, x, z, values, limit, title, label, terrain=None, window=None):
    mesh = ax.pcolormesh(x / 1000.0, z / 1000.0, values, cmap=_CMAP, vmin=-limit, vmax=limit,
                         shading="nearest")
    if terrain is not None:
        ax.fill_between(x / 1000.0, 0.0, terrain / 1000.0, color="0.35", zorder=3)
    if window is not None:
        (x0, x1), (z0, z1) = window
        ax.plot(np.array([x0, x1, x1, x0, x0]) / 1000.0, np.array([z0, z0, z1, z1, z0]) / 1000.0,
                "k--", lw=0.7)
    ax.set_xlabel("x [km]")
    ax.set_ylabel("z [km]")
    ax.set_title(title, fontsize=10)
    plt.colorbar(mesh, ax=ax, label=label, shrink=0.85, extend="both")


def plot_horizontal(path, x, y, values, title, name="w", mountain_a=None):
    fig, ax = plt.subplots(figsize=(6.4, 5.2), constrained_layout=True)
    _horizontal_panel(ax, x, y, values, _symmetric_limit(values), title, _LABELS.get(name, name),
                      mountain_a=mountain_a)
    _save(fig, path)


def plot_section(path, x, z, values, title, name="w", terrain=None):
    fig, ax = plt.subplots(figsize=(8.0, 4.6), constrained_layout=True)
    _section_panel(ax, x, z, values, _section_limit(z, values), title,
                   _LABELS.get(name, name), terrain=terrain)
    _save(fig, path)


def plot_comparison_horizontal(path, x, y, model, theory, title, name="w", window=None,
                               mountain_a=None):
    """Three panels: model | theory (one colour scale) | model - theory (its own scale)."""
    fig, axes = plt.subplots(1, 3, figsize=(17.0, 5.0), constrained_layout=True)
    limit = _symmetric_limit(model, theory)
    label = _LABELS.get(name, name)
    _horizontal_panel(axes[0], x, y, model, limit, "model", label, window, mountain_a)
    _horizontal_panel(axes[1], x, y, theory, limit, "linear theory", label, window, mountain_a)
    difference = model - theory
    _horizontal_panel(axes[2], x, y, difference, _symmetric_limit(difference),
                      "model − theory", label, window, mountain_a)
    fig.suptitle(title)
    _save(fig, path)


def plot_comparison_section(path, x, z, model, theory, title, name="w", terrain=None,
                            window=None):
    fig, axes = plt.subplots(1, 3, figsize=(19.0, 4.6), constrained_layout=True)
    limit = _section_limit(z, model, theory)
    label = _LABELS.get(name, name)
    _section_panel(axes[0], x, z, model, limit, "model", label, terrain, window)
    _section_panel(axes[1], x, z, theory, limit, "linear theory", label, terrain, window)
    difference = model - theory
    _section_panel(axes[2], x, z, difference, _section_limit(z, difference), "model − theory",
                   label, terrain, window)
    fig.suptitle(title)
    _save(fig, path)
