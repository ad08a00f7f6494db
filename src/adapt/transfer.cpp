#include "foehn/adapt/transfer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "foehn/adapt/transfer_functors.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/particles/mesh_transport.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/for_each.hpp"

namespace foehn::adapt {

namespace {

using particles::MeshFieldView;
using particles::MeshPoint;

// A uniform grid over the mesh's bounding box holding, per cell, a tet whose centroid lies in
// it (or, for an empty cell, the nearest such cell's tet in storage order): a start for each
// walk a few tets from its point.
class StartGrid {
 public:
  explicit StartGrid(const TetMesh& mesh) {
    Point3 high = mesh.nodes[0];
    low_ = high;
    for (const Point3& node : mesh.nodes)
      for (int c = 0; c < 3; ++c) {
        low_[c] = std::min(low_[c], node[c]);
        high[c] = std::max(high[c], node[c]);
      }
    // About two tets per cell, at most 2^22 cells, cells about as long as they are wide.
    const double cells = std::clamp(static_cast<double>(mesh.tets.size()) / 2, 1.0, 4194304.0);
    double volume = 1;
    for (int c = 0; c < 3; ++c) volume *= std::max(high[c] - low_[c], 1e-300);
    const double side = std::cbrt(volume / cells);
    for (int c = 0; c < 3; ++c) {
      const double extent = high[c] - low_[c];
      count_[c] = static_cast<int>(std::clamp(std::floor(extent / side), 1.0, 4096.0));
      inverse_width_[c] = extent > 0 ? count_[c] / extent : 0.0;
    }
    start_.assign(static_cast<std::size_t>(count_[0]) * count_[1] * count_[2], -1);
    for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
      Point3 centre{0, 0, 0};
      for (int k = 0; k < 4; ++k)
        for (int c = 0; c < 3; ++c) centre[c] += 0.25 * mesh.nodes[mesh.tets[t][k]][c];
      start_[cell(centre)] = static_cast<std::int32_t>(t);
    }
    // Empty cells take the last filled cell before them, the leading ones the first after.
    std::int32_t previous = -1;
    for (std::int32_t& tet : start_) {
      if (tet < 0)
        tet = previous;
      else
        previous = tet;
    }
    for (auto it = start_.rbegin(); it != start_.rend(); ++it) {
      if (*it < 0)
        *it = previous;
      else
        previous = *it;
    }
  }

  std::int32_t start_for(const Point3& p) const { return start_[cell(p)]; }

 private:
  std::size_t cell(const Point3& p) const {
    std::size_t index = 0;
    for (int c = 2; c >= 0; --c) {
      const double at = std::floor((p[c] - low_[c]) * inverse_width_[c]);
      const int i = static_cast<int>(std::clamp(at, 0.0, static_cast<double>(count_[c] - 1)));
      index = index * static_cast<std::size_t>(count_[c]) + static_cast<std::size_t>(i);
    }
    return index;
  }

