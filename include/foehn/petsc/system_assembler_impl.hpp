#pragma once
// SystemAssembler::assemble's definition, for explicit instantiations: the library's for the
// built-in operators (system_assembler.cpp) and FOEHN_DEFINE_SYSTEM_OPERATOR for an operator of
// a program's own (define_system_operator.hpp). Not for direct use.
#include <map>
#include <set>
#include <span>
#include <vector>

#include "foehn/fe/operator_interface.hpp"
#include "foehn/petsc/log_events.hpp"
#include "foehn/petsc/system_assembler.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::petsc {

// The CUDA backend's buffers: values and right-hand sides by shape, and device copies of host
// fields (constant ones uploaded once, which fe::Assembler's per-call staging would repeat).
struct SystemAssembler::Device {
  std::map<int, fe::DeviceBlockCsrMatrix> matrices;
  std::map<int, DeviceArray<double>> rhs;
  std::map<const double*, DeviceArray<double>> fields;  // by host address
  std::set<const double*> uploaded_constants;
};

template <class Op>
void SystemAssembler::assemble(const Op& op, PetscMatrix& matrix, PetscVector* rhs,
                               const Edit& edit, PetscMatrix* same_values) {
  if (backend_ == Backend::cpu) return assemble_on_host(op, matrix, rhs, edit, same_values);
  if (device_solves_) return assemble_into_petsc(op, matrix, rhs, edit, same_values);
  assemble_then_copy(op, matrix, rhs, edit, same_values);
}

template <class Op>
void SystemAssembler::assemble_on_host(const Op& op, PetscMatrix& matrix, PetscVector* rhs,
                                       const Edit& edit, PetscMatrix* same_values) {
  const int shape = Op::block_rows * 4 + Op::block_cols;
  auto [slot, created] = host_matrices_.try_emplace(shape);
  if (created) slot->second = assembler_.create_matrix<Op>();
  std::vector<double>& b = host_rhs_[Op::block_rows];
  b.assign(static_cast<std::size_t>(assembler_.node_count()) * Op::block_rows, 0.0);
  Stopwatch watch;
  {
    const ScopedLogEvent event(LogEvent::assemble);
    assembler_.assemble(op, fe::Memory::host, slot->second,
                        rhs ? std::span<double>(b) : std::span<double>());
  }
  times_.assembly += watch.lap();
  if (edit) edit(slot->second.values.data(), rhs ? b.data() : nullptr);
  matrix.set_values(slot->second);
  if (same_values) same_values->set_values(std::span<const double>(slot->second.values));
  if (rhs) rhs->set_values(b);
  times_.handoff += watch.seconds();
}

// Device fields, device solves: the assembler writes into PETSc's device arrays.
template <class Op>
void SystemAssembler::assemble_into_petsc(const Op& op, PetscMatrix& matrix, PetscVector* rhs,
                                          const Edit& edit, PetscMatrix* same_values) {
  const Stream& stream = *assembler_.stream();
  Stopwatch watch;
  const std::span<double> values(matrix.begin_device_write(stream), matrix.value_count());
  std::span<double> rhs_values;
  try {
    if (rhs) rhs_values = {rhs->begin_device_write(stream), rhs->local_value_count()};
    {
      const ScopedLogEvent event(LogEvent::assemble_gpu);
      assembler_.assemble(op, fe::Memory::device, {fe::Memory::device, values, rhs_values});
      stream.synchronize();  // so that the event (and the phase timers) see the device time
    }
    times_.assembly += watch.lap();
    if (edit) edit(values.data(), rhs ? rhs_values.data() : nullptr);
    if (same_values) same_values->set_device_values(values.data(), stream);
  } catch (...) {
    // A rejected field or a device error: give PETSc its arrays back, so that the objects
    // take the next assembly instead of failing as "not ended".
    if (rhs) rhs->abandon_device_write(stream);
    matrix.abandon_device_write(stream);
    throw;
  }
  matrix.end_device_write(stream);
  if (rhs) rhs->end_device_write(stream);
  stream.synchronize();
  times_.handoff += watch.seconds();
}

// Host fields (uploaded), device values copied to host PETSc objects.
template <class Op>
void SystemAssembler::assemble_then_copy(const Op& op, PetscMatrix& matrix, PetscVector* rhs,
                                         const Edit& edit, PetscMatrix* same_values) {
  Device& d = *device_;
  const Stream& stream = *assembler_.stream();
  const int shape = Op::block_rows * 4 + Op::block_cols;
  Stopwatch watch;
  // The operator with its fields pointing at device copies of the host fields (constant ones
  // uploaded once: why this does not leave the staging to fe::Assembler).
  const Op device_op =
      fe::with_fields_replaced(op, [&](const fe::FieldRef& field, int, const char*) {
        return fe::FieldRef{device_copy_of(field), field.size};
      });
  auto [slot, created] = d.matrices.try_emplace(shape);
  if (created)
    slot->second = fe::DeviceBlockCsrMatrix{
        Op::block_rows, Op::block_cols, DeviceArray<double>(assembler_.value_count<Op>(), stream)};
  auto [b, b_created] = d.rhs.try_emplace(Op::block_rows);
  if (b_created)
    b->second = DeviceArray<double>(
        static_cast<std::size_t>(assembler_.node_count()) * Op::block_rows, stream);
  {
    const ScopedLogEvent event(LogEvent::assemble_gpu);
    assembler_.assemble(
        device_op, fe::Memory::device,
        {fe::Memory::device,
         {slot->second.values.data(), slot->second.values.size()},
         rhs ? std::span<double>(b->second.data(), b->second.size()) : std::span<double>{}});
    stream.synchronize();
  }
  times_.assembly += watch.lap();
  if (edit) edit(slot->second.values.data(), rhs ? b->second.data() : nullptr);
  matrix.begin_set_values(slot->second, stream);
  if (same_values) same_values->begin_set_values(slot->second.values, stream);
  if (rhs) rhs->begin_set_values(b->second, stream);
  matrix.end_set_values();
  if (same_values) same_values->end_set_values();
  if (rhs) rhs->end_set_values();
  times_.handoff += watch.seconds();
}

}  // namespace foehn::petsc

#define FOEHN_INSTANTIATE_SYSTEM_ASSEMBLE(Op)                            \
  template void foehn::petsc::SystemAssembler::assemble(                 \
      const Op&, foehn::petsc::PetscMatrix&, foehn::petsc::PetscVector*, \
      const foehn::petsc::SystemAssembler::Edit&, foehn::petsc::PetscMatrix*);
