"""foehn-mountainwave's outputs opened by ParaView's own readers, in pvpython (Debian's ParaView,
unpacked by scripts/setup-real-tools.sh): every .xmf by the XDMF3 readers (Xdmf3ReaderS and
Xdmf3ReaderT) and the XDMF2 one (XDMFReader), the .pvd series by PVDReader.

For each .xmf and reader: the time ParaView reports is the file's <Time> (the XDMF3 readers
report none for one file on its own); the points, cells
and arrays are those the file declares; every array's values are the HDF5 data set's (read
with h5py). A series of snapshots opened together (sections_*.xmf, checkpoint_*.xmf) must be
timed 0, 100, 200 s by the time-series reader, not numbered 0, 1, 2. A .pvd series' times are
those the .pvd lists, and each snapshot's point count is the mesh's.

usage: pvpython paraview_outputs.py FOEHN_MOUNTAINWAVE WORK_DIR
"""
import glob
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import h5py
import numpy as np
from paraview import servermanager
from paraview import simple
from vtkmodules.util.numpy_support import vtk_to_numpy

# The tiny case of validation.io.mountainwave_outputs_python: snapshots at 0, 100 and 200 s.
CASE = ["-mesh_cells", "12,12,6", "-dt", "20", "-end_time", "200", "-output_interval", "100",
        "-checkpoint_interval", "5", "-tracer_columns", "3", "-tracer_levels", "2",
        "-foehn_backend", "cpu"]
READERS = {
    "Xdmf3ReaderS": lambda files: simple.Xdmf3ReaderS(FileName=files),
    "Xdmf3ReaderT": lambda files: simple.Xdmf3ReaderT(FileName=files),
    "XDMFReader": lambda files: simple.XDMFReader(FileNames=files),
}
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)
    return condition


def times_of(reader):
    reader.UpdatePipelineInformation()
    values = reader.TimestepValues
    if values is None:
        return []
    return [float(t) for t in (values if hasattr(values, "__len__") else [values])]


def uniform_grids(root):
    """(time, grid element) of each uniform grid the file declares."""
    grids = []
    for grid in root.iter("Grid"):
        if grid.get("GridType", "Uniform") != "Uniform":
            continue
        time = grid.find("Time")
        grids.append((float(time.get("Value")) if time is not None else None, grid))
    return grids


def h5_values(folder, item):
    file_name, dataset = item.text.strip().split(":", 1)
    with h5py.File(os.path.join(folder, file_name), "r") as h5:
        return np.asarray(h5[dataset][...])


def blocks_of(data):
    """The leaf data sets of what a reader produced (one, or the blocks of a collection)."""
    if data.IsA("vtkCompositeDataSet"):
        leaves, iterator = [], data.NewIterator()
        iterator.InitTraversal()
        while not iterator.IsDoneWithTraversal():
            leaves.append(iterator.GetCurrentDataObject())
            iterator.GoToNextItem()
        return leaves
    return [data]


def check_snapshot(folder, path, reader_name):
    root = ElementTree.parse(path).getroot()
    grids = uniform_grids(root)
    expected_time = grids[0][0]
    label = f"{reader_name} {os.path.basename(path)}"
    reader = READERS[reader_name]([path])
    times = times_of(reader)
    # The XDMF3 readers report a time for a series (or a temporal collection) only: one
    # snapshot on its own has none, which check_series covers.
    allowed = [[expected_time]] + ([[]] if reader_name.startswith("Xdmf3") else [])
    check(times in allowed, f"{label}: ParaView's times {times}, the file's {expected_time}")
    reader.UpdatePipeline(expected_time)
    blocks = blocks_of(servermanager.Fetch(reader))
    check(len(blocks) == len(grids), f"{label}: {len(blocks)} blocks for {len(grids)} grids")
    for block, (_, grid) in zip(blocks, grids):
        where = f"{label} grid {grid.get('Name')}"
        scalar = next(a for a in grid.findall("Attribute") if a.get("AttributeType") == "Scalar")
        node_count = int(np.prod([int(d) for d in scalar.find("DataItem").get("Dimensions").split()]))
        check(block.GetNumberOfPoints() == node_count,
              f"{where}: {block.GetNumberOfPoints()} points, the file has {node_count}")
        topology = grid.find("Topology")
        if topology.get("TopologyType") == "Tetrahedron":
            check(block.GetNumberOfCells() == int(topology.get("NumberOfElements")),
                  f"{where}: {block.GetNumberOfCells()} cells")
        for attribute in grid.findall("Attribute"):
            name = attribute.get("Name")
            array = block.GetPointData().GetArray(name)
            if not check(array is not None, f"{where}: no point array '{name}'"):
                continue
            expected = h5_values(folder, attribute.find("DataItem")).reshape(node_count, -1)
            got = vtk_to_numpy(array).reshape(node_count, -1)  # VTK, like the file, x fastest
            check(np.array_equal(got, expected, equal_nan=True),  # NaN: below the terrain
                  f"{where}: '{name}' differs from the HDF5 data")