  Point3 low_{};
  std::array<int, 3> count_{1, 1, 1};
  std::array<double, 3> inverse_width_{};
  std::vector<std::int32_t> start_;
};

// The tet where `p` is least outside (the largest smallest barycentric; the lowest index among
// equals), by a scan over every tet.
particles::MeshWalk scan_for_point(const MeshFieldView& view, const MeshPoint& p) {
  particles::MeshWalk best{};
  double best_score = -std::numeric_limits<double>::infinity();
  for (std::int32_t t = 0; t < view.tet_count; ++t) {
    double lambda[4];
    particles::barycentric_coordinates(view, t, p, lambda);
    const double score = lambda[particles::most_negative_barycentric(lambda)];
    if (score > best_score) {
      best_score = score;
      best.tet = t;
      std::copy(lambda, lambda + 4, best.lambda);
    }
  }
  best.outcome = best_score >= -particles::barycentric_tolerance
                     ? particles::WalkOutcome::found
                     : particles::WalkOutcome::left_domain;
  return best;
}

// The distance of a point with barycentric `lambda_k` < 0 from the face opposite node k of
// `tet`: -lambda_k / |grad lambda_k|.
double distance_outside(const MeshFieldView& view, std::int32_t tet, int k, double lambda_k) {
  const double* m = view.inverse_maps + 12 * static_cast<std::int64_t>(tet);
  double gradient[3];
  for (int c = 0; c < 3; ++c)
    gradient[c] = k == 0 ? -(m[3 + c] + m[6 + c] + m[9 + c]) : m[3 * k + c];
  return -lambda_k / std::sqrt(gradient[0] * gradient[0] + gradient[1] * gradient[1] +
                               gradient[2] * gradient[2]);
}

// Where the walks of a device run ended (walks_on_device), or nothing for the host's.
struct DeviceWalks {
  std::vector<std::int32_t> tets;
  std::vector<double> lambdas;  // 4 per point
  std::vector<std::uint8_t> found;
};

// The walks of every point from its start tet on the GPU: the same FOEHN_HD walk as the host's,
// compiled without FMA contraction, so the same tets and barycentrics.
DeviceWalks walks_on_device(const particles::MeshVelocityField& geometry,
                            std::span<const Point3> points, const StartGrid& starts,
                            const Stream& stream) {
  std::vector<double> coordinates(3 * points.size());
  std::vector<std::int32_t> start(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (int c = 0; c < 3; ++c) coordinates[3 * i + c] = points[i][c];
    start[i] = starts.start_for(points[i]);
  }
  const particles::DeviceMeshVelocityField device_geometry(geometry, stream);
  DeviceArray<double> device_points(coordinates.size(), stream), lambdas(4 * points.size(), stream);
  DeviceArray<std::int32_t> device_start(start.size(), stream), tets(points.size(), stream);
  DeviceArray<std::uint8_t> found(points.size(), stream);
  device_points.copy_from_host_async(std::span<const double>(coordinates), stream);
  device_start.copy_from_host_async(std::span<const std::int32_t>(start), stream);
  for_each(Placement::device(stream), points.size(),
           WalkFromStart{device_geometry.view(), device_points.data(), device_start.data(),
                         tets.data(), lambdas.data(), found.data()});
  return {tets.copy_to_host(stream), lambdas.copy_to_host(stream), found.copy_to_host(stream)};
}

PointLocations locate(const TetMesh& mesh, std::span<const Point3> points, const Stream* stream) {
  for (std::size_t i = 0; i < points.size(); ++i)
    if (!std::isfinite(points[i][0]) || !std::isfinite(points[i][1]) ||
        !std::isfinite(points[i][2]))
      fail(ErrorCategory::invalid_input, "adapt::locate_points: point ", i, " (", points[i][0],
           ", ", points[i][1], ", ", points[i][2], ") is not finite");
  // The particles' geometry: inverse maps and face neighbours, the mesh checked on the way.
  // Its velocity is not used.
  const particles::MeshVelocityField geometry(mesh, std::vector<double>(3 * mesh.nodes.size()));
  const MeshFieldView view = geometry.view();
  const StartGrid starts(mesh);
  const DeviceWalks device =
      stream != nullptr ? walks_on_device(geometry, points, starts, *stream) : DeviceWalks{};

  PointLocations at;
  at.tets.resize(points.size());
  at.weights.resize(points.size());
  std::size_t outside = 0, scanned = 0;
  double farthest = 0;
  const auto count = static_cast<std::int64_t>(points.size());
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : outside, scanned) \
    reduction(max : farthest)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto index = static_cast<std::size_t>(i);
    const Point3& x = points[index];
    const MeshPoint p{x[0], x[1], x[2]};
    particles::MeshWalk walk{};
    if (stream != nullptr) {
      walk.tet = device.tets[index];
      std::copy(device.lambdas.begin() + 4 * i, device.lambdas.begin() + 4 * i + 4, walk.lambda);
      walk.outcome =
          device.found[index] ? particles::WalkOutcome::found : particles::WalkOutcome::left_domain;
    } else {
      walk = particles::walk_to_point(view, p, starts.start_for(x));
    }
    if (walk.outcome != particles::WalkOutcome::found) {
      walk = scan_for_point(view, p);
      ++scanned;
    }
    std::array<double, 4>& w = at.weights[index];
    std::copy(walk.lambda, walk.lambda + 4, w.begin());
    if (walk.outcome != particles::WalkOutcome::found) {
      ++outside;
      const int k = particles::most_negative_barycentric(walk.lambda);
      farthest = std::max(farthest, distance_outside(view, walk.tet, k, walk.lambda[k]));
      double sum = 0;
      for (double& weight : w) sum += (weight = std::max(weight, 0.0));
      for (double& weight : w) weight /= sum;
    }
    at.tets[index] = walk.tet;
  }
  at.outside = outside;
  at.scanned = scanned;
  at.largest_outside_distance = farthest;
  return at;
}

}  // namespace

