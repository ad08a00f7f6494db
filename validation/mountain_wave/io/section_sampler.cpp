// SectionSampler: locating the sample points once, interpolating and gathering on every call.
// The HDF5 file is written in sections_file.cpp.
#include "io/section_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "foehn/runtime/error.hpp"
#include "io/collective.hpp"

namespace foehn::mountainwave {

namespace {

using Vec3 = std::array<double, 3>;

Vec3 minus(const Vec3& a, const Vec3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Vec3& a, const Vec3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Barycentric coordinates of `point` in the tet (p0, p1, p2, p3), by Cramer's rule on
// [p1 - p0, p2 - p0, p3 - p0] lambda = point - p0.
std::array<double, 4> barycentric(const Vec3& p0, const Vec3& p1, const Vec3& p2, const Vec3& p3,
                                  const Vec3& point) {
  const Vec3 e1 = minus(p1, p0), e2 = minus(p2, p0), e3 = minus(p3, p0), r = minus(point, p0);
  const double determinant = dot(e1, cross(e2, e3));
  const double l1 = dot(r, cross(e2, e3)) / determinant;
  const double l2 = dot(e1, cross(r, e3)) / determinant;
  const double l3 = dot(e1, cross(e2, r)) / determinant;
  return {1.0 - l1 - l2 - l3, l1, l2, l3};
}

void check_axis(const std::vector<double>& axis, const char* name, bool required) {
  if (axis.empty()) {
    if (required) fail(ErrorCategory::invalid_input, "SectionSampler: axis ", name, " is empty");
    return;
  }
  for (std::size_t i = 0; i < axis.size(); ++i) {
    if (!std::isfinite(axis[i]))
      fail(ErrorCategory::invalid_input, "SectionSampler: axis ", name, " has ", axis[i], " at ",
           i);
    if (i > 0 && !(axis[i] > axis[i - 1]))
      fail(ErrorCategory::invalid_input, "SectionSampler: axis ", name,
           " is not strictly increasing at ", i, " (", axis[i - 1], ", ", axis[i], ")");
  }
}

void check_grid(const SectionGrid& grid) {
  check_axis(grid.heights, "heights", false);
  check_axis(grid.x, "x", grid.has_horizontal());
  check_axis(grid.y, "y", grid.has_horizontal());
  check_axis(grid.section_z, "section_z", false);
  check_axis(grid.section_x, "section_x", grid.has_section());
  if (!std::isfinite(grid.section_y))
    fail(ErrorCategory::invalid_input, "SectionSampler: section_y is ", grid.section_y);
  const std::size_t points = grid.horizontal_points() + grid.section_points();
  if (points == 0)
    fail(ErrorCategory::invalid_input,
         "SectionSampler: the grid has no point (no heights and no section_z)");
  if (points > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    fail(ErrorCategory::invalid_input, "SectionSampler: ", points, " points are too many");
}

Vec3 point_of(const SectionGrid& grid, std::size_t index) {
  const std::size_t horizontal = grid.horizontal_points();
  if (index < horizontal) {
    const std::size_t nx = grid.x.size(), ny = grid.y.size();
    return {grid.x[index % nx], grid.y[(index / nx) % ny], grid.heights[index / (nx * ny)]};
  }
  const std::size_t i = index - horizontal, nx = grid.section_x.size();
  return {grid.section_x[i % nx], grid.section_y, grid.section_z[i / nx]};
}

// A uniform grid of buckets over the rank's bounding box; each bucket lists the tets whose
// (slightly widened) bounding boxes overlap it. About one bucket per tet.
class BucketGrid {
 public:
  BucketGrid(const TetMesh& mesh, double slack_fraction) {
    Vec3 low{}, high{};
    low.fill(std::numeric_limits<double>::max());
    high.fill(std::numeric_limits<double>::lowest());
    for (const Point3& p : mesh.nodes)
      for (int d = 0; d < 3; ++d) {
        low[d] = std::min(low[d], p[d]);
        high[d] = std::max(high[d], p[d]);
      }
    if (mesh.tets.empty()) return;
    double largest = 0.0;
    for (int d = 0; d < 3; ++d) largest = std::max(largest, high[d] - low[d]);
    slack_ = slack_fraction * std::max(largest, 1.0);
    double volume = 1.0;
    for (int d = 0; d < 3; ++d) {
      low_[d] = low[d] - slack_;
      high_[d] = high[d] + slack_;
      volume *= high_[d] - low_[d];
    }
    const double spacing = std::cbrt(volume / static_cast<double>(mesh.tets.size()));
    std::size_t buckets = 1;
    for (int d = 0; d < 3; ++d) {
      const double cells = std::ceil((high_[d] - low_[d]) / spacing);
      dims_[d] = static_cast<int>(std::clamp(cells, 1.0, 512.0));
      cell_[d] = (high_[d] - low_[d]) / dims_[d];
      buckets *= static_cast<std::size_t>(dims_[d]);
    }
    // Counting pass, then filling pass (CSR).
    first_.assign(buckets + 1, 0);
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<std::int32_t> next(first_.begin(), first_.end() - 1);
      if (pass == 1) tets_.resize(static_cast<std::size_t>(first_.back()));
      for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
        std::array<int, 3> from{}, to{};
        for (int d = 0; d < 3; ++d) {
          double tet_low = std::numeric_limits<double>::max(), tet_high = -tet_low;
          for (std::int32_t node : mesh.tets[t]) {
            tet_low = std::min(tet_low, mesh.nodes[static_cast<std::size_t>(node)][d]);
            tet_high = std::max(tet_high, mesh.nodes[static_cast<std::size_t>(node)][d]);
          }
          from[d] = cell_index(d, tet_low - slack_);
          to[d] = cell_index(d, tet_high + slack_);
        }
        for (int k = from[2]; k <= to[2]; ++k)
          for (int j = from[1]; j <= to[1]; ++j)
            for (int i = from[0]; i <= to[0]; ++i) {
              const std::size_t b = bucket(i, j, k);
              if (pass == 0)
                ++first_[b + 1];
              else
                tets_[static_cast<std::size_t>(next[b]++)] = static_cast<std::int32_t>(t);
            }
      }
      if (pass == 0)
        for (std::size_t b = 0; b < buckets; ++b) first_[b + 1] += first_[b];
    }
  }

  // The tets that may hold `point` (none when it lies outside the widened bounding box).
  std::span<const std::int32_t> candidates(const Vec3& point) const {
    if (first_.empty()) return {};
    for (int d = 0; d < 3; ++d)
      if (!(point[d] >= low_[d] && point[d] <= high_[d])) return {};
    const std::size_t b =
        bucket(cell_index(0, point[0]), cell_index(1, point[1]), cell_index(2, point[2]));
    return std::span<const std::int32_t>(tets_).subspan(
        static_cast<std::size_t>(first_[b]), static_cast<std::size_t>(first_[b + 1] - first_[b]));
  }

 private:
  int cell_index(int d, double value) const {
    const double cell = std::floor((value - low_[d]) / cell_[d]);
    return static_cast<int>(std::clamp(cell, 0.0, static_cast<double>(dims_[d] - 1)));
  }
  std::size_t bucket(int i, int j, int k) const {
    return (static_cast<std::size_t>(k) * static_cast<std::size_t>(dims_[1]) +
            static_cast<std::size_t>(j)) *
               static_cast<std::size_t>(dims_[0]) +
           static_cast<std::size_t>(i);
  }

  Vec3 low_{}, high_{}, cell_{};
  std::array<int, 3> dims_{1, 1, 1};
  double slack_ = 0.0;
  std::vector<std::int32_t> first_;  // bucket b's tets: tets_[first_[b] .. first_[b+1])
  std::vector<std::int32_t> tets_;
};

}  // namespace

std::vector<double> evenly_spaced(double first, double last, double step) {
  if (!std::isfinite(first) || !std::isfinite(last) || !std::isfinite(step) || !(step > 0.0) ||
      last < first)
    fail(ErrorCategory::invalid_input, "evenly_spaced: need finite first <= last and step > 0 (",
         first, ", ", last, ", ", step, ")");
  const double steps = std::floor((last - first) / step + 1e-9);
  if (steps > 1e8) fail(ErrorCategory::invalid_input, "evenly_spaced: ", steps, " steps");
  std::vector<double> values(static_cast<std::size_t>(steps) + 1);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = first + static_cast<double>(i) * step;
  return values;
}

std::size_t SectionGrid::horizontal_points() const noexcept {
  return heights.size() * y.size() * x.size();
}

std::size_t SectionGrid::section_points() const noexcept {
  return section_z.empty() ? 0 : section_z.size() * section_x.size();
}

SectionSampler::SectionSampler(const petsc::DistributedMesh& mesh, SectionGrid grid,
                               double tolerance)
    : grid_(std::move(grid)) {
  const detail::CommShape shape = detail::comm_shape(mesh.comm, "SectionSampler");
  comm_ = mesh.comm;
  rank_ = shape.rank;
  size_ = shape.size;
  local_nodes_ = mesh.local_nodes();
  detail::run_collectively(comm_, [&] {
    check_grid(grid_);
    if (!(tolerance >= 0.0 && tolerance < 0.1))
      fail(ErrorCategory::invalid_input, "SectionSampler: tolerance ", tolerance,
           " outside [0, 0.1)");
    if (mesh.local.nodes.size() != static_cast<std::size_t>(local_nodes_))
      fail(ErrorCategory::invalid_input, "SectionSampler: the distributed mesh has ",
           mesh.local.nodes.size(), " coordinates for ", local_nodes_, " local nodes");
  });

  // Each rank's best tet for every point it finds: the one the point is deepest inside.
  const std::size_t count = point_count();
  const BucketGrid buckets(mesh.local, 1e-9);
  std::vector<TakenPoint> found;
  std::vector<int> lowest_rank(count, size_);
  for (std::size_t p = 0; p < count; ++p) {
    const Vec3 point = point_of(grid_, p);
    double best_depth = -tolerance;
    TakenPoint best{};
    bool any = false;
    for (const std::int32_t t : buckets.candidates(point)) {
      const Tet& tet = mesh.local.tets[static_cast<std::size_t>(t)];
      const auto& n = mesh.local.nodes;
      const std::array<double, 4> weights = barycentric(
          n[static_cast<std::size_t>(tet[0])], n[static_cast<std::size_t>(tet[1])],
          n[static_cast<std::size_t>(tet[2])], n[static_cast<std::size_t>(tet[3])], point);
      const double depth = *std::min_element(weights.begin(), weights.end());
      if (depth >= best_depth) {  // NaN (a degenerate tet) never compares true
        best_depth = depth;
        best = {static_cast<std::int32_t>(p), tet, weights};
        any = true;
      }
    }
    if (any) {
      found.push_back(best);
      lowest_rank[p] = rank_;
    }
  }

  // Points on faces between ranks: the lowest rank that found one takes it.
  FOEHN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, lowest_rank.data(),
                                   detail::to_mpi_count(static_cast<std::int64_t>(count), "points"),
                                   MPI_INT, MPI_MIN, comm_));
  points_found_ =
      std::count_if(lowest_rank.begin(), lowest_rank.end(), [this](int r) { return r < size_; });
  for (const TakenPoint& p : found)
    if (lowest_rank[static_cast<std::size_t>(p.point)] == rank_) points_.push_back(p);

  // Rank 0 learns which points each rank takes, to put the values in place on every sample.
  const int taken = static_cast<int>(points_.size());
  std::vector<std::int32_t> indices;
  indices.reserve(points_.size());
  for (const TakenPoint& p : points_) indices.push_back(p.point);
  if (rank_ == 0) taken_counts_.assign(static_cast<std::size_t>(size_), 0);
  FOEHN_MPI_CHECK(MPI_Gather(&taken, 1, MPI_INT, taken_counts_.data(), 1, MPI_INT, 0, comm_));
  if (rank_ == 0) {
    taken_displacements_ = detail::displacements_of(taken_counts_, "points");
    taken_points_.resize(static_cast<std::size_t>(points_found_));
  }
  FOEHN_MPI_CHECK(MPI_Gatherv(indices.data(), taken, MPI_INT32_T, taken_points_.data(),
                                 taken_counts_.data(), taken_displacements_.data(), MPI_INT32_T, 0,
                                 comm_));
}

