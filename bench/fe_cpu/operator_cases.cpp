#include "operator_cases.hpp"

#include <cmath>
#include <functional>
#include <random>

#include "bench_timing.hpp"
#include "byte_model.hpp"
#include "foehn/fe/element_scatter.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"
#include "petsc_peer.hpp"

namespace foehn::bench {

namespace {

// Dense element matrices of the whole mesh (op.element, what MatSetValues needs), input of the
// "insertion only" variants, Foehn and PETSc alike.
template <class Op, class ElementMatrix>
std::vector<ElementMatrix> compute_element_matrices(const fe::CpuAssembler& assembler,
                                                    const Op& op) {
  std::vector<ElementMatrix> stored(static_cast<std::size_t>(assembler.tet_count()));
  fe::ElementContextFor<typename Op::Rule> ctx;
  fe::Vec<4 * Op::block_rows> b;
  for (std::int64_t e = 0; e < assembler.tet_count(); ++e) {
    if (!fe::prepare_element(assembler.coordinates().data(), assembler.tets().data(), e, ctx))
      fail(ErrorCategory::invalid_input, "tet ", e, " is degenerate");
    op.element(ctx, stored[static_cast<std::size_t>(e)], b);
  }
  return stored;
}

// Neumaier's compensated sum: the checks add up to 10^8 terms, and plain summation error would
// grow with the mesh until it hid (or faked) a real difference.
struct CompensatedSum {
  double sum = 0.0, compensation = 0.0;
  void add(double value) {
    const double t = sum + value;
    compensation += std::abs(sum) >= std::abs(value) ? (sum - t) + value : (value - t) + sum;
    sum = t;
  }
  double value() const { return sum + compensation; }
};

// Check of the element kernel as timed (compute_element: the compact form where the operator
// has one): sum_e y_e^T A_e x_e must equal y^T K x for the assembled reference K and random
// x, y; relative to sum |y_i a_ij x_j| so that cancellation (zero row sums of diffusion) cannot
// hide an error.
template <class Op>
double kernel_check(const fe::CpuAssembler& assembler, const Op& op,
                    const fe::BlockCsrMatrix& reference) {
  constexpr int R = Op::block_rows, C = Op::block_cols;
  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> uniform(0.5, 1.5);
  std::vector<double> x(static_cast<std::size_t>(reference.point_cols()));
  std::vector<double> y(static_cast<std::size_t>(reference.point_rows()));
  for (double& v : x) v = uniform(random);
  for (double& v : y) v = uniform(random);
  std::vector<double> kx(y.size());
  reference.multiply(x, kx);
  CompensatedSum assembled, elementwise, magnitude;
  for (std::size_t i = 0; i < y.size(); ++i) assembled.add(y[i] * kx[i]);

  fe::ElementContextFor<typename Op::Rule> ctx;
  fe::ElementResult<Op> element;
  for (std::int64_t e = 0; e < assembler.tet_count(); ++e) {
    if (!fe::prepare_element(assembler.coordinates().data(), assembler.tets().data(), e, ctx))
      fail(ErrorCategory::invalid_input, "tet ", e, " is degenerate");
    fe::compute_element(op, ctx, element);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        for (int r = 0; r < R; ++r)
          for (int c = 0; c < C; ++c) {
            const double term = y[static_cast<std::size_t>(ctx.nodes[i]) * R + r] *
                                element.entry(i, j, r, c) *
                                x[static_cast<std::size_t>(ctx.nodes[j]) * C + c];
            elementwise.add(term);
            magnitude.add(std::abs(term));
          }
  }
  return magnitude.value() > 0.0
             ? std::abs(elementwise.value() - assembled.value()) / magnitude.value()
             : 0.0;
}

// A stored dense element matrix seen through the entry() interface of scatter_element_matrix.
template <int R, int C>
struct StoredElement {
  const fe::Mat<4 * R, 4 * C>* a;
  double entry(int i, int j, int r, int c) const { return a->a[i * R + r][j * C + c]; }
};

}  // namespace

template <class Op>
std::vector<BenchCase> run_operator_cases(const fe::CpuAssembler& assembler, const Op& op,
                                          const std::string& name, int field_doubles_per_node,
                                          const std::string& ordering,
                                          const CaseSettings& settings) {
  constexpr int R = Op::block_rows, C = Op::block_cols;
  static_assert(R == C, "square blocks only (PETSc AIJ or BAIJ peer)");
  using ElementMatrix = fe::Mat<4 * R, 4 * C>;
  // Named here: GCC 12 crashes on Vec<4 * R> spelled inside the lambdas below.
  using ElementVector = fe::Vec<4 * R>;
  const std::int64_t tets = assembler.tet_count();
  const double* coords = assembler.coordinates().data();
  const std::int32_t* conn = assembler.tets().data();
  const fe::CsrPattern& pattern = *assembler.pattern();
  const std::int32_t* row_offsets = pattern.row_offsets.data();
  const std::int32_t* column_indices = pattern.column_indices.data();
  const AssemblyByteModel bytes = assembly_byte_model(R, C, field_doubles_per_node, pattern, tets);

  // Reference: Foehn's CPU assembly, computed once before anything is timed.
  fe::BlockCsrMatrix reference = assembler.create_matrix<Op>();
  assembler.assemble(op, reference);
  const fe::PointCsr reference_csr = fe::to_point_csr(reference);
  const std::vector<ElementMatrix> stored =
      compute_element_matrices<Op, ElementMatrix>(assembler, op);

  fe::BlockCsrMatrix scattered = assembler.create_matrix<Op>();
  fe::BlockCsrMatrix assembled = assembler.create_matrix<Op>();
  PetscPeerMatrix peer = PetscPeerMatrix::from_pattern(pattern, R);
  const bool with_coo = settings.petsc_coo && R == 1;
  std::optional<PetscPeerMatrix> coo;
  std::vector<PetscScalar> coo_values;
  if (with_coo) {
    coo.emplace(PetscPeerMatrix::coo_from_tets(assembler.tets(), pattern.rows));
    coo_values.reserve(stored.size() * 16);
    for (const ElementMatrix& a : stored)
      for (int i = 0; i < 4; ++i) coo_values.insert(coo_values.end(), a.a[i], a.a[i] + 4);
  }

  const auto element = [&](std::int64_t e, fe::ElementContextFor<typename Op::Rule>& ctx,
                           ElementMatrix& a) {
    ElementVector b;
    if (!fe::prepare_element(coords, conn, e, ctx))
      fail(ErrorCategory::invalid_input, "tet ", e, " is degenerate");
    op.element(ctx, a, b);
  };
  const auto petsc_assemble = [&](Mat mat) {
    FOEHN_PETSC_CHECK(MatAssemblyBegin(mat, MAT_FINAL_ASSEMBLY));
    FOEHN_PETSC_CHECK(MatAssemblyEnd(mat, MAT_FINAL_ASSEMBLY));
  };

  std::vector<std::function<void()>> bodies;
  std::vector<std::string> variants;
  const std::string petsc = R == 1 ? "peer_petsc_matsetvalues" : "peer_petsc_matsetvaluesblocked";
  // (1) element kernel as Foehn's assembly runs it: gather, geometry, compute_element (the
  // compact form where the operator has one, e.g. momentum); the result escapes to memory
  // each element (do_not_optimize), which is all a consumer would need.
  variants.push_back("element_kernel");
  bodies.push_back([&] {
    fe::ElementContextFor<typename Op::Rule> ctx;
    fe::ElementResult<Op> result;
    for (std::int64_t e = 0; e < tets; ++e) {
      if (!fe::prepare_element(coords, conn, e, ctx))
        fail(ErrorCategory::invalid_input, "tet ", e, " is degenerate");
      fe::compute_element(op, ctx, result);
      do_not_optimize(result);
    }
  });
  // (2) Foehn's CPU assembly as the library offers it (field checks, zeroing, kernel, scatter).
  variants.push_back("foehn_cpu_assembler");
  bodies.push_back([&] { assembler.assemble(op, assembled); });
  // (3) Foehn's scatter alone, of the stored element matrices.
  variants.push_back("foehn_scatter_only");
  bodies.push_back([&] {
    scattered.set_zero();
    for (std::int64_t e = 0; e < tets; ++e)
      fe::scatter_element_matrix<R, C>(
          row_offsets, column_indices, scattered.values.data(), fe::ele_nodes<4>(conn, e),
          StoredElement<R, C>{&stored[static_cast<std::size_t>(e)]}, fe::PlainAdd{});
  });
  // (4) PETSc insertion alone, of the same stored element matrices.
  variants.push_back(petsc + "_insert_only");
  bodies.push_back([&] {
    FOEHN_PETSC_CHECK(MatZeroEntries(peer.get()));
    for (std::int64_t e = 0; e < tets; ++e)
      FOEHN_PETSC_CHECK((petsc_add_element<R, C>(peer.get(), fe::ele_nodes<4>(conn, e),
                                                 stored[static_cast<std::size_t>(e)])));
    petsc_assemble(peer.get());
  });
  // (5) PETSc assembly as a PETSc code would write it: the element kernel, then MatSetValues
  // per element. PETSc needs the dense element matrix (op.element; for momentum that is the
  // compact form expanded to 12 x 12).
  variants.push_back(petsc);
  bodies.push_back([&] {
    FOEHN_PETSC_CHECK(MatZeroEntries(peer.get()));
    fe::ElementContextFor<typename Op::Rule> ctx;
    ElementMatrix a;
    for (std::int64_t e = 0; e < tets; ++e) {
      element(e, ctx, a);
      FOEHN_PETSC_CHECK((petsc_add_element<R, C>(peer.get(), ctx.nodes, a)));
    }
    petsc_assemble(peer.get());
  });
  // (6) PETSc's COO interface: the values of all element matrices in one call (INSERT_VALUES
  // sets every entry to the sum of its duplicates, so no zeroing is needed).
  if (with_coo) {
    variants.push_back("peer_petsc_coo_insert_only");
    bodies.push_back(
        [&] { FOEHN_PETSC_CHECK(MatSetValuesCOO(coo->get(), coo_values.data(), INSERT_VALUES)); });
  }

  // (7, 8) the row-block gather (bitwise the serial assembly) on one thread and on all cores.
  fe::BlockCsrMatrix gathered_one = assembler.create_matrix<Op>();
  fe::BlockCsrMatrix gathered_all = assembler.create_matrix<Op>();
  std::size_t row_gather_index = 0;
  if (settings.row_gather_one_core && settings.row_gather_all_cores) {
    row_gather_index = bodies.size();
    variants.push_back("foehn_row_gather_1core");
    bodies.push_back([&] { settings.row_gather_one_core->assemble(op, gathered_one.values, {}); });
    variants.push_back("foehn_row_gather_" +
                       std::to_string(settings.row_gather_all_cores->threads()) + "threads");
    bodies.push_back([&] { settings.row_gather_all_cores->assemble(op, gathered_all.values, {}); });
  }

  // (4) and (5) share one PETSc matrix: each body starts with MatZeroEntries, and the check
  // of each reruns it alone afterwards.
  const std::vector<Timing> timings = time_interleaved(bodies, settings.warmups, settings.repeats);

  std::vector<std::optional<double>> errors(bodies.size());
  const auto check_peer = [&](std::size_t index, const PetscPeerMatrix& matrix) {
    bodies[index]();
    errors[index] = matrix.relative_difference(reference_csr);
  };
  errors[0] = kernel_check(assembler, op, reference);
  errors[2] = fe::relative_frobenius_difference(scattered, reference);
  check_peer(3, peer);
  check_peer(4, peer);
  // Foehn's own assembly against the independent PETSc result of (5).
  errors[1] = peer.relative_difference(fe::to_point_csr(assembled));
  if (with_coo) check_peer(5, *coo);
  // The gather must be the serial assembly bit for bit: any difference fails the case.
  if (row_gather_index > 0) {
    errors[row_gather_index] = gathered_one.values == assembled.values ? 0.0 : 1.0;
    errors[row_gather_index + 1] = gathered_all.values == assembled.values ? 0.0 : 1.0;
  }

  std::vector<double> model_bytes = {bytes.kernel, bytes.full_assembly, bytes.scatter_stored,
                                     bytes.scatter_stored, bytes.full_assembly};
  if (with_coo) model_bytes.push_back(bytes.scatter_stored);
  if (row_gather_index > 0) model_bytes.insert(model_bytes.end(), 2, bytes.full_assembly);
  std::vector<BenchCase> cases;
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    BenchCase c;
    c.name = name;
    c.size = tets;
    c.variant = variants[k];
    c.ordering = ordering;
    c.time_ms = timings[k].median_ms;
    c.repeats = timings[k].repeats;
    c.throughput = static_cast<double>(tets) / (c.time_ms * 1e-3);
    c.model_bytes = model_bytes[k];
    derive_bandwidths(c, settings.copy_bandwidth_gbs);
    c.max_rel_error_vs_reference = errors[k];
    c.check_passed = errors[k] && std::isfinite(*errors[k]) && *errors[k] <= max_allowed_rel_error;
    cases.push_back(c);
  }
  // Same-process ratios: Foehn against the PETSc peer doing the same work.
  const auto compare = [&](std::size_t foehn, std::size_t baseline) {
    cases[foehn].baseline = variants[baseline];
    cases[foehn].speedup_vs_baseline = timings[baseline].median_ms / timings[foehn].median_ms;
  };
  compare(1, 4);
  compare(2, 3);
  if (row_gather_index > 0) {
    compare(row_gather_index, 4);
    compare(row_gather_index + 1, 1);  // all cores against the serial loop on one
  }
  return cases;
}

template std::vector<BenchCase> run_operator_cases(const fe::CpuAssembler&,
                                                   const fe::DiffusionOperator&, const std::string&,
                                                   int, const std::string&, const CaseSettings&);
template std::vector<BenchCase> run_operator_cases(const fe::CpuAssembler&, const fe::MassOperator&,
                                                   const std::string&, int, const std::string&,
                                                   const CaseSettings&);
template std::vector<BenchCase> run_operator_cases(const fe::CpuAssembler&,
                                                   const fe::AdvectionOperator&, const std::string&,
                                                   int, const std::string&, const CaseSettings&);
template std::vector<BenchCase> run_operator_cases(const fe::CpuAssembler&,
                                                   const fe::MomentumOperator&, const std::string&,
                                                   int, const std::string&, const CaseSettings&);

}  // namespace foehn::bench
