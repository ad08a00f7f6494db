// Rank -> GPU placement: -foehn_devices restricts and orders the devices a host's ranks take
// (and tells PETSc through -device_select), a device the host lacks is refused naming the
// option, and the placement report names the rank, its host and its GPU's PCI address. Where a
// host has two GPUs, a Foehn stream on another GPU than PETSc's is refused at the hand-off
// (it once hung a two-rank run: one rank failed inside CUDA, the other waited in MPI).
#include <gtest/gtest.h>
#include <petscsys.h>

#include <string>

#include "foehn/petsc/device_binding.hpp"
#include "foehn/petsc/device_petsc.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stream.hpp"
#include "support/gpu_test.hpp"

namespace foehn::petsc {
namespace {

class DevicePlacement : public ::testing::Test {
 protected:
  void TearDown() override {
    PetscOptionsClearValue(nullptr, "-foehn_devices");
    PetscOptionsClearValue(nullptr, "-device_select");
    if (cuda_device_count() > 0) select_device(0);  // where the other tests expect to run
  }
};

TEST_F(DevicePlacement, TheListedDeviceIsTakenAndToldToPetsc) {
  FOEHN_SKIP_WITHOUT_GPU();
  const int last = cuda_device_count() - 1;  // the one rank of this test takes the list's first
  const std::string listed = std::to_string(last) + ",0";
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-foehn_devices", listed.c_str()), 0);
  EXPECT_EQ(select_device_for_rank(PETSC_COMM_WORLD), last);
  EXPECT_EQ(current_device(), last);
  PetscInt told = -1;
  PetscBool set = PETSC_FALSE;
  ASSERT_EQ(PetscOptionsGetInt(nullptr, nullptr, "-device_select", &told, &set), 0);
  EXPECT_TRUE(set);
  EXPECT_EQ(told, last);

  const auto lines = device_placement_report(PETSC_COMM_WORLD, last);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("rank 0 on "), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("GPU " + std::to_string(last) + " "), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(device_info(last).pci_bus_id), std::string::npos) << lines[0];
}

TEST_F(DevicePlacement, ADeviceTheHostLacksIsRefusedNamingTheOption) {
  FOEHN_SKIP_WITHOUT_GPU();
  const std::string missing = std::to_string(cuda_device_count());
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-foehn_devices", ("0," + missing).c_str()), 0);
  try {
    select_device_for_rank(PETSC_COMM_WORLD);
    FAIL() << "-foehn_devices accepted device " << missing;
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
    // The range is the host's devices: 0..count-1.
    EXPECT_NE(std::string(error.what()).find("-foehn_devices '" + missing + "': out of range"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(DevicePlacement, AStreamOnAnotherGpuThanPetscsIsRefused) {
  FOEHN_SKIP_WITHOUT_GPU();
  if (cuda_device_count() < 2) GTEST_SKIP() << "needs two GPUs";
  if (!device_solves_available()) GTEST_SKIP() << "this PETSc is built without CUDA";
  const int petsc_device = current_device();  // the test main selected it for PETSc too
  (void)petsc_device_stream();                // PETSc's device context starts there
  const int other = petsc_device == 0 ? 1 : 0;
  select_device(other);
  const Stream elsewhere;
  select_device(petsc_device);
  const Stream here;
  EXPECT_EQ(elsewhere.device(), other);
  EXPECT_EQ(here.device(), petsc_device);
  const std::string both[] = {"device " + std::to_string(other),
                              "device " + std::to_string(petsc_device)};
  for (auto* order : {&petsc_waits_for, &stream_waits_for_petsc}) {
    try {
      order(elsewhere);
      FAIL() << "a stream on GPU " << other << " was ordered against PETSc on GPU " << petsc_device;
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
      for (const std::string& name : both)
        EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("select_device_for_rank"), std::string::npos);
    }
  }
  EXPECT_NO_THROW(petsc_waits_for(here));
  try {
    order_streams(elsewhere.native_handle(), here.native_handle());
    FAIL() << "streams of two GPUs were ordered";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
  }
}

}  // namespace
}  // namespace foehn::petsc
