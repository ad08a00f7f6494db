// The sparsity pattern built on the device equals the CPU's.

#include <gtest/gtest.h>

#include "cuda_fe_test_support.hpp"
#include "foehn/fe/csr_pattern.hpp"
#include "foehn/fe/cuda_assembler.hpp"
#include "support/gpu_test.hpp"

namespace foehn::fe {
namespace {

TEST(CudaPattern, EqualsTheCpuPatternOnMountainAndRandomMeshes) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  for (const TetMesh& mesh : {testing::mountain_test_mesh(), testing::random_test_mesh(7)}) {
    CudaAssembler assembler(mesh, stream);
    const CsrPattern device = assembler.download_pattern();
    const CsrPattern host = build_node_pattern(mesh);
    EXPECT_EQ(device, host);
    EXPECT_EQ(assembler.nnz(), static_cast<std::int64_t>(host.nnz()));
  }
}

TEST(CudaPattern, KeepsTheDiagonalOfUnusedNodes) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  TetMesh mesh = testing::mountain_test_mesh();
  mesh.nodes.push_back({1e6, 1e6, 1e6});  // used by no tet
  CudaAssembler assembler(mesh, stream);
  EXPECT_EQ(assembler.download_pattern(), build_node_pattern(mesh));
}

TEST(CudaPattern, RejectsBadMeshesBeforeTouchingTheDevice) {
  FOEHN_SKIP_WITHOUT_GPU();
  Stream stream;
  TetMesh mesh = testing::mountain_test_mesh();
  std::swap(mesh.tets[3][0], mesh.tets[3][1]);  // inverted
  EXPECT_THROW(CudaAssembler(mesh, stream), Error);
  mesh = testing::mountain_test_mesh();
  mesh.tets[2][1] = static_cast<std::int32_t>(mesh.node_count());  // out of range
  EXPECT_THROW(CudaAssembler(mesh, stream), Error);
  EXPECT_THROW(CudaAssembler(testing::mountain_test_mesh(), stream, {.block_size = 100}), Error);
  // A sliver with a tiny positive volume: the kernels would call it singular, so the
  // constructor must reject it too instead of letting NaN into the matrix.
  TetMesh sliver;
  sliver.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.3, 0.3, 1e-14}};
  sliver.tets = {{0, 1, 2, 3}};
  EXPECT_THROW(CudaAssembler(sliver, stream), Error);
}

}  // namespace
}  // namespace foehn::fe
