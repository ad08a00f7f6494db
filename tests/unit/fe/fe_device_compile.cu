// The element math compiled for the device: one kernel per routine, one thread per element
// (or per small system), built with -Xptxas -v so the build log shows registers and spills of
// every kernel. Where a GPU exists, each kernel's output is compared with the same element
// function run on the host (the CPU reference); without one the tests skip, and the file still
// proves that every integral, solver and eigen routine compiles for the device.
//
// Layouts are Fluidity's: connectivity conn[4 e + i], coordinates and vectors x[3 node + d],
// tensors t[9 node + 3 r + c]; element matrices are stored row-major per element.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "foehn/fe/element_math.hpp"
#include "foehn/runtime/cuda_check.hpp"
#include "foehn/runtime/device_array.hpp"
#include "support/gpu_test.hpp"

namespace foehn::fe {
namespace {

// ---- element bodies, shared by the kernels and the host reference ------------------------
template <int M, int N>
FOEHN_HD void store(double* out, const Mat<M, N>& m) {
  FOEHN_UNROLL
  for (int i = 0; i < M; ++i) {
    FOEHN_UNROLL
    for (int j = 0; j < N; ++j) out[i * N + j] = m.a[i][j];
  }
}
template <int N>
FOEHN_HD void store(double* out, const Vec<N>& v) {
  FOEHN_UNROLL
  for (int i = 0; i < N; ++i) out[i] = v.v[i];
}

struct MeshView {
  const double* x;       // coordinates, 3 per node
  const int* conn;       // 4 per element
  const double* scalar;  // 1 per node (density, source, ...)
  const double* vector;  // 3 per node (velocity)
  const double* tensor;  // 9 per node (diffusivity)
};

// Mass with a P1 density at the 11 points of the published rule, and its lumped form.
FOEHN_HD int mass_element(int e, const MeshView& m, double* out) {
  constexpr TetVertexEdge11 rule{};
  const Array<int, 4> nodes = ele_nodes<4>(m.conn, e);
  const Mat<4, 3> x = ele_val_vector<4, 3>(m.x, nodes);
  AffineGeometry<3, 4, 11> g;
  const TransformStatus status = transform_to_physical(x, rule, g);
  const Mat<11, 4> n = p1_shape_at_quad(rule);
  const Vec<11> rho = ele_val_at_quad(n, ele_val<4>(m.scalar, nodes));
  store(out + 20 * e, shape_shape(n, g.detwei, rho));
  store(out + 20 * e + 16, lumped_mass(n, g.detwei, rho));
  return static_cast<int>(status);
}

// Anisotropic diffusion with a P1 tensor interpolated lazily at each point (affine path): the
// paper's hottest routine, dshape_tensor_dshape.
FOEHN_HD int diffusion_element(int e, const MeshView& m, double* out) {
  constexpr TetVertexEdge11 rule{};
  const Array<int, 4> nodes = ele_nodes<4>(m.conn, e);
  const Mat<4, 3> x = ele_val_vector<4, 3>(m.x, nodes);
  AffineGeometry<3, 4, 11> g;
  const TransformStatus status = transform_to_physical(x, rule, g);
  const Mat<11, 4> n = p1_shape_at_quad(rule);
  const Array<Mat<3, 3>, 4> k = ele_val_tensor<4>(m.tensor, nodes);
  store(out + 16 * e, dshape_tensor_dshape(g, [&](int gi) { return interpolate(n, gi, k); }));
  return static_cast<int>(status);
}

// The same through the general (per-point Jacobian) path.
FOEHN_HD int diffusion_general_element(int e, const MeshView& m, double* out) {
  constexpr TetVertexEdge11 rule{};
  const Array<int, 4> nodes = ele_nodes<4>(m.conn, e);
  const Mat<4, 3> x = ele_val_vector<4, 3>(m.x, nodes);
  QuadGeometry<3, 4, 11> g;
  const TransformStatus status = transform_to_physical(x, rule, g);
  const Mat<11, 4> n = p1_shape_at_quad(rule);
  const Array<Mat<3, 3>, 4> k = ele_val_tensor<4>(m.tensor, nodes);
  store(out + 16 * e, dshape_tensor_dshape(g, [&](int gi) { return interpolate(n, gi, k); }));
  return static_cast<int>(status);
}

// Advection u·∇ with a P1 velocity (Keast, degree 4).
FOEHN_HD int advection_element(int e, const MeshView& m, double* out) {
  constexpr TetKeast11 rule{};
  const Array<int, 4> nodes = ele_nodes<4>(m.conn, e);
  const Mat<4, 3> x = ele_val_vector<4, 3>(m.x, nodes);
  AffineGeometry<3, 4, 11> g;
  const TransformStatus status = transform_to_physical(x, rule, g);
  const Mat<11, 4> n = p1_shape_at_quad(rule);
  const Mat<4, 3> u = ele_val_vector<4, 3>(m.vector, nodes);
  store(out + 16 * e, shape_vector_dot_dshape(
                          n, [&](int gi) { return interpolate(n, gi, u); }, g));
  return static_cast<int>(status);
}

// Gradient/divergence coupling (Loc x Loc x Dim) and its block forms.
FOEHN_HD int coupling_element(int e, const MeshView& m, double* out) {
  constexpr TetStroud4 rule{};
  const Array<int, 4> nodes = ele_nodes<4>(m.conn, e);
  const Mat<4, 3> x = ele_val_vector<4, 3>(m.x, nodes);
  AffineGeometry<3, 4, 4> g;
  const TransformStatus status = transform_to_physical(x, rule, g);
  const Mat<4, 4> n = p1_shape_at_quad(rule);
  const ShapeDShape<4, 3> c = shape_dshape(n, g);
  store(out + 96 * e, gradient_block(c));
  store(out + 96 * e + 48, divergence_block(c));
  return static_cast<int>(status);
}

// Weighted Laplacian and load vector.
FOEHN_HD int laplacian_rhs_element(int e, const MeshView& m, double* out) {
  constexpr TetStroud4 rule{};
  const Array<int, 4> nodes = ele_nodes<4>(m.conn, e);
  const Mat<4, 3> x = ele_val_vector<4, 3>(m.x, nodes);
  AffineGeometry<3, 4, 4> g;
  const TransformStatus status = transform_to_physical(x, rule, g);
  const Mat<4, 4> n = p1_shape_at_quad(rule);
  const Vec<4> c = ele_val_at_quad(n, ele_val<4>(m.scalar, nodes));
  store(out + 20 * e, dshape_dot_dshape(g, c));
  store(out + 20 * e + 16, shape_rhs(n, g.detwei, c));
  return static_cast<int>(status);
}

// Momentum-like 12 x 12 block operator: (rho/dt) M⊗I + mu L⊗I + mu ∇uᵀ blocks.
FOEHN_HD int momentum_element(int e, const MeshView& m, double* out) {
  constexpr TetStroud4 rule{};
  const Array<int, 4> nodes = ele_nodes<4>(m.conn, e);
  const Mat<4, 3> x = ele_val_vector<4, 3>(m.x, nodes);
  AffineGeometry<3, 4, 4> g;
  const TransformStatus status = transform_to_physical(x, rule, g);
  const Mat<4, 4> n = p1_shape_at_quad(rule);
  const double mu = 0.3, rho_dt = 20.0;
  BlockMat<4, 3> a = momentum_blocks(shape_shape(n, g.detwei), rho_dt, dshape_dot_dshape(g), mu);
  a += dshape_transpose_dshape_blocks(g, uniform(mu));
  store(out + 144 * e, a);
  return static_cast<int>(status);
}

// Pressure-stabilisation length scales (6x6 solve + eigen), both eigen methods.
template <EigenMethod Method>
FOEHN_HD int edge_lengths_element(int e, const MeshView& m, double* out) {
  const Mat<4, 3> x = ele_val_vector<4, 3>(m.x, ele_nodes<4>(m.conn, e));
  ElementLengthScales<> s{};
  const bool ok = edge_lengths<Method>(x, s);
  store(out + 6 * e, s.length);
  out[6 * e + 3] = s.metric.xx;
  out[6 * e + 4] = s.metric.yy;
  out[6 * e + 5] = s.metric.xy;
  return ok ? 0 : 1;
}

// solve_gauss<6> on system i: a[36 i ...] row-major, b[6 i ...].
FOEHN_HD int solve6_system(int i, const double* a, const double* b, double* out) {
  Mat<6, 6> am;
  Vec<6> bv;
  FOEHN_UNROLL
  for (int r = 0; r < 6; ++r) {
    bv.v[r] = b[6 * i + r];
    FOEHN_UNROLL
    for (int c = 0; c < 6; ++c) am.a[r][c] = a[36 * i + 6 * r + c];
  }
  Vec<6> x;
  const bool ok = solve_gauss(am, bv, x);
  store(out + 6 * i, x);
  return ok ? 0 : 1;
}

// Symmetric 3x3 eigen-decomposition of s[6 i ...] = (xx, yy, zz, xy, xz, yz).
template <bool Jacobi>
FOEHN_HD int eigen_system(int i, const double* s, double* out) {
  const Sym3<> a{s[6 * i], s[6 * i + 1], s[6 * i + 2], s[6 * i + 3], s[6 * i + 4], s[6 * i + 5]};
  EigenSym3<> r{};
  const bool ok = Jacobi ? eigen_sym3_jacobi(a, r) : eigen_sym3_analytic(a, r);
  store(out + 12 * i, r.values);
  store(out + 12 * i + 3, r.vectors);
  return ok ? 0 : 1;
}

// ---- kernels: one thread per element / system ----------------------------------------------
#define FOEHN_FE_ELEMENT_KERNEL(name, body)                                                     \
  __global__ void name(MeshView m, int count, double* __restrict__ out, int* __restrict__ st) { \
    const int e = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);                      \
    if (e < count) st[e] = body(e, m, out);                                                     \
  }
FOEHN_FE_ELEMENT_KERNEL(mass_kernel, mass_element)
FOEHN_FE_ELEMENT_KERNEL(diffusion_kernel, diffusion_element)
FOEHN_FE_ELEMENT_KERNEL(diffusion_general_kernel, diffusion_general_element)
FOEHN_FE_ELEMENT_KERNEL(advection_kernel, advection_element)
FOEHN_FE_ELEMENT_KERNEL(coupling_kernel, coupling_element)
FOEHN_FE_ELEMENT_KERNEL(laplacian_rhs_kernel, laplacian_rhs_element)
FOEHN_FE_ELEMENT_KERNEL(momentum_kernel, momentum_element)
FOEHN_FE_ELEMENT_KERNEL(edge_lengths_analytic_kernel, edge_lengths_element<EigenMethod::analytic>)
FOEHN_FE_ELEMENT_KERNEL(edge_lengths_jacobi_kernel, edge_lengths_element<EigenMethod::jacobi>)
#undef FOEHN_FE_ELEMENT_KERNEL

__global__ void solve6_kernel(const double* __restrict__ a, const double* __restrict__ b, int count,
                              double* __restrict__ out, int* __restrict__ st) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) st[i] = solve6_system(i, a, b, out);
}
template <bool Jacobi>
__global__ void eigen_kernel(const double* __restrict__ s, int count, double* __restrict__ out,
                             int* __restrict__ st) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) st[i] = eigen_system<Jacobi>(i, s, out);
}

