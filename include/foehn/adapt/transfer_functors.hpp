#pragma once
// The point location of transfer.hpp as a FOEHN_HD functor over points, for for_each: each
// point's neighbour walk from its start tet (particles::walk_to_point), the same arithmetic on
// the host and the device.
#include <cstddef>
#include <cstdint>

#include "foehn/particles/mesh_location.hpp"

namespace foehn::adapt {

struct WalkFromStart {
  particles::MeshFieldView mesh;  // geometry only: the velocity is not read
  const double* points;           // 3 per point
  const std::int32_t* starts;     // the tet each walk starts from
  std::int32_t* tets;             // where it ended
  double* lambdas;                // 4 per point: the barycentrics there
  std::uint8_t* found;            // 1 where the walk ended in a tet holding the point
  FOEHN_HD void operator()(std::size_t i) const {
    const particles::MeshPoint p{points[3 * i], points[3 * i + 1], points[3 * i + 2]};
    const particles::MeshWalk walk = particles::walk_to_point(mesh, p, starts[i]);
    tets[i] = walk.tet;
    for (int k = 0; k < 4; ++k) lambdas[4 * i + k] = walk.lambda[k];
    found[i] = walk.outcome == particles::WalkOutcome::found ? 1 : 0;
  }
};

}  // namespace foehn::adapt
