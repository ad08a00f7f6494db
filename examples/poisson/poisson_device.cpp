// The CUDA backend of the manufactured Poisson problem: fields uploaded once, assembly on the
// GPU with the chosen strategy, values handed to PETSc from the device.
#include "foehn/petsc/log_events.hpp"
#include "poisson_device.hpp"

namespace foehn::examples {

PoissonProblem::~PoissonProblem() = default;

void PoissonProblem::init_backend() {
  if (backend_ == Backend::cuda) device_ = std::make_unique<Device>(mesh_.local, tensor_, source_);
}

void PoissonProblem::assemble_on_device() {
  Device& d = *device_;
  fe::DiffusionOperator op;
  op.tensor = fe::field_ref(d.tensor.data(), static_cast<std::int64_t>(d.tensor.size()));
  op.source = fe::field_ref(d.source.data(), static_cast<std::int64_t>(d.source.size()));
  {
    const petsc::ScopedLogEvent event(petsc::LogEvent::assemble_gpu);
    d.assembler.assemble(op, d.values, &d.rhs, strategy_);
  }
  matrix_->begin_set_values(d.values, d.stream);
  rhs_->begin_set_values(d.rhs, d.stream);
  matrix_->end_set_values();
  rhs_->end_set_values();
}

}  // namespace foehn::examples
