"""Tetrahedral meshes: from the caller's arrays, from files (.msh, .vtu), from the generator of
the mountain-wave case, or as this rank's part of the caller's own partition."""
import os

import numpy as np

from . import _foehn
from ._arrays import count, fortran_comm, host_doubles, indices, real


def _points(points):
    array = host_doubles(points, "points")
    return array.reshape(-1, 3) if array.ndim == 1 and array.size % 3 == 0 else array


class Mesh:
    """A tetrahedral P1 mesh.

    Mesh(points, tets, index_base=0, fix_orientation=False): `points` of shape (nodes, 3),
    `tets` of shape (tets, 4) in any integer type, numbered from 0 or 1. An inverted tet is an
    error naming it, unless fix_orientation (it is then flipped; `flipped_tets` counts them).
    The mesh's surface (every face of exactly one tet) becomes its boundary triangles, tag 0.
    """

    def __init__(self, points, tets, *, index_base=0, fix_orientation=False):
        self._handle = _foehn.Mesh.from_arrays(_points(points), indices(tets, "tets", 4),
                                               count(index_base, "index_base"),
                                               bool(fix_orientation))
        self.comm = None

    @classmethod
    def _wrap(cls, handle, comm=None):
        mesh = cls.__new__(cls)
        mesh._handle = handle
        mesh.comm = comm
        return mesh

    @classmethod
    def read(cls, path):
        """A mesh from a Gmsh .msh (2.2 or 4.1, ASCII or binary) or VTK .vtu file. A file without
        boundary triangles gets its surface as boundary (tag 0), as a mesh from arrays does."""
        return cls._wrap(_foehn.Mesh.read(os.fspath(path)))

    @classmethod
    def mountain(cls, cells=(48, 48, 20), *, length_x=60000.0, length_y=60000.0,
                 height=16000.0, mountain_height=400.0, mountain_half_width=1000.0,
                 mountain_spacing=250.0, mountain_core=1000.0, horizontal_growth=1.15,
                 vertical_grading=0.25):
        """The Mountainwave3D mesh (docs/mountain_wave.md): cells = (x, y, z) hexahedra, each
        split into six tets, over a bell mountain, graded towards it and the ground. Boundary
        triangles are tagged 1 terrain, 2 top, 3 inflow, 4 outflow, 5 lateral."""
        if len(cells) != 3:
            raise _foehn.InvalidInputError(f"cells: (x, y, z) expected, got {cells!r}")
        nx, ny, nz = (count(c, f"cells[{i}]") for i, c in enumerate(cells))
        lengths = {"length_x": length_x, "length_y": length_y, "height": height,
                   "mountain_height": mountain_height,
                   "mountain_half_width": mountain_half_width,
                   "mountain_spacing": mountain_spacing, "mountain_core": mountain_core,
                   "horizontal_growth": horizontal_growth, "vertical_grading": vertical_grading}
        return cls._wrap(_foehn.Mesh.mountain(
            nx, ny, nz, *(real(value, name) for name, value in lengths.items())))

    @classmethod
    def box(cls, cells=(8, 8, 8), size=(1.0, 1.0, 1.0)):
        """A uniform box [-Lx/2, Lx/2] x [-Ly/2, Ly/2] x [0, Lz] of cells[0] x cells[1] x cells[2]
        hexahedra, six tets each (the mountain generator with no mountain and no grading)."""
        if len(size) != 3:
            raise _foehn.InvalidInputError(f"size: (Lx, Ly, Lz) expected, got {size!r}")
        return cls.mountain(cells, length_x=size[0], length_y=size[1], height=size[2],
                            mountain_height=0.0, mountain_spacing=0.0, horizontal_growth=1.0,
                            vertical_grading=1.0)

    @classmethod
    def from_partition(cls, comm, points, tets, node_ids, owned_nodes, *, index_base=0,
                       fix_orientation=False):
        """This rank's part of a mesh the caller partitioned. Collective on `comm` (mpi4py or
        petsc4py): `points` (local nodes, 3), the first `owned_nodes` of them owned here, the
        rest halo; `node_ids` the caller's global id of each local node; `tets` this rank's tets
        on local node numbers. A defect on any rank is an error on every rank. Fields are then
        given, and arrays returned, in this caller's local node order."""
        handle = _foehn.Mesh.from_partition(
            fortran_comm(comm), _points(points),
            count(owned_nodes, "owned_nodes"),
            indices(node_ids, "node_ids", 1).ravel().astype(np.int64, copy=False),
            indices(tets, "tets", 4), count(index_base, "index_base"), bool(fix_orientation))
        mesh = cls._wrap(handle, comm)
        # A caller's partition carries no boundary triangles (a rank's surface includes its
        # partition interfaces), so boundary_nodes() refuses rather than answer empty.
        mesh._boundary_unknown = True
        return mesh

    def write(self, path, point_data=None):
        """Writes the mesh (.vtu for ParaView, or .msh) with optional nodal arrays by name (1, 3
        or 9 values per node); the file appears whole or not at all. Names holding any of
        " < > & ' or a control character, paths holding a NUL, and other component counts are
        refused."""
        fields = []
        for name, values in (point_data or {}).items():
            if not isinstance(name, str):
                raise _foehn.InvalidInputError(f"point_data: names are strings, got {name!r}")
            fields.append((name, host_doubles(values, name).ravel()))
        self._handle.write(os.fspath(path), fields)

    @property
    def points(self):
        """Node coordinates, shape (nodes, 3) (a copy)."""
        return self._handle.points

    @property
    def tets(self):
        """Connectivity, shape (tets, 4), 0-based int32, positively oriented (a copy)."""
        return self._handle.tets

    @property
    def boundary_faces(self):
        return self._handle.boundary_faces

    @property
    def boundary_tags(self):
        return self._handle.boundary_tags

    @property
    def node_count(self):
        """Nodes of this rank (owned first, then halo, for a partitioned mesh)."""
        return self._handle.node_count

    @property
    def owned_node_count(self):
        return self._handle.owned_node_count

    @property
    def tet_count(self):
        return self._handle.tet_count

    @property
    def flipped_tets(self):
        return self._handle.flipped_tets

    @property
    def distributed(self):
        return self._handle.distributed

    def petsc_numbers(self):
        """The PETSc global node number of each local node (row = node * block_rows + c)."""
        return self._handle.petsc_numbers()

    def boundary_nodes(self, tags=None):
        """Sorted node numbers on the boundary triangles (of the given tags, or all). Refused on
        a mesh from from_partition, which has no boundary triangles: an empty answer there would
        make a Dirichlet solve "converge" to a wrong solution; give those nodes yourself."""
        if getattr(self, "_boundary_unknown", False):
            raise _foehn.InvalidInputError(
                "boundary_nodes: a mesh from from_partition has no boundary triangles (its "
                "ranks' surfaces include the partition interfaces); pass the Dirichlet nodes "
                "you know to the solve")
        faces = self.boundary_faces
        if tags is not None:
            faces = faces[np.isin(self.boundary_tags, np.atleast_1d(tags))]
        return np.unique(faces)

    def __repr__(self):
        return f"foehn.Mesh({self.node_count} nodes, {self.tet_count} tets)"
