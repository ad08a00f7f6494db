// A downstream program built against an installed Foehn, once through find_package(Foehn)
// and once through pkg-config (foehn.pc). It uses the public mesh API, the CPU assembler and the
// PETSc hand-off header, and calls PETSc and MPI itself: so it compiles and links only if the
// package brings PETSc's and MPI's headers and libraries along with Foehn's.
#include <mpi.h>
#include <petscmat.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include "foehn/config.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/node_numbering.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace {

int failures = 0;

void expect(bool ok, const char* what, double got = 0, double want = 0) {
  if (ok) return;
  std::fprintf(stderr, "FAILED: %s (got %.17g, want %.17g)\n", what, got, want);
  ++failures;
}

void expect_near(double got, double want, const char* what) {
  expect(std::abs(got - want) <= 1e-14, what, got, want);
}

// The unit tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1): volume 1/6 and shape gradients
// (-1,-1,-1), e_x, e_y, e_z, so the stiffness K_ij = grad N_i . grad N_j / 6 is
// K_00 = 3/6, K_0j = K_j0 = -1/6, K_jj = 1/6 and 0 between the nodes 1..3; the load of a
// source f = 1 is the volume over 4, 1/24, at every node.
foehn::TetMesh unit_tetrahedron() {
  foehn::TetMesh mesh;
  mesh.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  mesh.tets = {{0, 1, 2, 3}};
  return mesh;
}

double expected_stiffness(int i, int j) {
  if (i == j) return i == 0 ? 3.0 / 6.0 : 1.0 / 6.0;
  return (i == 0 || j == 0) ? -1.0 / 6.0 : 0.0;
}

// The public mesh API: a small generated mountain mesh passes Foehn's own checks.
void check_mesh() {
  foehn::MountainMeshOptions options;
  options.cells_x = options.cells_y = 6;
  options.cells_z = 4;
  foehn::TetMesh mesh = foehn::generate_mountain_mesh(options);
  foehn::validate_mesh(mesh, "consumer mesh");
  std::printf("Foehn %s: mountain mesh of %zu tets\n", FOEHN_VERSION_STRING, mesh.tet_count());
  expect(mesh.tet_count() == 6u * 6u * 6u * 4u, "mountain mesh tet count",
         static_cast<double>(mesh.tet_count()), 6 * 6 * 6 * 4);
}

// Diffusion on the unit tetrahedron, assembled on the CPU, handed to a PETSc Mat, read back
// with PETSc's own calls and compared with the closed form above.
void check_petsc_handoff() {
  const foehn::TetMesh mesh = unit_tetrahedron();
  foehn::fe::CpuAssembler assembler(mesh);
  foehn::fe::BlockCsrMatrix stiffness = assembler.create_matrix<foehn::fe::DiffusionOperator>();
  const std::vector<double> source(4, 1.0);
  std::vector<double> rhs(4, 0.0);
  foehn::fe::DiffusionOperator op;
  op.source = foehn::fe::field_ref(source);
  assembler.assemble(op, stiffness, rhs);
  for (int i = 0; i < 4; ++i) expect_near(rhs[i], 1.0 / 24.0, "load vector entry");

  foehn::petsc::PetscMatrix matrix(foehn::petsc::serial_numbering(PETSC_COMM_SELF, 4),
                                   assembler.pattern(), 1, 1);
  matrix.set_values(stiffness);
  Mat mat = matrix.mat();

  PetscInt rows = 0, cols = 0;
  FOEHN_PETSC_CHECK(MatGetSize(mat, &rows, &cols));
  expect(rows == 4 && cols == 4, "MatGetSize is 4 x 4", static_cast<double>(rows), 4);
  const PetscInt index[4] = {0, 1, 2, 3};
  PetscScalar values[16];
  FOEHN_PETSC_CHECK(MatGetValues(mat, 4, index, 4, index, values));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) expect_near(values[i * 4 + j], expected_stiffness(i, j), "K_ij");

  // Constants are in the kernel of the Laplacian: K * 1 = 0.
  Vec ones = nullptr, product = nullptr;
  FOEHN_PETSC_CHECK(MatCreateVecs(mat, &ones, &product));
  FOEHN_PETSC_CHECK(VecSet(ones, 1.0));
  FOEHN_PETSC_CHECK(MatMult(mat, ones, product));
  PetscReal norm = -1;
  FOEHN_PETSC_CHECK(VecNorm(product, NORM_INFINITY, &norm));
  expect_near(norm, 0.0, "|K * 1|");
  FOEHN_PETSC_CHECK(VecDestroy(&ones));
  FOEHN_PETSC_CHECK(VecDestroy(&product));
  std::printf("PETSc Mat %d x %d from Foehn: K_00 = %.17g, K_01 = %.17g\n", static_cast<int>(rows),
              static_cast<int>(cols), values[0], values[1]);
}

}  // namespace

int main(int argc, char** argv) {
  if (PetscInitialize(&argc, &argv, nullptr, nullptr) != 0) {
    std::fprintf(stderr, "FAILED: PetscInitialize\n");
    return 1;
  }
  int ranks = 0;
  MPI_Comm_size(PETSC_COMM_WORLD, &ranks);  // MPI called directly: its library is linked too
  expect(ranks == 1, "one MPI rank", ranks, 1);
  try {
    check_mesh();
    check_petsc_handoff();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAILED: %s\n", e.what());
    ++failures;
  }
  if (PetscFinalize() != 0) {
    std::fprintf(stderr, "FAILED: PetscFinalize\n");
    ++failures;
  }
  return failures == 0 ? 0 : 1;
}
