#!/usr/bin/env python3
"""Every Rosenbrock method of foehn-box on the classic stiff problems, against SciPy's Radau.

Robertson, HIRES, OREGO, POLLU (data/mechanisms) and E5 (e5.json beside this script), in
Foehn JSON, are each run at three
concentration scalings s = 1, 1e-6, 1e6: concentrations times s, a rate constant of reactant
order n times s^(1-n), an emission rate times s, the absolute tolerance times s. That is the same
problem in another unit, so foehn-box's answer divided by s must match the one reference. The
reference is SciPy's Radau (rtol 1e-12) on the ODE built here from the JSON file with numpy
(mass action, analytic Jacobian), itself checked against the published solution where there is
one. Each run must either agree with it to 1e-6 relative (above a floor of 1e-6 of the largest
concentration) or be refused (non-zero exit code and a one-line error): an exit-0 wrong answer
fails the test.

Then the refusals as a user meets them: A -> 2 B with j = 1e60 (beyond what double precision
resolves) exits 2 with one line naming the cell, the species and the reaction; with j = 1e30
(rodas3) it gives B = 2 A0; Robertson with the classic rates converted to mol m^-3 gives the
quasi-steady asymptote C(40)^3 = 3 k2 k1^2 t / k3^2 with every method.

usage: check_stiff_problems_against_radau.py FOEHN_BOX MECHANISM_DIR WORK_DIR [REFERENCES]

FOEHN_BOX_ARGS (environment) is added to every foehn-box command, e.g. "-foehn_backend cuda
-gpu_strategy block_per_cell" for the GPU. REFERENCES, a JSON file: Radau's solutions are read
from it where it exists and written to it where not, so that a host without SciPy (a GPU host)
checks its runs against the references computed here.
"""

import csv
import json
import os
import shlex
import subprocess
import sys

import numpy as np

# Options every foehn-box run of this check takes (the backend, the GPU strategy).
EXTRA_ARGS = shlex.split(os.environ.get("FOEHN_BOX_ARGS", ""))
# One CPU thread a run (ctest runs several); -threads is a CPU option only.
THREADS = [] if "cuda" in EXTRA_ARGS else ["-threads", "1"]


def number(value):
    """A value as foehn-box reads it (NumPy 2's repr would write np.float64(...))."""
    return repr(float(value))

METHODS = ["ros2", "ros3", "rodas3", "rodas4"]
SCALES = [1.0, 1e-6, 1e6]
AGREEMENT = 1e-6

# file, end time, initial concentrations, external rates, published solution at the end time
# where the Test Set for IVP Solvers gives one, and the comparison floor (None: 1e-6 of the
# largest initial concentration; E5's interesting species are 1e-12 of y1).
PROBLEMS = [
    ("robertson.json", 40.0, {"A": 1.0}, {}, None, None),
    ("hires.json", 321.8122, {"y1": 1.0, "y8": 0.0057}, None,
     [0.7371312573325668e-3, 0.1442485726316185e-3, 0.5888729740967575e-4,
      0.1175651343283149e-2, 0.2386356198831331e-2, 0.6238968252742796e-2,
      0.2849998395185769e-2, 0.2850001604814231e-2], None),
    ("orego.json", 360.0, {"y1": 1.0, "y2": 2.0, "y3": 3.0}, {},
     [0.1000814870318523e1, 0.1228178521549917e4, 0.1320554942846706e3], None),
    ("pollu.json", 60.0,
     {"y2": 0.2, "y4": 0.04, "y7": 0.1, "y8": 0.3, "y9": 0.01, "y17": 0.007}, {},
     [0.5646255480022769e-01, 0.1342484130422339e+00, 0.4139734331099427e-08,
      0.5523140207484359e-02, 0.2018977262302196e-06, 0.1464541863493966e-06,
      0.7784249118997964e-01, 0.3245075353396018e+00, 0.7494013383880406e-02,
      0.1622293157301561e-07, 0.1135863833257075e-07, 0.2230505975721359e-02,
      0.2087162882798630e-03, 0.1396921016840158e-04, 0.8964884856898295e-02,
      0.4352846369330103e-17, 0.6899219696263405e-02, 0.1007803037365946e-03,
      0.1772146513969984e-05, 0.5682943292316392e-04], None),
    (os.path.join(os.path.dirname(os.path.abspath(__file__)), "e5.json"), 1e5, {"y1": 1.76e-3},
     {}, None, 1e-17),
    # POLLU's classic values read as mol m^-3 (issue 55): 6.02214076e17 times the concentrations
    # in molecule cm^-3 with the classic rates, a far stiffer problem than POLLU itself.
    ("pollu.json", 60.0,
     {name: value * 6.02214076e17 for name, value in
      {"y2": 0.2, "y4": 0.04, "y7": 0.1, "y8": 0.3, "y9": 0.01, "y17": 0.007}.items()}, {},
     None, None),
]
# Radau's tolerance per problem: 1e-12, but 1e-9 for POLLU in mol m^-3 (47 s at 1e-12; the two
# agree to 1e-9 relative, measured once).
REFERENCE_RTOL = {len(PROBLEMS) - 1: 1e-9}


