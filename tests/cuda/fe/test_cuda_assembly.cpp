// Every operator x strategy on the GPU against the CPU reference, on a mountain mesh and on a
// shuffled, jittered one: relative Frobenius difference <= 1e-14 for the atomic strategies,
// bitwise equality for `deterministic` and `row_gather`. Outputs are poisoned with NaN before every
// run, so an entry the GPU forgets to write cannot pass.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "cuda_fe_test_support.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/fe/operator_list.hpp"
#include "support/gpu_test.hpp"

namespace foehn::fe {
namespace {

// The nodal fields the operators take, as references into host or device memory.
struct FieldSet {
  FieldRef scalar, vector, tensor, source, force;
};

struct OperatorCase {
  const char* name;
  // Assembles on both backends and compares; returns nothing, asserts inside.
  std::function<void(const FieldSet& host, const FieldSet& device)> run;
};

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0, r = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    d += (a[k] - b[k]) * (a[k] - b[k]);
    r += b[k] * b[k];
  }
  return r > 0.0 ? std::sqrt(d / r) : std::sqrt(d);
}

class CudaAssemblyVsCpu
    : public ::testing::TestWithParam<std::tuple<const char*, AssemblyStrategy>> {
 protected:
  template <class Op>
  void compare(const Op& host_op, const Op& device_op) {
    constexpr int R = Op::block_rows;
    BlockCsrMatrix expected = cpu_->create_matrix<Op>();
    std::vector<double> expected_rhs(mesh_.node_count() * R);
    cpu_->assemble(host_op, expected, expected_rhs);

    DeviceBlockCsrMatrix matrix = gpu_->create_matrix<Op>();
    DeviceArray<double> rhs(expected_rhs.size(), *stream_);
    for (int run = 0; run < 2; ++run) {  // twice: repeatability, and no state left behind
      poison_async(matrix.values, *stream_);
      poison_async(rhs, *stream_);
      gpu_->assemble(device_op, matrix, &rhs, strategy_);
      const BlockCsrMatrix got = gpu_->download(matrix, cpu_->pattern());
      const std::vector<double> got_rhs = rhs.copy_to_host(*stream_);
      for (double v : got.values) ASSERT_TRUE(std::isfinite(v)) << Op::name << ": unwritten entry";
      if (bitwise_equal_to_cpu(strategy_)) {
        EXPECT_EQ(got.values, expected.values) << Op::name << ": not bitwise identical";
        EXPECT_EQ(got_rhs, expected_rhs) << Op::name << ": RHS not bitwise identical";
      } else {
        EXPECT_LE(relative_frobenius_difference(got, expected), 1e-14) << Op::name;
        EXPECT_LE(relative_difference(got_rhs, expected_rhs), 1e-14) << Op::name << " RHS";
      }
    }
  }

  void SetUp() override {
    FOEHN_SKIP_WITHOUT_GPU();
    const std::string mesh_kind = std::get<0>(GetParam());
    strategy_ = std::get<1>(GetParam());
    mesh_ = mesh_kind == std::string("mountain") ? testing::mountain_test_mesh()
                                                 : testing::random_test_mesh(2026);
    stream_ = std::make_unique<Stream>();
    cpu_ = std::make_unique<CpuAssembler>(mesh_);
    gpu_ = std::make_unique<CudaAssembler>(mesh_, *stream_);
    const std::size_t n = mesh_.node_count();
    host_fields_ = {testing::random_field(n, 1, 0.5, 2.0), testing::random_field(3 * n, 2, -10, 10),
                    testing::random_field(9 * n, 3, -1, 3), testing::random_field(n, 4),
                    testing::random_field(3 * n, 5)};
    for (const auto& f : host_fields_) device_fields_.push_back(testing::to_device(f, *stream_));
  }

  FieldSet host_set() const {
    return {field_ref(host_fields_[0]), field_ref(host_fields_[1]), field_ref(host_fields_[2]),
            field_ref(host_fields_[3]), field_ref(host_fields_[4])};
  }
  FieldSet device_set() const {
    FieldSet s;
    FieldRef* refs[] = {&s.scalar, &s.vector, &s.tensor, &s.source, &s.force};
    for (int k = 0; k < 5; ++k)
      *refs[k] =
          field_ref(device_fields_[k].data(), static_cast<std::int64_t>(device_fields_[k].size()));
    return s;
  }

  TetMesh mesh_;
  AssemblyStrategy strategy_{};
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<CpuAssembler> cpu_;
  std::unique_ptr<CudaAssembler> gpu_;
  std::vector<std::vector<double>> host_fields_;
  std::vector<DeviceArray<double>> device_fields_;
};

