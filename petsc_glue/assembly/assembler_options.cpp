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
  OptionTable table(comm, "Foehn: FE assembly", prefix);
  table.choice("-foehn_backend", "Assembly backend", &options.backend, {"cpu", "cuda", "auto"})
      .choice("-foehn_assembly", "CUDA assembly strategy", &options.strategy,
              fe::assembly_strategy_choices())
      .integer("-foehn_threads",
               "CPU assembly threads (1: the serial reference loop; 0: OpenMP's default; n > 1: "
               "the row-block gather, bitwise the same)",
               &options.cpu_threads, {0, 4096});
  table.read();
  return options;
}

}  // namespace foehn::petsc
