"""The CF checkers users run, on every netCDF file foehn-trajectories writes (the CF trajectory
file and the point snapshots, with the parcel quantities Foehn computes): NCAR's cfchecker and
the IOOS compliance-checker, each against the CF version the file declares. Passes when neither
reports an error in any file; their warnings are printed.

usage: cf_checker.py FOEHN_TRAJECTORIES WORK_DIR

cfchecker would download the CF standard-name, area-type and region-name tables. It is given the
standard-name table the compliance-checker package carries, and empty area-type and region-name
tables: Foehn's files use neither an area_type nor a region (checked here, so the empty
stand-ins cannot hide a finding).
"""
import glob
import json
import os
import re
import subprocess
import sys

import compliance_checker
import netCDF4


def ioos_check(path, work, declared):
    """The IOOS compliance-checker's CF test at the file's declared version: its high-priority
    findings are errors, the others are printed."""
    report = os.path.join(work, os.path.basename(path) + ".ioos.json")
    test = "cf:" + declared.replace("CF-", "")
    run = subprocess.run(["compliance-checker", f"--test={test}", "-f", "json", "-o", report, path],
                         capture_output=True, text=True, check=False)
    try:
        with open(report) as f:
            result = json.load(f)[test]
    except (OSError, KeyError, ValueError):
        return [f"{path}: the IOOS checker did not report ({run.returncode}): {run.stderr[-1500:]}"]
    print(f"   IOOS compliance-checker {test}: {result['high_count']} errors, "
          f"{result['medium_count']} warnings, {result['low_count']} notes")
    for level in ("high_priorities", "medium_priorities"):
        for item in (i for i in result.get(level, []) if i.get("msgs")):
            print(f"     {level.split('_')[0]}: {item.get('name')}: {item.get('msgs')}")
    return [f"{path}: {result['high_count']} CF errors (IOOS {test})"] if result["high_count"] else []


def main():
    tool, work = sys.argv[1:3]
    standard_names = os.path.join(os.path.dirname(compliance_checker.__file__), "data",
                                  "cf-standard-name-table.xml")
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
            failures.append(f"{path}: {errors.group(1)} CF errors (cfchecker)")
        failures += ioos_check(path, work, version.group(1) if version else "CF-1.8")
    if failures:
        sys.exit("\n".join(failures))
    print(f"cfchecker and the IOOS compliance-checker: no errors in {len(files)} files")


if __name__ == "__main__":
    main()
