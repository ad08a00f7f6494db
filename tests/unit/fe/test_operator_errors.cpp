// Bad operator input is a clear error naming the operator and the field, never a wrong matrix.

#include <gtest/gtest.h>

#include <cmath>

#include "assembly_test_mesh.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {
namespace {

void expect_invalid(const std::function<void()>& action, const std::string& must_mention) {
  try {
    action();
    FAIL() << "no error; expected one mentioning '" << must_mention << "'";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
    EXPECT_NE(std::string(error.what()).find(must_mention), std::string::npos) << error.what();
  }
}

class OperatorErrors : public ::testing::Test {
 protected:
  OperatorErrors() : mesh_(testing::small_mountain_mesh(4)), assembler_(mesh_) {}
  TetMesh mesh_;
  CpuAssembler assembler_;
};

TEST_F(OperatorErrors, MissingRequiredField) {
  BlockCsrMatrix a = assembler_.create_matrix<AdvectionOperator>();
  expect_invalid([&] { assembler_.assemble(AdvectionOperator{}, a); }, "velocity field is required");
}

TEST_F(OperatorErrors, FieldOfTheWrongSize) {
  std::vector<double> k(mesh_.node_count() * 3, 1.0);  // 3 per node, a tensor needs 9
  DiffusionOperator op;
  op.tensor = field_ref(k);
  BlockCsrMatrix a = assembler_.create_matrix<DiffusionOperator>();
  expect_invalid([&] { assembler_.assemble(op, a); }, "field tensor has");
}

TEST_F(OperatorErrors, NonFiniteFieldValue) {
  std::vector<double> c(mesh_.node_count(), 1.0);
  c[7] = std::nan("");
  MassOperator op;
  op.coefficient = field_ref(c);
  BlockCsrMatrix a = assembler_.create_matrix<MassOperator>();
  expect_invalid([&] { assembler_.assemble(op, a); }, "at node 7");
}

TEST_F(OperatorErrors, MatrixOfAnotherShapeOrMesh) {
  BlockCsrMatrix vector_matrix = assembler_.create_matrix<MomentumOperator>();
  expect_invalid([&] { assembler_.assemble(MassOperator{}, vector_matrix); }, "mass operator");
  CpuAssembler other(mesh_);
  BlockCsrMatrix foreign = other.create_matrix<MassOperator>();
  expect_invalid([&] { assembler_.assemble(MassOperator{}, foreign); }, "not created for it");
}

TEST_F(OperatorErrors, RightHandSideOfTheWrongSize) {
  BlockCsrMatrix a = assembler_.create_matrix<MomentumOperator>();
  std::vector<double> rhs(mesh_.node_count());  // needs 3 per node
  expect_invalid([&] { assembler_.assemble(MomentumOperator{}, a, rhs); }, "rhs has");
}

TEST_F(OperatorErrors, DegenerateElement) {
  TetMesh flat = mesh_;
  flat.nodes[flat.tets[5][3]] = flat.nodes[flat.tets[5][0]];  // collapse a tet
  CpuAssembler assembler(flat);
  BlockCsrMatrix a = assembler.create_matrix<MassOperator>();
  expect_invalid([&] { assembler.assemble(MassOperator{}, a); }, "degenerate or inverted");
}

}  // namespace
}  // namespace foehn::fe
