// Sparsity patterns against hand counts and structural properties.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "assembly_test_mesh.hpp"
#include "foehn/fe/csr_pattern.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {
namespace {

TEST(CsrPattern, SingleTetIsDense) {
  TetMesh mesh;
  mesh.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  mesh.tets = {{0, 1, 2, 3}};
  const CsrPattern p = build_node_pattern(mesh);
  EXPECT_EQ(p.rows, 4);
  EXPECT_EQ(p.nnz(), 16u);
  EXPECT_EQ(p.row_offsets, (std::vector<std::int32_t>{0, 4, 8, 12, 16}));
}

TEST(CsrPattern, MatchesTheSetOfNodePairsSharingATet) {
  const TetMesh mesh = testing::small_mountain_mesh();
  const CsrPattern p = build_node_pattern(mesh);
  std::set<std::pair<std::int32_t, std::int32_t>> expected;
  for (const Tet& t : mesh.tets)
    for (std::int32_t a : t)
      for (std::int32_t b : t) expected.emplace(a, b);
  ASSERT_EQ(p.nnz(), expected.size());
  std::size_t k = 0;
  for (const auto& [row, column] : expected) {  // std::set iterates row-major, sorted
    EXPECT_GE(k, static_cast<std::size_t>(p.row_offsets[row]));
    EXPECT_LT(k, static_cast<std::size_t>(p.row_offsets[row + 1]));
    EXPECT_EQ(p.column_indices[k], column);
    ++k;
  }
  for (std::int32_t r = 0; r < p.rows; ++r)
    EXPECT_GE(find_column(p.column_indices.data(), p.row_offsets[r], p.row_offsets[r + 1], r), 0)
        << "diagonal missing in row " << r;
}

TEST(CsrPattern, FindColumnReportsAbsentColumns) {
  const std::int32_t columns[] = {2, 5, 9, 11};
  EXPECT_EQ(find_column(columns, 0, 4, 9), 2);
  EXPECT_EQ(find_column(columns, 0, 4, 2), 0);
  EXPECT_EQ(find_column(columns, 0, 4, 11), 3);
  EXPECT_EQ(find_column(columns, 0, 4, 6), -1);
  EXPECT_EQ(find_column(columns, 0, 4, 12), -1);
  EXPECT_EQ(find_column(columns, 1, 1, 5), -1);
}

TEST(CsrPattern, ExpandedColumnsInterleaveComponents) {
  TetMesh mesh;
  mesh.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  mesh.tets = {{0, 1, 2, 3}};
  const CsrPattern p = expand_columns(build_node_pattern(mesh), 3);
  EXPECT_EQ(p.rows, 4);
  EXPECT_EQ(p.cols, 12);
  EXPECT_EQ(p.nnz(), 48u);
  EXPECT_TRUE(std::is_sorted(p.column_indices.begin(), p.column_indices.begin() + 12));
  EXPECT_EQ(p.column_indices[4], 4);
}

TEST(CsrPattern, RejectsOutOfRangeNodes) {
  TetMesh mesh;
  mesh.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  mesh.tets = {{0, 1, 2, 3}};
  EXPECT_THROW(build_node_pattern(mesh), Error);
}

}  // namespace
}  // namespace foehn::fe
