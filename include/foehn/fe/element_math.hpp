#pragma once
// All of the header-only element math of the fe layer (host and device): small vectors and
// matrices, quadrature, P1 shape functions, transform_to_physical, element integrals and their
// 3x3-block forms, gathers, small dense solves, 3x3 symmetric eigen-decomposition and the
// element length scales. docs/fe_element_math.md describes each routine.

#include "foehn/fe/block_operators.hpp"
#include "foehn/fe/dense_solve.hpp"
#include "foehn/fe/edge_lengths.hpp"
#include "foehn/fe/eigen_sym3.hpp"
#include "foehn/fe/gather.hpp"
#include "foehn/fe/integrals.hpp"
#include "foehn/fe/quadrature.hpp"
#include "foehn/fe/shape_functions.hpp"
#include "foehn/fe/small_matrix.hpp"
#include "foehn/fe/transform.hpp"
