// The GPU chemistry solver against the CPU reference (same method, tolerances and cells): every
// strategy and layout, all four methods, several resident chemistry steps, the CPU+GPU split, the
// stand-alone factorisation kernel, and failures. Skipped without a CUDA device.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../../support/error_category.hpp"
#include "../../support/gpu_test.hpp"
#include "foehn/chemistry/cuda_chemistry.hpp"
#include "foehn/chemistry/split_chemistry.hpp"
#include "foehn/runtime/device_array.hpp"
#include "foehn/runtime/stream.hpp"

namespace fc = foehn::chemistry;

namespace {

constexpr double agreement = 1e-12;

fc::RosenbrockOptions options_for(const fc::Mechanism& m,
                                  fc::RosenbrockMethod method = fc::RosenbrockMethod::rodas3) {
  fc::RosenbrockOptions options;
  options.method = method;
  options.absolute_tolerance.assign(m.species.size(), 1e-3);  // molecule cm^-3
  return options;
}

// Largest |gpu - cpu| / max(|cpu|, floor) over all entries. The floor is 1 molecule cm^-3
// (1000 atol): values below it are not resolved by the tolerances (comparison.hpp), and there
// the device's exp/pow (1 ulp from glibc's in the rate constants) show up relatively large.
// Prints the worst entry, so a failure says where it is.
double max_relative_difference(const std::vector<double>& gpu, const std::vector<double>& cpu,
                               double floor = 1.0) {
  double worst = 0.0;
  std::size_t where = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const double difference = std::abs(gpu[i] - cpu[i]) / std::max(std::abs(cpu[i]), floor);
    if (difference > worst) {
      worst = difference;
      where = i;
    }
  }
  if (!cpu.empty()) {
    std::printf("  worst GPU-CPU difference %.3g at entry %zu: %.17g vs %.17g\n", worst, where,
                gpu[where], cpu[where]);
  }
  return worst;
}

// FOEHN_CHEMISTRY_TEST_CELLS shrinks the batches for the (slow) sanitizer runs.
std::int64_t test_cells(std::int64_t cells) {
  const char* value = std::getenv("FOEHN_CHEMISTRY_TEST_CELLS");
  return value != nullptr ? std::min<std::int64_t>(cells, std::atoll(value)) : cells;
}

struct Case {
  fc::Mechanism mechanism = fc::make_synthetic_mechanism(80, 190, 1);
  fc::ChemistryBatch batch = fc::make_synthetic_batch(mechanism, test_cells(300), 7);
};

}  // namespace

TEST(CudaChemistry, EveryStrategyAndLayoutMatchesTheCpuReference) {
  FOEHN_SKIP_WITHOUT_GPU();
  Case c;
  const fc::RosenbrockOptions options = options_for(c.mechanism);
  fc::ChemistryBatch expected = c.batch;
  fc::CpuChemistrySolver cpu(c.mechanism, options);
  cpu.solve(expected, 120.0);
  foehn::Stream stream;
  for (auto strategy :
       {fc::GpuChemistryStrategy::thread_per_cell, fc::GpuChemistryStrategy::block_per_cell}) {
    for (auto layout : {fc::CellLayoutKind::per_cell, fc::CellLayoutKind::block_interleaved,
                        fc::CellLayoutKind::interleaved}) {
      fc::CudaChemistrySettings settings;
      settings.strategy = strategy;
      settings.layout = layout;
      fc::CudaChemistrySolver gpu(c.mechanism, options, settings, stream);
      fc::ChemistryBatch result = c.batch;
      const fc::ChemistryStepReport report = gpu.solve(result, 120.0);
      EXPECT_EQ(report.failed_cells, 0);
      EXPECT_LE(max_relative_difference(result.concentrations, expected.concentrations), agreement)
          << fc::to_string(strategy) << " " << fc::to_string(layout);
      int same_steps = 0;
      for (std::int64_t cell = 0; cell < c.batch.cell_count; ++cell) {
        same_steps += gpu.cell_statistics()[cell].accepted == cpu.cell_statistics()[cell].accepted;
      }
      EXPECT_EQ(same_steps, c.batch.cell_count)
          << fc::to_string(strategy) << " " << fc::to_string(layout);
    }
  }
}

