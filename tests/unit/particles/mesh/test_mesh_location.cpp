// Location and P1 interpolation on the tetrahedral mesh, against references that do not use
// the code under test (signed sub-volumes, brute-force scans); bad input rejected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "foehn/particles/mesh_transport.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "unit/particles/mesh/mesh_test_support.hpp"

namespace foehn::particles {
namespace {

using test::Vec3;

struct NamedMesh {
  const char* name;
  TetMesh mesh;
};

std::vector<NamedMesh> test_meshes() {
  std::vector<NamedMesh> meshes;
  meshes.push_back({"box", test::make_box_mesh(6, 5, 4)});
  meshes.push_back({"mountain", test::make_small_mountain_mesh(10, 10, 6)});
  return meshes;
}

TEST(MeshLocation, InverseMapsGiveTheReferenceBarycentrics) {
  for (const auto& [name, mesh] : test_meshes()) {
    const MeshVelocityField field(mesh, test::uniform_velocity(mesh, {1.0, 0.0, 0.0}));
    const MeshFieldView view = field.view();
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::size_t> pick(0, mesh.tets.size() - 1);
    for (int i = 0; i < 500; ++i) {
      const Point3 p = test::random_point_in_mesh(mesh, rng);
      const std::size_t t = pick(rng);  // mostly a tet NOT containing p: negative values too
      double lambda[4];
      barycentric_coordinates(view, static_cast<std::int32_t>(t), MeshPoint{p[0], p[1], p[2]},
                              lambda);
      const auto reference = test::reference_barycentrics(mesh, t, p);
      for (int k = 0; k < 4; ++k) {
        EXPECT_NEAR(lambda[k], reference[k], 1e-12 * std::max(1.0, std::abs(reference[k])))
            << name << " tet " << t;
      }
    }
  }
}

TEST(MeshLocation, NeighboursShareThreeNodesAndBoundaryFacesMatchTheMesh) {
  for (const auto& [name, mesh] : test_meshes()) {
    const MeshVelocityField field(mesh, test::uniform_velocity(mesh, {0.0, 0.0, 0.0}));
    EXPECT_EQ(field.boundary_face_count(), mesh.boundary_faces.size()) << name;
    const auto neighbours = field.neighbours();
    for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
      for (int f = 0; f < 4; ++f) {
        const std::int32_t other = neighbours[4 * t + f];
        if (other < 0) continue;
        int shared = 0;
        for (std::int32_t a : mesh.tets[t]) {
          shared += std::count(mesh.tets[other].begin(), mesh.tets[other].end(), a) > 0;
        }
        EXPECT_EQ(shared, 3) << name << " tet " << t << " face " << f;
        // The node opposite the shared face is not in the neighbour.
        EXPECT_EQ(std::count(mesh.tets[other].begin(), mesh.tets[other].end(), mesh.tets[t][f]), 0);
      }
    }
  }
}

TEST(MeshLocation, P1InterpolationReproducesLinearFieldsExactly) {
  const std::array<Vec3, 3> a{{{2e-4, -1e-4, 3e-4}, {5e-5, 1e-4, -2e-4}, {-3e-4, 2e-4, 1e-4}}};
  const Vec3 b0{10.0, -3.0, 0.5}, b1{-4.0, 7.0, -1.5};
  for (const auto& [name, mesh] : test_meshes()) {
    // Two levels that differ, sampled at a time in between: linear in time too.
    const MeshVelocityField field(mesh, test::sample_linear(mesh, a, b0), 100.0,
                                  test::sample_linear(mesh, a, b1), 400.0);
    MeshParcels parcels;
    std::mt19937_64 rng(11);
    for (int i = 0; i < 2000; ++i) {
      const Point3 p = test::random_point_in_mesh(mesh, rng);
      parcels.add(p[0], p[1], p[2], 0.0, i);
    }
    ASSERT_EQ(locate(parcels, field), 0u) << name;
    const MeshFieldView view = field.view();
    const double t = 175.0, w = (t - 100.0) / 300.0;
    for (std::size_t i = 0; i < parcels.size(); ++i) {
      const MeshPoint p{parcels.x[i], parcels.y[i], parcels.z[i]};
      double lambda[4];
      barycentric_coordinates(view, parcels.tet[i], p, lambda);
      const MeshPoint u = interpolate_velocity(view, parcels.tet[i], lambda, t);
      const double got[3] = {u.x, u.y, u.z};
      for (int c = 0; c < 3; ++c) {
        const double exact = a[c][0] * p.x + a[c][1] * p.y + a[c][2] * p.z +
                             (1.0 - w) * b0[c] + w * b1[c];
        EXPECT_NEAR(got[c], exact, 1e-12 * std::max(1.0, std::abs(exact)))
            << name << " parcel " << i << " component " << c;
      }
    }
  }
}

TEST(MeshLocation, WalkFromTheFarCornerFindsTheTetTheBruteForceScanFinds) {
  // The box is convex: the raw walk itself must be exact, no fallback involved.
  const TetMesh mesh = test::make_box_mesh(8, 8, 6);
  const MeshVelocityField field(mesh, test::uniform_velocity(mesh, {0.0, 0.0, 0.0}));
  const MeshFieldView view = field.view();
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> horizontal(-test::half_length, test::half_length);
  std::uniform_real_distribution<double> vertical(0.0, test::model_top);
  const auto far_tet = static_cast<std::int32_t>(mesh.tets.size() - 1);  // the (+x, +y) corner
  for (int i = 0; i < 300; ++i) {
    const Point3 p{horizontal(rng), horizontal(rng), vertical(rng)};
    const MeshWalk walk = walk_to_point(view, MeshPoint{p[0], p[1], p[2]}, far_tet);
    ASSERT_EQ(walk.outcome, WalkOutcome::found) << i;
    const auto expected = test::containing_tets(mesh, p);
    ASSERT_FALSE(expected.empty());
    EXPECT_NE(std::find(expected.begin(), expected.end(), walk.tet), expected.end())
        << "point " << i << " found in tet " << walk.tet << ", the scan says " << expected[0];
  }
  // Outside, beyond every side: the walk leaves through a boundary face.
  for (const Point3& p : {Point3{31000.0, 0.0, 5000.0}, Point3{-30500.0, 2000.0, 100.0},
                          Point3{0.0, 30001.0, 8000.0}, Point3{100.0, 100.0, 16010.0},
                          Point3{-5000.0, 7000.0, -20.0}}) {
    const MeshWalk walk = walk_to_point(view, MeshPoint{p[0], p[1], p[2]}, 0);
    EXPECT_EQ(walk.outcome, WalkOutcome::left_domain) << p[0] << " " << p[1] << " " << p[2];
  }
}

TEST(MeshLocation, LocateOnTheMountainMatchesTheScanAndFlagsPointsOutside) {
  const TetMesh mesh = test::make_small_mountain_mesh(12, 12, 8);
  const MeshVelocityField field(mesh, test::uniform_velocity(mesh, {0.0, 0.0, 0.0}));
  MeshParcels parcels;
  std::mt19937_64 rng(5);
  const auto far_tet = static_cast<std::int32_t>(mesh.tets.size() - 1);
  for (int i = 0; i < 400; ++i) {
    const Point3 p = test::random_point_in_mesh(mesh, rng);
    parcels.add(p[0], p[1], p[2], 0.0, i);
    parcels.tet.back() = far_tet;  // every walk starts across the mesh
  }
  // Outside: under the summit (the mesh has a node column at x = y = 0 on h0 = 400 m), above
  // the top, beyond the outflow.
  parcels.add(0.0, 0.0, 200.0, 0.0, 1000);
  parcels.add(1000.0, -2000.0, 16500.0, 0.0, 1001);
  parcels.add(30010.0, 0.0, 3000.0, 0.0, 1002);
  EXPECT_EQ(locate(parcels, field), 3u);
  for (std::size_t i = 0; i < parcels.size(); ++i) {
    const Point3 p{parcels.x[i], parcels.y[i], parcels.z[i]};
    const auto expected = test::containing_tets(mesh, p);
    if (parcels.id[i] >= 1000) {
      EXPECT_TRUE(expected.empty());
      EXPECT_EQ(parcels.status[i], MeshParcelStatus::left_domain);
      EXPECT_EQ(parcels.tet[i], -1);
      continue;
    }
    ASSERT_EQ(parcels.status[i], MeshParcelStatus::inside) << i;
    EXPECT_NE(std::find(expected.begin(), expected.end(), parcels.tet[i]), expected.end()) << i;
  }
}

// ---- bad input -------------------------------------------------------------------------

template <class Call>
void expect_invalid_input(Call&& call, const std::string& fragment) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one mentioning '" << fragment << "'";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input) << error.what();
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(MeshTransportInput, BadFieldsAreRejectedNamingTheCulprit) {
  const TetMesh mesh = test::make_box_mesh(2, 2, 2);
  const std::vector<double> good = test::uniform_velocity(mesh, {1.0, 0.0, 0.0});

  std::vector<double> nan_velocity = good;
  nan_velocity[3 * 5 + 1] = std::numeric_limits<double>::quiet_NaN();
  expect_invalid_input([&] { MeshVelocityField field(mesh, nan_velocity); }, "node 5");
  std::vector<double> inf_velocity = good;
  inf_velocity[3 * 7] = std::numeric_limits<double>::infinity();
  expect_invalid_input([&] { MeshVelocityField field(mesh, good, 0.0, inf_velocity, 1.0); },
                       "node 7");

  std::vector<double> short_velocity(good.begin(), good.end() - 1);
  expect_invalid_input([&] { MeshVelocityField field(mesh, short_velocity); }, "3 per node");
  expect_invalid_input([&] { MeshVelocityField field(mesh, good, 1.0, good, 1.0); }, "t0 < t1");

  TetMesh inverted = mesh;
  std::swap(inverted.tets[9][2], inverted.tets[9][3]);
  expect_invalid_input([&] { MeshVelocityField field(inverted, good); }, "tet 9 is inverted");

  TetMesh degenerate = mesh;
  degenerate.nodes.push_back({0.0, 0.0, 1.0});
  degenerate.nodes.push_back({1.0, 0.0, 1.0});
  degenerate.nodes.push_back({2.0, 0.0, 1.0});
  degenerate.nodes.push_back({0.0, 1.0, 1.0});
  const auto first = static_cast<std::int32_t>(mesh.nodes.size());
  degenerate.tets.push_back({first, first + 1, first + 2, first + 3});  // three collinear nodes
  std::vector<double> degenerate_velocity = good;
  degenerate_velocity.resize(3 * degenerate.nodes.size(), 0.0);
  expect_invalid_input([&] { MeshVelocityField field(degenerate, degenerate_velocity); },
                       "tet " + std::to_string(mesh.tets.size()) + " is degenerate");

  TetMesh out_of_range = mesh;
  out_of_range.tets[4][1] = static_cast<std::int32_t>(mesh.nodes.size());
  expect_invalid_input([&] { MeshVelocityField field(out_of_range, good); }, "tet 4 names node");

  TetMesh nan_node = mesh;
  nan_node.nodes[3][2] = std::numeric_limits<double>::quiet_NaN();
  expect_invalid_input([&] { MeshVelocityField field(nan_node, good); }, "node 3");

  TetMesh overshared = mesh;
  overshared.tets.push_back(mesh.tets[0]);  // a duplicate tet: its faces are used three times
  expect_invalid_input([&] { MeshVelocityField field(overshared, good); }, "non-manifold");

  MeshVelocityField field(mesh, good);
  expect_invalid_input([&] { field.advance(good, -1.0); }, "after t1");
  expect_invalid_input([&] { field.advance(nan_velocity, 10.0); }, "node 5");
}

TEST(MeshTransportInput, BadParcelsAndArgumentsAreRejected) {
  const TetMesh mesh = test::make_box_mesh(2, 2, 2);
  const MeshVelocityField field(mesh, test::uniform_velocity(mesh, {1.0, 0.0, 0.0}));
  MeshParcels parcels;
  parcels.add(0.0, 0.0, 1000.0, 0.0, 1);
  parcels.add(10.0, 0.0, 1000.0, 0.0, 2);

  MeshParcels ragged = parcels;
  ragged.z.pop_back();
  expect_invalid_input([&] { advect(ragged, field, 0.0, 1.0, 1); }, "differ in length");
  expect_invalid_input([&] { locate(ragged, field); }, "differ in length");
  MeshParcels ragged_tets = parcels;
  ragged_tets.tet.push_back(0);
  expect_invalid_input([&] { advect(ragged_tets, field, 0.0, 1.0, 1); }, "differ in length");

  MeshParcels nan_position = parcels;
  nan_position.y[1] = std::numeric_limits<double>::quiet_NaN();
  expect_invalid_input([&] { advect(nan_position, field, 0.0, 1.0, 1); }, "parcel 2");

  MeshParcels bad_tet = parcels;
  bad_tet.tet[0] = static_cast<std::int32_t>(mesh.tets.size());
  expect_invalid_input([&] { advect(bad_tet, field, 0.0, 1.0, 1); }, "parcel 1 has tet");

  MeshParcels bad_status = parcels;
  bad_status.status[1] = static_cast<MeshParcelStatus>(7);
  expect_invalid_input([&] { advect(bad_status, field, 0.0, 1.0, 1); }, "unknown status");

  expect_invalid_input([&] { advect(parcels, field, 0.0, 1.0, -1); }, "steps >= 0");
  expect_invalid_input(
      [&] { advect(parcels, field, 0.0, std::numeric_limits<double>::quiet_NaN(), 1); },
      "finite");
}

TEST(MeshTransportInput, DeviceTransportWithoutAGpuIsUnavailable) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "this machine has a CUDA device";
  const TetMesh mesh = test::make_box_mesh(2, 2, 2);
  const MeshVelocityField field(mesh, test::uniform_velocity(mesh, {1.0, 0.0, 0.0}));
  MeshParcels parcels;
  parcels.add(0.0, 0.0, 1000.0, 0.0, 1);
  try {
    Stream stream;  // a CPU-only build or a machine without a device stops here or below
    DeviceMeshVelocityField device_field(field, stream);
    DeviceMeshParcels device = DeviceMeshParcels::upload(parcels, stream);
    advect(device, device_field, 0.0, 1.0, 1, stream);
    ADD_FAILURE() << "device mesh transport ran without a CUDA device";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::unavailable) << error.what();
  }
}

}  // namespace
}  // namespace foehn::particles
