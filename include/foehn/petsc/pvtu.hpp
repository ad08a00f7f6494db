#pragma once
// Parallel VTK output of a DistributedMesh for ParaView: every rank writes its piece, a .vtu
// of its tets on its local nodes (owned and ghost, so each piece is a complete mesh), and rank
// 0 writes the .pvtu file that lists the pieces; ParaView opens the .pvtu.
//
//   write_pvtu(mesh, "out/wave_0007.pvtu", {{"u", 3, u_local}}, {});
//   // -> out/wave_0007.pvtu, out/wave_0007_0.vtu, out/wave_0007_1.vtu, ...
//
// Each piece holds the local mesh's node and tet fields, the extra fields given here, "tet_tag"
// when the mesh has tet tags, and the cell field "rank" (the writing rank, as a double), so a
// partition can be coloured. Every file is written under a temporary name and renamed when
// complete (AtomicOutputFile), and the .pvtu only after every piece is in place: an
// interrupted run never leaves a half-written file, nor a .pvtu naming a piece not written.
#include <filesystem>
#include <span>

#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/mesh/vtk_io.hpp"
#include "foehn/petsc/distributed_mesh.hpp"

namespace foehn::petsc {

// Collective. `path` must end in ".pvtu"; its folder must exist. node_fields: values of this
// rank's local nodes (local_nodes() tuples: ghosts included, e.g. from
// NodeExchange::global_to_local); tet_fields: values of its local tets. Every rank must pass
// fields with the same names and component counts. Throws foehn::Error on every rank when
// any rank fails: invalid_input for a bad path or field (wrong size, duplicate or reserved
// name such as "rank" or "tet_tag", ranks disagreeing on the fields), io when a file cannot be
// written; the message names the rank and the file. The caller's fields come before the mesh's
// own (mesh.local's node and tet fields), so the first caller field of 1, 3 or 9 components is
// what ParaView colours by.
void write_pvtu(const DistributedMesh& mesh, const std::filesystem::path& path,
                std::span<const MeshField> node_fields = {},
                std::span<const MeshField> tet_fields = {}, const VtuOptions& options = {});

// Where write_pvtu puts the piece of `rank`: "<folder>/<stem>_<rank>.vtu" for
// "<folder>/<stem>.pvtu" (VTK's own naming for parallel pieces).
std::filesystem::path pvtu_piece_path(const std::filesystem::path& path, int rank);

}  // namespace foehn::petsc