TEST(CudaChemistry, AllMethodsMatchTheCpuReference) {
  FOEHN_SKIP_WITHOUT_GPU();
  Case c;
  foehn::Stream stream;
  for (auto method : {fc::RosenbrockMethod::ros2, fc::RosenbrockMethod::ros3,
                      fc::RosenbrockMethod::rodas3, fc::RosenbrockMethod::rodas4}) {
    const fc::RosenbrockOptions options = options_for(c.mechanism, method);
    fc::ChemistryBatch expected = c.batch;
    fc::CpuChemistrySolver(c.mechanism, options).solve(expected, 120.0);
    fc::ChemistryBatch result = c.batch;
    fc::CudaChemistrySolver gpu(c.mechanism, options, {}, stream);
    gpu.solve(result, 120.0);
    EXPECT_LE(max_relative_difference(result.concentrations, expected.concentrations), agreement)
        << fc::rosenbrock_method_name(method);
  }
}

// Concentrations stay on the device for several chemistry steps while T, P and photolysis
// change; the CPU does the same steps on the host (both carry each cell's step over).
TEST(CudaChemistry, ResidentStepsWithChangingConditionsMatchTheCpu) {
  FOEHN_SKIP_WITHOUT_GPU();
  Case c;
  const fc::RosenbrockOptions options = options_for(c.mechanism);
  foehn::Stream stream;
  fc::CpuChemistrySolver cpu(c.mechanism, options);
  fc::CudaChemistrySolver gpu(c.mechanism, options, {}, stream);
  fc::ChemistryBatch host = c.batch;
  gpu.upload(host);
  for (int step = 0; step < 3; ++step) {
    for (double& j : host.external_rates) j *= 0.5;
    for (double& t : host.temperature) t += 2.0;
    gpu.upload_conditions(host);
    gpu.advance(120.0);
    cpu.solve(host, 120.0);
  }
  fc::ChemistryBatch result = host;
  gpu.download(result);
  EXPECT_LE(max_relative_difference(result.concentrations, host.concentrations), agreement);
}

TEST(CudaChemistry, SplitMatchesTheCpuAndRebalances) {
  FOEHN_SKIP_WITHOUT_GPU();
  Case c;
  c.batch = fc::make_synthetic_batch(c.mechanism, test_cells(2000), 9);
  const fc::RosenbrockOptions options = options_for(c.mechanism);
  foehn::Stream stream;
  fc::SplitSettings settings;
  settings.initial_gpu_fraction = 0.5;
  fc::SplitChemistrySolver split(c.mechanism, options, settings, stream);
  fc::CpuChemistrySolver cpu(c.mechanism, options);
  fc::ChemistryBatch expected = c.batch;
  fc::ChemistryBatch result = c.batch;
  std::vector<double> fractions;
  for (int step = 0; step < 3; ++step) {
    fractions.push_back(split.gpu_fraction());
    const fc::ChemistryStepReport report = split.solve(result, 120.0);
    EXPECT_EQ(report.cells, c.batch.cell_count);
    cpu.solve(expected, 120.0);
  }
  // Cells that change sides keep their carried-over step sizes, so every cell takes the CPU's
  // steps: the same result to rounding after all three chemistry steps.
  EXPECT_LE(max_relative_difference(result.concentrations, expected.concentrations), agreement);
  EXPECT_NE(fractions[1], fractions[0]) << "the split did not react to the measured times";
  for (double f : fractions) EXPECT_TRUE(f >= 0.0 && f <= 1.0);
}

