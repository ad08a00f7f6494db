"""MUSICA's TS1 box (the one realtools.musica_chemistry runs) as a foehn-box options file, for
runs outside the test: on the GPU, or with more cells. Copies the mechanism beside it.

usage: write_ts1_box_options.py OUT_DIR   (with the real-tools Python: .deps/real-tools/bin/python)
writes OUT_DIR/{ts1,t1s2}.json and OUT_DIR/{ts1,t1s2}.opts; then
  foehn-box -mechanism OUT_DIR/t1s2.json -options_file OUT_DIR/t1s2.opts -cells 512 ...
"""
import os
import shutil
import sys

import musica_chemistry as box


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in ("ts1", "t1s2"):
        source = os.path.join(box.CONFIGS, "ts1", name + ".json")
        shutil.copy(source, os.path.join(out, name + ".json"))
        case = box.ts1_box(source)
        lines = [f"-temperature {case.conditions[0]!r}", f"-pressure {case.conditions[1]!r}",
                 "-concentrations " + ",".join(f"{k}={v!r}" for k, v in case.concentrations.items()),
                 "-external_rates " + ",".join(f"{k}={v!r}" for k, v in case.foehn_rates.items()),
                 f"-duration {box.TS1_DURATION!r}", "-chem_method rodas4",
                 f"-chem_rtol {box.RTOL!r}", f"-chem_atol {box.TS1_ATOL!r}",
                 "-chem_max_steps 1000000"]
        with open(os.path.join(out, name + ".opts"), "w") as f:  # PETSc: one option per line
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
