#pragma once
// Air parcels carried by the dynamical core's P1 velocity (foehn/particles/mesh_transport.hpp):
// trajectories through the mountain wave, the Lagrangian view of the flow the Eulerian
// tracers qv, qc, qr give. Parcels start on a regular (y, z) grid in the plane x = x_start.
//
// The velocity lives distributed over the ranks; each step it is gathered on rank 0 in the
// input mesh's numbering (petsc::gather_to_input_numbering), and rank 0 advects all parcels
// through the whole input mesh from t_n to t_n+1 with the explicit midpoint rule, the
// velocity linear in time between the two states. The gather costs 3 values per node per
// step; parcels themselves never migrate between ranks.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/particles/mesh_transport.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "model_state.hpp"

namespace foehn::mountainwave {

struct TracerSeeding {
  int columns = 0;                      // parcels across y (0: no tracer parcels)
  int levels = 0;                       // parcels up z
  double x_start = -20000;              // m
  double y_half_width = 10000;          // parcels at y in [-y_half_width, y_half_width]
  double z_bottom = 500, z_top = 6000;  // m above sea level (above the terrain where it is higher)
  bool enabled() const noexcept { return columns > 0 && levels > 0; }
};

class TracerParcels {
 public:
  // Collective. `input_mesh` is the mesh given to distribute_mesh, on rank 0 (nullptr
  // elsewhere); `state` the state the parcels start from. invalid_input for bad seeding or
  // parcels that start outside the mesh (named by id).
  TracerParcels(const petsc::DistributedMesh& mesh, const TetMesh* input_mesh,
                const TracerSeeding& seeding, const ModelState& state);
  ~TracerParcels();

  // Collective: after the model advanced to `state`, move the parcels from the previous
  // state's time to state.time.
  void follow(const ModelState& state);

  // Rank 0: the parcels now (empty elsewhere).
  const particles::MeshParcels& parcels() const noexcept { return parcels_; }
  std::size_t left_domain() const noexcept { return left_domain_; }
  // Rank 0 writes id, x, y, z, time, status as CSV (atomically); other ranks do nothing.
  void write_csv(const std::filesystem::path& path) const;
  // Collective; rank 0 writes the parcels as a ParaView point cloud (.vtp, atomically): points
  // (x, y, z) in m, point data time, id (Int64) and status (UInt8: 0 inside, 1 left the mesh).
  void write_vtp(const std::filesystem::path& path) const;

 private:
  const petsc::DistributedMesh& mesh_;
  std::unique_ptr<particles::MeshVelocityField> field_;  // rank 0
  particles::MeshParcels parcels_;                       // rank 0
  std::vector<double> previous_velocity_;                // rank 0, input numbering
  double time_ = 0;
  std::size_t left_domain_ = 0;
};

}  // namespace foehn::mountainwave
