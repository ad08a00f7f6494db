#include "manufactured_poisson.hpp"

#include <cmath>
#include <numbers>

#include "foehn/fe/quadrature.hpp"
#include "foehn/petsc/dirichlet.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::examples {

double ManufacturedSolution::value(const Point3& x) const {
  return std::sin(kx * x[0] + px) * std::cos(ky * x[1]) * std::sin(kz * x[2] + pz);
}

double ManufacturedSolution::source(const Point3& x) const {
  const double sx = std::sin(kx * x[0] + px), cx = std::cos(kx * x[0] + px);
  const double sy = std::sin(ky * x[1]), cy = std::cos(ky * x[1]);
  const double sz = std::sin(kz * x[2] + pz), cz = std::cos(kz * x[2] + pz);
  // Hessian of u, row-major.
  const double h[9] = {-kx * kx * sx * cy * sz, -kx * ky * cx * sy * sz, kx * kz * cx * cy * cz,
                       -kx * ky * cx * sy * sz, -ky * ky * sx * cy * sz, -ky * kz * sx * sy * cz,
                       kx * kz * cx * cy * cz,  -ky * kz * sx * sy * cz, -kz * kz * sx * cy * sz};
  double divergence = 0;  // div(K grad u) = K : H for a constant K
  for (int i = 0; i < 9; ++i) divergence += conductivity[i] * h[i];
  return -divergence;
}

ManufacturedSolution ManufacturedSolution::for_box(double length_x, double length_y,
                                                   double height) {
  constexpr double pi = std::numbers::pi;
  ManufacturedSolution s;
  s.conductivity = {1.0, 0.2, 0.02, 0.2, 0.8, 0.03, 0.02, 0.03, 0.1};
  s.kx = pi / length_x;
  s.ky = 0.75 * pi / length_y;
  s.kz = 0.6 * pi / height;
  s.px = 0.3;
  s.pz = 0.4;
  return s;
}

void mark_boundary_nodes(TetMesh& mesh) {
  MeshField field{dirichlet_field_name, 1, std::vector<double>(mesh.node_count(), 0.0)};
  for (const Triangle& face : mesh.boundary_faces)
    for (const std::int32_t node : face) field.values.at(static_cast<std::size_t>(node)) = 1.0;
  std::erase_if(mesh.node_fields,
                [](const MeshField& f) { return f.name == dirichlet_field_name; });
  mesh.node_fields.push_back(std::move(field));
}

namespace {

const MeshField& dirichlet_field(const TetMesh& mesh) {
  for (const MeshField& field : mesh.node_fields)
    if (field.name == dirichlet_field_name) return field;
  fail(ErrorCategory::invalid_input, "PoissonProblem: the mesh has no '", dirichlet_field_name,
       "' node field (call mark_boundary_nodes before distributing it)");
}

}  // namespace

PoissonProblem::PoissonProblem(const petsc::DistributedMesh& mesh, ManufacturedSolution solution,
                               const fe::AssemblerOptions& assembly,
                               const petsc::MatrixHandoffOptions& handoff)
    : mesh_(mesh),
      exact_(solution),
      exchange_(mesh, 1),
      assembler_(mesh, assembly, /*device_solves=*/false) {
  const TetMesh& local = mesh.local;
  const std::size_t nodes = local.node_count();
  tensor_.resize(9 * nodes);
  source_.resize(nodes);
  for (std::size_t n = 0; n < nodes; ++n) {
    std::copy(exact_.conductivity.begin(), exact_.conductivity.end(), tensor_.begin() + 9 * n);
    source_[n] = exact_.source(local.nodes[n]);
  }
  const MeshField& marks = dirichlet_field(local);
  for (std::size_t n = 0; n < nodes; ++n)
    if (marks.values[n] != 0) dirichlet_nodes_.push_back(static_cast<std::int32_t>(n));

  const petsc::NodeNumbering numbering = petsc::distributed_numbering(mesh);
  system_ = std::make_unique<petsc::System>(
      assembler_, numbering,
      petsc::SystemSpec{"poisson", "", 1, 1, /*with_rhs=*/true, std::nullopt, handoff});
  solution_ = exchange_.create_vector();
  boundary_values_ = exchange_.create_vector();
  std::vector<double> g(nodes);
  for (std::size_t n = 0; n < nodes; ++n) g[n] = exact_.value(local.nodes[n]);
  exchange_.local_to_global(g, boundary_values_.get(), petsc::ExchangeMode::insert);
  const int component[] = {0};
  dirichlet_rows_ = petsc::owned_dirichlet_rows(numbering, dirichlet_nodes_, 1, component);
  // K and f never change: the CUDA backend uploads them once.
  assembler_.declare_constant(tensor_);
  assembler_.declare_constant(source_);
}

