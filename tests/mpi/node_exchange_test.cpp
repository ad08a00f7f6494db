// NodeExchange and gather_to_input_numbering at 1, 2 and 4 ranks: values are functions of the
// input node number, so every rank can check any entry it holds.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/petsc/node_exchange.hpp"
#include "mpi/support/mpi_test_support.hpp"

namespace foehn::petsc {
namespace {

using foehn::testing::reduce_all;
using foehn::testing::world;
using foehn::testing::world_rank;
using foehn::testing::world_size;

double value_of(std::int64_t input_node, int component) {
  return 1000.0 * static_cast<double>(input_node) + component + 0.25;
}

class NodeExchangeTest : public ::testing::TestWithParam<int> {
 protected:
  static void SetUpTestSuite() {
    input_ = new TetMesh(foehn::testing::make_small_mountain());
    mesh_ = new DistributedMesh(distribute_mesh(world(), world_rank() == 0 ? input_ : nullptr));
  }
  static void TearDownTestSuite() {
    delete mesh_;
    delete input_;
  }
  int components() const { return GetParam(); }

  // value_of for every local node (owned and ghost).
  std::vector<double> expected_local() const {
    std::vector<double> values;
    for (std::int64_t n : mesh_->input_node_of_local)
      for (int c = 0; c < components(); ++c) values.push_back(value_of(n, c));
    return values;
  }