SectionValues SectionSampler::sample(std::span<const double> local_field, int components,
                                     int component) const {
  detail::run_collectively(comm_, [&] {
    if (components < 1 || component < 0 || component >= components)
      fail(ErrorCategory::invalid_input, "SectionSampler::sample: component ", component, " of ",
           components);
    const std::size_t expected =
        static_cast<std::size_t>(local_nodes_) * static_cast<std::size_t>(components);
    if (local_field.size() != expected)
      fail(ErrorCategory::invalid_input, "SectionSampler::sample: the field has ",
           local_field.size(), " values, expected ", local_nodes_, " local nodes x ", components);
  });
  std::vector<double> mine(points_.size());
  const auto c = static_cast<std::size_t>(components);
  const auto k = static_cast<std::size_t>(component);
  for (std::size_t i = 0; i < points_.size(); ++i) {
    double value = 0.0;
    for (int v = 0; v < 4; ++v)
      value +=
          points_[i].weights[static_cast<std::size_t>(v)] *
          local_field[static_cast<std::size_t>(points_[i].nodes[static_cast<std::size_t>(v)]) * c +
                      k];
    mine[i] = value;
  }
  std::vector<double> gathered(rank_ == 0 ? taken_points_.size() : 0);
  FOEHN_MPI_CHECK(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE,
                                 gathered.data(), taken_counts_.data(), taken_displacements_.data(),
                                 MPI_DOUBLE, 0, comm_));
  SectionValues values;
  if (rank_ != 0) return values;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::size_t horizontal = grid_.horizontal_points();
  values.horizontal.assign(horizontal, nan);
  values.section.assign(grid_.section_points(), nan);
  for (std::size_t i = 0; i < gathered.size(); ++i) {
    const auto p = static_cast<std::size_t>(taken_points_[i]);
    if (p < horizontal)
      values.horizontal[p] = gathered[i];
    else
      values.section[p - horizontal] = gathered[i];
  }
  return values;
}

}  // namespace foehn::mountainwave
