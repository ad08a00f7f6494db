// The row-block gather of the CPU assembly: every built-in operator with every field set, on
// threads and block sizes that cut the mesh differently, bitwise equal to the serial reference
// loop; and the layout it runs on (each element's vertices listed exactly once, ascending
// elements within a block, the elements of several blocks computed ahead once).

#include <gtest/gtest.h>

#include <random>

#include "assembly_test_mesh.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/operator_list.hpp"
#include "foehn/mesh/reorder.hpp"

namespace foehn::fe {
namespace {

std::vector<double> random_values(std::size_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> value(0.5, 2.0);
  std::vector<double> v(count);
  for (double& x : v) x = value(generator);
  return v;
}

struct NodalFields {
  std::vector<double> scalar, vector, tensor;
  explicit NodalFields(std::size_t nodes)
      : scalar(random_values(nodes, 1)),
        vector(random_values(3 * nodes, 2)),
        tensor(random_values(9 * nodes, 3)) {}
};

template <class Op>
Op with_every_field(const NodalFields& f) {
  Op op{};
  op.for_each_field([&](const FieldRef& field, int components, const char*, bool) {
    // for_each_field hands out op's own members; op is a local, non-const object.
    const_cast<FieldRef&>(field) = components == 1   ? field_ref(f.scalar)
                                   : components == 3 ? field_ref(f.vector)
                                                     : field_ref(f.tensor);
  });
  return op;
}

template <class Op>
void expect_same_as_serial(const TetMesh& mesh, const NodalFields& fields,
                           const CpuAssemblyOptions& options) {
  const Op op = with_every_field<Op>(fields);
  const CpuAssembler serial(mesh, {.use_slot_map = options.use_slot_map});
  const CpuAssembler gathered(mesh, options);
  ASSERT_GT(gathered.row_block_layout().block_count(), 0);
  BlockCsrMatrix expected = serial.create_matrix<Op>(), got = gathered.create_matrix<Op>();
  std::vector<double> expected_rhs(mesh.node_count() * Op::block_rows);
  std::vector<double> got_rhs(expected_rhs.size(), std::nan(""));
  for (double& v : got.values) v = std::nan("");  // every value must be written
  serial.assemble(op, expected, expected_rhs);
  gathered.assemble(op, got, got_rhs);
  EXPECT_EQ(got.values, expected.values)
      << Op::name << " on " << options.threads << " threads, " << options.rows_per_block << " rows";
  EXPECT_EQ(got_rhs, expected_rhs) << Op::name;
}

class RowBlockGather : public ::testing::TestWithParam<CpuAssemblyOptions> {};

TEST_P(RowBlockGather, EveryOperatorIsBitwiseTheSerialLoop) {
  for (const bool shuffled : {false, true}) {
    TetMesh mesh = testing::small_mountain_mesh(8);
    if (shuffled) shuffle_numbering(mesh, 7);
    const NodalFields fields(mesh.node_count());
    [&]<class... Ops>(OperatorList<Ops...>) {
      (expect_same_as_serial<Ops>(mesh, fields, GetParam()), ...);
    }(BuiltinOperators{});
  }
}

INSTANTIATE_TEST_SUITE_P(
    ThreadsAndBlocks, RowBlockGather,
    ::testing::Values(CpuAssemblyOptions{.threads = 1, .row_blocks = true, .rows_per_block = 7},
                      CpuAssemblyOptions{.threads = 2, .rows_per_block = 16},
                      CpuAssemblyOptions{.use_slot_map = false, .threads = 3, .rows_per_block = 50},
                      CpuAssemblyOptions{.threads = 0, .row_blocks = true}));

TEST(RowBlockLayout, ListsEveryVertexOnceWithAscendingElementsPerBlock) {
  TetMesh mesh = testing::small_mountain_mesh(6);
  shuffle_numbering(mesh, 3);
  std::vector<std::int32_t> tets;
  for (const Tet& t : mesh.tets) tets.insert(tets.end(), t.begin(), t.end());
  const std::int64_t nodes = static_cast<std::int64_t>(mesh.node_count());
  const RowBlockLayout layout = build_row_block_layout(tets, nodes, 10);
  ASSERT_EQ(layout.block_count(), (nodes + 9) / 10);
  std::vector<int> listed(tets.size(), 0);  // per (element, vertex)
  std::vector<int> blocks_of(mesh.tet_count(), 0);
  for (std::int64_t b = 0; b < layout.block_count(); ++b)
    for (std::int64_t k = layout.entry_offsets[b]; k < layout.entry_offsets[b + 1]; ++k) {
      const std::int32_t e = layout.elements[k];
      if (k > layout.entry_offsets[b]) {
        EXPECT_LT(layout.elements[k - 1], e);
      }
      ASSERT_NE(layout.vertex_masks[k], 0);
      ++blocks_of[e];
      const std::int32_t at = layout.shared_index[k];
      if (at >= 0) {
        EXPECT_EQ(layout.shared_elements[at], e);
      }
      for (int l = 0; l < 4; ++l)
        if (layout.vertex_masks[k] & (1u << l)) {
          EXPECT_EQ(tets[e * 4 + l] / 10, b);
          ++listed[e * 4 + l];
        } else {
          EXPECT_NE(tets[e * 4 + l] / 10, b);
        }
    }
  for (int count : listed) EXPECT_EQ(count, 1);
  // Exactly the elements of several blocks are computed ahead, each once, in ascending order.
  std::vector<std::int32_t> expected_shared;
  for (std::int32_t e = 0; e < static_cast<std::int32_t>(blocks_of.size()); ++e)
    if (blocks_of[e] > 1) expected_shared.push_back(e);
  EXPECT_EQ(layout.shared_elements, expected_shared);
  EXPECT_GT(layout.shared_fraction(mesh.tet_count()), 0.0);
  // One block holding every row shares nothing.
  EXPECT_EQ(build_row_block_layout(tets, nodes, static_cast<std::int32_t>(nodes))
                .shared_fraction(mesh.tet_count()),
            0.0);
}

TEST(RowBlockLayout, ADegenerateElementIsNamedAsOnTheSerialLoop) {
  TetMesh mesh = testing::small_mountain_mesh(4);
  const Tet first = mesh.tets.front();
  mesh.tets.push_back({first[0], first[1], first[2], first[0]});  // flat: no volume
  const CpuAssembler gathered(mesh, {.threads = 2, .rows_per_block = 5});
  BlockCsrMatrix matrix = gathered.create_matrix<MassOperator>();
  try {
    gathered.assemble(MassOperator{}, matrix);
    FAIL() << "a degenerate tet was assembled";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tet " + std::to_string(mesh.tet_count() - 1)),
              std::string::npos)
        << e.what();
  }
}

TEST(RowBlockLayout, ImpossibleSettingsAreRejected) {
  const TetMesh mesh = testing::small_mountain_mesh(4);
  EXPECT_THROW(CpuAssembler(mesh, {.threads = -1}), Error);
  EXPECT_THROW(CpuAssembler(mesh, {.row_blocks = true, .rows_per_block = 0}), Error);
}

}  // namespace
}  // namespace foehn::fe
