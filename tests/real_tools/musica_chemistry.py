"""Chemistry against NCAR's MICM (MUSICA, PyPI): mechanisms travel both ways and the two solvers
agree on the same box run.

  1. MUSICA's shipped Chapman mechanism (its JSON and its YAML) run by foehn-box and by MICM.
  2. Mechanisms Foehn writes (-write_mechanism, OpenAtmos v1 JSON and YAML) loaded by MICM: the
     Robertson problem (written from Foehn's own schema, its rate constants converted to
     mol m-3) and MUSICA's Chapman read and written back by Foehn; each run by both.
  3. MUSICA's TS1 and T1S2 (CAM chemistry with user-defined rates, aerosol uptake and JPL 19-5
     chemical activation) on MUSICA's own TS1 box, as shipped and as Foehn writes them back.
  0. Species a file holds constant ("is third body", "constant mixing ratio [mol mol-1]",
     "constant concentration [mol m-3]"): no value is given to either tool for them. MUSICA's
     Chapman YAML cut after every line: foehn-box refuses each cut or reads the whole file.

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
ATOL = 1e-40
AGREEMENT = 1e-8


def foehn_box(tool, mechanism, concentrations, rates, duration, work, label,
              conditions=(TEMPERATURE, PRESSURE), atol=ATOL):
    """Final concentrations of a one-cell foehn-box run, by species name. `rates`: per-cell values
    by Foehn's names (a photolysis or user-defined reaction's name; NAME.effective_radius and
    NAME.particle_number_concentration for a SURFACE reaction)."""
    output = os.path.join(work, label + ".csv")
    command = [tool, "-mechanism", mechanism, "-duration", str(duration), "-chem_method", "rodas4",
               "-temperature", repr(conditions[0]), "-pressure", repr(conditions[1]),
               "-chem_rtol", str(RTOL), "-chem_atol", repr(atol), "-chem_max_steps", "1000000",
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


def micm_parameter_names(rates):
    """Foehn's per-cell names of photolysis rates -> MICM's ("PHOTO.<name>")."""
    return {"PHOTO." + k: v for k, v in rates.items()}


def micm(mechanism, concentrations, parameters, duration, conditions=(TEMPERATURE, PRESSURE),
         atol=ATOL):
    """Final concentrations of MICM on the same box (one solve over the whole duration);
    `parameters`: MICM's user-defined rate parameters by MICM's names."""
    probe = musica.MICM(config_path=mechanism, solver_type=musica.SolverType.rosenbrock_standard_order)
    species = len(probe.create_state().get_species_ordering())
    tolerances = RosenbrockSolverParameters(relative_tolerance=RTOL,
                                            absolute_tolerances=[atol] * species,
                                            max_number_of_steps=1000000)
    solver = musica.MICM(config_path=mechanism, solver_type=musica.SolverType.rosenbrock_standard_order,
                         solver_parameters=tolerances)
    state = solver.create_state()
    known = state.get_species_ordering()
    state.set_concentrations({k: v for k, v in concentrations.items() if k in known})
    state.set_conditions(temperatures=conditions[0], pressures=conditions[1])
    if parameters:
        state.set_user_defined_rate_parameters(parameters)
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
    # No value for M: the file makes it the third body, which both compute as P / (R T).
    concentrations = {"N2": 0.78 * AIR, "O2": 0.21 * AIR, "O3": 2.0e-6, "O": 1.0e-12,
                      "O1D": 1.0e-16}
    rates = {"jo2_b": 1.0e-11, "jo3_a": 4.0e-4, "jo3_b": 5.0e-5}
    return concentrations, rates


TS1_DURATION = 600.0  # s
# Absolute tolerance of the TS1 runs [mol m-3]: 1e-40 took MICM 35 s per run for the same
# agreement; 1e-20 is far below what compare() resolves (1e-8 of 1e-12 of N2's ~35 mol m-3).
TS1_ATOL = 1e-20
# MUSICA's box gives no USER_DEFINED rates; these are set so that those reactions take part
# (m3 mol-1 s-1 for the bimolecular ones, about 1.7e-18 cm3 molecule-1 s-1).
USER_DEFINED_RATE = 1.0e3


class Ts1Box:
    """MUSICA's TS1 box (configs/v1/ts1/initial_conditions.csv: CONC, PHOTO, SURF radius and
    number, ENV) for one mechanism, with each per-cell value under MICM's name and Foehn's."""

    def __init__(self, mechanism):
        names = musica.MICM(config_path=mechanism,
                            solver_type=musica.SolverType.rosenbrock_standard_order)
        state = names.create_state()
        wanted = set(state.get_user_defined_rate_parameters_ordering())
        known = set(state.get_species_ordering())
        self.concentrations, self.micm_parameters, self.foehn_rates = {}, {}, {}
        environment = {}
        surface = {"effective radius [m]": "effective_radius",
                   "particle number concentration [# m-3]": "particle_number_concentration"}
        with open(os.path.join(CONFIGS, "ts1", "initial_conditions.csv")) as f:
            for row in csv.reader(f):
                if not row:
                    continue
                kind, _, name = row[0].partition(".")
                if kind == "CONC" and name in known:
                    self.concentrations[name] = float(row[1])
                elif kind == "PHOTO":
                    self.set(wanted, f"PHOTO.{name}", name, float(row[1]))
                elif kind == "SURF":
                    for column, (micm_suffix, foehn_suffix) in enumerate(surface.items(), 1):
                        self.set(wanted, f"SURF.{name}.{micm_suffix}", f"{name}.{foehn_suffix}",
                                 float(row[column]))
                elif kind == "ENV":
                    environment[name] = float(row[1])
        for micm_name in sorted(wanted):
            if micm_name.startswith("USER."):
                self.set(wanted, micm_name, micm_name[len("USER."):], USER_DEFINED_RATE)
        # M ("is third body") is computed from these by both MICM and foehn-box: not given.
        self.conditions = (environment["temperature"], environment["pressure"])

    def set(self, wanted, micm_name, foehn_name, value):
        if micm_name in wanted:
            self.micm_parameters[micm_name] = value
            self.foehn_rates[foehn_name] = value


def ts1_box(mechanism):
    return Ts1Box(mechanism)


# Species held constant by the file, each kind MICM reads, with no value given to either tool:
# A <-> B through the third body M, O2 at a constant mixing ratio and X at a constant
# concentration (mol m-3), at conditions away from the defaults (M = P / (R T) differs).
CONSTANTS_YAML = """version: 1.0.0
name: constants
species:
  - name: M
    is third body: true
  - name: O2
    constant mixing ratio [mol mol-1]: 0.21
  - name: X
    constant concentration [mol m-3]: 2.5
  - name: A
  - name: B
