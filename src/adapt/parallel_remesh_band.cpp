#include "parallel_remesh_band.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "foehn/fe/eigen_sym3.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/partition.hpp"
#include "foehn/mesh/topology.hpp"
#include "parallel_remesh_band.hpp"

namespace foehn::adapt::detail {

BoundaryLookup::BoundaryLookup(const TetMesh& mesh) : sorted_(mesh.boundary_faces.size()) {
  for (std::size_t f = 0; f < sorted_.size(); ++f)
    sorted_[f] = {sorted_triangle(mesh.boundary_faces[f]), static_cast<std::int32_t>(f)};
  std::sort(sorted_.begin(), sorted_.end());
}

std::int32_t BoundaryLookup::find(const Triangle& corners) const {
  const Triangle key = sorted_triangle(corners);
  const auto it =
      std::lower_bound(sorted_.begin(), sorted_.end(), std::pair<Triangle, std::int32_t>{key, -1});
  return it != sorted_.end() && it->first == key ? it->second : -1;
}

std::vector<char> band_around(const TetMesh& mesh, std::vector<char> near, int layers) {
  std::vector<char> in_band(mesh.tets.size(), 0);
  for (int layer = 0; layer < layers; ++layer) {
    for (std::size_t t = 0; t < mesh.tets.size(); ++t)
      if (!in_band[t])
        in_band[t] = std::any_of(mesh.tets[t].begin(), mesh.tets[t].end(), [&](std::int32_t n) {
          return near[static_cast<std::size_t>(n)] != 0;
        });
    for (std::size_t t = 0; t < mesh.tets.size(); ++t)
      if (in_band[t])
        for (const std::int32_t n : mesh.tets[t]) near[static_cast<std::size_t>(n)] = 1;
  }
  return in_band;
}

Band cut_band(const Merged& whole, const std::vector<char>& in_band,
              const std::vector<char>& to_free, std::int32_t interface_tag) {
  const TetMesh& mesh = whole.mesh;
  Band band;
  std::vector<std::int32_t> band_node(mesh.nodes.size(), -1);
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    if (!in_band[t]) continue;
    Tet local{};
    for (int k = 0; k < 4; ++k) {
      const auto n = static_cast<std::size_t>(mesh.tets[t][k]);
      if (band_node[n] < 0) {
        band_node[n] = static_cast<std::int32_t>(band.whole_node.size());
        band.whole_node.push_back(static_cast<std::int32_t>(n));
        band.mesh.nodes.push_back(mesh.nodes[n]);
        band.metric.push_back(whole.metric[n]);
        band.frozen.push_back(whole.frozen_throughout[n]);
        band.to_free.push_back(to_free[n]);
      }
      local[k] = band_node[n];
    }
    band.mesh.tets.push_back(local);
    if (!mesh.tet_tags.empty()) band.mesh.tet_tags.push_back(mesh.tet_tags[t]);
  }
  // A face of one band tet only is a boundary triangle of the whole mesh or the band's surface.
  const BoundaryLookup boundary(mesh);
  band.boundary_face_taken.assign(mesh.boundary_faces.size(), 0);
  const std::vector<std::int32_t> across =
      tet_face_neighbours(band.mesh, "adapt::remesh_in_parallel");
  for (std::size_t slot = 0; slot < across.size(); ++slot) {
    if (across[slot] >= 0) continue;
    const Tet& tet = band.mesh.tets[slot / 4];
    const auto& corners = tet_local_faces[slot % 4];
    const Triangle face{tet[corners[0]], tet[corners[1]], tet[corners[2]]};
    const auto whole_of = [&](std::int32_t b) {
      return band.whole_node[static_cast<std::size_t>(b)];
    };
    const std::int32_t found =
        boundary.find({whole_of(face[0]), whole_of(face[1]), whole_of(face[2])});
    if (found >= 0) {
      const auto f = static_cast<std::size_t>(found);
      const Triangle& given = mesh.boundary_faces[f];
      band.mesh.boundary_faces.push_back({band_node[static_cast<std::size_t>(given[0])],
                                          band_node[static_cast<std::size_t>(given[1])],
                                          band_node[static_cast<std::size_t>(given[2])]});
      band.mesh.boundary_tags.push_back(mesh.boundary_tags[f]);
      band.boundary_face_taken[f] = 1;
    } else {
      band.mesh.boundary_faces.push_back(face);
      band.mesh.boundary_tags.push_back(interface_tag);
    }
  }
  return band;
}

