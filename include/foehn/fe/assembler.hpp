#pragma once
// One assembler whatever the backend: built from a mesh and options (backend cpu|cuda|auto,
// CUDA strategy, the caller's stream), it assembles any operator (built-in or defined with
// FOEHN_DEFINE_OPERATOR) with one set of methods. Fields and results may each be in host or
// device memory: the work happens in the backend's own memory (host for cpu, device for cuda)
// and whatever is elsewhere is copied in (fields) or out (results) through scratch buffers kept
// between calls, so a timestep allocates nothing after the first.
//
//   fe::Assembler assembler(mesh, {.backend = "auto"});      // or petsc::assembler_options(prefix)
//   std::vector<double> values(assembler.value_count<DiffusionOperator>()), rhs(n);
//   assembler.assemble(op, fe::Memory::host, {fe::Memory::host, values, rhs});
//
// Host results are complete when assemble returns. Device results are queued on stream() (the
// CUDA backend's stream; the caller's when one was given) and ready in stream order.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "foehn/fe/block_csr_matrix.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/fe/operator_checks.hpp"
#include "foehn/runtime/backend.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::fe {

enum class Memory { host, device };
std::string_view to_string(Memory memory);

struct AssemblerOptions {
  std::string backend = "auto";                           // cpu, cuda or auto
  AssemblyStrategy strategy = default_assembly_strategy;  // CUDA backend
  CUstream_st* stream = nullptr;  // CUDA: a stream the caller owns (cudaStream_t); null: own one
  bool use_slot_map = true;       // CPU backend (CpuAssemblyOptions)
  int cpu_threads = 1;            // CPU backend: 1 serial, 0 OpenMP's default, n (row gather)
  CudaAssemblyOptions cuda{};
  std::ostream* notice = nullptr;  // where "auto" says why it uses the CPU, if it does
};

// Where an assembly writes: `values` holds value_count<Op>() doubles in Foehn's block order
// (block_csr_matrix.hpp), `rhs` node_count() * Op::block_rows or nothing.
struct AssemblyOutput {
  Memory memory = Memory::host;
  std::span<double> values;
  std::span<double> rhs;
};

class Assembler {
 public:
  explicit Assembler(const TetMesh& mesh, const AssemblerOptions& options = {});
  ~Assembler();
  Assembler(Assembler&&) noexcept;
  Assembler& operator=(Assembler&&) noexcept;

  Backend backend() const noexcept { return backend_; }
  AssemblyStrategy strategy() const noexcept { return strategy_; }
  // Where the backend works: results there need no copy.
  Memory native_memory() const noexcept {
    return backend_ == Backend::cuda ? Memory::device : Memory::host;
  }
  std::int64_t node_count() const noexcept { return node_count_; }
  std::int64_t tet_count() const noexcept { return tet_count_; }
  std::int64_t nnz() const noexcept { return static_cast<std::int64_t>(pattern_->nnz()); }
  // The node pattern, on the host for either backend (a hand-off needs it there).
  const std::shared_ptr<const CsrPattern>& pattern() const noexcept { return pattern_; }
  // The CUDA backend's stream (null for the CPU backend).
  const Stream* stream() const noexcept { return cuda_ ? stream_.get() : nullptr; }
  // The backend's own assembler, for what only it offers (its device mesh arrays, strategy
  // set-up): null for the other backend.
  const CudaAssembler* cuda_assembler() const noexcept { return cuda_.get(); }
  const CpuAssembler* cpu_assembler() const noexcept { return cpu_.get(); }

  template <class Op>
  std::size_t value_count() const noexcept {
    return static_cast<std::size_t>(nnz()) * Op::block_rows * Op::block_cols;
  }
  template <class Op>
  BlockCsrMatrix create_matrix() const {
    return BlockCsrMatrix(pattern_, Op::block_rows, Op::block_cols);
  }

  // Assembles `op`, whose fields are in `fields` memory, into `output`. Throws foehn::Error
  // (invalid_input) for wrong sizes, missing required fields or (host fields) non-finite values,
  // and (unavailable) for device memory without CUDA.
  template <class Op>
  void assemble(const Op& op, Memory fields, const AssemblyOutput& output);
  // Host results into a matrix made by create_matrix<Op>().
  template <class Op>
  void assemble(const Op& op, Memory fields, BlockCsrMatrix& matrix, std::span<double> rhs = {}) {
    if (matrix.pattern != pattern_ || matrix.block_rows != Op::block_rows ||
        matrix.block_cols != Op::block_cols)
      fail(ErrorCategory::invalid_input, Op::name,
           " operator: the matrix was not created for it by this assembler (create_matrix<Op>())");
    assemble(op, fields, AssemblyOutput{Memory::host, matrix.values, rhs});
  }

 private:
  // `count` doubles of scratch in `memory`, kept per slot between calls.
  std::span<double> scratch(Memory memory, std::size_t slot, std::size_t count);
  // A copy of `field` (in `from` memory) in the backend's memory, in scratch slot `slot`.
  FieldRef stage_field(const FieldRef& field, Memory from, std::size_t slot);
  // Copies `count` doubles between memories (on stream_; synchronises for host destinations).
  void copy(const double* source, Memory from, double* destination, Memory to, std::size_t count);
  void finish_copies(Memory destination);
  const Stream& copy_stream();

  Backend backend_ = Backend::cpu;
  AssemblyStrategy strategy_ = AssemblyStrategy::fused_map;
  std::int64_t node_count_ = 0, tet_count_ = 0;
  std::shared_ptr<const CsrPattern> pattern_;
  // Own or borrowed; made only when CUDA is used. Held by pointer: the CUDA assembler keeps
  // its address, which must survive moves of this object.
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<CpuAssembler> cpu_;
  std::unique_ptr<CudaAssembler> cuda_;
  std::vector<std::vector<double>> host_scratch_;
  std::vector<DeviceArray<double>> device_scratch_;
};

template <class Op>
void Assembler::assemble(const Op& op, Memory fields, const AssemblyOutput& output) {
  constexpr int R = Op::block_rows, C = Op::block_cols;
  // Host fields are checked for values as well as sizes, whichever backend then uses them.
  check_operator_fields(op, node_count(),
                        fields == Memory::host ? FieldMemory::host : FieldMemory::device);
  check_assembly_sizes<Op>(node_count(), nnz(), output.values.size(), !output.rhs.empty(),
                           output.rhs.size());
  const Memory native = native_memory();
  std::size_t slot = 2;  // 0 and 1 hold values and rhs
  const Op staged = fields == native
                        ? op
                        : with_fields_replaced(op, [&](const FieldRef& field, int, const char*) {
                            return stage_field(field, fields, slot++);
                          });
  const bool direct = output.memory == native;
  const std::span<double> values =
      direct ? output.values : scratch(native, 0, output.values.size());
  const std::span<double> rhs = output.rhs.empty() ? std::span<double>{}
                                : direct           ? output.rhs
                                                   : scratch(native, 1, output.rhs.size());
  if (cuda_)
    cuda_->assemble(
        staged, DeviceAssemblyTarget{R, C, values.data(), values.size(), rhs.data(), rhs.size()},
        strategy_);
  else
    cpu_->assemble(staged, values, rhs);
  if (direct) return;
  copy(values.data(), native, output.values.data(), output.memory, values.size());
  if (!rhs.empty()) copy(rhs.data(), native, output.rhs.data(), output.memory, rhs.size());
  finish_copies(output.memory);
}

}  // namespace foehn::fe
