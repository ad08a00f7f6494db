#include "foehn/petsc/assembler_options.hpp"

#include <petscsys.h>

#include <string>
#include <utility>
#include <vector>

#include "foehn/fe/cuda_assembler.hpp"
#include "foehn/petsc/option_table.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::petsc {

fe::AssemblerOptions assembler_options_from_database(MPI_Comm comm, const std::string& prefix,
                                                     fe::AssemblerOptions defaults) {
  fe::AssemblerOptions options = defaults;
  std::vector<std::pair<std::string, fe::AssemblyStrategy>> strategies;
  for (fe::AssemblyStrategy s : fe::all_assembly_strategies)
    strategies.emplace_back(std::string(fe::to_string(s)), s);
  OptionTable table(comm, "Foehn: FE assembly", prefix);
  table.choice("-foehn_backend", "Assembly backend", &options.backend, {"cpu", "cuda", "auto"})
      .choice("-foehn_assembly", "CUDA assembly strategy", &options.strategy, strategies);
  table.read();
  return options;
}

}  // namespace foehn::petsc
