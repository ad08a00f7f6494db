#!/usr/bin/env python3
"""foehn-mountainwave's HDF5 files opened through their XDMF descriptions, and its tracer
parcels through VTK's own reader (docs/mountain_wave_io.md, "Opening the HDF5 files").

Runs a tiny case with tracer parcels and a checkpoint, then, for every .xmf: parses it as XML,
opens each data item's HDF5 data set with h5py and checks that it exists with the declared
shape and number type, that the tets index existing nodes and all have positive volume with
the checkpoint's coordinates (so topology and node numbering belong together), that the
geometry and the fields fit, and that the time is the file's. The tracers' .vtp files listed in
tracers.pvd are read with vtkXMLPolyDataReader and compared with the CSV files. A restart keeps
the earlier tracer snapshots in tracers.pvd. Exits 77 without h5py, numpy or vtk.

usage: check_mountainwave_outputs.py <foehn-mountainwave> <scratch folder>
"""
import csv
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

try:
    import h5py
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
except ImportError as missing:
    print(f"skipped: {missing} (apt-get install python3-h5py python3-numpy python3-vtk9)")
    sys.exit(77)

CASE = ["-mesh_cells", "12,12,6", "-dt", "20", "-end_time", "200", "-output_interval", "100",
        "-checkpoint_interval", "5", "-tracer_columns", "3", "-tracer_levels", "2",
        "-foehn_backend", "cpu"]


def check(condition, message):
    if not condition:
        print("FAIL:", message)
        sys.exit(1)


def run(tool, folder, *options):
    command = [tool, *CASE, "-output_dir", folder, *options]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    check(result.returncode == 0, f"{' '.join(command)} exited {result.returncode}:\n"
          f"{result.stdout}{result.stderr}")


def read_item(folder, item):
    """The HDF5 data set a DataItem names, checked against its declared shape and type."""
    check(item.get("Format") == "HDF", "DataItem format")
    file_name, dataset = item.text.strip().split(":", 1)
    dims = tuple(int(d) for d in item.get("Dimensions").split())
    with h5py.File(os.path.join(folder, file_name), "r") as h5:
        check(dataset in h5, f"{file_name}: no data set {dataset}")
        values = h5[dataset][...]
    check(values.shape == dims, f"{file_name}:{dataset} has shape {values.shape}, XDMF says {dims}")
    kind = "i" if item.get("NumberType") == "Int" else "f"
    check(values.dtype.kind == kind and values.dtype.itemsize == int(item.get("Precision")),
          f"{file_name}:{dataset} is {values.dtype}, XDMF says {item.get('NumberType')}"
          f"{item.get('Precision')}")
    return values


def check_grid(folder, grid, h5_time):
    time = float(grid.find("Time").get("Value"))
    check(time == h5_time, f"grid time {time}, file time {h5_time}")
    topology = grid.find("Topology")
    geometry = grid.find("Geometry")
    kind = topology.get("TopologyType")
    if kind == "Tetrahedron":
        tets = read_item(folder, topology.find("DataItem"))
        nodes = read_item(folder, geometry.find("DataItem"))
        check(geometry.get("GeometryType") == "XYZ", "geometry type")
        check(int(topology.get("NumberOfElements")) == len(tets), "NumberOfElements")
        check(tets.min() >= 0 and tets.max() < len(nodes), "tet node index out of range")
        a, b, c, d = (nodes[tets[:, k]] for k in range(4))
        volumes = np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a) / 6.0
        check(np.all(volumes > 0), f"{np.sum(volumes <= 0)} tets not positively oriented")
        node_count = len(nodes)
    else:
        axes = [read_item(folder, item) for item in geometry.findall("DataItem")]
        dims = tuple(int(d) for d in topology.get("Dimensions").split())
        check(dims == tuple(len(a) for a in reversed(axes)), f"{kind} dimensions {dims}")
        check(all(np.all(np.diff(a) > 0) for a in axes), "axes not increasing")
        node_count = int(np.prod(dims))
    names = []
    for attribute in grid.findall("Attribute"):
        values = read_item(folder, attribute.find("DataItem"))
        components = 3 if attribute.get("AttributeType") == "Vector" else 1
        check(values.size == components * node_count, f"{attribute.get('Name')}: size")
        names.append(attribute.get("Name"))
    return names


