#include "foehn/petsc/generated_mesh.hpp"

#include <numeric>

#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

CellRange slab_of_rank(int cells, int ranks, int rank) {
  const std::int64_t begin = static_cast<std::int64_t>(cells) * rank / ranks;
  const std::int64_t end = static_cast<std::int64_t>(cells) * (rank + 1) / ranks;
  return {static_cast<int>(begin), static_cast<int>(end)};
}

DistributedMesh distribute_generated_mountain_mesh(MPI_Comm comm,
                                                   const MountainMeshOptions& options) {
  const detail::CommShape shape = detail::comm_shape(comm, "distribute_generated_mountain_mesh");
  TetMesh slab;
  CellRange cells;
  detail::run_collectively(comm, [&] {
    check_mountain_options(options);
    if (options.cells_x < shape.size)
      fail(ErrorCategory::invalid_input, "distribute_generated_mountain_mesh: ", options.cells_x,
           " cells along x cannot be split over ", shape.size,
           " ranks (one cell at least each); use fewer ranks or more cells");
    cells = slab_of_rank(options.cells_x, shape.size, shape.rank);
    slab = generate_mountain_mesh_block(options, cells.begin, cells.end);
  });
  // The slab's node planes are cells.begin .. cells.end, numbered i-major as in the whole mesh:
  // local node l is the whole mesh's node first_id + l. The slab owns all planes but its last,
  // which the next slab owns (the last slab owns its last plane too), so its owned nodes come
  // first and its ghosts (one plane) after them, both in increasing global number: the layout
  // distribute_mesh gives, built directly. Nothing is checked by sorting faces: the generator's
  // slabs are the whole mesh's parts (tests/mpi/generated_mesh_test.cpp).
  const std::int64_t plane = static_cast<std::int64_t>(options.cells_y + 1) * (options.cells_z + 1);
  const bool last = shape.rank == shape.size - 1;
  DistributedMesh mesh;
  mesh.comm = comm;
  mesh.rank = shape.rank;
  mesh.size = shape.size;
  mesh.global_nodes = (options.cells_x + 1) * plane;
  mesh.global_tets = 6LL * options.cells_x * options.cells_y * options.cells_z;
  mesh.first_owned_global = cells.begin * plane;
  mesh.owned_nodes = static_cast<std::int32_t>((cells.end - cells.begin + (last ? 1 : 0)) * plane);
  mesh.ownership_ranges.resize(static_cast<std::size_t>(shape.size) + 1);
  for (int r = 0; r < shape.size; ++r)
    mesh.ownership_ranges[static_cast<std::size_t>(r)] =
        slab_of_rank(options.cells_x, shape.size, r).begin * plane;
  mesh.ownership_ranges.back() = mesh.global_nodes;
  const std::size_t nodes = slab.nodes.size();
  mesh.global_of_local.resize(nodes);
  std::iota(mesh.global_of_local.begin(), mesh.global_of_local.end(), mesh.first_owned_global);
  mesh.input_node_of_local = mesh.global_of_local;
  mesh.owner_of_local.assign(nodes, shape.rank);
  std::fill(mesh.owner_of_local.begin() + mesh.owned_nodes, mesh.owner_of_local.end(),
            shape.rank + 1);
  const std::int64_t first_tet = 6LL * cells.begin * options.cells_y * options.cells_z;
  mesh.input_tet_of_local.resize(slab.tets.size());
  std::iota(mesh.input_tet_of_local.begin(), mesh.input_tet_of_local.end(), first_tet);
  // Boundary faces: numbered in rank order, as distribute_mesh's parts are.
  std::int64_t faces = static_cast<std::int64_t>(slab.boundary_faces.size()), below = 0;
  FOEHN_MPI_CHECK(MPI_Exscan(&faces, &below, 1, MPI_INT64_T, MPI_SUM, comm));
  if (shape.rank == 0) below = 0;  // MPI_Exscan leaves rank 0's result undefined
  FOEHN_MPI_CHECK(
      MPI_Allreduce(&faces, &mesh.global_boundary_faces, 1, MPI_INT64_T, MPI_SUM, comm));
  mesh.input_boundary_face_of_local.resize(slab.boundary_faces.size());
  std::iota(mesh.input_boundary_face_of_local.begin(), mesh.input_boundary_face_of_local.end(),
            below);
  mesh.local = std::move(slab);
  // Global numbers are input numbers: rank 0 puts gathered values back with the identity.
  if (shape.rank == 0) {
    mesh.input_node_of_global.resize(static_cast<std::size_t>(mesh.global_nodes));
    std::iota(mesh.input_node_of_global.begin(), mesh.input_node_of_global.end(), 0);
  }
  return mesh;
}

}  // namespace foehn::petsc