def check_series(paths, expected_times, what):
    reader = simple.Xdmf3ReaderT(FileName=paths)
    times = times_of(reader)
    check(times == expected_times,
          f"{what} as one series: ParaView's times {times}, the files' {expected_times}")


def check_series_can_fail(folder, sections):
    """The series as Foehn wrote it before 27 Nov (<Time> in the sub-grids only): ParaView must
    number it 0, 1, 2, or check_series could not have caught that."""
    old = os.path.join(folder, "collection_without_time")
    os.makedirs(old, exist_ok=True)
    copies = []
    for path in sections:
        tree = ElementTree.parse(path)
        collection = tree.getroot().find("Domain/Grid")
        collection.remove(collection.find("Time"))
        copy = os.path.join(old, os.path.basename(path))
        tree.write(copy)
        for h5 in glob.glob(path[:-4] + ".h5"):
            shutil.copy(h5, old)
        copies.append(copy)
    times = times_of(simple.Xdmf3ReaderT(FileName=copies))
    check(times == [0.0, 1.0, 2.0], f"sections without a collection <Time>: times {times}, "
          "expected ParaView's numbering 0, 1, 2")


def check_pvd(path):
    root = ElementTree.parse(path).getroot()
    listed = [float(d.get("timestep")) for d in root.iter("DataSet")]
    reader = simple.PVDReader(FileName=path)
    times = times_of(reader)
    check(times == sorted(set(listed)), f"{os.path.basename(path)}: times {times}, listed {listed}")
    counts = set()
    for time in times:
        reader.UpdatePipeline(time)
        data = servermanager.Fetch(reader)
        counts.add(sum(b.GetNumberOfPoints() for b in blocks_of(data)))
    check(len(counts) == 1 and 0 not in counts,
          f"{os.path.basename(path)}: point counts {sorted(counts)} over the series")


def main():
    tool, work = sys.argv[1:3]
    folder = os.path.join(work, "paraview")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    command = [tool, *CASE, "-output_dir", folder]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {run.returncode}:\n{run.stdout}{run.stderr}")
    snapshots = sorted(glob.glob(os.path.join(folder, "*.xmf")))
    check(len(snapshots) >= 5, f"only {len(snapshots)} .xmf files")
    for path in snapshots:
        for reader_name in READERS:
            check_snapshot(folder, path, reader_name)
    sections = sorted(glob.glob(os.path.join(folder, "sections_0*.xmf")))
    check_series(sections, [0.0, 100.0, 200.0], "sections_*.xmf")
    check_series_can_fail(folder, sections)
    checkpoints = sorted(glob.glob(os.path.join(folder, "checkpoint_*.xmf")))
    check_series(checkpoints, [100.0, 200.0], "checkpoint_*.xmf")
    for path in sorted(glob.glob(os.path.join(folder, "*.pvd"))):
        check_pvd(path)
    print(f"ParaView {servermanager.vtkSMProxyManager.GetParaViewSourceVersion()}: "
          f"{len(snapshots)} .xmf files x {len(READERS)} readers, 2 series, "
          f"{len(glob.glob(os.path.join(folder, '*.pvd')))} .pvd series: "
          f"{len(failures)} failures")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