def check_xdmf_files(folder):
    checked = {"checkpoint": 0, "sections": 0}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".xmf"):
            continue
        root = ElementTree.parse(os.path.join(folder, name)).getroot()
        with h5py.File(os.path.join(folder, name[:-4] + ".h5"), "r") as h5:
            h5_time = float(h5.attrs["time"])
        grids = root.find("Domain").findall("Grid")
        check(len(grids) == 1, f"{name}: one top grid")
        if name.startswith("checkpoint_"):
            names = check_grid(folder, grids[0], h5_time)
            check({"velocity", "pressure", "theta", "qv", "qc", "qr"} <= set(names),
                  f"{name}: fields {names}")
            checked["checkpoint"] += 1
        else:
            check(grids[0].get("CollectionType") == "Spatial", f"{name}: collection")
            # A series of these files is timed by each file's top grid (ParaView's XDMF3
            # reader numbered them 0, 1, 2, ... while the time sat only in the sub-grids).
            top_time = grids[0].find("Time")
            check(top_time is not None and float(top_time.get("Value")) == h5_time,
                  f"{name}: the collection's time is not the file's {h5_time}")
            for grid in grids[0].findall("Grid"):
                check("w" in check_grid(folder, grid, h5_time), f"{name}: no w")
            checked["sections"] += 1
    check(checked["checkpoint"] >= 2 and checked["sections"] >= 4, f"xmf files {checked}")
    with h5py.File(os.path.join(folder, "mountainwave_mesh.h5"), "r") as mesh, \
            h5py.File(os.path.join(folder, "checkpoint_000010.h5"), "r") as checkpoint:
        check(np.array_equal(mesh["coordinates"][...], checkpoint["nodes/coordinates"][...]),
              "the topology file's nodes are not the checkpoint's")


def tracer_entries(folder):
    tree = ElementTree.parse(os.path.join(folder, "tracers.pvd"))
    return [(float(d.get("timestep")), d.get("file")) for d in tree.getroot().iter("DataSet")]


def check_tracers(folder):
    entries = tracer_entries(folder)
    check([t for t, _ in entries] == [0.0, 100.0, 200.0], f"tracers.pvd {entries}")
    for _, name in entries:
        reader = vtkXMLPolyDataReader()
        reader.SetFileName(os.path.join(folder, name))
        reader.Update()
        polydata = reader.GetOutput()
        check(polydata.GetNumberOfPoints() == 6 and polydata.GetNumberOfVerts() == 6,
              f"{name}: 6 parcels")
        points = vtk_to_numpy(polydata.GetPoints().GetData())
        ids = vtk_to_numpy(polydata.GetPointData().GetArray("id"))
        with open(os.path.join(folder, name[:-4] + ".csv"), newline="") as table:
            rows = list(csv.DictReader(table))
        check([int(r["id"]) for r in rows] == list(ids), f"{name}: ids")
        expected = np.array([[float(r["x_m"]), float(r["y_m"]), float(r["z_m"])] for r in rows])
        check(np.allclose(points, expected, rtol=1e-8, atol=1e-6), f"{name}: positions")


def main():
    tool, scratch = sys.argv[1], sys.argv[2]
    folder = os.path.join(scratch, "mountainwave_outputs")
    shutil.rmtree(folder, ignore_errors=True)
    run(tool, folder)
    check_xdmf_files(folder)
    check_tracers(folder)
    # Restart at t = 100 s: the snapshots up to it stay listed, the later ones are written again.
    run(tool, folder, "-restart", os.path.join(folder, "checkpoint_000005.h5"))
    check([t for t, _ in tracer_entries(folder)] == [0.0, 100.0, 200.0], "tracers.pvd after restart")
    print("mountain-wave outputs: every XDMF item found in its HDF5 file, tracers agree")


if __name__ == "__main__":
    main()
