#pragma once
// Internal to the solver folder: the options one GAMG set-up needs, set for its duration.
#include <petscksp.h>

#include <string>
#include <vector>

namespace foehn::petsc {

// Options for one GAMG set-up (detail::gamg_setup_presets says which and why), cleared when it
// ends: they are global (GAMG's products carry no prefix), and other code in the process may
// form its own products differently.
class GamgSetupOptions {
 public:
  GamgSetupOptions(KSP ksp, const std::string& prefix);
  ~GamgSetupOptions() { clear(); }
  GamgSetupOptions(const GamgSetupOptions&) = delete;
  GamgSetupOptions& operator=(const GamgSetupOptions&) = delete;

 private:
  void clear() noexcept {
    for (const std::string& name : set_) (void)PetscOptionsClearValue(nullptr, name.c_str());
    set_.clear();
  }
  std::vector<std::string> set_;
};

}  // namespace foehn::petsc