std::vector<std::int32_t> split_band(const Band& band, int most, const ParallelRemeshOptions& o,
                                     int* parts) {
  const std::size_t enough = o.parts > 0 ? 1 : std::max<std::size_t>(o.min_tets_per_part, 1);
  *parts = static_cast<int>(
      std::clamp<std::size_t>(band.mesh.tets.size() / enough, 1, static_cast<std::size_t>(most)));
  if (*parts == 1) return std::vector<std::int32_t>(band.mesh.tets.size(), 0);
  PartitionOptions partition;
  if (o.balance_work) partition.element_weights = work_weights(band.mesh, band.metric);
  return partition_elements_avoiding(band.mesh, *parts, band.to_free, o.avoid_cost, partition);
}

Merged splice_band(const Merged& whole, const std::vector<char>& in_band, const Band& band,
                   const Merged& remeshed) {
  const TetMesh& mesh = whole.mesh;
  std::vector<std::int32_t> new_of_whole(mesh.nodes.size(), -1);
  for (std::size_t t = 0; t < mesh.tets.size(); ++t)
    if (!in_band[t])
      for (const std::int32_t n : mesh.tets[t]) new_of_whole[static_cast<std::size_t>(n)] = 0;
  for (std::size_t b = 0; b < band.whole_node.size(); ++b)
    if (remeshed.node_of_input[b] >= 0)
      new_of_whole[static_cast<std::size_t>(band.whole_node[b])] = 0;
  Merged spliced;
  std::vector<char> frozen_now(mesh.nodes.size(), 0);
  for (std::size_t b = 0; b < band.whole_node.size(); ++b)
    if (remeshed.node_of_input[b] >= 0)
      frozen_now[static_cast<std::size_t>(band.whole_node[b])] =
          remeshed.frozen_throughout[static_cast<std::size_t>(remeshed.node_of_input[b])];
  for (std::size_t n = 0; n < mesh.nodes.size(); ++n) {
    if (new_of_whole[n] < 0) continue;
    new_of_whole[n] = static_cast<std::int32_t>(spliced.mesh.nodes.size());
    spliced.mesh.nodes.push_back(mesh.nodes[n]);
    spliced.metric.push_back(whole.metric[n]);
    spliced.frozen_throughout.push_back(frozen_now[n]);
  }
  // The remeshed band's nodes: kept ones back to the whole mesh's, new ones appended.
  std::vector<std::int32_t> spliced_of(remeshed.mesh.nodes.size(), -1);
  for (std::size_t b = 0; b < band.whole_node.size(); ++b)
    if (remeshed.node_of_input[b] >= 0)
      spliced_of[static_cast<std::size_t>(remeshed.node_of_input[b])] =
          new_of_whole[static_cast<std::size_t>(band.whole_node[b])];
  for (std::size_t m = 0; m < spliced_of.size(); ++m) {
    if (spliced_of[m] >= 0) continue;
    spliced_of[m] = static_cast<std::int32_t>(spliced.mesh.nodes.size());
    spliced.mesh.nodes.push_back(remeshed.mesh.nodes[m]);
    spliced.metric.push_back(remeshed.metric[m]);
    spliced.frozen_throughout.push_back(remeshed.frozen_throughout[m]);
  }
  const auto map_tet = [](const Tet& tet, const std::vector<std::int32_t>& to) {
    return Tet{to[static_cast<std::size_t>(tet[0])], to[static_cast<std::size_t>(tet[1])],
               to[static_cast<std::size_t>(tet[2])], to[static_cast<std::size_t>(tet[3])]};
  };
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    if (in_band[t]) continue;
    spliced.mesh.tets.push_back(map_tet(mesh.tets[t], new_of_whole));
    if (!mesh.tet_tags.empty()) spliced.mesh.tet_tags.push_back(mesh.tet_tags[t]);
  }
  for (const Tet& tet : remeshed.mesh.tets) spliced.mesh.tets.push_back(map_tet(tet, spliced_of));
  spliced.mesh.tet_tags.insert(spliced.mesh.tet_tags.end(), remeshed.mesh.tet_tags.begin(),
                               remeshed.mesh.tet_tags.end());
  const auto map_face = [](const Triangle& face, const std::vector<std::int32_t>& to) {
    return Triangle{to[static_cast<std::size_t>(face[0])], to[static_cast<std::size_t>(face[1])],
                    to[static_cast<std::size_t>(face[2])]};
  };
  for (std::size_t f = 0; f < mesh.boundary_faces.size(); ++f) {
    if (band.boundary_face_taken[f]) continue;
    spliced.mesh.boundary_faces.push_back(map_face(mesh.boundary_faces[f], new_of_whole));
    spliced.mesh.boundary_tags.push_back(mesh.boundary_tags[f]);
  }
  for (std::size_t f = 0; f < remeshed.mesh.boundary_faces.size(); ++f) {
    spliced.mesh.boundary_faces.push_back(map_face(remeshed.mesh.boundary_faces[f], spliced_of));
    spliced.mesh.boundary_tags.push_back(remeshed.mesh.boundary_tags[f]);
  }
  return spliced;
}