PoissonProblem::~PoissonProblem() = default;

void PoissonProblem::assemble() {
  fe::DiffusionOperator op;
  op.tensor = fe::field_ref(tensor_);
  op.source = fe::field_ref(source_);
  // Host values are copied into the Mat; device values (CUDA backend) go by one asynchronous
  // copy straight into PETSc's value array, with no host vector in between.
  system_->assemble(op);
  // The solution vector starts as g: the boundary values and the initial guess.
  FOEHN_PETSC_CHECK(VecCopy(boundary_values_.get(), solution_.get()));
  petsc::apply_dirichlet(system_->mat(), dirichlet_rows_, boundary_values_.get(), system_->rhs());
}

petsc::SolveResult PoissonProblem::solve(petsc::LinearSolver& solver) {
  solver.set_operator(system_->mat());
  return solver.solve(system_->rhs(), solution_.get());
}

std::vector<double> PoissonProblem::local_solution() const {
  std::vector<double> local(exchange_.local_value_count());
  exchange_.global_to_local(solution_.get(), local);
  return local;
}

double PoissonProblem::integrate_squared(bool error) const {
  const std::vector<double> u_h = error ? local_solution() : std::vector<double>{};
  const fe::TetKeast11 rule;
  double sum = 0;
  const TetMesh& local = mesh_.local;
  for (std::size_t t = 0; t < local.tets.size(); ++t) {
    const Tet& tet = local.tets[t];
    const Point3& x0 = local.nodes[tet[0]];
    double edges[3][3];
    for (int k = 0; k < 3; ++k)
      for (int d = 0; d < 3; ++d) edges[k][d] = local.nodes[tet[k + 1]][d] - x0[d];
    const double det = edges[0][0] * (edges[1][1] * edges[2][2] - edges[1][2] * edges[2][1]) -
                       edges[0][1] * (edges[1][0] * edges[2][2] - edges[1][2] * edges[2][0]) +
                       edges[0][2] * (edges[1][0] * edges[2][1] - edges[1][1] * edges[2][0]);
    for (int q = 0; q < rule.ngi; ++q) {
      const double* xi = rule.point[q];
      const double shape[4] = {1 - xi[0] - xi[1] - xi[2], xi[0], xi[1], xi[2]};
      Point3 x{x0[0], x0[1], x0[2]};
      for (int k = 0; k < 3; ++k)
        for (int d = 0; d < 3; ++d) x[d] += xi[k] * edges[k][d];
      double value = exact_.value(x);
      if (error)
        for (int a = 0; a < 4; ++a) value -= shape[a] * u_h[static_cast<std::size_t>(tet[a])];
      sum += rule.weight[q] * std::abs(det) * value * value;
    }
  }
  double total = 0;
  MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, mesh_.comm);
  return std::sqrt(total);
}

double PoissonProblem::l2_error() const {
  return integrate_squared(true);
}
double PoissonProblem::l2_norm_of_exact() const {
  return integrate_squared(false);
}

}  // namespace foehn::examples
