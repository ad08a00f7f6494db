"""A chemistry box run by Foehn and by NCAR's MICM (MUSICA) in one script: MUSICA's own Chapman
mechanism (OpenAtmos v1, as MUSICA ships it) read by Foehn, both integrated for an hour at tight
tolerances, final concentrations compared (they agree to about 1e-13). Exits 77 without MUSICA."""
import os
import sys

import numpy as np
from foehn import chemistry

try:
    import musica
except ImportError:
    print("chemistry_vs_musica: MUSICA is not installed (pip install musica): skipped")
    sys.exit(77)

config = os.path.join(os.path.dirname(musica.__file__), "configs", "v1", "chapman", "config.json")
temperature, pressure, duration = 298.15, 101325.0, 3600.0
air = pressure / (8.314462618 * temperature)  # mol m-3
initial = {"N2": 0.78 * air, "O2": 0.21 * air, "O3": 2e-6, "O": 1e-12, "O1D": 1e-16, "M": air}
photolysis = {"jo2_b": 1e-11, "jo3_a": 4e-4, "jo3_b": 5e-5}

mechanism = chemistry.Mechanism.read(config)  # in mol m-3, as MICM
species = mechanism.species
foehn_final = chemistry.box(mechanism, {k: v for k, v in initial.items() if k in species},
                            [0.0, duration], temperature, pressure, photolysis, method="rodas4",
                            rtol=1e-10, atol=1e-40, max_steps=1000000)[-1]

parameters = musica.micm.RosenbrockSolverParameters(
    relative_tolerance=1e-10, absolute_tolerances=[1e-40] * len(species),
    max_number_of_steps=1000000)
micm = musica.MICM(config_path=config, solver_type=musica.SolverType.rosenbrock_standard_order,
                   solver_parameters=parameters)
state = micm.create_state()
state.set_concentrations({k: v for k, v in initial.items() if k in state.get_species_ordering()})
state.set_conditions(temperatures=temperature, pressures=pressure)
state.set_user_defined_rate_parameters({"PHOTO." + k: v for k, v in photolysis.items()})
micm.solve(state, duration)
micm_final = {k: v[0] for k, v in state.get_concentrations().items()}

largest = max(abs(v) for v in micm_final.values())
worst = 0.0
for name, reference in micm_final.items():
    difference = abs(foehn_final[species.index(name)] - reference)
    relative = difference / max(abs(reference), 1e-12 * largest)
    worst = max(worst, relative)
    print(f"{name:>4}: Foehn {foehn_final[species.index(name)]:.10e}  MICM {reference:.10e}  "
          f"relative difference {relative:.1e}")
print(f"chemistry_vs_musica: largest relative difference {worst:.1e}")
sys.exit(0 if worst < 1e-8 else 1)
