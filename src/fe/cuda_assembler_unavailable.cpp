// CPU-only builds: CudaAssembler exists (so code using it links) and says why it cannot run.
#include <exception>

#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/fe/cuda_assembly_unavailable.hpp"
#include "foehn/fe/operator_list.hpp"
#include "foehn/fe/value_edits.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {

struct CudaAssembler::Impl {};

namespace {
[[noreturn]] void unavailable(const char* what) {
  fail(ErrorCategory::unavailable, "Foehn was built without CUDA: ", what,
       " needs the CUDA backend (configure with -DFOEHN_CUDA=ON)");
}
}  // namespace

CudaAssembler::CudaAssembler(const TetMesh&, const Stream&, CudaAssemblyOptions) {
  unavailable("CudaAssembler");
}
CudaAssembler::~CudaAssembler() = default;
CudaAssembler::CudaAssembler(CudaAssembler&&) noexcept = default;
CudaAssembler& CudaAssembler::operator=(CudaAssembler&&) noexcept = default;
std::int64_t CudaAssembler::node_count() const noexcept {
  return 0;
}
std::int64_t CudaAssembler::tet_count() const noexcept {
  return 0;
}
std::int64_t CudaAssembler::nnz() const noexcept {
  return 0;
}
const Stream& CudaAssembler::stream() const noexcept {
  std::terminate();
}
const DeviceArray<std::int32_t>& CudaAssembler::row_offsets() const noexcept {
  std::terminate();
}
const DeviceArray<std::int32_t>& CudaAssembler::column_indices() const noexcept {
  std::terminate();
}
const DeviceArray<double>& CudaAssembler::coordinates() const noexcept {
  std::terminate();
}
const DeviceArray<std::int32_t>& CudaAssembler::tets() const noexcept {
  std::terminate();
}
CsrPattern CudaAssembler::download_pattern() const {
  unavailable("download_pattern");
}
void CudaAssembler::prepare(AssemblyStrategy) {
  unavailable("prepare");
}
std::size_t CudaAssembler::setup_bytes() const noexcept {
  return 0;
}
BlockCsrMatrix CudaAssembler::download(const DeviceBlockCsrMatrix&,
                                       std::shared_ptr<const CsrPattern>) const {
  unavailable("download");
}
DeviceValueEdits::DeviceValueEdits(const ValueEdits&, const Stream&) {
  unavailable("DeviceValueEdits");
}
void DeviceValueEdits::add_diagonal(double*, const double*, const Stream&) const {
  unavailable("DeviceValueEdits::add_diagonal");
}
void DeviceValueEdits::apply_constraints(double*, double, const Stream&) const {
  unavailable("DeviceValueEdits::apply_constraints");
}
void DeviceValueEdits::column_correction(const double*, const double*, double*,
                                         const Stream&) const {
  unavailable("DeviceValueEdits::column_correction");
}
void DeviceValueEdits::constrain_rhs(double*, const double*, double, const Stream&) const {
  unavailable("DeviceValueEdits::constrain_rhs");
}

}  // namespace foehn::fe

FOEHN_FOR_EACH_BUILTIN_OPERATOR(FOEHN_INSTANTIATE_CUDA_DISPATCH)