PointLocations locate_points(const TetMesh& mesh, std::span<const Point3> points) {
  return locate(mesh, points, nullptr);
}

PointLocations locate_points_on_device(const TetMesh& mesh, std::span<const Point3> points,
                                       const Stream& stream) {
  return locate(mesh, points, &stream);
}

std::vector<double> interpolate(const TetMesh& mesh, const PointLocations& at,
                                std::span<const double> field, int components) {
  if (components < 1)
    fail(ErrorCategory::invalid_input, "adapt::interpolate: ", components, " components");
  const auto width = static_cast<std::size_t>(components);
  if (field.size() != width * mesh.nodes.size())
    fail(ErrorCategory::invalid_input, "adapt::interpolate: ", field.size(), " values for ",
         mesh.nodes.size(), " nodes of ", components, " components");
  if (at.weights.size() != at.tets.size())
    fail(ErrorCategory::invalid_input, "adapt::interpolate: ", at.tets.size(), " tets for ",
         at.weights.size(), " weights");
  std::vector<double> values(width * at.tets.size(), 0.0);
  for (std::size_t i = 0; i < at.tets.size(); ++i) {
    const std::int32_t tet = at.tets[i];
    if (tet < 0 || static_cast<std::size_t>(tet) >= mesh.tets.size())
      fail(ErrorCategory::invalid_input, "adapt::interpolate: point ", i, " lies in tet ", tet,
           " of a mesh of ", mesh.tets.size());
    for (int k = 0; k < 4; ++k) {
      const std::size_t node =
          static_cast<std::size_t>(mesh.tets[static_cast<std::size_t>(tet)][k]);
      for (std::size_t c = 0; c < width; ++c)
        values[width * i + c] += at.weights[i][k] * field[width * node + c];
    }
  }
  return values;
}

double integral(const TetMesh& mesh, std::span<const double> field) {
  if (field.size() != mesh.nodes.size())
    fail(ErrorCategory::invalid_input, "adapt::integral: ", field.size(), " values for ",
         mesh.nodes.size(), " nodes");
  double sum = 0;
  for (const Tet& tet : mesh.tets) {
    double nodal = 0;
    for (int k = 0; k < 4; ++k) nodal += field[static_cast<std::size_t>(tet[k])];
    sum += std::fabs(signed_volume(mesh, tet)) * 0.25 * nodal;
  }
  return sum;
}

double conserve_integral(const TetMesh& mesh, std::vector<double>& field, double target_integral) {
  const double now = integral(mesh, field);
  if (now == 0 && target_integral == 0) return 1.0;
  const double factor = target_integral / now;
  if (!std::isfinite(factor) || !(factor > 0))
    fail(ErrorCategory::invalid_input, "adapt::conserve_integral: the field's integral ", now,
         " cannot be scaled to ", target_integral, " (factor ", factor, ")");
  for (double& value : field) value *= factor;
  return factor;
}

}  // namespace foehn::adapt