// ---- host side -----------------------------------------------------------------------------
constexpr int kElements = 2000;

struct HostMesh {
  std::vector<double> x, scalar, vector, tensor;
  std::vector<int> conn;
};

// Each element has its own 4 nodes (the gathers do not care about sharing).
HostMesh make_mesh() {
  std::mt19937_64 rng(61);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  HostMesh h;
  for (int e = 0; e < kElements; ++e) {
    const double ox = 10.0 * u(rng), oy = 10.0 * u(rng), oz = 10.0 * u(rng);
    double p[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (auto& q : p)
      for (double& c : q) c += 0.2 * u(rng);  // perturbed reference tet: valid, not degenerate
    for (int i = 0; i < 4; ++i) {
      h.conn.push_back(4 * e + i);
      h.x.insert(h.x.end(), {ox + p[i][0], oy + p[i][1], oz + p[i][2]});
      h.scalar.push_back(1.0 + 0.5 * u(rng));
      h.vector.insert(h.vector.end(), {u(rng), u(rng), u(rng)});
      const double a = 1.0 + 0.3 * u(rng), b = 0.2 * u(rng), c = 0.5 + 0.2 * u(rng);
      h.tensor.insert(h.tensor.end(), {a, b, 0.0, b, c, 0.1, 0.0, 0.1, 2.0});
    }
  }
  return h;
}

template <typename T>
DeviceArray<T> upload(const std::vector<T>& host, const Stream& stream) {
  DeviceArray<T> d(host.size(), stream);
  d.copy_from_host_async(host, stream);
  return d;
}

void expect_close(const std::vector<double>& gpu, const std::vector<double>& cpu, double rel,
                  const char* what) {
  ASSERT_EQ(gpu.size(), cpu.size());
  double scale = 0.0;
  for (double v : cpu) scale = std::fmax(scale, std::fabs(v));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i)
    if (!(std::fabs(gpu[i] - cpu[i]) <= rel * scale)) ++bad;
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << cpu.size() << " values differ";
}

