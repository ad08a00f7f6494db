#!/usr/bin/env python3
"""foehn-mountainwave on a disk that fills up: for one budget inside each kind of file it writes
(mesh, snapshot .vtu/.pvtu/.pvd, sections and checkpoints in HDF5 with their .xmf, tracer .csv
and .vtp, run.json, timing), writes fail with ENOSPC once that many bytes have gone to the output
folder (tests/support/full_disk, LD_PRELOAD). Each run must exit 2 with one line naming a file
in the folder and the cause, leave no temporary file, and leave only complete files: every HDF5
file opens and reads, every XML and JSON file parses, every text file ends with its line.

usage: check_full_disk.py <foehn-mountainwave> <libfoehn_full_disk.so> <scratch folder>
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

try:
    import h5py
    from vtkmodules.vtkCommonCore import vtkCommand
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader, vtkXMLUnstructuredGridReader
except ImportError as missing:
    print(f"skipped: {missing} (apt-get install python3-h5py python3-vtk9)")
    sys.exit(77)

CASE = ["-mesh_cells", "12,12,6", "-dt", "20", "-end_time", "200", "-output_interval", "100",
        "-checkpoint_interval", "5", "-tracer_columns", "3", "-tracer_levels", "2",
        "-foehn_backend", "cpu"]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)
    return condition


def run(tool, folder, environment=None):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return subprocess.run([tool, *CASE, "-output_dir", folder], capture_output=True, text=True,
                          check=False, env=environment)


def kind_of(name):
    """sections_000005.h5 -> sections_*.h5: one budget per kind of file."""
    stem, extension = os.path.splitext(name)
    return stem.rstrip("0123456789_").rstrip("_") + "*" + extension


def complete(path):
    """Whether the file reads to its end as its format says."""
    name = os.path.basename(path)
    try:
        if name.endswith(".h5"):
            with h5py.File(path, "r") as h5:
                h5.visititems(lambda _, item: item[...] if isinstance(item, h5py.Dataset) else None)
        elif name.endswith((".vtu", ".vtp")):  # raw appended data: VTK's own readers
            reader = (vtkXMLUnstructuredGridReader() if name.endswith(".vtu")
                      else vtkXMLPolyDataReader())
            errors = []
            reader.AddObserver(vtkCommand.ErrorEvent, lambda *_: errors.append(1))
            reader.GetExecutive().AddObserver(vtkCommand.ErrorEvent, lambda *_: errors.append(1))
            reader.SetFileName(path)
            reader.Update()
            return not errors and reader.GetOutput().GetNumberOfPoints() > 0
        elif name.endswith((".pvtu", ".pvd", ".xmf")):
            ElementTree.parse(path)
        elif name.endswith(".json"):
            with open(path) as f:
                json.load(f)
        else:
            with open(path, "rb") as f:
                text = f.read()
            return len(text) > 0 and text.endswith(b"\n")
        return True
    except Exception as error:  # a half-written file: any reader error
        print(f"  {name}: {error}")
        return False


def main():
    tool, preload, work = sys.argv[1:4]
    reference = os.path.join(work, "full_disk_reference")
    result = run(tool, reference)
    if result.returncode != 0:
        sys.exit(f"the reference run failed ({result.returncode}): {result.stderr}")
    # Files in the order they were finished, with the bytes written before each.
    files = sorted((os.stat(p).st_mtime_ns, os.path.basename(p), os.path.getsize(p))
                   for p in glob.glob(os.path.join(reference, "*")))
    budgets, seen, before = [0], set(), 0
    for _, name, size in files:
        if kind_of(name) not in seen:
            seen.add(kind_of(name))
            budgets.append(before + size // 2)
        before += size
    folder = os.path.join(work, "full_disk")
    for budget in budgets:
        environment = dict(os.environ, LD_PRELOAD=preload, FOEHN_FULL_DISK_DIR=folder,
                           FOEHN_FULL_DISK_BYTES=str(budget))
        result = run(tool, folder, environment)
        label = f"budget {budget} B"
        lines = result.stderr.strip().splitlines()
        check(result.returncode == 2, f"{label}: exit {result.returncode}, not 2")
        check(len(lines) == 1, f"{label}: {len(lines)} lines on stderr:\n{result.stderr}")
        check(folder in result.stderr and "No space left on device" in result.stderr,
              f"{label}: the message names no file in the folder or not the cause: "
              f"{result.stderr.strip()}")
        left = sorted(os.listdir(folder))
        check(not [n for n in left if ".tmp." in n], f"{label}: temporaries left: {left}")
        broken = [n for n in left if ".tmp." not in n and not complete(os.path.join(folder, n))]
        check(not broken, f"{label}: incomplete files left: {broken}")
        print(f"{label}: exit {result.returncode}, {len(left)} complete files left; "
              f"{(lines or [''])[0][:160]}")
    print(f"{len(budgets)} budgets (one inside each of {len(seen)} kinds of file): "
          f"{len(failures)} failures")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
