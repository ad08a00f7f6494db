#pragma once
// Small hand-built PETSc systems with a known solution, for the LinearSolver and log tests:
// a 3D 7-point Laplacian (SPD), an upwinded convection-diffusion operator (non-symmetric
// M-matrix) and a 3x3-block non-symmetric system (MATSEQBAIJ, bs 3), plus RAII holders and an
// options-database guard. Everything is on PETSC_COMM_SELF; a PETSc error throws foehn::Error,
// which fails the test.
#include <gtest/gtest.h>
#include <petscksp.h>

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "foehn/petsc/petsc_check.hpp"

namespace foehn::petsc::test {

struct OwnedMat {
  Mat mat = nullptr;
  OwnedMat() = default;
  explicit OwnedMat(Mat m) : mat(m) {}
  OwnedMat(OwnedMat&& other) noexcept : mat(std::exchange(other.mat, nullptr)) {}
  OwnedMat& operator=(OwnedMat&& other) noexcept {
    std::swap(mat, other.mat);
    return *this;
  }
  ~OwnedMat() { MatDestroy(&mat); }
  operator Mat() const { return mat; }  // NOLINT: used like a Mat
};

struct OwnedVec {
  Vec vec = nullptr;
  OwnedVec() = default;
  explicit OwnedVec(Vec v) : vec(v) {}
  OwnedVec(OwnedVec&& other) noexcept : vec(std::exchange(other.vec, nullptr)) {}
  OwnedVec& operator=(OwnedVec&& other) noexcept {
    std::swap(vec, other.vec);
    return *this;
  }
  ~OwnedVec() { VecDestroy(&vec); }
  operator Vec() const { return vec; }  // NOLINT: used like a Vec
};

// Sets an option for the life of the guard ("-pressure_ksp_type", "bcgs"; value may be empty
// for a flag) and clears it afterwards, so tests do not leak options into each other.
class ScopedOption {
 public:
  ScopedOption(std::string name, const std::string& value) : name_(std::move(name)) {
    PetscOptionsSetValue(nullptr, name_.c_str(), value.empty() ? nullptr : value.c_str());
  }
  ~ScopedOption() { PetscOptionsClearValue(nullptr, name_.c_str()); }
  ScopedOption(const ScopedOption&) = delete;
  ScopedOption& operator=(const ScopedOption&) = delete;

