"""Chemistry against NCAR's MICM (MUSICA, PyPI): mechanisms travel both ways and the two solvers
agree on the same box run.

  1. MUSICA's shipped Chapman mechanism (its JSON and its YAML) run by foehn-box and by MICM.
  2. Mechanisms Foehn writes (-write_mechanism, OpenAtmos v1 JSON and YAML) loaded by MICM: the
     Robertson problem (written from Foehn's own schema, its rate constants converted to
     mol m-3) and MUSICA's Chapman read and written back by Foehn; each run by both.
  3. MUSICA's TS1 and T1S2 refused by Foehn naming what it lacks (SURFACE reactions), exit 2.

Both solvers integrate with tight tolerances (relative 1e-10); the final concentrations must
agree to 1e-8 relative (species below 1e-12 of the largest are compared absolutely).

usage: musica_chemistry.py FOEHN_BOX WORK_DIR
"""
import csv
import os
import subprocess
import sys

import musica
from musica.micm import RosenbrockSolverParameters

CONFIGS = os.path.join(os.path.dirname(musica.__file__), "configs", "v1")
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPERATURE, PRESSURE = 298.15, 101325.0
AIR = PRESSURE / (8.314462618 * TEMPERATURE)  # mol m-3, MICM's third body M
RTOL = 1e-10
AGREEMENT = 1e-8


def foehn_box(tool, mechanism, concentrations, rates, duration, work, label):
    """Final concentrations of a one-cell foehn-box run, by species name."""
    output = os.path.join(work, label + ".csv")
    command = [tool, "-mechanism", mechanism, "-duration", str(duration), "-chem_method", "rodas4",
               "-chem_rtol", str(RTOL), "-chem_atol", "1e-40", "-chem_max_steps", "1000000",
               "-output", output,
               "-concentrations", ",".join(f"{k}={v!r}" for k, v in concentrations.items())]
    if rates:
        command += ["-external_rates", ",".join(f"{k}={v!r}" for k, v in rates.items())]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"foehn-box on {mechanism}: exit {run.returncode}: {run.stderr.strip()}")
    with open(output) as f:
        rows = list(csv.DictReader(f))
    return {name: float(value) for name, value in rows[-1].items() if name not in ("time", "cell")}


def micm(mechanism, concentrations, rates, duration):
    """Final concentrations of MICM on the same box (one solve over the whole duration)."""
    probe = musica.MICM(config_path=mechanism, solver_type=musica.SolverType.rosenbrock_standard_order)
    species = len(probe.create_state().get_species_ordering())
    parameters = RosenbrockSolverParameters(relative_tolerance=RTOL,
                                            absolute_tolerances=[1e-40] * species,
                                            max_number_of_steps=1000000)
    solver = musica.MICM(config_path=mechanism, solver_type=musica.SolverType.rosenbrock_standard_order,
                         solver_parameters=parameters)
    state = solver.create_state()
    known = state.get_species_ordering()
    state.set_concentrations({k: v for k, v in concentrations.items() if k in known})
    state.set_conditions(temperatures=TEMPERATURE, pressures=PRESSURE)
    if rates:
        state.set_user_defined_rate_parameters({"PHOTO." + k: v for k, v in rates.items()})
    result = solver.solve(state, float(duration))
    if "Converged" not in str(result.state):
        raise RuntimeError(f"MICM on {mechanism}: {result.state}")
    return {k: v[0] for k, v in state.get_concentrations().items()}


def compare(label, foehn, reference):
    largest = max(abs(v) for v in reference.values())
    worst, where = 0.0, None
    for name, expected in reference.items():
        if name not in foehn:
            raise RuntimeError(f"{label}: species {name} missing from foehn-box's output")
        scale = max(abs(expected), 1e-12 * largest)
        error = abs(foehn[name] - expected) / scale
        if error > worst:
            worst, where = error, name
    print(f"{label}: {len(reference)} species, max relative difference {worst:.2e} ({where})")
    return worst <= AGREEMENT


def chapman_box():
    concentrations = {"N2": 0.78 * AIR, "O2": 0.21 * AIR, "O3": 2.0e-6, "O": 1.0e-12,
                      "O1D": 1.0e-16, "M": AIR}
    rates = {"jo2_b": 1.0e-11, "jo3_a": 4.0e-4, "jo3_b": 5.0e-5}
    return concentrations, rates


def main():
    tool, work = sys.argv[1:3]
    work = os.path.join(work, "musica")
    os.makedirs(work, exist_ok=True)
    ok = True

    # 1. MUSICA's Chapman, as MUSICA ships it, in both of its forms.
    concentrations, rates = chapman_box()
    for form in ("config.json", "config.yaml"):
        path = os.path.join(CONFIGS, "chapman", form)
        ok &= compare(f"MUSICA chapman/{form}",
                      foehn_box(tool, path, concentrations, rates, 3600, work, "chapman_" + form),
                      micm(path, concentrations, rates, 3600))

    # 2. What Foehn writes, read by MICM.
    written = {}
    for source, name in ((os.path.join(SOURCE_DIR, "data", "mechanisms", "robertson.json"), "robertson"),
                         (os.path.join(CONFIGS, "chapman", "config.json"), "chapman")):
        for extension in ("json", "yaml"):
            target = os.path.join(work, f"{name}_written.{extension}")
            run = subprocess.run([tool, "-mechanism", source, "-write_mechanism", target],
                                 capture_output=True, text=True, check=False)
            if run.returncode != 0:
                raise RuntimeError(f"foehn-box -write_mechanism {target}: {run.stderr.strip()}")
            written[(name, extension)] = target
    # Robertson's classic problem is posed in units of 1 (molecule cm-3 in Foehn's schema); the
    # written v1 file is in mol m-3, so its initial A = 1 molecule cm-3 in mol m-3.
    one_per_cm3 = 1.0e6 / 6.02214076e23
    for extension in ("json", "yaml"):
        path = written[("robertson", extension)]
        start = {"A": one_per_cm3, "B": 0.0, "C": 0.0}
        ok &= compare(f"Foehn-written robertson.{extension}",
                      foehn_box(tool, path, start, {}, 40, work, "robertson_" + extension),
                      micm(path, start, {}, 40))
        path = written[("chapman", extension)]
        ok &= compare(f"Foehn-written chapman.{extension}",
                      foehn_box(tool, path, concentrations, rates, 3600, work, "chapman_w_" + extension),
                      micm(path, concentrations, rates, 3600))

    # 3. What Foehn cannot represent is refused by name.
    for mechanism in ("ts1.json", "t1s2.json"):
        path = os.path.join(CONFIGS, "ts1", mechanism)
        run = subprocess.run([tool, "-mechanism", path, "-duration", "60"],
                             capture_output=True, text=True, check=False)
        refused = run.returncode == 2 and "SURFACE" in run.stderr
        print(f"MUSICA ts1/{mechanism}: {'refused naming SURFACE' if refused else 'NOT refused'}: "
              f"{run.stderr.strip()[:200]}")
        ok &= refused
    if not ok:
        sys.exit(f"Foehn and MICM differ by more than {AGREEMENT} (or a refusal is missing)")


if __name__ == "__main__":
    main()
