#pragma once
// Helpers of the mountain-wave I/O tests: the small mountain mesh, its distribution over any
// communicator, and a model state whose every value is a function of the input node (so the
// same state can be built on any distribution and compared bit for bit).
#include <mpi.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "foehn/mesh/mountain.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "model_state.hpp"
#include "mpi/support/mpi_test_support.hpp"
#include "support/small_mountain.hpp"

namespace foehn::testing {

// The mountain domain at 6 x 6 x 4 cells (245 nodes, 864 tets), without extra fields.
inline TetMesh io_test_mountain(int cells_x = 6, double mountain_height = 400.0) {
  MountainMeshOptions options = small_mountain_options(cells_x);
  options.mountain_height = mountain_height;
  return generate_mountain_mesh(options);
}

// `whole` is read on the communicator's rank 0 only, as an application would.
inline petsc::DistributedMesh distribute_on(MPI_Comm comm, const TetMesh& whole) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return petsc::distribute_mesh(comm, rank == 0 ? &whole : nullptr);
}

// A double of any exponent and all 52 mantissa bits used, from (node, field, component), so a
// single flipped bit anywhere shows; finite, signs and magnitudes mixed.
inline double test_value(std::int64_t input_node, int field, int component) {
  std::uint64_t z = static_cast<std::uint64_t>(input_node) * 0x9E3779B97F4A7C15ull +
                    static_cast<std::uint64_t>(field * 16 + component + 1) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const double unit = std::bit_cast<double>((z >> 12) | 0x3FF0000000000000ull);  // [1, 2)
  const double scale = static_cast<double>(1 << (z & 7)) / 16.0;
  return ((z >> 11) & 1 ? -unit : unit) * scale;
}

// Field indices of test_value: velocity 0, pressure 1, theta 2, tracers 3.., extra 10.
inline mountainwave::ModelState test_state(const petsc::DistributedMesh& mesh) {
  mountainwave::ModelState state;
  state.resize(static_cast<std::size_t>(mesh.local_nodes()));
  state.time = 1000.0 + 0.1 * 3;  // not a round number in binary
  state.step = 42;
  for (std::size_t i = 0; i < mesh.input_node_of_local.size(); ++i) {
    const std::int64_t n = mesh.input_node_of_local[i];
    for (int c = 0; c < 3; ++c) state.velocity[3 * i + c] = test_value(n, 0, c);
    state.pressure[i] = test_value(n, 1, 0);
    state.theta[i] = test_value(n, 2, 0);
    for (int t = 0; t < mountainwave::tracer_count; ++t)
      state.tracers[t][i] = test_value(n, 3 + t, 0);
  }
  return state;
}

inline MeshField test_extra_field(const petsc::DistributedMesh& mesh, const char* name,
                                  int components, int field) {
  MeshField extra{name, components, {}};
  for (const std::int64_t n : mesh.input_node_of_local)
    for (int c = 0; c < components; ++c) extra.values.push_back(test_value(n, field, c));
  return extra;
}

inline bool same_bits(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

inline bool same_bits(const mountainwave::ModelState& a, const mountainwave::ModelState& b) {
  bool same = std::bit_cast<std::uint64_t>(a.time) == std::bit_cast<std::uint64_t>(b.time) &&
              a.step == b.step && same_bits(a.velocity, b.velocity) &&
              same_bits(a.pressure, b.pressure) && same_bits(a.theta, b.theta);
  for (int t = 0; t < mountainwave::tracer_count; ++t)
    same = same && same_bits(a.tracers[t], b.tracers[t]);
  return same;
}

// The ranks of `comm` below `ranks` as a communicator of their own (MPI_COMM_NULL on the
// others); freed on destruction.
class FirstRanks {
 public:
  FirstRanks(MPI_Comm comm, int ranks) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split(comm, rank < ranks ? 0 : MPI_UNDEFINED, rank, &comm_);
  }
  ~FirstRanks() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  FirstRanks(const FirstRanks&) = delete;
  FirstRanks& operator=(const FirstRanks&) = delete;
  MPI_Comm get() const { return comm_; }
  bool member() const { return comm_ != MPI_COMM_NULL; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace foehn::testing
