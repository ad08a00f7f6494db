// CudaChemistrySolver in a build without CUDA: constructing one reports that clearly.

#include "foehn/chemistry/cuda_chemistry.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::chemistry {

struct CudaChemistrySolver::Impl {};

CudaChemistrySolver::CudaChemistrySolver(const Mechanism&, const RosenbrockOptions&,
                                         const CudaChemistrySettings&, const Stream&) {
  fail_built_without_cuda("the GPU chemistry solver");
}
CudaChemistrySolver::~CudaChemistrySolver() = default;
CudaChemistrySolver::CudaChemistrySolver(CudaChemistrySolver&&) noexcept = default;
CudaChemistrySolver& CudaChemistrySolver::operator=(CudaChemistrySolver&&) noexcept = default;
// Unreachable: no object can exist. Each still reports instead of crashing.
std::int64_t CudaChemistrySolver::cell_count() const {
  fail_built_without_cuda("CudaChemistrySolver");
}
const std::vector<CellStatistics>& CudaChemistrySolver::cell_statistics() const {
  fail_built_without_cuda("CudaChemistrySolver");
}
GpuChemistryStrategy CudaChemistrySolver::strategy_for(std::int64_t) const {
  fail_built_without_cuda("CudaChemistrySolver");
}
const CudaChemistryTimings& CudaChemistrySolver::last_timings() const {
  fail_built_without_cuda("CudaChemistrySolver");
}
const PreparedMechanism& CudaChemistrySolver::prepared() const {
  fail_built_without_cuda("CudaChemistrySolver");
}
void CudaChemistrySolver::upload(const ChemistryBatch&, std::int64_t, std::int64_t) {
  fail_built_without_cuda("CudaChemistrySolver");
}
void CudaChemistrySolver::upload_device(const double*, const ChemistryBatch&) {
  fail_built_without_cuda("CudaChemistrySolver");
}
void CudaChemistrySolver::download_device(double*) {
  fail_built_without_cuda("CudaChemistrySolver");
}
void CudaChemistrySolver::upload_conditions(const ChemistryBatch&, std::int64_t) {
  fail_built_without_cuda("CudaChemistrySolver");
}
void CudaChemistrySolver::reset_steps() {
  fail_built_without_cuda("CudaChemistrySolver");
}
void CudaChemistrySolver::set_next_steps(std::span<const double>) {
  fail_built_without_cuda("CudaChemistrySolver");
}
ChemistryStepReport CudaChemistrySolver::advance(double) {
  fail_built_without_cuda("CudaChemistrySolver");
}
void CudaChemistrySolver::download(ChemistryBatch&, std::int64_t) {
  fail_built_without_cuda("CudaChemistrySolver");
}
ChemistryStepReport CudaChemistrySolver::solve(ChemistryBatch&, double) {
  fail_built_without_cuda("CudaChemistrySolver");
}
double CudaChemistrySolver::factor_matrices(double*, std::int64_t) {
  fail_built_without_cuda("CudaChemistrySolver");
}

}  // namespace foehn::chemistry
