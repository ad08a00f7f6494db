#include "run_mesh.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

#include "boundary_conditions.hpp"
#include "external_mesh.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/mesh/statistics.hpp"
#include "foehn/petsc/generated_mesh.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/memory_budget.hpp"

namespace foehn::mountainwave {

namespace {
// The generated mesh built in slabs, one per rank (-mesh_partition): nothing is gathered or
// sent. Prints what whole_mesh prints, reduced over the ranks.
petsc::DistributedMesh slab_mesh(const RunOptions& o, MPI_Comm comm, int rank) {
  const petsc::ScopedLogEvent event(petsc::LogEvent::distribute);
  petsc::DistributedMesh mesh = petsc::distribute_generated_mountain_mesh(comm, o.domain);
  mark_boundary_kinds(mesh.local);
  std::array<double, 2> dihedral = dihedral_angle_range(mesh.local);
  dihedral[1] = -dihedral[1];  // one MPI_MIN for both ends
  MPI_Allreduce(MPI_IN_PLACE, dihedral.data(), 2, MPI_DOUBLE, MPI_MIN, comm);
  if (rank == 0)
    std::printf(
        "foehn-mountainwave: mesh generated in %d slabs along x (one per rank): %lld nodes, "
        "%lld tets, dihedral angles %.2f to %.2f degrees\n",
        mesh.size, static_cast<long long>(mesh.global_nodes),
        static_cast<long long>(mesh.global_tets), dihedral[0], -dihedral[1]);
  return mesh;
}

}  // namespace

// The host memory the whole run needs, from the peak resident size of the default case on
// one CPU rank (208 MB for 69 120 tets, PETSc and MPI included: 3 kB per tet). Checked on
// every rank against the node it runs on before rank 0 generates the mesh; for a -mesh file,
// on rank 0 once the file tells the tet count.
void check_model_memory(const std::string& request, double tets) {
  constexpr double bytes_per_tet = 3000;
  check_host_memory(detail::concat(request, " (", tets, " tets, about 3 kB each)"),
                    tets * bytes_per_tet);
}

// Rank 0's whole mesh: generated, or read from -mesh (checked, tagged; the host memory for
// its size checked once its tet count is known). Prints its size and dihedral angles.
TetMesh whole_mesh(const RunOptions& o) {
  TetMesh whole;
  std::string origin = "generated";
  if (o.mesh_file.empty()) {
    whole = generate_mountain_mesh(o.domain);
    // The grading as built: it is coarser than asked when the cells are too few.
    const std::vector<double> x =
        mountain_axis_coordinates(o.domain.cells_x, o.domain.length_x, o.domain);
    double finest = x[1] - x[0], coarsest = finest, growth = 1;
    for (std::size_t i = 1; i + 1 < x.size(); ++i) {
      const double width = x[i + 1] - x[i], before = x[i] - x[i - 1];
      finest = std::min(finest, width);
      coarsest = std::max(coarsest, width);
      growth = std::max({growth, width / before, before / width});
    }
    std::printf(
        "foehn-mountainwave: horizontal spacing (x) %.0f m over the mountain to %.0f m at the "
        "boundaries, neighbouring cells within a factor %.3f\n",
        finest, coarsest, growth);
  } else {
    ExternalMesh external = read_external_mountain_mesh(o.mesh_file, o.domain);
    whole = std::move(external.mesh);
    check_model_memory(o.mesh_request, static_cast<double>(whole.tets.size()));
    origin = "from " + o.mesh_file.string() + ", boundary tags from " + external.tag_source;
  }
  const std::array<double, 2> dihedral = dihedral_angle_range(whole);
  std::printf(
      "foehn-mountainwave: mesh %s: %zu nodes, %zu tets, dihedral angles %.2f to %.2f "
      "degrees\n",
      origin.c_str(), whole.nodes.size(), whole.tets.size(), dihedral[0], dihedral[1]);
  return whole;
}

// `keep_input`: rank 0 keeps the mesh it distributed (the tracer parcels move through it); it
// stays empty when the mesh is built in slabs.
TetMesh prepared_whole_mesh(const RunOptions& o) {
  TetMesh whole = whole_mesh(o);
  reorder_for_locality(whole);  // RCM nodes, tets by lowest node: faster assembly and ILU
  mark_boundary_kinds(whole);
  return whole;
}

petsc::DistributedMesh make_mesh(const RunOptions& o, MPI_Comm comm, int rank,
                                 TetMesh* keep_input) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  if (builds_mesh_in_slabs(o, ranks)) return slab_mesh(o, comm, rank);
  const petsc::ScopedLogEvent event(petsc::LogEvent::distribute);
  TetMesh whole;
  // A bad -mesh file fails on rank 0 only: every rank throws its error.
  petsc::detail::run_collectively(comm, [&] {
    if (rank != 0) return;
    whole = prepared_whole_mesh(o);
  });
  petsc::DistributedMesh mesh = petsc::distribute_mesh(comm, rank == 0 ? &whole : nullptr);
  if (keep_input != nullptr && rank == 0) *keep_input = std::move(whole);
  return mesh;
}

}  // namespace foehn::mountainwave
