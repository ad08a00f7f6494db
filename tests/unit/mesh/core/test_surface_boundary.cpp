// add_surface_as_boundary: a mesh without boundary triangles (from arrays, from a file without
// them) gets its surface, the faces of exactly one tet, oriented outward; the Python Mesh relies
// on it for boundary_nodes(). Checked against the geometry of a box, not against Foehn's faces.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <set>

#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/topology.hpp"

namespace foehn {
namespace {

TetMesh box_without_boundary(int nx, int ny, int nz) {
  MountainMeshOptions o;
  o.cells_x = nx;
  o.cells_y = ny;
  o.cells_z = nz;
  o.length_x = 2.0;
  o.length_y = 3.0;
  o.height = 1.5;
  o.mountain_height = 0.0;
  o.mountain_spacing = 0.0;
  o.horizontal_growth = 1.0;
  o.vertical_grading = 1.0;
  TetMesh mesh = generate_mountain_mesh(o);
  mesh.boundary_faces.clear();
  mesh.boundary_tags.clear();
  return mesh;
}

bool on_box_side(const Point3& p) {
  const double tol = 1e-12;
  return std::abs(std::abs(p[0]) - 1.0) < tol || std::abs(std::abs(p[1]) - 1.5) < tol ||
         std::abs(p[2]) < tol || std::abs(p[2] - 1.5) < tol;
}

TEST(SurfaceAsBoundary, IsTheBoxSurfaceOrientedOutward) {
  TetMesh mesh = box_without_boundary(5, 4, 3);
  add_surface_as_boundary(mesh, 9);
  // Two triangles per cell square on each of the six sides.
  EXPECT_EQ(mesh.boundary_faces.size(), 2u * 2u * (5 * 4 + 5 * 3 + 4 * 3));
  ASSERT_EQ(mesh.boundary_tags.size(), mesh.boundary_faces.size());
  std::array<double, 3> normal_sum{};
  double x_flux = 0.0;  // the surface integral of x n_x: the volume (divergence theorem)
  for (std::size_t f = 0; f < mesh.boundary_faces.size(); ++f) {
    EXPECT_EQ(mesh.boundary_tags[f], 9);
    const Point3& a = mesh.nodes[mesh.boundary_faces[f][0]];
    const Point3& b = mesh.nodes[mesh.boundary_faces[f][1]];
    const Point3& c = mesh.nodes[mesh.boundary_faces[f][2]];
    for (const Point3* p : {&a, &b, &c}) EXPECT_TRUE(on_box_side(*p));
    const std::array<double, 3> u{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const std::array<double, 3> v{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const std::array<double, 3> n{0.5 * (u[1] * v[2] - u[2] * v[1]),
                                  0.5 * (u[2] * v[0] - u[0] * v[2]),
                                  0.5 * (u[0] * v[1] - u[1] * v[0])};
    for (int d = 0; d < 3; ++d) normal_sum[d] += n[d];
    x_flux += (a[0] + b[0] + c[0]) / 3.0 * n[0];
  }
  for (double s : normal_sum) EXPECT_NEAR(s, 0.0, 1e-12);
  EXPECT_NEAR(x_flux, 2.0 * 3.0 * 1.5, 1e-12);
}

TEST(SurfaceAsBoundary, LeavesGivenBoundaryTrianglesAlone) {
  TetMesh mesh = box_without_boundary(2, 2, 2);
  mesh.boundary_faces = {{0, 1, 2}};
  mesh.boundary_tags = {4};
  add_surface_as_boundary(mesh);
  ASSERT_EQ(mesh.boundary_faces.size(), 1u);
  EXPECT_EQ(mesh.boundary_tags[0], 4);
}

}  // namespace
}  // namespace foehn
