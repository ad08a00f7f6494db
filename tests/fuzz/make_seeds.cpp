// Writes the generated seeds of the msh_reader, vtu_reader and checkpoint_reader corpora
// (README.md), with Foehn's own writers:
//   foehn-fuzz-make-seeds <corpus folder>   (tests/fuzz/corpus)
// A few-tet mountain mesh with region tags, boundary tags and fields in every .msh flavour
// (2.2 / 4.1, ASCII / binary) and every .vtu encoding, and checkpoints of the fuzz target's own
// case (checkpoint_case.hpp), with and without extra fields, plus one for another mesh. The
// netCDF corpora come from make_seeds_netcdf.cpp (another process: another HDF5).

#include <mpi.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint_case.hpp"
#include "foehn/mesh/gmsh.hpp"
#include "foehn/mesh/vtk_io.hpp"
#include "foehn/petsc/distributed_mesh.hpp"

namespace {

namespace fs = std::filesystem;
using namespace foehn;

// The smallest mountain mesh (8 nodes, 6 tets), two regions, a scalar and a vector field.
TetMesh tiny_mesh() {
  MountainMeshOptions options;
  options.cells_x = options.cells_y = options.cells_z = 1;
  TetMesh mesh = generate_mountain_mesh(options);
  mesh.tet_tags.assign(mesh.tet_count(), 1);
  for (std::size_t t = 0; t < mesh.tet_count(); t += 2) mesh.tet_tags[t] = 7;
  MeshField temperature{"temperature", 1, {}}, wind{"wind", 3, {}}, volume{"volume", 1, {}};
  for (std::size_t n = 0; n < mesh.node_count(); ++n) {
    temperature.values.push_back(280.0 + 0.5 * static_cast<double>(n));
    for (int c = 0; c < 3; ++c) wind.values.push_back(static_cast<double>(c) - 1.0);
  }
  for (std::size_t t = 0; t < mesh.tet_count(); ++t) volume.values.push_back(1.0 + t);
  mesh.node_fields = {temperature, wind};
  mesh.tet_fields = {volume};
  return mesh;
}

void write_mesh_seeds(const fs::path& corpus) {
  const TetMesh mesh = tiny_mesh();
  for (const GmshVersion version : {GmshVersion::msh22, GmshVersion::msh41}) {
    for (const bool binary : {false, true}) {
      const std::string name = std::string("gen_tiny_") +
                               (version == GmshVersion::msh22 ? "msh22" : "msh41") +
                               (binary ? "_binary" : "_ascii") + ".msh";
      write_gmsh(mesh, corpus / "msh_reader" / name, GmshFormat{version, binary});
    }
  }
  write_vtu(mesh, corpus / "vtu_reader" / "gen_tiny_ascii.vtu", VtuOptions{VtuEncoding::ascii});
  write_vtu(mesh, corpus / "vtu_reader" / "gen_tiny_binary_raw.vtu",
            VtuOptions{VtuEncoding::binary_appended, false});
  write_vtu(mesh, corpus / "vtu_reader" / "gen_tiny_binary_zlib.vtu", VtuOptions{});
  TetMesh bare = mesh;  // no fields, no tags: the minimum a .vtu needs
  bare.node_fields.clear();
  bare.tet_fields.clear();
  bare.tet_tags.clear();
  bare.boundary_faces.clear();
  bare.boundary_tags.clear();
  write_vtu(bare, corpus / "vtu_reader" / "gen_bare_ascii.vtu", VtuOptions{VtuEncoding::ascii});
}

mountainwave::ModelState state_for(const petsc::DistributedMesh& mesh) {
  mountainwave::ModelState state;
  state.resize(static_cast<std::size_t>(mesh.local_nodes()));
  state.time = 1234.5;
  state.step = 17;
  for (std::size_t i = 0; i < state.pressure.size(); ++i) {
    const auto x = static_cast<double>(mesh.input_node_of_local[i]);
    for (int c = 0; c < 3; ++c) state.velocity[3 * i + c] = 10.0 - x + c;
    state.pressure[i] = 0.25 * x;
    state.theta[i] = -0.5 * x;
    for (int t = 0; t < mountainwave::tracer_count; ++t) state.tracers[t][i] = 1e-3 * (x + t);
  }
  return state;
}

void write_checkpoint_seeds(const fs::path& folder) {
  const mountainwave::CheckpointMetadata metadata = fuzz::checkpoint_fuzz_metadata();
  const TetMesh whole = fuzz::checkpoint_fuzz_mesh();
  const petsc::DistributedMesh mesh = petsc::distribute_mesh(MPI_COMM_SELF, &whole);
  const mountainwave::ModelState state = state_for(mesh);
  mountainwave::write_checkpoint(mesh, state, folder / "gen_case.h5", metadata);
  // One extra field (each data set costs HDF5 a few KB of headers; seeds stay under 32 KB).
  std::vector<double> pair;
  for (const double theta : state.theta) pair.insert(pair.end(), {theta, 2.0 * theta});
  const std::vector<MeshField> extras{{"previous_theta", 2, pair}};
  mountainwave::write_checkpoint(mesh, state, folder / "gen_case_extras.h5", metadata, extras);
  mountainwave::write_checkpoint(
      mesh, state, folder / "gen_other_case.h5",
      {mountainwave::CaseFingerprint().add("case", "fuzz").add("dt", 1.0).str()});
  // Another mesh: the header's node and tet counts differ from the fuzz case's.
  MountainMeshOptions other_options;
  other_options.cells_x = other_options.cells_y = other_options.cells_z = 1;
  const TetMesh other_whole = generate_mountain_mesh(other_options);
  const petsc::DistributedMesh other = petsc::distribute_mesh(MPI_COMM_SELF, &other_whole);
  mountainwave::write_checkpoint(other, state_for(other), folder / "gen_other_mesh.h5", metadata);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus folder, e.g. tests/fuzz/corpus>\n", argv[0]);
    return 2;
  }
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    const fs::path corpus = argv[1];
    for (const char* target : {"msh_reader", "vtu_reader", "checkpoint_reader"})
      fs::create_directories(corpus / target);
    write_mesh_seeds(corpus);
    write_checkpoint_seeds(corpus / "checkpoint_reader");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "make_seeds: %s\n", error.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
