#pragma once
// The analytic metric the remesh tests ask Mmg for, and what they measure it with: horizontal
// edges of `horizontal` m; vertical ones of 150 m at z = 3 km, growing to 2 km 1.5 km away.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "foehn/adapt/metric_math.hpp"
#include "foehn/adapt/remesh.hpp"
#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/tet_mesh.hpp"

#define SKIP_WITHOUT_MMG()                    \
  if (!::foehn::adapt::remeshing_available()) \
  GTEST_SKIP() << "this build has no Mmg (FOEHN_MMG_DIR)"

namespace foehn::testing {

struct LayerMetric {
  double horizontal = 4000.0;

  adapt::Sym3<double> at(const Point3& p) const {
    const double distance = std::fabs(p[2] - 3000.0);
    const double hz = 150.0 + 1850.0 * std::min(1.0, distance / 1500.0);
    return {1 / (horizontal * horizontal), 1 / (horizontal * horizontal), 1 / (hz * hz), 0, 0, 0};
  }

  std::vector<adapt::Sym3<double>> at_nodes(const TetMesh& mesh) const {
    std::vector<adapt::Sym3<double>> metric(mesh.node_count());
    for (std::size_t n = 0; n < metric.size(); ++n) metric[n] = at(mesh.nodes[n]);
    return metric;
  }

  // The edge's length in the metric, by Simpson's rule along it.
  double length(const Point3& a, const Point3& b) const {
    const Point3 e = b - a;
    double sum = 0;
    const double weights[3] = {1, 4, 1};
    for (int k = 0; k < 3; ++k) {
      const double s = 0.5 * k;
      const adapt::Sym3<double> m = at({a[0] + s * e[0], a[1] + s * e[1], a[2] + s * e[2]});
      sum += weights[k] * std::sqrt(m.xx * e[0] * e[0] + m.yy * e[1] * e[1] + m.zz * e[2] * e[2]);
    }
    return sum / 6;
  }
};

// Every edge once, as sorted node pairs.
inline std::set<std::pair<std::int32_t, std::int32_t>> edges_of(const TetMesh& mesh) {
  std::set<std::pair<std::int32_t, std::int32_t>> edges;
  for (const Tet& tet : mesh.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b)
        edges.insert({std::min(tet[a], tet[b]), std::max(tet[a], tet[b])});
  return edges;
}

}  // namespace foehn::testing