class Problem:
    """Mass-action ODE of a Foehn JSON mechanism with constant rates (ARRHENIUS with only A,
    EMISSION / PHOTOLYSIS / FIRST_ORDER_LOSS with a per-cell rate)."""

    def __init__(self, path, externals):
        with open(path) as f:
            document = json.load(f)
        self.document = document
        self.species = [s["name"] for s in document["species"]]
        index = {name: i for i, name in enumerate(self.species)}
        self.reactions = []  # (k, reactant indices with multiplicity, net change vector)
        for r in document["reactions"]:
            if r["type"] == "ARRHENIUS":
                for key in ("B", "C", "E"):
                    if r.get(key, 0.0) != 0.0:
                        raise SystemExit(f"{path}: reaction {r.get('name')}: only constant rates")
                k = float(r.get("A", 1.0))
            else:
                k = float(externals[r["name"]])
            reactants = []
            change = np.zeros(len(self.species))
            for entry in r.get("reactants", []):
                c = int(entry.get("coefficient", 1))
                reactants += [index[entry["species name"]]] * c
                change[index[entry["species name"]]] -= c
            for entry in r.get("products", []):
                change[index[entry["species name"]]] += float(entry.get("yield", 1.0))
            self.reactions.append((k, reactants, change))

    def f(self, t, y):
        out = np.zeros_like(y)
        for k, reactants, change in self.reactions:
            out += change * (k * np.prod(y[reactants]) if reactants else k)
        return out

    def jac(self, t, y):
        n = len(y)
        out = np.zeros((n, n))
        for k, reactants, change in self.reactions:
            for position, j in enumerate(reactants):
                others = reactants[:position] + reactants[position + 1:]
                out[:, j] += change * k * np.prod(y[others])
        return out


def scaled_document(document, externals, scale):
    """The mechanism and external rates in a unit `scale` times smaller."""
    document = json.loads(json.dumps(document))
    scaled_externals = dict(externals)
    for r in document["reactions"]:
        order = sum(int(e.get("coefficient", 1)) for e in r.get("reactants", []))
        if r["type"] == "ARRHENIUS":
            r["A"] = float(r.get("A", 1.0)) * scale ** (1 - order)
        elif r["type"] == "EMISSION":
            scaled_externals[r["name"]] = externals[r["name"]] * scale
        elif order != 1:
            raise SystemExit(f"reaction {r.get('name')}: cannot scale type {r['type']}")
    return document, scaled_externals


