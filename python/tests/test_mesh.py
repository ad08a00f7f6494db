"""Meshes from arrays of any integer type, files and the generator; refused inputs."""
import numpy as np
import pytest

import foehn
from conftest import tet_volumes

UNIT_TET_POINTS = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                   np.int64, np.uint64])
@pytest.mark.parametrize("base", [0, 1])
def test_any_integer_type_and_base(dtype, base):
    mesh = foehn.Mesh(UNIT_TET_POINTS, np.array([[0, 1, 2, 3]], dtype=dtype) + base,
                      index_base=base)
    assert (mesh.node_count, mesh.tet_count) == (4, 1)
    np.testing.assert_array_equal(mesh.tets, [[0, 1, 2, 3]])
    np.testing.assert_array_equal(mesh.points, UNIT_TET_POINTS)


def test_flat_arrays_and_lists():
    mesh = foehn.Mesh(UNIT_TET_POINTS.ravel().tolist(), [0, 1, 2, 3])
    assert mesh.tet_count == 1


@pytest.mark.parametrize("tets, fragment", [
    (np.array([[0.0, 1, 2, 3]]), "integers expected"),
    (np.array([[True, False, True, False]]), "integers expected"),
    (np.array([[0, 1, 2, 2**63]], dtype=np.uint64), "does not fit"),
    (np.array([[0, 1, 2]]), "shape"),
    (np.array([[0, 1, 2, 4]]), "4"),          # node 4 of 4 nodes
    (np.array([[0, 1, 2, -1]]), "-1"),
])
def test_bad_tets_are_invalid_input(tets, fragment):
    with pytest.raises(foehn.InvalidInputError, match=fragment):
        foehn.Mesh(UNIT_TET_POINTS, tets)


def test_invalid_input_is_a_value_error_and_a_foehn_error():
    with pytest.raises(ValueError):
        foehn.Mesh(UNIT_TET_POINTS, [[0, 1, 2, 9]])
    with pytest.raises(foehn.Error):
        foehn.Mesh(UNIT_TET_POINTS, [[0, 1, 2, 9]])


def test_nan_point_is_refused():
    points = UNIT_TET_POINTS.copy()
    points[2, 1] = np.nan
    with pytest.raises(foehn.InvalidInputError):
        foehn.Mesh(points, [[0, 1, 2, 3]])


def test_inverted_tet_is_an_error_or_fixed():
    with pytest.raises(foehn.InvalidInputError, match="tet 0"):
        foehn.Mesh(UNIT_TET_POINTS, [[1, 0, 2, 3]])
    mesh = foehn.Mesh(UNIT_TET_POINTS, [[1, 0, 2, 3]], fix_orientation=True)
    assert mesh.flipped_tets == 1
    assert tet_volumes(mesh.points, mesh.tets)[0] == pytest.approx(1 / 6)


def test_box_fills_its_volume(box):
    assert box.node_count == 7 * 6 * 5
    assert box.tet_count == 6 * 6 * 5 * 4
    assert tet_volumes(box.points, box.tets).sum() == pytest.approx(2.0 * 3.0 * 1.5, rel=1e-13)
    assert set(np.unique(box.boundary_tags)) == {1, 2, 3, 4, 5}
    bottom = box.points[box.boundary_nodes(1)]
    np.testing.assert_array_equal(bottom[:, 2], 0.0)


def test_mountain_terrain_follows_the_bell():
    mesh = foehn.Mesh.mountain((8, 8, 4))
    ground = mesh.points[mesh.boundary_nodes(1)]
    r2 = ground[:, 0] ** 2 + ground[:, 1] ** 2
    np.testing.assert_allclose(ground[:, 2], 400.0 / (1 + r2 / 1000.0**2) ** 1.5, rtol=1e-12)


@pytest.mark.parametrize("suffix", [".vtu", ".msh"])
def test_write_and_read_back(box, tmp_path, suffix):
    path = tmp_path / ("box" + suffix)
    box.write(path, point_data={"height": box.points[:, 2]})
    again = foehn.Mesh.read(path)
    np.testing.assert_array_equal(again.points, box.points)
    np.testing.assert_array_equal(again.tets, box.tets)
    np.testing.assert_array_equal(again.boundary_tags, box.boundary_tags)


def test_missing_file_is_a_file_error(tmp_path):
    with pytest.raises(foehn.FileError):
        foehn.Mesh.read(tmp_path / "missing.msh")
    with pytest.raises(OSError):
        foehn.Mesh.read(tmp_path / "missing.vtu")


def test_truncated_file_is_an_error_not_a_crash(box, tmp_path):
    path = tmp_path / "box.msh"
    box.write(path)
    data = path.read_bytes()
    (tmp_path / "cut.msh").write_bytes(data[: len(data) // 2])
    with pytest.raises(foehn.Error):
        foehn.Mesh.read(tmp_path / "cut.msh")


def test_bad_generator_option_names_it():
    with pytest.raises(foehn.InvalidInputError, match="vertical_grading"):
        foehn.Mesh.mountain((4, 4, 4), vertical_grading=2.0)
