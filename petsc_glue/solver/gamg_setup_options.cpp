#include "gamg_setup_options.hpp"

#include <utility>

#include "foehn/petsc/linear_solver.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/petsc/petsc_check.hpp"

namespace foehn::petsc {

namespace detail {

std::vector<OptionPreset> gamg_setup_presets(const GamgSetup& setup,
                                             const std::function<bool(const char*)>& user_gave) {
  std::vector<OptionPreset> presets;
  if (!setup.gamg) return presets;
  // GAMG's Galerkin products (PtAP, the prolongator smoothing's A P) free their intermediate
  // data after computing. PETSc keeps it otherwise for a numeric-only recomputation that GAMG
  // never does unless -pc_gamg_reuse_interpolation is set (a rebuild makes new products); on the
  // GPU those cuSPARSE SpGEMM buffers were 70% of the mountain-wave core's memory (7419 -> 2195
  // bytes per tet at 5 M tets; on two GPUs 8979 -> 3209; docs/scaling.md).
  if (!setup.reuse_interpolation && !user_gave("-mat_product_clear"))
    presets.push_back({"-mat_product_clear"});
  // On the GPU those products are formed on the host. PETSc 3.26 forms them with cuSPARSE's
  // SpGEMM (CUSPARSE_SPGEMM_DEFAULT), which reads uninitialised memory in every set-up and in
  // some never returns: its reduce_by_key kernel runs on at 100% of the GPU (compute-sanitizer
  // initcheck and cuda-gdb on an H200, CUDA 13). One build of the mountain-wave core hung in 10
  // of 19 runs with them on the GPU and in none of 22 with them on the host, nor in 5 on two
  // GPUs (bench/results/logs/issue35). The hierarchy is built once per operator and its solves
  // stay on the GPU: the cost is set-up time (553 k tets: first step about 1 s longer). A user
  // who gives either option decides.
  if (setup.device_operator) {
    for (const char* name : {"-matptap_backend_cpu", "-matmatmult_backend_cpu"})
      if (!user_gave(name)) presets.push_back({name});
    // GAMG's coarse level (a few dozen equations) is factored by cuSPARSE in the nested
    // dissection ordering PETSc picks for LU; each solve then permutes its right-hand side and
    // solution with Thrust copies, which wait for the GPU: 2 of the 5.3 host waits per CG
    // iteration of the mountain-wave pressure (one H100, 553 k tets). The natural ordering
    // needs no permutation; on so small a matrix the fill is the same (it is dense).
    const std::string ordering = "-" + setup.prefix + "mg_coarse_sub_pc_factor_mat_ordering_type";
    if (!user_gave(ordering.c_str())) presets.push_back({ordering, "natural"});
  }
  // The coarse solve as one Richardson iteration without a norm (the same application of the
  // coarse preconditioner, LU of the coarsest level's blocks) instead of preonly: KSPPREONLY
  // reduces the PC's failure flag over the communicator at every application
  // (PCReduceFailedReason, an MPI_Allreduce in every V-cycle on several ranks, issue 54). A
  // failure still reaches every rank: the coarse correction it leaves NaN is interpolated to
  // every rank, and the outer Krylov method's next inner product sees it.
  if (setup.several_ranks) {
    const std::string coarse = "-" + setup.prefix + "mg_coarse_ksp_";
    const std::string type = coarse + "type", its = coarse + "max_it", norm = coarse + "norm_type";
    if (!user_gave(type.c_str())) {
      presets.push_back({type, "richardson"});
      if (!user_gave(its.c_str())) presets.push_back({its, "1"});
      if (!user_gave(norm.c_str())) presets.push_back({norm, "none"});
    }
  }
  return presets;
}

}  // namespace detail

GamgSetupOptions::GamgSetupOptions(KSP ksp, const std::string& prefix) {
  PC pc = nullptr;
  Mat pmat = nullptr;
  PetscBool gamg = PETSC_FALSE, on_device = PETSC_FALSE, reuse = PETSC_FALSE;
  FOEHN_PETSC_CHECK(KSPGetPC(ksp, &pc));
  FOEHN_PETSC_CHECK(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCGAMG, &gamg));
  if (!gamg) return;
  FOEHN_PETSC_CHECK(KSPGetOperators(ksp, nullptr, &pmat));
  FOEHN_PETSC_CHECK(PetscObjectTypeCompareAny(reinterpret_cast<PetscObject>(pmat), &on_device,
                                              MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
  FOEHN_PETSC_CHECK(PetscOptionsGetBool(nullptr, prefix.empty() ? nullptr : prefix.c_str(),
                                        "-pc_gamg_reuse_interpolation", &reuse, nullptr));
  const auto user_gave = [](const char* name) {
    PetscBool given = PETSC_FALSE;
    FOEHN_PETSC_CHECK(PetscOptionsHasName(nullptr, nullptr, name, &given));
    return given == PETSC_TRUE;
  };
  PetscMPIInt ranks = 1;
  FOEHN_MPI_CHECK(MPI_Comm_size(PetscObjectComm(reinterpret_cast<PetscObject>(ksp)), &ranks));
  try {
    for (detail::OptionPreset& preset : detail::gamg_setup_presets(
             {gamg == PETSC_TRUE, on_device == PETSC_TRUE, reuse == PETSC_TRUE, prefix, ranks > 1},
             user_gave)) {
      FOEHN_PETSC_CHECK(PetscOptionsSetValue(nullptr, preset.name.c_str(), preset.value.c_str()));
      set_.push_back(std::move(preset.name));
    }
  } catch (...) {
    clear();  // a constructor that throws gets no destructor call
    throw;
  }
}

}  // namespace foehn::petsc