TEST_P(CudaAssemblyVsCpu, EveryOperatorMatchesTheCpuReference) {
  const FieldSet h = host_set(), d = device_set();
  auto mass = [](const FieldSet& f) {
    MassOperator op;
    op.scale = 1.5;
    op.coefficient = f.scalar;
    op.source = f.source;
    return op;
  };
  compare(mass(h), mass(d));
  compare(MassOperator{}, MassOperator{});  // no fields at all
  auto advection = [](const FieldSet& f) {
    AdvectionOperator op;
    op.velocity = f.vector;
    op.source = f.source;
    return op;
  };
  compare(advection(h), advection(d));
  auto diffusion = [](const FieldSet& f) {
    DiffusionOperator op;
    op.tensor = f.tensor;
    op.source = f.source;
    return op;
  };
  compare(diffusion(h), diffusion(d));
  compare(DiffusionOperator{}, DiffusionOperator{});  // the Laplacian
  auto advection_diffusion = [](const FieldSet& f) {
    AdvectionDiffusionOperator op;
    op.inverse_dt = 0.3;
    op.theta = 0.6;
    op.velocity = f.vector;
    op.tensor = f.tensor;
    op.source = f.source;
    return op;
  };
  compare(advection_diffusion(h), advection_diffusion(d));
  compare(StabilisationOperator{0.7}, StabilisationOperator{0.7});
  compare(DivergenceOperator{}, DivergenceOperator{});
  auto momentum = [](const FieldSet& f) {
    MomentumOperator op;
    op.density_over_dt = 2.0;
    op.viscosity = 0.3;
    op.advecting_velocity = f.vector;
    op.body_force = f.force;
    return op;
  };
  compare(momentum(h), momentum(d));
  compare(MomentumOperator{}, MomentumOperator{});
}

// Every operator of the built-in list (a new one is covered without touching this test) with
// every field it declares set, picked by its components: scalar, vector or tensor.
template <class Op>
Op with_every_field(const FieldSet& fields) {
  Op op{};
  op.for_each_field([&](const FieldRef& field, int components, const char*, bool) {
    // for_each_field hands out op's own members; op is a local, non-const object.
    const_cast<FieldRef&>(field) = components == 1   ? fields.scalar
                                   : components == 3 ? fields.vector
                                                     : fields.tensor;
  });
  return op;
}

TEST_P(CudaAssemblyVsCpu, EveryListedOperatorWithEveryFieldMatchesTheCpuReference) {
  const FieldSet h = host_set(), d = device_set();
  [&]<class... Ops>(OperatorList<Ops...>) {
    (compare(with_every_field<Ops>(h), with_every_field<Ops>(d)), ...);
  }(BuiltinOperators{});
}

TEST_P(CudaAssemblyVsCpu, WrongFieldSizesAreRejectedBeforeAnyKernel) {
  DiffusionOperator op;
  op.tensor =
      field_ref(device_fields_[1].data(), static_cast<std::int64_t>(device_fields_[1].size()));
  DeviceBlockCsrMatrix matrix = gpu_->create_matrix<DiffusionOperator>();
  EXPECT_THROW(gpu_->assemble(op, matrix, nullptr, strategy_), Error);
  DeviceBlockCsrMatrix vector_matrix = gpu_->create_matrix<MomentumOperator>();
  EXPECT_THROW(gpu_->assemble(DiffusionOperator{}, vector_matrix, nullptr, strategy_), Error);
}

// A fan of tets around one apex over a 60 x 60 grid: the apex's row has 3601 slots, too many
// for a 3x3 block row in shared memory (259 KiB), within the opt-in limit for 1x3 blocks
// (86 KiB) and within the default 48 KiB for scalars, so row_gather runs all three of its
// launch shapes; each is bitwise the CPU reference.
TetMesh fan_mesh(int n) {
  TetMesh mesh;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) mesh.nodes.push_back({double(i), double(j), 0.0});
  const auto apex = static_cast<std::int32_t>(mesh.nodes.size());
  mesh.nodes.push_back({0.5 * (n - 1), 0.5 * (n - 1), 10.0});
  auto at = [n](int i, int j) { return static_cast<std::int32_t>(j * n + i); };
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {  // counter-clockwise triangles seen from the apex side
      mesh.tets.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1), apex});
      mesh.tets.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1), apex});
    }
  return mesh;
}

template <class Op>
void expect_row_gather_bitwise(const TetMesh& mesh, const Op& op) {
  Stream stream;
  CpuAssembler cpu(mesh);
  CudaAssembler gpu(mesh, stream);
  BlockCsrMatrix expected = cpu.create_matrix<Op>();
  std::vector<double> expected_rhs(mesh.node_count() * Op::block_rows);
  cpu.assemble(op, expected, expected_rhs);
  DeviceBlockCsrMatrix matrix = gpu.create_matrix<Op>();
  DeviceArray<double> rhs(expected_rhs.size(), stream);
  poison_async(matrix.values, stream);
  poison_async(rhs, stream);
  gpu.assemble(op, matrix, &rhs, AssemblyStrategy::row_gather);
  EXPECT_EQ(gpu.download(matrix, cpu.pattern()).values, expected.values) << Op::name;
  EXPECT_EQ(rhs.copy_to_host(stream), expected_rhs) << Op::name;
}

TEST(CudaRowGather, RowsTooLongForSharedMemoryStillMatchTheCpuBitwise) {
  FOEHN_SKIP_WITHOUT_GPU();
  const TetMesh mesh = fan_mesh(60);
  expect_row_gather_bitwise(mesh, MassOperator{});
  expect_row_gather_bitwise(mesh, DivergenceOperator{});
  expect_row_gather_bitwise(mesh, MomentumOperator{});
}

INSTANTIATE_TEST_SUITE_P(MeshesAndStrategies, CudaAssemblyVsCpu,
                         ::testing::Combine(::testing::Values("mountain", "random"),
                                            ::testing::ValuesIn(all_assembly_strategies)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" +
                                  std::string(to_string(std::get<1>(info.param)));
                         });

}  // namespace
}  // namespace foehn::fe
