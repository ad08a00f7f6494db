#include "handoff_cases.hpp"

#include <petscmat.h>

#include <chrono>
#include <cmath>
#include <numeric>

#include "bench_timing.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/node_numbering.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/petsc/vector_handoff.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::bench {

namespace {

using Clock = std::chrono::steady_clock;

double elapsed_ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Sum of every entry of the global matrix (A times ones, summed) against the sum over ranks of
// the local values handed in: equal when the hand-off lost or misplaced nothing (entries of
// rows owned elsewhere included).
double sum_check(const petsc::PetscMatrix& matrix, std::span<const double> local_values,
                 MPI_Comm comm) {
  Vec ones = nullptr, product = nullptr;
  FOEHN_PETSC_CHECK(MatCreateVecs(matrix.mat(), &ones, &product));
  FOEHN_PETSC_CHECK(VecSet(ones, 1.0));
  FOEHN_PETSC_CHECK(MatMult(matrix.mat(), ones, product));
  PetscScalar petsc_sum = 0;
  FOEHN_PETSC_CHECK(VecSum(product, &petsc_sum));
  VecDestroy(&ones);
  VecDestroy(&product);
  double local = 0, local_abs = 0;
  for (double v : local_values) {
    local += v;
    local_abs += std::abs(v);
  }
  double sums[2] = {local, local_abs}, totals[2] = {0, 0};
  MPI_Allreduce(sums, totals, 2, MPI_DOUBLE, MPI_SUM, comm);
  return std::abs(petsc_sum - totals[0]) / std::max(totals[1], 1e-300);
}

template <class Op>
struct System {
  fe::DeviceBlockCsrMatrix values;
  DeviceArray<double> rhs;
  petsc::PetscMatrix matrix;
  petsc::PetscVector vector;
  Op op;

  bool on_device;

  System(fe::CudaAssembler& gpu, const petsc::NodeNumbering& numbering,
         std::shared_ptr<const fe::CsrPattern> pattern, const Stream& stream, Op op_in, bool device)
      : values(gpu.template create_matrix<Op>()),
        rhs(static_cast<std::size_t>(gpu.node_count()) * Op::block_rows, stream),
        matrix(numbering, std::move(pattern), Op::block_rows, Op::block_cols, options(device)),
        vector(numbering, Op::block_rows, device),
        op(op_in),
        on_device(device) {}

  static petsc::MatrixHandoffOptions options(bool device) {
    petsc::MatrixHandoffOptions o;
    o.device_matrix = device;
    return o;
  }
  // On the GPU the assembly writes straight into what PETSc's arrays (or the hand-off's
  // buffer for permuted blocks) hand out; on the host into Foehn's own device arrays.
  void assemble(fe::CudaAssembler& gpu, fe::AssemblyStrategy strategy) {
    if (!on_device) return gpu.assemble(op, values, &rhs, strategy);
    const Stream& stream = gpu.stream();
    gpu.assemble(
        op,
        fe::DeviceAssemblyTarget{Op::block_rows, Op::block_cols, matrix.begin_device_write(stream),
                                 matrix.value_count(), vector.begin_device_write(stream),
                                 vector.local_value_count()},
        strategy);
  }
  void begin(const Stream& stream) {
    if (on_device) {
      matrix.end_device_write(stream);
      vector.end_device_write(stream);
      petsc::stream_waits_for_petsc(stream);  // so that synchronising `stream` waits for PETSc
      return;
    }
    matrix.begin_set_values(values, stream);
    vector.begin_set_values(rhs, stream);
  }
  void end() {
    if (on_device) return;
    matrix.end_set_values();
    vector.end_set_values();
  }
};

template <class Op>
HandoffTimes time_system(System<Op>& system, fe::CudaAssembler& gpu, const Stream& stream,
                         fe::AssemblyStrategy strategy, MPI_Comm comm, int warmups, int repeats,
                         const char* name) {
  std::vector<double> assemble, copy, update;
  for (int i = 0; i < warmups + repeats; ++i) {
    MPI_Barrier(comm);
    auto start = Clock::now();
    system.assemble(gpu, strategy);
    stream.synchronize();
    const double t_assemble = elapsed_ms(start);
    start = Clock::now();
    system.begin(stream);
    stream.synchronize();
    const double t_copy = elapsed_ms(start);
    start = Clock::now();
    system.end();
    const double t_update = elapsed_ms(start);
    if (i >= warmups) {
      assemble.push_back(t_assemble);
      copy.push_back(t_copy);
      update.push_back(t_update);
    }
  }
  HandoffTimes t;
  t.operator_name = name;
  t.assemble_ms = median(assemble);
  t.copy_ms = median(copy);
  t.update_ms = median(update);
  t.value_bytes = static_cast<double>(system.values.values.bytes() + system.rhs.bytes());
  t.path = petsc::to_string(system.matrix.path());
  t.format = petsc::to_string(system.matrix.format());
  t.registered = system.matrix.copies_into_registered_array();
  if (system.on_device) {
    // The hand-off on the GPU is what end_device_write does (begin() above): no copy.
    t.update_ms = t.copy_ms + t.update_ms;
    t.copy_ms = 0;
    t.path = system.matrix.writes_in_place()                   ? "device_in_place"
             : system.matrix.path() == petsc::HandoffPath::coo ? "device_coo"
                                                               : "device_permuted";
    // The values the check compares with: the same assembly into Foehn's own array.
    gpu.assemble(system.op, system.values, &system.rhs, strategy);
  }
  const std::vector<double> host_values = system.values.values.copy_to_host(stream);
  t.check_relative_error = sum_check(system.matrix, host_values, comm);
  return t;
}

}  // namespace

