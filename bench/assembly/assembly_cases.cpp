#include "assembly_cases.hpp"

#include <cmath>

namespace foehn::bench {

AssemblyFields make_assembly_fields(const TetMesh& mesh, const Stream& stream) {
  AssemblyFields f;
  const std::size_t n = mesh.node_count();
  f.tensor_host.resize(9 * n);
  f.velocity_host.resize(3 * n);
  f.source_host.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = mesh.nodes[i][0], y = mesh.nodes[i][1], z = mesh.nodes[i][2];
    const double kh = 50.0 + 10.0 * std::sin(x * 1e-4), kv = 1.0 + z * 1e-3;
    const double k[9] = {kh,        0.1 * kh,  0.01 * kv, 0.1 * kh, kh,
                         0.02 * kv, 0.01 * kv, 0.02 * kv, kv};
    for (int c = 0; c < 9; ++c) f.tensor_host[9 * i + c] = k[c];
    f.velocity_host[3 * i + 0] = 10.0 + 1e-4 * z;
    f.velocity_host[3 * i + 1] = 0.5 * std::cos(y * 1e-4);
    f.velocity_host[3 * i + 2] = 0.1 * std::sin(x * 2e-4);
    f.source_host[i] = 1e-3 * std::cos(x * 1e-4) * std::exp(-z * 1e-4);
  }
  auto upload = [&](const std::vector<double>& host) {
    DeviceArray<double> device(host.size(), stream);
    device.copy_from_host_async(host, stream);
    return device;
  };
  f.tensor = upload(f.tensor_host);
  f.velocity = upload(f.velocity_host);
  f.source = upload(f.source_host);
  stream.synchronize();
  return f;
}

namespace {
fe::FieldRef device_ref(const DeviceArray<double>& a) {
  return fe::field_ref(a.data(), static_cast<std::int64_t>(a.size()));
}
}  // namespace

fe::DiffusionOperator diffusion_case(const AssemblyFields& f) {
  fe::DiffusionOperator op;
  op.tensor = device_ref(f.tensor);
  op.source = device_ref(f.source);
  return op;
}

fe::MomentumOperator momentum_case(const AssemblyFields& f) {
  fe::MomentumOperator op;
  op.density_over_dt = 1.0 / 5.0;  // rho = 1, dt = 5 s
  op.viscosity = 0.1;
  op.advecting_velocity = device_ref(f.velocity);
  return op;
}

fe::DiffusionOperator diffusion_case_host(const AssemblyFields& f) {
  fe::DiffusionOperator op = diffusion_case(f);
  op.tensor = fe::field_ref(f.tensor_host);
  op.source = fe::field_ref(f.source_host);
  return op;
}

fe::MomentumOperator momentum_case_host(const AssemblyFields& f) {
  fe::MomentumOperator op = momentum_case(f);
  op.advecting_velocity = fe::field_ref(f.velocity_host);
  return op;
}

double floor_bytes(std::int64_t tets, std::int64_t nodes, std::int64_t nnz, int field_components,
                   int block_rows, int block_cols, bool with_rhs) {
  const double e = static_cast<double>(tets), n = static_cast<double>(nodes),
               z = static_cast<double>(nnz);
  double bytes = 16.0 * e + 24.0 * n + 8.0 * field_components * n + 4.0 * z + 4.0 * (n + 1) +
                 8.0 * block_rows * block_cols * z;
  if (with_rhs) bytes += 8.0 * block_rows * n;
  return bytes;
}

double adjacency_bytes(std::int64_t tets, std::int64_t nodes) {
  return 16.0 * static_cast<double>(tets) + 4.0 * static_cast<double>(nodes + 1);
}

}  // namespace foehn::bench