// Both factorisation kernels (thread per matrix; warp per matrix by levels in shared memory) give
// bitwise the CPU factor_in_place result (same operations in the same order, no FMA).
TEST(CudaChemistry, FactorisationKernelsMatchTheCpuBitwise) {
  FOEHN_SKIP_WITHOUT_GPU();
  const fc::Mechanism m = fc::make_synthetic_mechanism(80, 190, 2);
  foehn::Stream stream;
  const std::int64_t cells = test_cells(1000);
  for (auto strategy :
       {fc::GpuChemistryStrategy::thread_per_cell, fc::GpuChemistryStrategy::block_per_cell}) {
    for (auto layout : {fc::CellLayoutKind::interleaved, fc::CellLayoutKind::per_cell}) {
      fc::CudaChemistrySettings settings;
      settings.layout = layout;
      settings.strategy = strategy;
      fc::CudaChemistrySolver gpu(m, options_for(m), settings, stream);
      const fc::CompiledMechanismView view = gpu.prepared().compiled.view();
      const int nnz = view.nonzero_count;
      std::mt19937 random(3);
      std::uniform_real_distribution<double> draw(-1.0, 1.0);
      std::vector<double> per_cell(static_cast<std::size_t>(cells) * nnz);
      for (double& v : per_cell) v = draw(random);
      for (std::int64_t c = 0; c < cells; ++c) {
        for (int i = 0; i < view.species_count; ++i) per_cell[c * nnz + view.diagonal[i]] += 50.0;
      }
      // Entry s of cell c sits at s * cells + c (interleaved) or c * nnz + s (per cell).
      auto at = [&](std::int64_t c, int s) {
        return layout == fc::CellLayoutKind::interleaved ? s * cells + c : c * nnz + s;
      };
      std::vector<double> stored(per_cell.size());
      for (std::int64_t c = 0; c < cells; ++c) {
        for (int s = 0; s < nnz; ++s) stored[at(c, s)] = per_cell[c * nnz + s];
      }
      foehn::DeviceArray<double> device(stored.size(), stream);
      device.copy_from_host_async(stored, stream);
      gpu.factor_matrices(device.data(), cells);
      const std::vector<double> factored = device.copy_to_host(stream);
      std::int64_t different = 0;
      for (std::int64_t c = 0; c < cells; ++c) {
        fc::factor_in_place(view, per_cell.data() + c * nnz);
        for (int s = 0; s < nnz; ++s) different += factored[at(c, s)] != per_cell[c * nnz + s];
      }
      EXPECT_EQ(different, 0) << fc::to_string(strategy) << " " << fc::to_string(layout);
    }
  }
}

TEST(CudaChemistry, FailuresAndBadSettingsAreReported) {
  FOEHN_SKIP_WITHOUT_GPU();
  Case c;
  foehn::Stream stream;
  fc::RosenbrockOptions options = options_for(c.mechanism);
  options.control.max_steps = 2;
  options.control.initial_step = 1e-9;
  fc::CudaChemistrySolver gpu(c.mechanism, options, {}, stream);
  fc::ChemistryBatch batch = c.batch;
  try {
    gpu.solve(batch, 120.0);
    ADD_FAILURE() << "no error for cells that run out of steps";
  } catch (const foehn::Error& e) {
    EXPECT_EQ(e.category(), foehn::ErrorCategory::numerical);
    EXPECT_NE(std::string(e.what()).find("cell 0"), std::string::npos) << e.what();
  }
  // A rate constant that overflows at the cell's temperature: the mechanism is named, as on the
  // CPU (the GPU computes the rate constants itself; the host recomputes the failed cell's).
  const fc::Mechanism overflow = fc::parse_mechanism(
      R"({"species": [{"name": "A"}, {"name": "B"}], "reactions": [{"type": "ARRHENIUS",
          "name": "R_hot", "reactants": [{"species name": "A"}],
          "products": [{"species name": "B"}], "A": 1e300, "C": 300000}]})",
      "overflow");
  fc::CudaChemistrySolver hot(overflow, options_for(overflow), {}, stream);
  fc::ChemistryBatch hot_batch = fc::make_batch(overflow, 2);
  hot_batch.concentrations = {1.0, 0.0, 1.0, 0.0};
  try {
    hot.solve(hot_batch, 10.0);
    ADD_FAILURE() << "no error for a rate constant that overflows";
  } catch (const foehn::Error& e) {
    EXPECT_EQ(e.category(), foehn::ErrorCategory::invalid_input);
    EXPECT_NE(std::string(e.what()).find("reaction 0 ('R_hot') [A -> B] is inf in cell 0"),
              std::string::npos)
        << e.what();
  }
  fc::CudaChemistrySettings bad;
  bad.threads_per_block = 33;
  EXPECT_EQ(foehn::testing::category_of([&] {
              fc::CudaChemistrySolver s(c.mechanism, options_for(c.mechanism), bad, stream);
            }),
            foehn::ErrorCategory::invalid_input);
  batch = c.batch;
  batch.concentrations[5] = -1.0;
  fc::CudaChemistrySolver fine(c.mechanism, options_for(c.mechanism), {}, stream);
  EXPECT_EQ(foehn::testing::category_of([&] { fine.upload(batch); }),
            foehn::ErrorCategory::invalid_input);
  EXPECT_EQ(foehn::testing::category_of([&] { fine.advance(-1.0); }),
            foehn::ErrorCategory::invalid_input);
}

