#pragma once
// The pointwise steps of BlockChebyshev (block_chebyshev.hpp) over a block of `rows` x columns
// entries stored column after column; the Jacobi diagonal is indexed by the row. They are the
// vector updates of PETSc's KSPCHEBYSHEV (first kind), fused into one pass each.
#include <cstddef>

#include "foehn/runtime/host_device.hpp"

namespace foehn::petsc {

// The first iterate: next = guess + scale D^-1 (b - A guess), A guess absent for a zero guess.
struct ChebyshevFirstIterate {
  const double* rhs;
  const double* guess;
  const double* product;  // A guess, or null for a zero guess
  const double* inverse_diagonal;
  double* next;
  std::size_t rows;
  double scale;
  FOEHN_HD void operator()(std::size_t i) const {
    const double residual = product ? rhs[i] - product[i] : rhs[i];
    next[i] = scale * (inverse_diagonal[i % rows] * residual) + guess[i];
  }
};

// Every later iterate: next = (1 - omega) previous + omega current
//                             + omega scale D^-1 (b - A current).
struct ChebyshevNextIterate {
  const double* rhs;
  const double* previous;
  const double* current;
  const double* product;  // A current
  const double* inverse_diagonal;
  double* next;
  std::size_t rows;
  double omega, scale;
  FOEHN_HD void operator()(std::size_t i) const {
    const double preconditioned = inverse_diagonal[i % rows] * (rhs[i] - product[i]);
    next[i] = (1 - omega) * previous[i] + omega * current[i] + omega * scale * preconditioned;
  }
};

}  // namespace foehn::petsc
