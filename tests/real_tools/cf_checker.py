"""NCAR's CF checker (cfchecker, PyPI) on every netCDF file foehn-trajectories writes: the CF
trajectory file and the point snapshots, with the parcel quantities Foehn computes. Passes when
the checker reports no error in any file; its warnings are printed.

usage: cf_checker.py FOEHN_TRAJECTORIES WORK_DIR STANDARD_NAME_TABLE

The checker also reads the CF area-type and region-name tables, which it would download. Foehn's
files use neither an area_type nor a region (checked here, so the empty stand-ins given to the
checker cannot hide a finding).
"""
import glob
import os
import re
import subprocess
import sys

import netCDF4


def main():
    tool, work, standard_names = sys.argv[1:4]
    out = os.path.join(work, "cf_checker")
    os.makedirs(out, exist_ok=True)
    for old in glob.glob(os.path.join(out, "*")):
        os.remove(old)
    run = subprocess.run(
        [tool, "-parcels", "200", "-end_time", "14400", "-output_interval", "7200", "-dt", "600",
         "-path_length", "-foehn_backend", "cpu", "-output_dir", out],
        capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"foehn-trajectories failed ({run.returncode}): {run.stderr.strip()}")
    files = sorted(glob.glob(os.path.join(out, "*.nc")))
    if len(files) < 3:
        sys.exit(f"expected a trajectory file and snapshots in {out}, found {files}")

    area_types = os.path.join(work, "cf_area_types_empty.xml")
    region_names = os.path.join(work, "cf_region_names_empty.xml")
    for path, root in ((area_types, "area_type_table"), (region_names, "standardized_region_list")):
        with open(path, "w") as f:
            f.write(f'<?xml version="1.0"?><{root}><version_number>none (empty)</version_number>'
                    f"<date>none</date></{root}>\n")

    failures = []
    for path in files:
        with netCDF4.Dataset(path) as dataset:
            for variable in dataset.variables.values():
                if "area_type" in variable.ncattrs() or "region" in variable.ncattrs():
                    failures.append(f"{path}: {variable.name} uses area_type/region")
                if getattr(variable, "standard_name", "") in ("area_type", "region"):
                    failures.append(f"{path}: {variable.name} is an area_type/region variable")
        check = subprocess.run(
            ["cfchecks", "-s", standard_names, "-a", area_types, "-r", region_names, path],
            capture_output=True, text=True, check=False)
        report = check.stdout + check.stderr
        errors = re.search(r"ERRORS detected: (\d+)", report)
        warnings = re.search(r"WARNINGS given: (\d+)", report)
        if errors is None:
            failures.append(f"{path}: the checker did not finish:\n{report[-2000:]}")
            continue
        version = re.search(r"Checking against CF Version (\S+)", report)
        print(f"{os.path.basename(path)}: {errors.group(1)} errors, "
              f"{warnings.group(1) if warnings else '?'} warnings "
              f"(CF {version.group(1) if version else '?'})")
        for line in report.splitlines():
            if line.startswith(("ERROR:", "WARN:")):
                print("   ", line)
        if int(errors.group(1)) != 0:
            failures.append(f"{path}: {errors.group(1)} CF errors")
    if failures:
        sys.exit("\n".join(failures))
    print(f"cfchecker: no errors in {len(files)} files")


if __name__ == "__main__":
    main()