std::vector<std::int32_t> work_weights(const TetMesh& mesh, std::span<const Sym3<double>> metric) {
  std::vector<double> root_det(metric.size());
  for (std::size_t n = 0; n < metric.size(); ++n) {
    const Sym3<double>& m = metric[n];
    const double det = m.xx * (m.yy * m.zz - m.yz * m.yz) - m.xy * (m.xy * m.zz - m.yz * m.xz) +
                       m.xz * (m.xy * m.yz - m.yy * m.xz);
    root_det[n] = det > 0 ? std::sqrt(det) : 0;
  }
  const double unit_tet = std::sqrt(2.0) / 12;
  std::vector<std::int32_t> weights(mesh.tets.size());
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    const Tet& tet = mesh.tets[t];
    double density = 0;
    for (const std::int32_t n : tet) density += 0.25 * root_det[static_cast<std::size_t>(n)];
    const double asked = std::fabs(signed_volume(mesh, tet)) * density / unit_tet;
    weights[t] = static_cast<std::int32_t>(std::lround(4 + 4 * std::min(asked, 2.5e5)));
  }
  return weights;
}

double smallest_requested_edge(std::span<const Sym3<double>> metric) {
  double largest = 0;
  for (const Sym3<double>& m : metric) {
    fe::EigenSym3<double> e;
    if (fe::eigen_sym3_jacobi(m, e)) largest = std::max(largest, e.values[2]);
  }
  return largest > 0 ? 1 / std::sqrt(largest) : 0;
}

std::size_t flag_short_edges(const TetMesh& mesh, double bound, std::vector<char>& flags,
                             double* shortest) {
  *shortest = std::numeric_limits<double>::infinity();
  std::vector<char> on_boundary(mesh.nodes.size(), 0);
  for (const Triangle& face : mesh.boundary_faces)
    for (const std::int32_t n : face) on_boundary[static_cast<std::size_t>(n)] = 1;
  std::size_t flagged = 0;
  const auto flag = [&](std::size_t n) {
    flagged += flags[n] == 0;
    flags[n] = 1;
  };
  for (const Tet& tet : mesh.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        const auto p = static_cast<std::size_t>(tet[a]), q = static_cast<std::size_t>(tet[b]);
        if (on_boundary[p] && on_boundary[q]) continue;
        const Point3& x = mesh.nodes[p];
        const Point3& y = mesh.nodes[q];
        const double length = std::hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]);
        *shortest = std::min(*shortest, length);
        if (length >= bound) continue;
        flag(p);
        flag(q);
      }
  return flagged;
}

}  // namespace foehn::adapt::detail
