#pragma once
// The placements petsc::System runs on, for tests written once for all of them: the CPU
// backend; the CUDA backend with host solves and with device solves (skipped where the machine
// has no GPU or the PETSc no CUDA). A fixture derived from SystemPlacementTest gets a small
// mountain mesh distributed on one rank.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "foehn/petsc/device_petsc.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "foehn/runtime/backend.hpp"
#include "foehn/runtime/device.hpp"
#include "support/small_mountain.hpp"

namespace foehn::petsc {

struct PlacementCase {
  const char* name;
  Backend backend;
  bool device_solves;
};

// Test names show the placement's name (not its bytes).
inline void PrintTo(const PlacementCase& c, std::ostream* os) {
  *os << c.name;
}

inline auto every_system_placement() {
  return ::testing::Values(PlacementCase{"cpu", Backend::cpu, false},
                           PlacementCase{"cuda_host_solves", Backend::cuda, false},
                           PlacementCase{"cuda_device_solves", Backend::cuda, true});
}

inline std::string placement_name(const ::testing::TestParamInfo<PlacementCase>& info) {
  return info.param.name;
}

class SystemPlacementTest : public ::testing::TestWithParam<PlacementCase> {
 protected:
  void SetUp() override {
    const PlacementCase& c = GetParam();
    if (c.backend == Backend::cuda && cuda_device_count() == 0)
      GTEST_SKIP() << "no CUDA device on this machine";
    if (c.device_solves && !device_solves_available())
      GTEST_SKIP() << "this PETSc is built without CUDA";
    whole_ = foehn::testing::small_mountain(7, 7, 5);
    mesh_ = distribute_mesh(PETSC_COMM_SELF, &whole_);
  }
  TetMesh whole_;
  DistributedMesh mesh_;
};

}  // namespace foehn::petsc