using ElementBody = int (*)(int, const MeshView&, double*);
using ElementKernel = void (*)(MeshView, int, double*, int*);

void check_element_kernel(ElementKernel kernel, ElementBody body, int values_per_element,
                          const char* name) {
  Stream stream;
  const HostMesh h = make_mesh();
  const auto dx = upload(h.x, stream);
  const auto dconn = upload(h.conn, stream);
  const auto ds = upload(h.scalar, stream);
  const auto dv = upload(h.vector, stream);
  const auto dt = upload(h.tensor, stream);
  DeviceArray<double> dout(static_cast<std::size_t>(values_per_element) * kElements, stream);
  DeviceArray<int> dst(kElements, stream);
  const MeshView dm{dx.data(), dconn.data(), ds.data(), dv.data(), dt.data()};
  kernel<<<(kElements + 127) / 128, 128, 0, native(stream)>>>(dm, kElements, dout.data(),
                                                              dst.data());
  FOEHN_CUDA_CHECK_LAUNCH(name);
  const std::vector<double> gpu = dout.copy_to_host(stream);
  const std::vector<int> gpu_status = dst.copy_to_host(stream);

  std::vector<double> cpu(gpu.size());
  const MeshView hm{h.x.data(), h.conn.data(), h.scalar.data(), h.vector.data(), h.tensor.data()};
  for (int e = 0; e < kElements; ++e) {
    EXPECT_EQ(gpu_status[static_cast<std::size_t>(e)], body(e, hm, cpu.data())) << name;
  }
  expect_close(gpu, cpu, 1e-12, name);
}