 private:
  std::string name_;
};

inline PetscInt grid_index(PetscInt n, PetscInt i, PetscInt j, PetscInt k) {
  return (k * n + j) * n + i;
}

// Visits the (up to) 6 neighbours of node (i, j, k) on an n^3 grid: f(neighbour, axis, side)
// with side -1 for the lower and +1 for the upper neighbour.
template <typename Visit>
void for_each_neighbour(PetscInt n, PetscInt i, PetscInt j, PetscInt k, Visit&& visit) {
  const std::array<PetscInt, 3> at = {i, j, k};
  for (int axis = 0; axis < 3; ++axis)
    for (int side : {-1, 1}) {
      std::array<PetscInt, 3> other = at;
      other[axis] += side;
      if (other[axis] < 0 || other[axis] >= n) continue;
      visit(grid_index(n, other[0], other[1], other[2]), axis, side);
    }
}

// 7-point Laplacian on an n^3 grid with homogeneous Dirichlet boundaries outside (h^2 scaled):
// 6 on the diagonal, -1 to each neighbour. Symmetric positive definite.
inline OwnedMat laplacian_7pt(PetscInt n) {
  Mat a = nullptr;
  const PetscInt rows = n * n * n;
  FOEHN_PETSC_CHECK(MatCreateSeqAIJ(PETSC_COMM_SELF, rows, rows, 7, nullptr, &a));
  for (PetscInt k = 0; k < n; ++k)
    for (PetscInt j = 0; j < n; ++j)
      for (PetscInt i = 0; i < n; ++i) {
        const PetscInt row = grid_index(n, i, j, k);
        FOEHN_PETSC_CHECK(MatSetValue(a, row, row, 6.0, INSERT_VALUES));
        for_each_neighbour(n, i, j, k, [&](PetscInt column, int, int) {
          FOEHN_PETSC_CHECK(MatSetValue(a, row, column, -1.0, INSERT_VALUES));
        });
      }
  FOEHN_PETSC_CHECK(MatAssemblyBegin(a, MAT_FINAL_ASSEMBLY));
  FOEHN_PETSC_CHECK(MatAssemblyEnd(a, MAT_FINAL_ASSEMBLY));
  return OwnedMat(a);
}

// -laplace(u) + beta . grad(u) on an n^3 grid, first-order upwind, scaled by h^2; the cell
// Peclet numbers h*beta = (2, 1, 0.5) make it clearly non-symmetric (an M-matrix).
inline OwnedMat convection_diffusion(PetscInt n) {
  const std::array<double, 3> h_beta = {2.0, 1.0, 0.5};
  Mat a = nullptr;
  const PetscInt rows = n * n * n;
  FOEHN_PETSC_CHECK(MatCreateSeqAIJ(PETSC_COMM_SELF, rows, rows, 7, nullptr, &a));
  for (PetscInt k = 0; k < n; ++k)
    for (PetscInt j = 0; j < n; ++j)
      for (PetscInt i = 0; i < n; ++i) {
        const PetscInt row = grid_index(n, i, j, k);
        FOEHN_PETSC_CHECK(
            MatSetValue(a, row, row, 6.0 + h_beta[0] + h_beta[1] + h_beta[2], INSERT_VALUES));
        for_each_neighbour(n, i, j, k, [&](PetscInt column, int axis, int side) {
          // beta > 0: the upwind neighbour is the lower one.
          const double value = -1.0 - (side < 0 ? h_beta[axis] : 0.0);
          FOEHN_PETSC_CHECK(MatSetValue(a, row, column, value, INSERT_VALUES));
        });
      }
  FOEHN_PETSC_CHECK(MatAssemblyBegin(a, MAT_FINAL_ASSEMBLY));
  FOEHN_PETSC_CHECK(MatAssemblyEnd(a, MAT_FINAL_ASSEMBLY));
  return OwnedMat(a);
}

// A 3x3-block system on an n^3 grid (bs 3, 7 blocks per block row), like a momentum
// operator: non-symmetric diagonal blocks, non-symmetric couplings that differ per direction.
inline OwnedMat block_system(PetscInt n) {
  const PetscInt nodes = n * n * n;
  Mat a = nullptr;
  FOEHN_PETSC_CHECK(MatCreateSeqBAIJ(PETSC_COMM_SELF, 3, 3 * nodes, 3 * nodes, 7, nullptr, &a));
  const std::array<PetscScalar, 9> diagonal = {10.0, 1.0, 0.5, -1.0, 10.0, 1.0, 0.3, -0.7, 10.0};
  for (PetscInt k = 0; k < n; ++k)
    for (PetscInt j = 0; j < n; ++j)
      for (PetscInt i = 0; i < n; ++i) {
        const PetscInt row = grid_index(n, i, j, k);
        FOEHN_PETSC_CHECK(MatSetValuesBlocked(a, 1, &row, 1, &row, diagonal.data(), INSERT_VALUES));
        for_each_neighbour(n, i, j, k, [&](PetscInt column, int axis, int side) {
          const double skew = 0.1 * (axis + 1) * side;  // breaks symmetry between neighbours
          const std::array<PetscScalar, 9> coupling = {-1.0 + skew, 0.2, 0.0, -0.1,       -1.0,
                                                       skew,        0.0, 0.1, -1.0 - skew};
          FOEHN_PETSC_CHECK(
              MatSetValuesBlocked(a, 1, &row, 1, &column, coupling.data(), INSERT_VALUES));
        });
      }
  FOEHN_PETSC_CHECK(MatAssemblyBegin(a, MAT_FINAL_ASSEMBLY));
  FOEHN_PETSC_CHECK(MatAssemblyEnd(a, MAT_FINAL_ASSEMBLY));
  return OwnedMat(a);
}

// The same operator as `block_system` stored as AIJ with block size 3.
inline OwnedMat as_aij(Mat baij) {
  Mat aij = nullptr;
  FOEHN_PETSC_CHECK(MatConvert(baij, MATSEQAIJ, MAT_INITIAL_MATRIX, &aij));
  return OwnedMat(aij);
}

struct System {
  OwnedVec exact;  // the known solution
  OwnedVec rhs;    // A * exact
  OwnedVec x;      // zero, for the solver
};

// A smooth, nowhere-zero known solution and b = A * exact.
inline System system_for(Mat a) {
  System system;
  FOEHN_PETSC_CHECK(MatCreateVecs(a, &system.x.vec, &system.rhs.vec));
  FOEHN_PETSC_CHECK(VecDuplicate(system.x, &system.exact.vec));
  PetscInt size = 0;
  FOEHN_PETSC_CHECK(VecGetSize(system.exact, &size));
  PetscScalar* values = nullptr;
  FOEHN_PETSC_CHECK(VecGetArray(system.exact, &values));
  for (PetscInt i = 0; i < size; ++i) values[i] = 1.0 + 0.5 * std::sin(0.37 * i);
  FOEHN_PETSC_CHECK(VecRestoreArray(system.exact, &values));
  FOEHN_PETSC_CHECK(MatMult(a, system.exact, system.rhs));
  FOEHN_PETSC_CHECK(VecSet(system.x, 0.0));
  return system;
}

// ||x - exact|| / ||exact||.
inline double relative_error(Vec x, Vec exact) {
  Vec difference = nullptr;
  FOEHN_PETSC_CHECK(VecDuplicate(x, &difference));
  FOEHN_PETSC_CHECK(VecWAXPY(difference, -1.0, exact, x));
  PetscReal error = 0.0, reference = 0.0;
  FOEHN_PETSC_CHECK(VecNorm(difference, NORM_2, &error));
  FOEHN_PETSC_CHECK(VecNorm(exact, NORM_2, &reference));
  VecDestroy(&difference);
  return static_cast<double>(error / reference);
}

inline std::string type_of(KSP ksp) {
  KSPType type = nullptr;
  FOEHN_PETSC_CHECK(KSPGetType(ksp, &type));
  return type ? type : "";
}

inline std::string pc_type_of(KSP ksp) {
  PC pc = nullptr;
  PCType type = nullptr;
  FOEHN_PETSC_CHECK(KSPGetPC(ksp, &pc));
  FOEHN_PETSC_CHECK(PCGetType(pc, &type));
  return type ? type : "";
}

// How often a PETSc event ran in the current stage (-1: no such event). Needs logging on
// (PetscLogDefaultBegin); counts only grow, so tests compare differences.
inline int event_count(const char* name) {
  PetscLogEvent event = -1;
  FOEHN_PETSC_CHECK(PetscLogEventGetId(name, &event));
  if (event < 0) return -1;
  PetscEventPerfInfo info{};
  FOEHN_PETSC_CHECK(PetscLogEventGetPerfInfo(PETSC_DETERMINE, event, &info));
  return info.count;
}

}  // namespace foehn::petsc::test
