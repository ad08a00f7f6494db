// FOEHN_PETSC_CHECK: a PETSc error becomes foehn::Error on one line with PETSc's own message
// from where it arose (for a GPU error: the CUDA or cuSPARSE status), and a GPU running out of
// memory is reported as out_of_memory, the category a user can act on (smaller case, more GPUs).
#include <gtest/gtest.h>
#include <petscvec.h>

#include <string>

#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {
namespace {

// PETSc's handler stays quiet while a test provokes errors on purpose (as Foehn's programs have
// it).
class PetscCheck : public ::testing::Test {
 protected:
  void SetUp() override { PetscPushErrorHandler(PetscReturnErrorHandler, nullptr); }
  void TearDown() override { PetscPopErrorHandler(); }
};

Error error_of(PetscErrorCode code) {
  try {
    FOEHN_PETSC_CHECK(code);
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "no error thrown for code " << code;
  return Error(ErrorCategory::internal, "none");
}

TEST_F(PetscCheck, CarriesPetscsMessageFromWhereTheErrorArose) {
  Vec vector = nullptr;
  ASSERT_EQ(VecCreate(PETSC_COMM_SELF, &vector), 0);
  const Error error = error_of(VecSetSizes(vector, 10, 5));
  VecDestroy(&vector);
  const std::string message = error.what();
  EXPECT_EQ(error.category(), ErrorCategory::petsc);
  EXPECT_NE(message.find("failed with PETSc error 75 (Arguments are incompatible: "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("Local size 10 cannot be larger than global size 5"), std::string::npos)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST_F(PetscCheck, AGpuOutOfMemoryIsReportedAsOutOfMemory) {
  // What PETSc's CUDA checks raise when cudaMalloc fails (its wording, one line).
  const PetscErrorCode code =
      PetscError(PETSC_COMM_SELF, __LINE__, "cudaMalloc", __FILE__, PETSC_ERR_GPU,
                 PETSC_ERROR_INITIAL, "CUDA error 2 (cudaErrorMemoryAllocation) : out of memory");
  const Error error = error_of(code);
  EXPECT_EQ(error.category(), ErrorCategory::out_of_memory);
  EXPECT_NE(std::string(error.what()).find("cudaErrorMemoryAllocation"), std::string::npos)
      << error.what();
  EXPECT_EQ(exit_code_for(error), 2);
}

TEST_F(PetscCheck, AnotherGpuErrorStaysAPetscError) {
  const PetscErrorCode code =
      PetscError(PETSC_COMM_SELF, __LINE__, "cusparseSpGEMM", __FILE__, PETSC_ERR_GPU,
                 PETSC_ERROR_INITIAL, "cuSPARSE errorcode 7 (CUSPARSE_STATUS_INTERNAL_ERROR)");
  const Error error = error_of(code);
  EXPECT_EQ(error.category(), ErrorCategory::petsc);
  EXPECT_NE(std::string(error.what()).find("CUSPARSE_STATUS_INTERNAL_ERROR"), std::string::npos);
}

}  // namespace
}  // namespace foehn