TEST(FeDevice, ElementIntegralsMatchTheCpu) {
  FOEHN_SKIP_WITHOUT_GPU();
  check_element_kernel(mass_kernel, mass_element, 20, "mass_kernel");
  check_element_kernel(diffusion_kernel, diffusion_element, 16, "diffusion_kernel");
  check_element_kernel(diffusion_general_kernel, diffusion_general_element, 16,
                       "diffusion_general_kernel");
  check_element_kernel(advection_kernel, advection_element, 16, "advection_kernel");
  check_element_kernel(coupling_kernel, coupling_element, 96, "coupling_kernel");
  check_element_kernel(laplacian_rhs_kernel, laplacian_rhs_element, 20, "laplacian_rhs_kernel");
  check_element_kernel(momentum_kernel, momentum_element, 144, "momentum_kernel");
}

TEST(FeDevice, EdgeLengthsMatchTheCpu) {
  FOEHN_SKIP_WITHOUT_GPU();
  check_element_kernel(edge_lengths_analytic_kernel, edge_lengths_element<EigenMethod::analytic>, 6,
                       "edge_lengths_analytic_kernel");
  check_element_kernel(edge_lengths_jacobi_kernel, edge_lengths_element<EigenMethod::jacobi>, 6,
                       "edge_lengths_jacobi_kernel");
}