// The physical-range checks run in the kernels and come back per cell as on the CPU: A -> 2 B
// with j = 1e30 gives B = 2 A0, Robertson in mol m^-3 keeps A + B + C (rodas4 and rodas3), and
// j = 1e60 is refused naming the cell, the species and the reaction (both strategies).
TEST(CudaChemistry, PhysicalRangeRefusalsMatchTheCpu) {
  FOEHN_SKIP_WITHOUT_GPU();
  foehn::Stream stream;
  const fc::Mechanism a2b = fc::parse_mechanism(
      R"({"name": "a2b", "species": [{"name": "A", "absolute tolerance": 1e-3},
          {"name": "B", "absolute tolerance": 1e-3}],
          "reactions": [{"type": "PHOTOLYSIS", "name": "jA",
          "reactants": [{"species name": "A"}], "products": [{"species name": "B", "yield": 2}]}]})",
      "a2b");
  for (auto strategy :
       {fc::GpuChemistryStrategy::thread_per_cell, fc::GpuChemistryStrategy::block_per_cell}) {
    fc::CudaChemistrySettings settings;
    settings.strategy = strategy;
    fc::RosenbrockOptions options;
    options.method = fc::RosenbrockMethod::rodas3;
    fc::CudaChemistrySolver gpu(a2b, options, settings, stream);
    fc::ChemistryBatch batch = fc::make_batch(a2b, 2);
    batch.concentrations = {1e10, 0.0, 1e10, 0.0};
    batch.external_rates = {1e30, 1.0};
    gpu.solve(batch, 40.0);
    EXPECT_NEAR(batch.concentrations[1], 2e10, 2e10 * 1e-4) << fc::to_string(strategy);
    EXPECT_NEAR(batch.concentrations[3], 2e10, 2e10 * 1e-4) << fc::to_string(strategy);
    batch.concentrations = {1e10, 0.0, 1e10, 0.0};
    batch.external_rates = {1.0, 1e60};
    try {
      gpu.solve(batch, 40.0);
      ADD_FAILURE() << "j = 1e60 accepted: B = " << batch.concentrations[3];
    } catch (const foehn::Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.category(), foehn::ErrorCategory::invalid_input) << message;
      for (const char* part : {"cell 1", "species 'B'", "'jA'"})
        EXPECT_NE(message.find(part), std::string::npos) << part << " not in: " << message;
    }
    const fc::Mechanism robertson =
        fc::read_mechanism(std::string(FOEHN_MECHANISM_DIR) + "/openatmos_v1/robertson.json");
    for (auto method : {fc::RosenbrockMethod::rodas3, fc::RosenbrockMethod::rodas4}) {
      options.method = method;
      fc::CudaChemistrySolver rob(robertson, options, settings, stream);
      fc::ChemistryBatch cells = fc::make_batch(robertson, 1);
      cells.concentrations = {1.0, 0.0, 0.0};
      fc::ChemistryBatch expected = cells;
      fc::CpuChemistrySolver cpu(robertson, options);
      cpu.solve(expected, 40.0);
      rob.solve(cells, 40.0);
      EXPECT_NEAR(cells.concentrations[2], expected.concentrations[2],
                  1e-9 * expected.concentrations[2]);
      EXPECT_NEAR(cells.concentrations[0] + cells.concentrations[1] + cells.concentrations[2], 1.0,
                  1e-9);
    }
  }
}
