#include "mesh_tool_options.hpp"

#include <petscsys.h>

#include <array>

#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::app {

namespace {

constexpr std::size_t path_capacity = PETSC_MAX_PATH_LEN;

PetscErrorCode query_options(const std::string& command, MeshToolOptions& o) {
  std::array<char, path_capacity> input{}, output{}, boundary{};
  const std::string default_output = command == "generate" ? "out/mountain.vtu" : "";
  PetscInt cells_x = o.mountain.cells_x, cells_y = o.mountain.cells_y, cells_z = o.mountain.cells_z;
  PetscInt target_tets = 0, seed = 1, partitions = 0;
  PetscInt numbering = 0, msh_version = 1;
  PetscBool msh_binary = PETSC_FALSE, fix = PETSC_FALSE, allow_unused = PETSC_FALSE;
  const char* numberings[] = {"natural", "shuffled", "reordered"};
  const char* msh_versions[] = {"2.2", "4.1"};

  PetscOptionsBegin(PETSC_COMM_WORLD, nullptr, "foehn-mesh options", nullptr);
  PetscCall(PetscOptionsString("-i", "Input mesh (.msh Gmsh 2.2/4.1, .vtu)", nullptr, "", input.data(),
                               input.size(), nullptr));
  PetscCall(PetscOptionsString("-o", "Output mesh (.vtu or .msh)", nullptr, default_output.c_str(),
                               output.data(), output.size(), nullptr));
  PetscCall(PetscOptionsString("-boundary_o", "Also write the tagged boundary triangles (.vtu)",
                               nullptr, "", boundary.data(), boundary.size(), nullptr));
  PetscCall(PetscOptionsInt("-cells_x", "generate: cells along x", nullptr, cells_x, &cells_x, nullptr));
  PetscCall(PetscOptionsInt("-cells_y", "generate: cells along y", nullptr, cells_y, &cells_y, nullptr));
  PetscCall(PetscOptionsInt("-cells_z", "generate: cells along z", nullptr, cells_z, &cells_z, nullptr));
  PetscCall(PetscOptionsInt("-target_tets", "generate: scale the default cell counts to about this many tets",
                            nullptr, target_tets, &target_tets, nullptr));
  PetscCall(PetscOptionsReal("-length_x", "generate: domain length in x (m)", nullptr,
                             o.mountain.length_x, &o.mountain.length_x, nullptr));
  PetscCall(PetscOptionsReal("-length_y", "generate: domain length in y (m)", nullptr,
                             o.mountain.length_y, &o.mountain.length_y, nullptr));
  PetscCall(PetscOptionsReal("-height", "generate: model top (m)", nullptr, o.mountain.height,
                             &o.mountain.height, nullptr));
  PetscCall(PetscOptionsReal("-h0", "generate: mountain height (m)", nullptr,
                             o.mountain.mountain_height, &o.mountain.mountain_height, nullptr));
  PetscCall(PetscOptionsReal("-a", "generate: mountain half-width (m)", nullptr,
                             o.mountain.mountain_half_width, &o.mountain.mountain_half_width, nullptr));
  PetscCall(PetscOptionsReal("-horizontal_grading", "generate: spacing at the mountain / mean spacing, in (0,1]",
                             nullptr, o.mountain.horizontal_grading, &o.mountain.horizontal_grading, nullptr));
  PetscCall(PetscOptionsReal("-vertical_grading", "generate: lowest layer / mean layer thickness, in (0,1]",
                             nullptr, o.mountain.vertical_grading, &o.mountain.vertical_grading, nullptr));
  PetscCall(PetscOptionsEList("-numbering", "Node and element numbering", nullptr, numberings, 3,
                              numberings[numbering], &numbering, nullptr));
  PetscCall(PetscOptionsInt("-seed", "Seed of -numbering shuffled", nullptr, seed, &seed, nullptr));
  PetscCall(PetscOptionsInt("-partition", "METIS parts, written as the cell field 'partition' (0: none)",
                            nullptr, partitions, &partitions, nullptr));
  PetscCall(PetscOptionsEList("-msh_version", "Gmsh output version", nullptr, msh_versions, 2,
                              msh_versions[msh_version], &msh_version, nullptr));
  PetscCall(PetscOptionsBool("-msh_binary", "Write Gmsh output in binary", nullptr, msh_binary,
                             &msh_binary, nullptr));
  PetscCall(PetscOptionsBool("-fix_orientation", "Repair inverted tets and inward boundary triangles",
                             nullptr, fix, &fix, nullptr));
  PetscCall(PetscOptionsBool("-allow_unused_nodes", "Accept nodes that no tet uses", nullptr,
                             allow_unused, &allow_unused, nullptr));
  PetscOptionsEnd();

  o.input = input.data();
  o.output = output.data();
  o.boundary_output = boundary.data();
  o.mountain.cells_x = static_cast<int>(cells_x);
  o.mountain.cells_y = static_cast<int>(cells_y);
  o.mountain.cells_z = static_cast<int>(cells_z);
  o.target_tets = target_tets;
  o.numbering = static_cast<Numbering>(numbering);
  o.seed = seed;
  o.partitions = static_cast<int>(partitions);
  o.gmsh_format.version = msh_version == 0 ? GmshVersion::msh22 : GmshVersion::msh41;
  o.gmsh_format.binary = msh_binary == PETSC_TRUE;
  o.fix_orientation = fix == PETSC_TRUE;
  o.allow_unused_nodes = allow_unused == PETSC_TRUE;
  return 0;
}

}  // namespace

MeshToolOptions read_mesh_tool_options(const std::string& command) {
  MeshToolOptions options;
  try {
    FOEHN_PETSC_CHECK(query_options(command, options));
  } catch (const Error& error) {
    // PETSc rejects malformed values (e.g. -cells_x ten); to the user that is bad input.
    fail(ErrorCategory::invalid_input, "invalid option value (PETSc printed the details above): ",
         error.what());
  }
  if (options.target_tets < 0)
    fail(ErrorCategory::invalid_input, "-target_tets must be positive, got ", options.target_tets);
  if (options.target_tets > 0)
    options.mountain = mountain_options_for_tets(static_cast<std::size_t>(options.target_tets),
                                                 options.mountain);
  if (options.partitions < 0)
    fail(ErrorCategory::invalid_input, "-partition must be 0 or more, got ", options.partitions);
  return options;
}

}  // namespace foehn::app
