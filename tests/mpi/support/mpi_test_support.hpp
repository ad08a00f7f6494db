#pragma once
// Helpers of the multi-rank tests: the world communicator, element-wise reductions over ranks,
// the small meshes every test distributes, the error an action throws, and a temporary folder
// all ranks share.
#include <mpi.h>
#include <petscsys.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "foehn/mesh/mountain.hpp"
#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/runtime/error.hpp"
#include "support/small_mountain.hpp"
#include "unit/mesh/support/box_mesh.hpp"

namespace foehn::testing {

inline MPI_Comm world() {
  return PETSC_COMM_WORLD;
}

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(world(), &rank);
  return rank;
}

inline int world_size() {
  int size = 0;
  MPI_Comm_size(world(), &size);
  return size;
}

template <typename T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, std::int32_t>)
    return MPI_INT32_T;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return MPI_INT64_T;
  else {
    static_assert(std::is_same_v<T, double>);
    return MPI_DOUBLE;
  }
}

// Element-wise reduction of `values` over all ranks; every rank gets the result.
template <typename T>
std::vector<T> reduce_all(std::vector<T> values, MPI_Op op) {
  EXPECT_EQ(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                          mpi_type<T>(), op, world()),
            MPI_SUCCESS);
  return values;
}

template <typename T>
T reduce_all(T value, MPI_Op op) {
  return reduce_all(std::vector<T>{value}, op)[0];
}

template <typename T>
std::vector<T> gather_all(T value) {
  std::vector<T> values(static_cast<std::size_t>(world_size()));
  EXPECT_EQ(MPI_Allgather(&value, 1, mpi_type<T>(), values.data(), 1, mpi_type<T>(), world()),
            MPI_SUCCESS);
  return values;
}

// A 3 x 3 x 2 box of 108 tets with tagged boundary faces, tet tags and node and tet fields.
inline TetMesh make_small_box() {
  TetMesh mesh = make_box_mesh({3, 3, 2, 3000.0, 3000.0, 1000.0});
  add_test_fields(mesh);
  return mesh;
}

// The mountain domain at 6 x 6 x 4 cells (864 tets), with the box test fields.
inline TetMesh make_small_mountain() {
  TetMesh mesh = small_mountain();
  add_test_fields(mesh);
  return mesh;
}

struct ThrownError {
  bool thrown = false;
  ErrorCategory category = ErrorCategory::internal;
  std::string message;
};

template <typename Action>
ThrownError error_of(Action&& action) {
  try {
    action();
  } catch (const Error& error) {
    return {true, error.category(), error.what()};
  }
  return {};
}

// A fresh folder that rank 0 creates and every rank uses (the same path on all ranks), removed
// by rank 0 once every rank is done with it.
class SharedTempDir {
 public:
  SharedTempDir() {
    std::string name;
    if (world_rank() == 0) {
      const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
      name = (std::filesystem::temp_directory_path() /
              ("foehn_mpi_" + std::to_string(::getpid()) + "_" +
               (info != nullptr ? std::string(info->name()) : std::string("test"))))
                 .string();
      std::filesystem::remove_all(name);
      std::filesystem::create_directories(name);
    }
    int length = static_cast<int>(name.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, world());
    name.resize(static_cast<std::size_t>(length));
    MPI_Bcast(name.data(), length, MPI_CHAR, 0, world());
    path_ = name;
  }
  ~SharedTempDir() {
    MPI_Barrier(world());
    std::error_code ignored;
    if (world_rank() == 0) std::filesystem::remove_all(path_, ignored);
  }
  SharedTempDir(const SharedTempDir&) = delete;
  SharedTempDir& operator=(const SharedTempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace foehn::testing
