#!/usr/bin/env python3
"""foehn-trajectories' outputs read back by independent readers (docs/particles_io.md).

Runs a small trajectory run, then checks with Debian's python3-netcdf4 that
parcels_trajectories.nc is a CF trajectory file whose every observation equals the matching
netCDF snapshot (matched by id), that the snapshots carry CF metadata, and with VTK's own
vtkXMLPolyDataReader that every .vtp listed in parcels.pvd holds the same parcels. Exits 77
(skipped) when netCDF4 or vtk cannot be imported.

usage: check_trajectory_outputs.py <foehn-trajectories> <scratch folder>
"""
import math
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

try:
    import netCDF4
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
except ImportError as missing:
    print(f"skipped: {missing} (apt-get install python3-netcdf4 python3-vtk9)")
    sys.exit(77)

EARTH_RADIUS = 6.37122e6  # foehn/particles/integrators.hpp
SCALE_HEIGHT = 7000.0
REFERENCE_PRESSURE = 101325.0


def check(condition, message):
    if not condition:
        print("FAIL:", message)
        sys.exit(1)


def run(tool, folder, *options):
    command = [tool, "-parcels", "300", "-end_time", "21600", "-output_interval", "7200",
               "-dt", "600", "-sort_interval", "4", "-path_length", "-foehn_backend", "cpu",
               "-output_dir", folder, *options]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    check(result.returncode == 0, f"{' '.join(command)} exited {result.returncode}:\n"
          f"{result.stdout}{result.stderr}")


def check_trajectory_file(folder):
    path = os.path.join(folder, "parcels_trajectories.nc")
    with netCDF4.Dataset(path) as file:
        check(file.featureType == "trajectory", "featureType")
        check(file.Conventions.startswith("CF-"), "Conventions")
        check(file.dimensions["obs"].isunlimited(), "obs is not unlimited")
        ids = file["trajectory"][:]
        check(file["trajectory"].cf_role == "trajectory_id", "cf_role")
        check(len(ids) == 300 and np.all(np.diff(ids) > 0), "trajectory ids not ascending")
        time = file["time"]
        check(time.standard_name == "time" and time.units.startswith("seconds since "),
              f"time units {time.units}")
        dates = netCDF4.num2date(time[0, :], time.units, time.calendar)
        check([d.hour for d in dates] == [0, 2, 4, 6], f"dates {dates}")
        check(file["pressure"].standard_name == "air_pressure", "pressure standard_name")
        for name in ("lon", "lat", "pressure", "status", "mass", "path_horizontal_m"):
            check(file[name].dimensions == ("trajectory", "obs"), f"{name} dimensions")
        check(file["mass"].coordinates == "time lat lon pressure", "coordinates attribute")
        # The path lengths exist from the first observation on (zero before the first step),
        # so every snapshot of the series has the same variables.
        first = file["path_horizontal_m"][:, 0]
        check(not np.ma.is_masked(first) and np.all(first == 0.0), "path length at obs 0")
        check(file["path_horizontal_m"].units == "m", "path length units")
        snapshots = sorted(f for f in os.listdir(folder)
                           if f.startswith("parcels_0") and f.endswith(".nc"))
        check(len(snapshots) == file.dimensions["obs"].size == 4, f"snapshots {snapshots}")
        for obs, name in enumerate(snapshots):
            with netCDF4.Dataset(os.path.join(folder, name)) as snap:
                check(snap.featureType == "point" and snap.Conventions.startswith("CF-"),
                      f"{name}: CF attributes")
                check(snap["time"].units == time.units, f"{name}: time units")
                order = np.argsort(snap["id"][:])
                check(np.array_equal(snap["id"][:][order], ids), f"{name}: ids")
                for variable in ("lon", "lat", "pressure", "time", "status", "mass"):
                    expected = snap[variable][:][order]
                    got = file[variable][:, obs]
                    check(np.array_equal(np.asarray(got), np.asarray(expected)),
                          f"{name}: {variable} differs from the trajectory file")
    return ids


def check_vtk_series(folder):
    tree = ElementTree.parse(os.path.join(folder, "parcels.pvd"))
    entries = [(float(d.get("timestep")), d.get("file"))
               for d in tree.getroot().iter("DataSet")]
    check([t for t, _ in entries] == [0.0, 7200.0, 14400.0, 21600.0], f"pvd times {entries}")
    for t, name in entries:
        reader = vtkXMLPolyDataReader()
        reader.SetFileName(os.path.join(folder, name))
        reader.Update()
        polydata = reader.GetOutput()
        check(polydata.GetNumberOfPoints() == 300, f"{name}: points")
        check(polydata.GetNumberOfVerts() == 300, f"{name}: vertices")
        data = polydata.GetPointData()
        ids = vtk_to_numpy(data.GetArray("id"))
        check(data.GetArray("status").GetDataTypeAsString() == "unsigned char", "status type")
        with netCDF4.Dataset(os.path.join(folder, name[:-4] + ".nc")) as snap:
            check(np.array_equal(ids, snap["id"][:]), f"{name}: ids differ from the snapshot")
            pressure = vtk_to_numpy(data.GetArray("pressure"))
            check(np.array_equal(pressure, snap["pressure"][:]), f"{name}: pressure")
            check(np.array_equal(vtk_to_numpy(data.GetArray("time")), snap["time"][:]),
                  f"{name}: time")
            points = vtk_to_numpy(polydata.GetPoints().GetData())
            radius = np.linalg.norm(points, axis=1)
            expected = EARTH_RADIUS + SCALE_HEIGHT * np.log(REFERENCE_PRESSURE / pressure)
            check(np.allclose(radius, expected, rtol=1e-12, atol=0), f"{name}: radius")
            lat = np.degrees(np.arcsin(points[:, 2] / radius))
            check(np.allclose(lat, snap["lat"][:], atol=1e-9), f"{name}: latitude of the points")
        check(math.isfinite(t), "time")


def main():
    tool, scratch = sys.argv[1], sys.argv[2]
    folder = os.path.join(scratch, "trajectory_outputs")
    shutil.rmtree(folder, ignore_errors=True)
    run(tool, folder)
    check_trajectory_file(folder)
    check_vtk_series(folder)
    check(not any(f.endswith(".tmp") for f in os.listdir(folder)), "a temporary was left")
    # Only the formats asked for.
    only = os.path.join(scratch, "trajectory_only")
    shutil.rmtree(only, ignore_errors=True)
    run(tool, only, "-output_snapshots", "0", "-output_vtk", "0")
    check(sorted(os.listdir(only)) == ["parcels_trajectories.nc"], f"{os.listdir(only)}")
    print("trajectory outputs: CF trajectory file, CF snapshots and .vtp/.pvd agree")


if __name__ == "__main__":
    main()
