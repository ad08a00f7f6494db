// The C ABI (foehn.h): assemblers and assembly into the caller's arrays.
#include <memory>
#include <string>

#include "c_api_support.hpp"
#include "foehn/runtime/error.hpp"

using namespace foehn;
using c_api::guarded;
using c_api::require;

namespace {

fe::AssemblerOptions options_for(const char* backend, const char* strategy, void* cuda_stream) {
  fe::AssemblerOptions options;
  options.backend = backend ? backend : "auto";
  if (options.backend != "cpu" && options.backend != "cuda" && options.backend != "auto")
    fail(ErrorCategory::invalid_input, "backend '", options.backend,
         "' is not one of cpu, cuda, auto");
  if (strategy) options.strategy = fe::parse_assembly_strategy(strategy);
  options.stream = static_cast<CUstream_st*>(cuda_stream);
  return options;
}

std::span<double> span_of(double* data, int64_t count, const char* name) {
  if (count < 0) fail(ErrorCategory::invalid_input, name, ": negative count ", count);
  if (data == nullptr && count > 0)
    fail(ErrorCategory::invalid_input, name, " is NULL with count ", count);
  return {data, static_cast<std::size_t>(count)};
}

}  // namespace

extern "C" {

foehn_status foehn_assembler_create(foehn_mesh mesh, const char* backend, const char* strategy,
                                    foehn_assembler* assembler) {
  return foehn_assembler_create_on_stream(mesh, backend, strategy, nullptr, assembler);
}

foehn_status foehn_assembler_create_on_stream(foehn_mesh mesh, const char* backend,
                                              const char* strategy, void* cuda_stream,
                                              foehn_assembler* assembler) {
  return guarded("foehn_assembler_create", [&] {
    require(assembler, "assembler (the output handle)");
    *assembler = nullptr;
    require(mesh, "mesh");
    *assembler = c_api::hand_out(
        std::unique_ptr<foehn_assembler_s>(new foehn_assembler_s{
            fe::Assembler(mesh->local(), options_for(backend, strategy, cuda_stream)),
            c_api::FieldOrder(mesh->caller_local_of_local),
            {}}),
        c_api::HandleKind::assembler, mesh->comm());
  });
}

foehn_status foehn_assembler_uses_gpu(foehn_assembler assembler, int* uses_gpu) {
  return guarded("foehn_assembler_uses_gpu", [&] {
    require(assembler, "assembler");
    require(uses_gpu, "uses_gpu");
    *uses_gpu = assembler->assembler.backend() == Backend::cuda ? 1 : 0;
  });
}

foehn_status foehn_assembler_pattern(foehn_assembler assembler, int64_t* rows,
                                     int64_t* block_nonzeros, const int32_t** row_offsets,
                                     const int32_t** column_indices) {
  return guarded("foehn_assembler_pattern", [&] {
    require(assembler, "assembler");
    const fe::CsrPattern& pattern = *assembler->assembler.pattern();
    if (rows) *rows = static_cast<int64_t>(pattern.row_offsets.size()) - 1;
    if (block_nonzeros) *block_nonzeros = static_cast<int64_t>(pattern.nnz());
    if (row_offsets) *row_offsets = pattern.row_offsets.data();
    if (column_indices) *column_indices = pattern.column_indices.data();
  });
}

foehn_status foehn_assemble_values(foehn_assembler assembler, foehn_operator op,
                                   foehn_memory fields, foehn_memory results, double* values,
                                   int64_t value_count, double* rhs, int64_t rhs_count) {
  return guarded("foehn_assemble_values", [&] {
    require(assembler, "assembler");
    require(op, "op");
    const fe::Memory field_memory = c_api::memory_of(fields, "fields");
    const fe::Memory result_memory = c_api::memory_of(results, "results");
    c_api::FieldOrder& order = assembler->order;
    std::span<double> caller_rhs = span_of(rhs, rhs_count, "rhs");
    std::span<double> local_rhs = caller_rhs;
    if (!order.identity() && !caller_rhs.empty()) {
      if (result_memory == fe::Memory::device)
        fail(ErrorCategory::invalid_input,
             "a device rhs needs the mesh's node order to be the caller's (this partitioned "
             "mesh reorders its nodes: foehn_mesh_petsc_numbers)");
      assembler->rhs_scratch.resize(caller_rhs.size());
      local_rhs = assembler->rhs_scratch;
    }
    const c_api::AnyBuiltinOperator local_op = order.to_local(op->op, field_memory);
    std::visit(
        [&](const auto& o) {
          using Op = std::decay_t<decltype(o)>;
          assembler->assembler.assemble(
              o, field_memory, {result_memory, span_of(values, value_count, "values"), local_rhs});
          if (local_rhs.data() != caller_rhs.data())
            order.to_caller(local_rhs, caller_rhs, Op::block_rows);
        },
        local_op);
  });
}

foehn_status foehn_assembler_synchronize(foehn_assembler assembler) {
  return guarded("foehn_assembler_synchronize", [&] {
    require(assembler, "assembler");
    if (const Stream* stream = assembler->assembler.stream()) stream->synchronize();
  });
}

foehn_status foehn_assembler_destroy(foehn_assembler* assembler) {
  return guarded("foehn_assembler_destroy", [&] {
    if (assembler == nullptr) return;
    c_api::destroy_handle(*assembler, c_api::HandleKind::assembler, "*assembler");
  });
}

}  // extern "C"