def run_box(box, mechanism_path, concentrations, externals, duration, method, atol, csv_path,
            rtol=None):
    if rtol is None:
        rtol = 1e-9 if method == "ros2" else 1e-11
    command = [box, "-mechanism", mechanism_path, "-duration", number(duration),
               "-chem_method", method, "-chem_rtol", number(rtol), "-chem_atol", number(atol),
               "-chem_initial_step", "1e-10", "-chem_max_steps", "300000",
               "-output", csv_path, "-output_interval", number(duration), *THREADS,
               "-concentrations", ",".join(f"{k}={number(v)}" for k, v in concentrations.items())]
    if externals:
        command += ["-external_rates",
                    ",".join(f"{k}={number(v)}" for k, v in externals.items())]
    result = subprocess.run(command + EXTRA_ARGS, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        return result.returncode, result.stderr.strip(), None
    with open(csv_path) as f:
        rows = list(csv.reader(f))
    header, last = rows[0], rows[-1]
    return 0, "", {name: float(value) for name, value in zip(header[2:], last[2:])}


def check_refusals(box, mechanism_dir, work_dir):
    failures = []
    a2b = {"name": "a2b", "species": [{"name": "A", "absolute tolerance": 1e-3},
                                      {"name": "B", "absolute tolerance": 1e-3}],
           "reactions": [{"type": "PHOTOLYSIS", "name": "jA",
                          "reactants": [{"species name": "A"}],
                          "products": [{"species name": "B", "yield": 2}]}]}
    path = os.path.join(work_dir, "a2b.json")
    with open(path, "w") as f:
        json.dump(a2b, f)
    for j, method in ((1e30, "rodas3"), (1e60, "rodas3"), (1e60, "ros2")):
        command = [box, "-mechanism", path, "-duration", "40", "-chem_method", method,
                   "-concentrations", "A=1e10", "-external_rates", f"jA={j!r}",
                   "-output", os.path.join(work_dir, "a2b.csv"), *THREADS]
        result = subprocess.run(command + EXTRA_ARGS, capture_output=True, text=True, timeout=60)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        label = f"A -> 2 B, j {j:g}, {method}"
        if j < 1e40:
            with open(os.path.join(work_dir, "a2b.csv")) as f:
                b = float(list(csv.reader(f))[-1][3])
            print(f"{label}: exit {result.returncode}, B = {b!r}")
            if result.returncode != 0 or abs(b - 2e10) > 1e-4 * 2e10:
                failures.append(f"{label}: exit {result.returncode}, B = {b!r} (2e10 expected)")
            continue
        print(f"{label}: exit {result.returncode}: {lines[-1] if lines else ''}")
        expected = ("cell 0", "'jA'")
        if (result.returncode != 2 or len(lines) != 1
                or not all(part in lines[0] for part in expected)):
            failures.append(f"{label}: exit {result.returncode}, stderr {lines} (one line "
                            f"naming {expected}, exit 2 expected)")
    k1, k2, k3 = 0.04, 1.806642228e25, 6.02214076e21
    c_expected = (3.0 * k2 * k1 * k1 * 40.0 / (k3 * k3)) ** (1.0 / 3.0)
    for method in METHODS:
        csv_path = os.path.join(work_dir, f"robertson_mol_{method}.csv")
        code, message, result = run_box(
            box, os.path.join(mechanism_dir, "openatmos_v1", "robertson.json"), {"A": 1.0}, {},
            40.0, method, 1e-30, csv_path, rtol=1e-4)
        label = f"Robertson in mol m^-3, {method}"
        if code != 0:
            print(f"{label}: refused (exit {code}): {message}")
            continue
        total = result["A"] + result["B"] + result["C"]
        print(f"{label}: C = {result['C']!r} (asymptote {c_expected!r}), A + B + C = {total!r}")
        if abs(result["C"] - c_expected) > 1e-3 * c_expected or abs(total - 1.0) > 1e-9:
            failures.append(f"{label}: exit 0 with C = {result['C']!r}, A + B + C = {total!r}")
    return failures


def main():
    box, mechanism_dir, work_dir = sys.argv[1:4]
    references_path = sys.argv[4] if len(sys.argv) > 4 else None
    stored = {}
    if references_path and os.path.exists(references_path):
        with open(references_path) as f:
            stored = json.load(f)
    os.makedirs(work_dir, exist_ok=True)
    failures = []
    refusals = 0
    for number, (file, end, initial, externals, published, floor) in enumerate(PROBLEMS):
        path = os.path.join(mechanism_dir, file)
        with open(path) as f:
            document = json.load(f)
        if externals is None:  # HIRES: its constant source, named after the reaction
            externals = {r["name"]: 0.0007 for r in document["reactions"]
                         if r["type"] == "EMISSION"}
        problem = Problem(path, externals)
        y0 = np.array([initial.get(name, 0.0) for name in problem.species])
        if floor is None:
            floor = 1e-6 * np.max(np.abs(y0))
        key = f"{number}:{file}"
        if key in stored:
            y_ref = np.array(stored[key])
        else:
            from scipy.integrate import solve_ivp
            reference = solve_ivp(problem.f, (0.0, end), y0, method="Radau", jac=problem.jac,
                                  rtol=REFERENCE_RTOL.get(number, 1e-12), atol=1e-6 * floor)
            if reference.status != 0:
                raise SystemExit(f"{file}: Radau failed: {reference.message}")
            y_ref = reference.y[:, -1]
            stored[key] = y_ref.tolist()
        if published is not None:
            deviation = np.max(np.abs(y_ref - published) / (np.abs(published) + floor))
            print(f"{file}: Radau vs the published solution: {deviation:.1e} relative")
            if deviation > 1e-8:
                failures.append(f"{file}: Radau disagrees with the published solution "
                                f"({deviation:.1e})")
        for scale in SCALES:
            scaled, scaled_externals = scaled_document(document, externals, scale)
            stem = os.path.basename(file)[:-5]
            mechanism_path = os.path.join(work_dir, f"{number}_{stem}_x{scale:g}.json")
            with open(mechanism_path, "w") as f:
                json.dump(scaled, f)
            concentrations = {name: value * scale for name, value in initial.items()}
            for method in METHODS:
                csv_path = os.path.join(work_dir,
                                        f"{number}_{stem}_x{scale:g}_{method}.csv")
                code, message, result = run_box(box, mechanism_path, concentrations,
                                                scaled_externals, end, method,
                                                1e-4 * floor * scale, csv_path)
                label = f"{os.path.basename(file)} (case {number}) x{scale:g} {method}"
                if code != 0:
                    refusals += 1
                    lines = [line for line in message.splitlines() if line.strip()]
                    print(f"{label}: refused (exit {code}): {lines[-1] if lines else ''}")
                    if len(lines) != 1:
                        failures.append(f"{label}: the refusal is {len(lines)} lines")
                    continue
                y = np.array([result[name] for name in problem.species]) / scale
                error = np.abs(y - y_ref) / np.maximum(np.abs(y_ref), floor)
                worst = int(np.argmax(error))
                print(f"{label}: worst {error[worst]:.1e} relative ({problem.species[worst]})")
                if error[worst] > AGREEMENT:
                    failures.append(f"{label}: exit 0 with {problem.species[worst]} = "
                                    f"{y[worst]!r}, Radau {y_ref[worst]!r} "
                                    f"({error[worst]:.1e} relative)")
    if references_path and not os.path.exists(references_path):
        with open(references_path, "w") as f:
            json.dump(stored, f, indent=1)
    failures += check_refusals(box, mechanism_dir, work_dir)
    print(f"{refusals} runs refused")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
