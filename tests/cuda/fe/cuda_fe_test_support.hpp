#pragma once
// Meshes and fields shared by the CUDA assembly tests: a mountain mesh in its natural numbering
// and a "random" one (shuffled numbering, jittered interior nodes), with random nodal fields.

#include <random>
#include <vector>

#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/reorder.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/runtime/device_array.hpp"
#include "support/random_values.hpp"
#include "support/small_mountain.hpp"

namespace foehn::fe::testing {

inline TetMesh mountain_test_mesh() {
  return foehn::testing::small_mountain(10, 10, 8);
}

// Shuffled numbering and interior nodes moved by up to 10% of the local spacing: no structure
// left for the kernels to benefit from, every tet still positive.
inline TetMesh random_test_mesh(std::uint64_t seed) {
  MountainMeshOptions o;
  o.cells_x = 9;
  o.cells_y = 7;
  o.cells_z = 6;
  TetMesh mesh = generate_mountain_mesh(o);
  std::vector<bool> on_boundary(mesh.node_count(), false);
  for (const Triangle& f : mesh.boundary_faces)
    for (std::int32_t n : f) on_boundary[n] = true;
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> jitter(-0.1, 0.1);
  for (std::size_t n = 0; n < mesh.node_count(); ++n)
    if (!on_boundary[n]) {
      mesh.nodes[n][0] += jitter(random) * o.length_x / o.cells_x * 0.25;
      mesh.nodes[n][1] += jitter(random) * o.length_y / o.cells_y * 0.25;
      mesh.nodes[n][2] += jitter(random) * 20.0;
    }
  shuffle_numbering(mesh, seed);
  validate_mesh(mesh, "random test mesh");
  return mesh;
}

inline std::vector<double> random_field(std::size_t count, std::uint64_t seed, double lo = -1.0,
                                        double hi = 1.0) {
  return foehn::testing::random_values(count, seed, lo, hi);
}

inline DeviceArray<double> to_device(const std::vector<double>& host, const Stream& stream) {
  DeviceArray<double> device(host.size(), stream);
  device.copy_from_host_async(host, stream);
  return device;
}

}  // namespace foehn::fe::testing