TEST(FeDevice, SmallSolversMatchTheCpu) {
  FOEHN_SKIP_WITHOUT_GPU();
  constexpr int n = 4096;
  std::mt19937_64 rng(62);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(36 * n), b(6 * n), s(6 * n);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 36; ++k) a[36 * i + k] = u(rng) + (k % 7 == 0 ? 4.0 : 0.0);
    for (int k = 0; k < 6; ++k) b[6 * i + k] = u(rng);
    for (int k = 0; k < 6; ++k) s[6 * i + k] = u(rng);
  }
  for (int k = 0; k < 6; ++k) a[36 * 7 + 6 * 3 + k] = 0.0;  // system 7 is singular
  Stream stream;
  const auto da = upload(a, stream);
  const auto db = upload(b, stream);
  const auto ds = upload(s, stream);
  DeviceArray<double> dx(6 * n, stream), de(12 * n, stream);
  DeviceArray<int> dst(n, stream), dste(n, stream);
  const int blocks = (n + 127) / 128;
  solve6_kernel<<<blocks, 128, 0, native(stream)>>>(da.data(), db.data(), n, dx.data(), dst.data());
  FOEHN_CUDA_CHECK_LAUNCH("solve6_kernel");
  std::vector<double> x_gpu = dx.copy_to_host(stream);
  const std::vector<int> st_gpu = dst.copy_to_host(stream);
  std::vector<double> x_cpu(6 * n);
  for (int i = 0; i < n; ++i) {
    const int st = solve6_system(i, a.data(), b.data(), x_cpu.data());
    EXPECT_EQ(st_gpu[static_cast<std::size_t>(i)], st);
    if (st != 0)
      for (int k = 0; k < 6; ++k) x_cpu[6 * i + k] = x_gpu[6 * i + k] = 0.0;  // unspecified
  }
  EXPECT_EQ(st_gpu[7], 1);
  expect_close(x_gpu, x_cpu, 1e-11, "solve6_kernel");

  for (bool jacobi : {true, false}) {
    if (jacobi) {
      eigen_kernel<true><<<blocks, 128, 0, native(stream)>>>(ds.data(), n, de.data(), dste.data());
    } else {
      eigen_kernel<false><<<blocks, 128, 0, native(stream)>>>(ds.data(), n, de.data(), dste.data());
    }
    FOEHN_CUDA_CHECK_LAUNCH("eigen_kernel");
    const std::vector<double> e_gpu = de.copy_to_host(stream);
    std::vector<double> e_cpu(12 * n);
    for (int i = 0; i < n; ++i) {
      const int st = jacobi ? eigen_system<true>(i, s.data(), e_cpu.data())
                            : eigen_system<false>(i, s.data(), e_cpu.data());
      EXPECT_EQ(st, 0);
      // Compare eigenvalues exactly-ish, eigenvectors up to sign (column by column).
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(e_gpu[12 * i + k], e_cpu[12 * i + k], 1e-12);
        double d = 0.0;
        for (int r = 0; r < 3; ++r)
          d += e_gpu[12 * i + 3 + 3 * r + k] * e_cpu[12 * i + 3 + 3 * r + k];
        EXPECT_NEAR(std::fabs(d), 1.0, 1e-9) << "system " << i;
      }
    }
  }
}

}  // namespace
}  // namespace foehn::fe
