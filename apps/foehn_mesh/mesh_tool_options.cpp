#include "mesh_tool_options.hpp"

#include <petscsys.h>

#include <cstdint>
#include <limits>

#include "foehn/petsc/option_table.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::app {

namespace {

using petsc::IntegerRange;
using petsc::RealRange;

// Cells per axis: the generator refuses more tets than 32-bit indices address, whatever the
// axis; this bound only keeps each count itself meaningful.
constexpr IntegerRange cells_per_axis{1, 1 << 20};
constexpr long long int32_max = std::numeric_limits<std::int32_t>::max();

}  // namespace

MeshToolOptions read_mesh_tool_options(const std::string& command) {
  MeshToolOptions o;
  if (command == "generate") o.output = "out/mountain.vtu";
  MountainMeshOptions& m = o.mountain;
  bool binary = false;
  std::string msh_version = "4.1";

  petsc::OptionTable table(PETSC_COMM_WORLD, "foehn-mesh options");
  table.input_path("-i", "Input mesh (.msh Gmsh 2.2/4.1, .vtu)", &o.input)
      .output_file("-o", "Output mesh", &o.output, {".vtu", ".msh"})
      .output_file("-boundary_o", "Also write the tagged boundary triangles", &o.boundary_output,
                   {".vtu"})
      .integer("-cells_x", "generate: cells along x", &m.cells_x, cells_per_axis)
      .integer("-cells_y", "generate: cells along y", &m.cells_y, cells_per_axis)
      .integer("-cells_z", "generate: cells along z", &m.cells_z, cells_per_axis)
      .integer("-target_tets",
               "generate: scale the default cell counts to about this many tets "
               "(0: use the cell counts)",
               &o.target_tets, {0, int32_max})
      .real("-length_x", "generate: domain length in x (m)", &m.length_x, RealRange::above(0))
      .real("-length_y", "generate: domain length in y (m)", &m.length_y, RealRange::above(0))
      .real("-height", "generate: model top (m)", &m.height, RealRange::above(0))
      .real("-h0", "generate: mountain height (m), below the model top", &m.mountain_height,
            RealRange::at_least(0))
      .real("-a", "generate: mountain half-width (m)", &m.mountain_half_width, RealRange::above(0))
      .real("-mountain_spacing", "generate: horizontal spacing over the mountain, m (0: uniform)",
            &m.mountain_spacing, RealRange::at_least(0))
      .real("-mountain_core", "generate: half-width of the region of that spacing, m",
            &m.mountain_core, RealRange::at_least(0))
      .real("-horizontal_growth", "generate: largest width ratio of neighbouring cells",
            &m.horizontal_growth, RealRange::closed(1, 2))
      .real("-vertical_grading", "generate: lowest layer / mean layer thickness",
            &m.vertical_grading, RealRange::above_up_to(0, 1))
      .choice("-numbering", "Node and element numbering", &o.numbering,
              {{"natural", Numbering::natural},
               {"shuffled", Numbering::shuffled},
               {"reordered", Numbering::reordered}})
      .integer("-seed", "Seed of -numbering shuffled", &o.seed, {0, IntegerRange{}.max})
      .integer("-partition", "METIS parts, written as the cell field 'partition' (0: none)",
               &o.partitions, {0, 1 << 20})
      .choice("-msh_version", "Gmsh output version", &msh_version, {"2.2", "4.1"})
      .flag("-msh_binary", "Write Gmsh output in binary", &binary)
      .flag("-fix_orientation", "Repair inverted tets and inward boundary triangles",
            &o.fix_orientation)
      .flag("-allow_unused_nodes", "Accept nodes that no tet uses", &o.allow_unused_nodes)
      .real("-shortest_edge", "quality: count the edges shorter than this, m (0: none)",
            &o.quality_bounds.shortest, RealRange::at_least(0))
      .real("-longest_edge", "quality: count the edges longer than this, m (0: none)",
            &o.quality_bounds.longest, RealRange::at_least(0));
  table.read();

  o.gmsh_format.version = msh_version == "2.2" ? GmshVersion::msh22 : GmshVersion::msh41;
  o.gmsh_format.binary = binary;
  if (o.target_tets > 0) {
    if (table.was_set("-cells_x") || table.was_set("-cells_y") || table.was_set("-cells_z"))
      fail(ErrorCategory::invalid_input,
           "give -target_tets or -cells_x/-cells_y/-cells_z, not both");
    o.mountain = mountain_options_for_tets(static_cast<std::size_t>(o.target_tets), o.mountain);
  }
  return o;
}

}  // namespace foehn::app
