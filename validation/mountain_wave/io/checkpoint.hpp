#pragma once
// HDF5 checkpoints of the mountain-wave core's prognostic state (docs/mountain_wave_io.md).
//
// Every field is stored in the INPUT mesh's node numbering (gathered to rank 0), so a run may
// restart on any number of ranks: each rank gets back the values of all its local nodes, ghosts
// included, bit for bit. A restart therefore continues exactly as the uninterrupted run would,
// provided the core keeps its ghost values equal to their owners' (ModelState's contract).
//
//   write_checkpoint(mesh, state, "out/checkpoint_000100.h5", {fingerprint});
//   ModelState state = read_checkpoint(mesh, "out/checkpoint_000100.h5", {fingerprint});
//
// The file is written by rank 0 under a temporary name, flushed to disk and renamed into place:
// a crash never leaves a half-written checkpoint, and an existing checkpoint of the same name
// survives a failed write. Every data set carries HDF5's Fletcher-32 checksum.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/petsc/distributed_mesh.hpp"
#include "io/case_fingerprint.hpp"
#include "model_state.hpp"

namespace foehn::mountainwave {

inline constexpr const char* checkpoint_format = "foehn.mountain_wave_checkpoint";
inline constexpr std::int64_t checkpoint_format_version = 2;

// The most steps a run may take (three years at -dt 1): foehn-mountainwave refuses a longer
// run, and a checkpoint claiming more is no clock a run left behind.
inline constexpr std::int64_t max_run_steps = 100'000'000;

struct CheckpointMetadata {
  // The options a restart must share with the writing run (CaseFingerprint builds one); the
  // reader refuses a checkpoint whose fingerprint differs and says which options do.
  std::string case_fingerprint;
  // The run's time step (0: not checked): a restart continues the checkpoint's clock, whose time
  // must be its step times dt, or outputs would be stamped with a clock that never ran.
  double dt = 0;
  // An adaptive run's mesh (written only, not checked by read_checkpoint): the step of the
  // adaptation that made the mesh the state lies on (-1: the run's starting mesh), and what the
  // next adaptation needs to continue as the run would have (AdaptOptions).
  std::int64_t adapted_at_step = -1;
  double adapt_interior_nodes_per_complexity = 0;
  double adapt_nodes = 0;
  // The run's time step, chosen on its starting mesh: a restart on an adapted mesh keeps it.
  double adapt_dt = 0;
  // An overlapped adaptation's remesh that had finished but not yet taken over (-1: none): the
  // step whose state it was made from (its mesh is adapted_mesh_<step>.vtu), its metric's
  // complexity and the boundary nodes it kept, for the node calibration at its take-over.
  std::int64_t pending_adaptation_step = -1;
  double pending_adaptation_complexity = 0;
  std::int64_t pending_adaptation_boundary_nodes = 0;
};

// What a checkpoint file says about itself (read_checkpoint_info).
struct CheckpointInfo {
  std::int64_t format_version = 0;
  std::string case_fingerprint;
  std::int64_t global_nodes = 0;
  std::int64_t global_tets = 0;
  double time = 0.0;
  std::int64_t step = 0;
  std::vector<std::string> extra_fields;  // names of the extra node fields, in file order
  // As in CheckpointMetadata (-1 and 0 where the file has none).
  std::int64_t adapted_at_step = -1;
  double adapt_interior_nodes_per_complexity = 0;
  double adapt_nodes = 0;
  double adapt_dt = 0;
  std::int64_t pending_adaptation_step = -1;
  double pending_adaptation_complexity = 0;
  std::int64_t pending_adaptation_boundary_nodes = 0;
};

// Collective on mesh.comm. `state` holds this rank's local nodes (owned then ghosts:
// mesh.local_nodes() values per scalar, 3 per node for velocity); only the owned values are
// written. extra_node_fields: further per-node fields the core needs for an exact restart
// (e.g. a previous time level), local_nodes() x components values each, names unique and not
// those of the state's fields. `path`'s folder must exist.
// Throws foehn::Error on every rank when any rank fails: invalid_input for wrong sizes, a
// non-finite value (a blown-up state is not checkpointed) or a bad field name; io when the
// file cannot be written (the message names it).
void write_checkpoint(const petsc::DistributedMesh& mesh, const ModelState& state,
                      const std::filesystem::path& path, const CheckpointMetadata& metadata,
                      std::span<const MeshField> extra_node_fields = {});

// Collective on mesh.comm: rank 0 reads and checks the file, every rank gets the state of its
// local nodes (ghosts included) and the time and step. When extra_node_fields is given it
// receives the file's extra node fields on the local nodes (in name order).
// Throws foehn::Error on every rank, naming the file: io for a missing or unreadable file, or
// data failing its checksum; invalid_input for a truncated file, one that is not HDF5 or not
// a Foehn checkpoint, another format version, a different case fingerprint (the differing
// options are listed), node or tet counts other than the mesh's, node coordinates that are not
// the mesh's (another mesh or numbering), missing or misshapen data sets, or a NaN or infinite
// value in any field.
ModelState read_checkpoint(const petsc::DistributedMesh& mesh, const std::filesystem::path& path,
                           const CheckpointMetadata& expected,
                           std::vector<MeshField>* extra_node_fields = nullptr);

// Not collective (any rank, or a tool): the file's attributes, without reading its fields.
// Throws like read_checkpoint for a missing file, a non-HDF5 file or one that is not a
// Foehn checkpoint.
CheckpointInfo read_checkpoint_info(const std::filesystem::path& path);

// For a program's main(), before MPI_Init and any HDF5 call (PETSc's included): HDF5 1.10 leaks
// internal blocks on some corrupt checkpoints it refuses (a flipped byte in an object header), and
// its clean-up at exit then loops and prints "HDF5: infinite loop closing library" after the
// one-line error. Every file is closed explicitly before a Foehn program ends, so that
// clean-up has nothing to save; this turns it off (H5dont_atexit).
void skip_hdf5_clean_up_at_exit() noexcept;

}  // namespace foehn::mountainwave