phases:
  - name: gas
    species: [M, O2, X, A, B]
reactions:
  - type: ARRHENIUS
    gas phase: gas
    reactants: [{species name: A}, {species name: M}]
    products: [{species name: B}, {species name: M}]
    A: 1.0e-3
  - type: ARRHENIUS
    gas phase: gas
    reactants: [{species name: B}, {species name: O2}]
    products: [{species name: A}, {species name: O2}]
    A: 1.0e-2
  - type: TROE
    gas phase: gas
    reactants: [{species name: A}, {species name: X}]
    products: [{species name: B}, {species name: X}]
    k0_A: 1.0e-2
    kinf_A: 0.5
"""
CONSTANTS_CONDITIONS = (250.0, 80000.0)


def constant_species(tool, work):
    """The file's constants, as YAML and as the JSON Foehn writes from it: both tools agree
    with no value given for M, O2 or X (foehn-box used to hold them at 0)."""
    ok = True
    source = os.path.join(work, "constants.yaml")
    with open(source, "w") as f:
        f.write(CONSTANTS_YAML)
    written = os.path.join(work, "constants_written.json")
    run = subprocess.run([tool, "-mechanism", source, "-write_mechanism", written],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"foehn-box -write_mechanism {written}: {run.stderr.strip()}")
    for label, path in (("constants.yaml", source), ("Foehn-written constants.json", written)):
        start = {"A": 1.0, "B": 0.0}
        ok &= compare(label,
                      foehn_box(tool, path, start, {}, 20, work, label.replace(" ", "_"),
                                CONSTANTS_CONDITIONS),
                      micm(path, start, {}, 20, CONSTANTS_CONDITIONS))
    return ok


def cut_files(tool, work):
    """MUSICA's Chapman YAML cut after every line: foehn-box refuses each cut (exit 2) or reads
    the whole mechanism, never another one. (MUSICA's file puts 'version' last, as Foehn's writer
    does.) How many cuts MICM itself loads is printed, for comparison."""
    source = os.path.join(CONFIGS, "chapman", "config.yaml")
    with open(source) as f:
        lines = f.read().splitlines(keepends=True)

    def foehn_json(path, label):
        target = os.path.join(work, label + ".json")
        run = subprocess.run([tool, "-mechanism", path, "-write_mechanism", target,
                              "-write_mechanism_schema", "foehn"],
                             capture_output=True, text=True, check=False)
        if run.returncode not in (0, 2):
            raise RuntimeError(f"foehn-box on {path}: exit {run.returncode}: {run.stderr.strip()}")
        if run.returncode == 2:
            return None
        with open(target) as f:
            return f.read()

    whole = foehn_json(source, "cut_whole")
    ok, refused, micm_loaded = True, 0, 0
    for count in range(len(lines)):
        path = os.path.join(work, "cut.yaml")
        with open(path, "w") as f:
            f.writelines(lines[:count])
        read = foehn_json(path, "cut")
        if read is None:
            refused += 1
        elif read != whole:
            print(f"chapman/config.yaml cut after line {count}: foehn-box read another mechanism")
            ok = False
        try:
            musica.MICM(config_path=path, solver_type=musica.SolverType.rosenbrock_standard_order)
            micm_loaded += 1
        except Exception:  # MICM's refusal of a cut file (its exception types vary by release)
            pass
    print(f"chapman/config.yaml cut after each of {len(lines)} lines: foehn-box refused {refused}, "
          f"read the whole mechanism {len(lines) - refused}; MICM loaded {micm_loaded}")
    return ok


def main():
    tool, work = sys.argv[1:3]
    work = os.path.join(work, "musica")
    os.makedirs(work, exist_ok=True)
    ok = True

    # 0. Constant species from the file; a MICM file cut at every line.
    ok &= constant_species(tool, work)
    ok &= cut_files(tool, work)

    # 1. MUSICA's Chapman, as MUSICA ships it, in both of its forms.
    concentrations, rates = chapman_box()
    for form in ("config.json", "config.yaml"):
        path = os.path.join(CONFIGS, "chapman", form)
        ok &= compare(f"MUSICA chapman/{form}",
                      foehn_box(tool, path, concentrations, rates, 3600, work, "chapman_" + form),
                      micm(path, concentrations, micm_parameter_names(rates), 3600))

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
                      micm(path, concentrations, micm_parameter_names(rates), 3600))

    # 3. MUSICA's TS1 and T1S2 (CAM chemistry, 209 and 213 species: photolysis, Troe, user-defined
    #    rates, aerosol uptake, JPL chemical activation) run by both, as read and as Foehn writes
    #    them back, on MUSICA's own box (initial_conditions.csv).
    for mechanism in ("ts1", "t1s2"):
        path = os.path.join(CONFIGS, "ts1", mechanism + ".json")
        written = os.path.join(work, mechanism + "_written.json")
        run = subprocess.run([tool, "-mechanism", path, "-write_mechanism", written],
                             capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise RuntimeError(f"foehn-box -write_mechanism {written}: {run.stderr.strip()}")
        for label, source in ((f"MUSICA {mechanism}", path), (f"Foehn-written {mechanism}", written)):
            box = ts1_box(source)
            ok &= compare(label,
                          foehn_box(tool, source, box.concentrations, box.foehn_rates,
                                    TS1_DURATION, work, label.replace(" ", "_"), box.conditions,
                                    TS1_ATOL),
                          micm(source, box.concentrations, box.micm_parameters, TS1_DURATION,
                               box.conditions, TS1_ATOL))
    if not ok:
        sys.exit(f"Foehn and MICM differ by more than {AGREEMENT} (or a refusal is missing)")


if __name__ == "__main__":
    main()
