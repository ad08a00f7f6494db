#pragma once
// The metric pipeline of metric.hpp as pointwise FOEHN_HD functors over nodes, for for_each
// (foehn/runtime/for_each.hpp): the same arithmetic as the host functions, run where the arrays
// live. Symmetric tensors are stored as 6 doubles per node (xx, yy, zz, xy, xz, yz). A node whose
// result cannot be formed gets NaN entries, which the caller counts (Sym6NotFinite).
#include <cstddef>
#include <cstdint>

#include "foehn/adapt/metric_math.hpp"

namespace foehn::adapt {

FOEHN_HD void store_sym6(const Sym3<double>& m, double* out) {
  out[0] = m.xx, out[1] = m.yy, out[2] = m.zz, out[3] = m.xy, out[4] = m.xz, out[5] = m.yz;
}

FOEHN_HD Sym3<double> load_sym6(const double* in) {
  return {in[0], in[1], in[2], in[3], in[4], in[5]};
}

FOEHN_HD void store_nan6(double* out) {
  const double nan = __builtin_nan("");
  for (int k = 0; k < 6; ++k) out[k] = nan;
}

// The least-squares quadratic through node i's patch (fit_quadratic): its Hessian.
struct HessianAt {
  const double* coordinates;    // 3 per node
  const double* field;          // 1 per node
  const std::int64_t* offsets;  // node_count + 1
  const std::int32_t* patch;    // the patches' nodes
  double* hessians;             // 6 per node
  FOEHN_HD void operator()(std::size_t i) const {
    const std::int64_t begin = offsets[i];
    const auto point = [&](int j, double d[3], double& r) {
      const auto m = static_cast<std::size_t>(patch[begin + j]);
      for (int c = 0; c < 3; ++c) d[c] = coordinates[3 * m + c] - coordinates[3 * i + c];
      r = field[m] - field[i];
    };
    QuadraticFit<double> fit{};
    if (fit_quadratic<double>(static_cast<int>(offsets[i + 1] - begin), point, fit))
      store_sym6(fit.hessian, hessians + 6 * i);
    else
      store_nan6(hessians + 6 * i);
  }
};

// Node i's share of the L^p normalisation: volume_i det|H_i|^(p/(2p+3)) (summed by the caller)
// and its weight det|H_i|^(-1/(2p+3)).
struct LpTermsAt {
  const double* hessians;
  const double* volumes;
  double norm_order;
  double* densities;
  double* weights;
  FOEHN_HD void operator()(std::size_t i) const {
    const double d = fe::determinant(load_sym6(hessians + 6 * i).to_mat());
    const double abs_det = d < 0 ? -d : d;
    densities[i] = volumes[i] * lp_density(abs_det, norm_order);
    weights[i] = lp_weight(abs_det, norm_order);
  }
};

// The bounded metric of node i's Hessian at scale global_scale * weight_i.
struct MetricAt {
  const double* hessians;
  const double* weights;
  double global_scale;
  MetricBounds<double> bounds;
  double* metrics;
  FOEHN_HD void operator()(std::size_t i) const {
    Sym3<double> m{};
    if (metric_from_hessian(load_sym6(hessians + 6 * i), global_scale * weights[i], bounds, m))
      store_sym6(m, metrics + 6 * i);
    else
      store_nan6(metrics + 6 * i);
  }
};

// The intersection of two metrics at node i (intersect_metrics), into `out` (may be `a`).
struct IntersectAt {
  const double* a;
  const double* b;
  double* out;
  FOEHN_HD void operator()(std::size_t i) const {
    Sym3<double> m{};
    if (intersect_metrics(load_sym6(a + 6 * i), load_sym6(b + 6 * i), m))
      store_sym6(m, out + 6 * i);
    else
      store_nan6(out + 6 * i);
  }
};

// Node i's share of the complexity: volume_i sqrt(det M_i).
struct ComplexityTermAt {
  const double* metrics;
  const double* volumes;
  double* terms;
  FOEHN_HD void operator()(std::size_t i) const {
    const double d = fe::determinant(load_sym6(metrics + 6 * i).to_mat());
    terms[i] = volumes[i] * sqrt(d > 0 ? d : 0.0);
  }
};

// True where node i's tensor has a NaN or infinite entry.
struct Sym6NotFinite {
  const double* values;
  FOEHN_HD bool operator()(std::size_t i) const {
    for (int k = 0; k < 6; ++k) {
      const double v = values[6 * i + k];
      if (!(v - v == 0)) return true;
    }
    return false;
  }
};

}  // namespace foehn::adapt
