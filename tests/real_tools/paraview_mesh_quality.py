"""foehn-mesh quality against ParaView's MeshQuality filter (Verdict's tet measures), in
pvpython (Debian's ParaView, unpacked by scripts/setup-paraview.sh).

For each mesh foehn-mesh generates and writes as .vtu: ParaView reads the file and its
MeshQuality filter gives every tet's 'Aspect Ratio' and 'Minimum Dihedral Angle'; Foehn's
worst aspect ratio and smallest dihedral angle must be ParaView's largest and smallest to 1e-9
relative, and Foehn's nearest-rank percentiles (99th of the aspect ratios, 1st of the smallest
dihedral angles) the values of those ranks among ParaView's. The tet count is ParaView's cell
count, the edge count that of ParaView's ExtractEdges filter, and the shortest and longest edge
and the counts against -shortest_edge / -longest_edge those of the edges found with NumPy from
the cells and points ParaView read (bounds halfway between two edge lengths, so no edge is
within rounding of one).

usage: pvpython paraview_mesh_quality.py FOEHN_MESH WORK_DIR
"""
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
from paraview import servermanager
from paraview import simple
from vtkmodules.util.numpy_support import vtk_to_numpy

RELATIVE = 1e-9
# The default grading at a small size, and a steep mountain (h0 3 km, a = 800 m) whose
# terrain-following tets are sheared much more.
CASES = {
    "mountain": ["-cells_x", "16", "-cells_y", "14", "-cells_z", "10"],
    "steep": ["-cells_x", "14", "-cells_y", "12", "-cells_z", "8", "-h0", "3000", "-a", "800"],
}
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)
    return condition


def agree(label, foehn, paraview):
    """Foehn's number against ParaView's, to RELATIVE."""
    difference = abs(foehn - paraview) if math.isfinite(foehn) else math.inf
    check(difference <= RELATIVE * abs(paraview),
          f"{label}: Foehn {foehn!r}, ParaView {paraview!r} "
          f"(relative {difference / max(abs(paraview), 1e-300):.3g})")


def run(command):
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return result.stdout


def foehn_quality(tool, path, bounds=None):
    command = [tool, "quality", "-i", path]
    if bounds:
        command += ["-shortest_edge", repr(bounds[0]), "-longest_edge", repr(bounds[1])]
    return json.loads(run(command))  # stdout is the JSON object alone


def nearest_rank(sorted_values, percent):
    """The value of rank ceil(percent n / 100) of the n values in increasing order."""
    rank = max(1, -(-percent * len(sorted_values) // 100))
    return float(sorted_values[rank - 1])


def cell_quality(reader, measure):
    quality = simple.MeshQuality(Input=reader)
    try:
        quality.TetQualityMeasure = measure
    except ValueError:
        sys.exit(f"ParaView's MeshQuality has no tet measure '{measure}' "
                 f"(it has {quality.GetProperty('TetQualityMeasure').Available})")
    data = servermanager.Fetch(quality)
    values = vtk_to_numpy(data.GetCellData().GetArray("Quality")).astype(np.float64)
    simple.Delete(quality)
    return values


def unique_edges(grid):
    """(smaller, larger) point ids of every edge of the tets, each once."""
    cells = vtk_to_numpy(grid.GetCells().GetData()).reshape(-1, 5)
    check(bool(np.all(cells[:, 0] == 4)), "a cell that is not 4 points")
    tets = cells[:, 1:]
    pairs = np.concatenate([tets[:, [a, b]] for a, b in
                            ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))])
    return np.unique(np.sort(pairs, axis=1), axis=0)


def bound_between_lengths(lengths, fraction):
    """A length halfway between two distinct edge lengths near the `fraction` quantile."""
    distinct = np.unique(lengths)
    i = int(fraction * (len(distinct) - 1))
    while i + 2 < len(distinct) and distinct[i + 1] - distinct[i] <= 1e-9 * distinct[i]:
        i += 1
    return float(0.5 * (distinct[i] + distinct[i + 1]))


def check_case(tool, folder, name, arguments):
    path = os.path.join(folder, name + ".vtu")
    run([tool, "generate", *arguments, "-o", path])
    foehn = foehn_quality(tool, path)

    reader = simple.XMLUnstructuredGridReader(FileName=[path])
    grid = servermanager.Fetch(reader)
    check(foehn["tets"] == grid.GetNumberOfCells(),
          f"{name}: Foehn {foehn['tets']} tets, ParaView {grid.GetNumberOfCells()} cells")

    aspect = np.sort(cell_quality(reader, "Aspect Ratio"))
    dihedral = np.sort(cell_quality(reader, "Minimum Dihedral Angle"))
    agree(f"{name} worst aspect ratio", foehn["worst_aspect_ratio"], float(aspect[-1]))
    agree(f"{name} 99th percentile aspect ratio", foehn["aspect_ratio_percentile_99"],
          nearest_rank(aspect, 99))
    agree(f"{name} min dihedral", foehn["min_dihedral_degrees"], float(dihedral[0]))
    agree(f"{name} 1st percentile dihedral", foehn["dihedral_percentile_1_degrees"],
          nearest_rank(dihedral, 1))

    edges_filter = simple.ExtractEdges(Input=reader)
    extracted = servermanager.Fetch(edges_filter).GetNumberOfCells()
    check(foehn["edges"] == extracted, f"{name}: Foehn {foehn['edges']} edges, "
                                       f"ParaView's ExtractEdges {extracted}")
    points = vtk_to_numpy(grid.GetPoints().GetData()).astype(np.float64)
    edges = unique_edges(grid)
    check(len(edges) == foehn["edges"],
          f"{name}: Foehn {foehn['edges']} edges, NumPy {len(edges)} unique")
    lengths = np.linalg.norm(points[edges[:, 1]] - points[edges[:, 0]], axis=1)
    agree(f"{name} shortest edge", foehn["shortest_edge"], float(lengths.min()))
    agree(f"{name} longest edge", foehn["longest_edge"], float(lengths.max()))

    bounds = (bound_between_lengths(lengths, 0.1), bound_between_lengths(lengths, 0.9))
    counted = foehn_quality(tool, path, bounds)
    below, above = int(np.sum(lengths < bounds[0])), int(np.sum(lengths > bounds[1]))
    check(counted["edges_below"] == below and counted["edges_above"] == above,
          f"{name}: edges below {bounds[0]} m / above {bounds[1]} m: Foehn "
          f"{counted['edges_below']} / {counted['edges_above']}, "
          f"ParaView's points {below} / {above}")
    check(below > 0 and above > 0, f"{name}: bounds {bounds} count no edges")
    simple.Delete(edges_filter)
    simple.Delete(reader)
    print(f"{name}: {foehn['tets']} tets, {foehn['edges']} edges; aspect ratio worst "
          f"{aspect[-1]:.6g}, min dihedral {dihedral[0]:.6g} deg; {below} edges below "
          f"{bounds[0]:.6g} m, {above} above {bounds[1]:.6g} m")


def main():
    tool, work = sys.argv[1:3]
    folder = os.path.join(work, "paraview_mesh_quality")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for name, arguments in CASES.items():
        check_case(tool, folder, name, arguments)
    print(f"ParaView {servermanager.vtkSMProxyManager.GetParaViewSourceVersion()}: "
          f"{len(CASES)} meshes, {len(failures)} failures")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