HandoffRun run_handoff_cases(const petsc::DistributedMesh& mesh, fe::AssemblyStrategy strategy,
                             int warmups, int repeats, bool on_device) {
  Stream compute, copy;
  fe::CudaAssembler gpu(mesh.local, compute);
  auto pattern = std::make_shared<const fe::CsrPattern>(gpu.download_pattern());
  const petsc::NodeNumbering numbering = petsc::distributed_numbering(mesh);

  // Fields that make the kernels do their full work: a tensor and source for diffusion, an
  // advecting velocity and body force for momentum.
  const std::size_t nodes = mesh.local.node_count();
  std::vector<double> tensor(9 * nodes), scalar(nodes), vector(3 * nodes);
  for (std::size_t n = 0; n < nodes; ++n) {
    const auto& x = mesh.local.nodes[n];
    for (int k = 0; k < 9; ++k) tensor[9 * n + k] = (k % 4 == 0) ? 1.0 + 1e-5 * x[2] : 0.05;
    scalar[n] = std::sin(1e-4 * x[0]);
    vector[3 * n] = 10.0 + 1e-4 * x[2];
    vector[3 * n + 1] = 0.5;
    vector[3 * n + 2] = 1e-5 * x[0];
  }
  DeviceArray<double> d_tensor(tensor.size(), compute), d_scalar(nodes, compute),
      d_vector(vector.size(), compute);
  d_tensor.copy_from_host_async(tensor, compute);
  d_scalar.copy_from_host_async(scalar, compute);
  d_vector.copy_from_host_async(vector, compute);
  compute.synchronize();

  fe::DiffusionOperator diffusion;
  diffusion.tensor = fe::field_ref(d_tensor.data(), static_cast<std::int64_t>(d_tensor.size()));
  diffusion.source = fe::field_ref(d_scalar.data(), static_cast<std::int64_t>(d_scalar.size()));
  fe::MomentumOperator momentum;
  momentum.advecting_velocity =
      fe::field_ref(d_vector.data(), static_cast<std::int64_t>(d_vector.size()));
  momentum.body_force = momentum.advecting_velocity;

  System<fe::DiffusionOperator> scalar_system(gpu, numbering, pattern, compute, diffusion,
                                              on_device);
  System<fe::MomentumOperator> vector_system(gpu, numbering, pattern, compute, momentum, on_device);

  HandoffRun run;
  run.operators.push_back(
      time_system(scalar_system, gpu, compute, strategy, mesh.comm, warmups, repeats, "diffusion"));
  run.operators.push_back(
      time_system(vector_system, gpu, compute, strategy, mesh.comm, warmups, repeats, "momentum"));
  if (on_device) return run;  // nothing crosses to the host: no copy to overlap

  // The two systems of a timestep, handed off one after the other ...
  auto sequential = [&] {
    scalar_system.assemble(gpu, strategy);
    scalar_system.begin(compute);
    scalar_system.end();
    vector_system.assemble(gpu, strategy);
    vector_system.begin(compute);
    vector_system.end();
  };
  // ... and pipelined: each copy runs on its own stream while the next system is assembled,
  // and the PETSc update of the first runs on the host while the second is copied.
  ::foehn::Event scalar_ready, vector_ready;
  auto overlapped = [&] {
    scalar_system.assemble(gpu, strategy);
    scalar_ready.record(compute);
    copy.wait(scalar_ready);
    scalar_system.begin(copy);
    vector_system.assemble(gpu, strategy);
    vector_ready.record(compute);
    copy.wait(vector_ready);
    vector_system.begin(copy);
    scalar_system.end();
    vector_system.end();
  };
  std::vector<double> sequential_ms, overlapped_ms;
  for (int i = 0; i < warmups + repeats; ++i) {
    for (int variant = 0; variant < 2; ++variant) {
      MPI_Barrier(mesh.comm);
      const auto start = Clock::now();
      variant == 0 ? sequential() : overlapped();
      compute.synchronize();
      copy.synchronize();
      const double t = elapsed_ms(start);
      if (i >= warmups) (variant == 0 ? sequential_ms : overlapped_ms).push_back(t);
    }
  }
  run.pipeline.sequential_ms = median(sequential_ms);
  run.pipeline.overlapped_ms = median(overlapped_ms);
  return run;
}

}  // namespace foehn::bench