  static TetMesh* input_;
  static DistributedMesh* mesh_;
};

TetMesh* NodeExchangeTest::input_ = nullptr;
DistributedMesh* NodeExchangeTest::mesh_ = nullptr;

TEST_P(NodeExchangeTest, VectorHasPetscLayout) {
  const NodeExchange exchange(*mesh_, components());
  const UniqueVec vec = exchange.create_vector();
  PetscInt start = 0, end = 0, size = 0, block = 0;
  ASSERT_EQ(VecGetOwnershipRange(vec.get(), &start, &end), 0);
  ASSERT_EQ(VecGetSize(vec.get(), &size), 0);
  ASSERT_EQ(VecGetBlockSize(vec.get(), &block), 0);
  EXPECT_EQ(start, mesh_->first_owned_global * components());
  EXPECT_EQ(end - start, mesh_->owned_nodes * components());
  EXPECT_EQ(size, mesh_->global_nodes * components());
  EXPECT_EQ(block, components());
  EXPECT_EQ(exchange.local_value_count(),
            static_cast<std::size_t>(mesh_->local_nodes() * components()));
}

TEST_P(NodeExchangeTest, InsertThenGlobalToLocalRoundTrips) {
  const NodeExchange exchange(*mesh_, components());
  const UniqueVec vec = exchange.create_vector();
  std::vector<double> local = expected_local();
  // Ghost values must not reach the Vec under insert: poison them.
  for (std::size_t i = exchange.owned_value_count(); i < local.size(); ++i)
    local[i] = std::numeric_limits<double>::quiet_NaN();
  exchange.local_to_global(local, vec.get(), ExchangeMode::insert);

  // The Vec's entry of global node g is the value of its input node.
  const PetscScalar* entries = nullptr;
  ASSERT_EQ(VecGetArrayRead(vec.get(), &entries), 0);
  for (std::size_t l = 0; l < static_cast<std::size_t>(mesh_->owned_nodes); ++l)
    for (int c = 0; c < components(); ++c)
      EXPECT_EQ(entries[l * static_cast<std::size_t>(components()) + static_cast<std::size_t>(c)],
                value_of(mesh_->input_node_of_local[l], c));
  ASSERT_EQ(VecRestoreArrayRead(vec.get(), &entries), 0);

  std::vector<double> back(exchange.local_value_count(), -1.0);
  exchange.global_to_local(vec.get(), back);
  EXPECT_EQ(back, expected_local());
}

TEST_P(NodeExchangeTest, AddSumsOverTheRanksSharingANode) {
  const NodeExchange exchange(*mesh_, components());
  const UniqueVec vec = exchange.create_vector();  // zeroed
  const std::vector<double> ones(exchange.local_value_count(), 1.0);
  exchange.local_to_global(ones, vec.get(), ExchangeMode::add);

  std::vector<std::int32_t> sharing(input_->node_count(), 0);
  for (std::int64_t n : mesh_->input_node_of_local) sharing[static_cast<std::size_t>(n)] = 1;
  sharing = reduce_all(sharing, MPI_SUM);

  std::vector<double> sums(exchange.local_value_count());
  exchange.global_to_local(vec.get(), sums);
  for (std::size_t l = 0; l < static_cast<std::size_t>(mesh_->local_nodes()); ++l)
    for (int c = 0; c < components(); ++c)
      EXPECT_EQ(sums[l * static_cast<std::size_t>(components()) + static_cast<std::size_t>(c)],
                sharing[static_cast<std::size_t>(mesh_->input_node_of_local[l])])
          << "local node " << l;
  if (mesh_->size > 1) {
    EXPECT_GT(*std::max_element(sharing.begin(), sharing.end()), 1);
  }

  // add accumulates: a second pass doubles the sums.
  exchange.local_to_global(ones, vec.get(), ExchangeMode::add);
  std::vector<double> doubled(exchange.local_value_count());
  exchange.global_to_local(vec.get(), doubled);
  for (std::size_t i = 0; i < sums.size(); ++i) EXPECT_EQ(doubled[i], 2.0 * sums[i]);
}

TEST_P(NodeExchangeTest, GatherReturnsTheInputNumbering) {
  const NodeExchange exchange(*mesh_, components());
  const UniqueVec vec = exchange.create_vector();
  const std::vector<double> local = expected_local();
  exchange.local_to_global(local, vec.get(), ExchangeMode::insert);

  const std::vector<double> from_vec = gather_to_input_numbering(*mesh_, vec.get(), components());
  const std::vector<double> from_local = gather_to_input_numbering(*mesh_, local, components());
  const std::vector<double> from_owned = gather_to_input_numbering(
      *mesh_, std::span<const double>(local).first(exchange.owned_value_count()), components());
  if (world_rank() != 0) {
    EXPECT_TRUE(from_vec.empty());
    EXPECT_TRUE(from_local.empty());
    return;
  }
  ASSERT_EQ(from_vec.size(), input_->node_count() * static_cast<std::size_t>(components()));
  for (std::size_t n = 0; n < input_->node_count(); ++n)
    for (int c = 0; c < components(); ++c)
      EXPECT_EQ(from_vec[n * static_cast<std::size_t>(components()) + static_cast<std::size_t>(c)],
                value_of(static_cast<std::int64_t>(n), c));
  EXPECT_EQ(from_local, from_vec);
  EXPECT_EQ(from_owned, from_vec);
}

TEST_P(NodeExchangeTest, ExchangeCanBeMoved) {
  NodeExchange first(*mesh_, components());
  NodeExchange second = std::move(first);
  NodeExchange third(*mesh_, 1);
  third = std::move(second);
  const UniqueVec vec = third.create_vector();
  std::vector<double> local = expected_local();
  third.local_to_global(local, vec.get(), ExchangeMode::insert);
  std::vector<double> back(local.size());
  third.global_to_local(vec.get(), back);
  EXPECT_EQ(back, local);
}

INSTANTIATE_TEST_SUITE_P(Components, NodeExchangeTest, ::testing::Values(1, 3),
                         [](const auto& info) { return foehn::detail::concat("c", info.param); });

// A wrong size on one rank only is reported on every rank (nobody is left in the scatter).
TEST(NodeExchangeErrors, WrongLocalSizeOnOneRankThrowsEverywhere) {
  const TetMesh input = foehn::testing::make_small_box();
  const DistributedMesh mesh = distribute_mesh(world(), world_rank() == 0 ? &input : nullptr);
  const NodeExchange exchange(mesh, 2);
  const UniqueVec vec = exchange.create_vector();
  const int last = world_size() - 1;
  std::vector<double> local(exchange.local_value_count() + (world_rank() == last ? 1 : 0));
  for (auto mode : {ExchangeMode::insert, ExchangeMode::add}) {
    const auto error =
        foehn::testing::error_of([&] { exchange.local_to_global(local, vec.get(), mode); });
    EXPECT_TRUE(error.thrown);
    EXPECT_EQ(error.category, ErrorCategory::invalid_input);
    EXPECT_NE(error.message.find("local array has"), std::string::npos) << error.message;
  }
  const auto error = foehn::testing::error_of([&] { exchange.global_to_local(vec.get(), local); });
  EXPECT_TRUE(error.thrown);
  if (world_size() > 1) {
    EXPECT_NE(error.message.find(foehn::detail::concat("rank ", last, " of")), std::string::npos)
        << error.message;
  }
}

TEST(NodeExchangeErrors, VecOfAnotherLayoutIsRejected) {
  const TetMesh input = foehn::testing::make_small_box();
  const DistributedMesh mesh = distribute_mesh(world(), world_rank() == 0 ? &input : nullptr);
  const NodeExchange scalar(mesh, 1);
  const NodeExchange vector(mesh, 3);
  const UniqueVec vec = vector.create_vector();
  std::vector<double> local(scalar.local_value_count());
  const auto error = foehn::testing::error_of([&] { scalar.global_to_local(vec.get(), local); });
  EXPECT_TRUE(error.thrown);
  EXPECT_NE(error.message.find("mesh layout needs"), std::string::npos) << error.message;
  const auto bad_components = foehn::testing::error_of([&] { NodeExchange(mesh, 0); });
  EXPECT_TRUE(bad_components.thrown);
  EXPECT_EQ(bad_components.category, ErrorCategory::invalid_input);
}

}  // namespace
}  // namespace foehn::petsc
