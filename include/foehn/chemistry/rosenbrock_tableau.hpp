#pragma once
// Coefficients of the Rosenbrock methods in the KPP form (Sandu et al. 1997; Hairer & Wanner II,
// sec. IV.7), for an autonomous system y' = f(y):
//
//   G = 1/(h gamma_1) I - J(y0)
//   Y_i = y0 + sum_{j<i} a_ij K_j                       (only for stages with a new f evaluation)
//   G K_i = f(Y_i) + sum_{j<i} (c_ij / h) K_j            (a stage without a new evaluation reuses
//                                                         the f of the previous stage)
//   y1 = y0 + sum_j m_j K_j,     error = sum_j e_j K_j
//
// The stage values are K = Gamma k in terms of the textbook stages k (Hairer & Wanner's u_i,
// eq. IV.7.4'), so only the diagonal gamma_1 enters the matrix. Plain data, usable on the device
// (passed to kernels by value). The rates are constant over a chemistry step (autonomous), so
// KPP's alpha_i and gamma_i (time-derivative terms) are not needed.

#include <string_view>

#include "foehn/runtime/host_device.hpp"

namespace foehn::chemistry {

enum class RosenbrockMethod : int { ros2 = 0, ros3 = 1, rodas3 = 2, rodas4 = 3 };

inline constexpr int max_rosenbrock_stages = 6;

struct RosenbrockTableau {
  int stages = 0;
  // Order used in the step-size exponent h_new = h * fac / err^(1/error_order) (KPP's ELO).
  int error_order = 0;
  double gamma = 0.0;  // gamma_1, the diagonal: G = 1/(h gamma) I - J
  // a[i][j] and c[i][j] for j < i (row-major, lower triangle used).
  double a[max_rosenbrock_stages][max_rosenbrock_stages] = {};
  double c[max_rosenbrock_stages][max_rosenbrock_stages] = {};
  double m[max_rosenbrock_stages] = {};  // solution weights
  double e[max_rosenbrock_stages] = {};  // error weights
  // new_evaluation[i]: stage i evaluates f at a new Y_i (stage 0 always uses f(y0)).
  bool new_evaluation[max_rosenbrock_stages] = {};
};

// The tableau of a method; the values are checked against the order conditions in the tests.
[[nodiscard]] RosenbrockTableau rosenbrock_tableau(RosenbrockMethod method);

// "ros2", "ros3", "rodas3", "rodas4" (lower case, as in the -chem_method option).
[[nodiscard]] std::string_view rosenbrock_method_name(RosenbrockMethod method);
// Throws foehn::Error(invalid_input) listing the valid names.
[[nodiscard]] RosenbrockMethod parse_rosenbrock_method(std::string_view name);

}  // namespace foehn::chemistry
