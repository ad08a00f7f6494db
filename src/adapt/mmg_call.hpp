#pragma once
// One call of Mmg's library (mmg3d) on one mesh, shared by adapt::remesh (the whole mesh) and
// adapt::remesh_in_parallel (one part of it per call, on several threads at once). Internal to
// libfoehn: Foehn's public headers do not include Mmg's.
//
// Is Mmg 5.8 re-entrant for separate meshes? Read off its source (src/mmg3d, src/common): all of
// a call's state lives in its MMG5_Mesh and MMG5_Sol, except (1) about 30 process-wide function
// pointers (MMG5_caltet, MMG5_lenedg, MMG5_intmet, ... in mmg3dexterns_private.h and
// mmgexterns_private.h) that every call assigns in MMG3D_setfunc from the metric's kind and the
// options, (2) "warn once" flags (static int8_t mmgWarn...) that only decide whether a warning
// is printed, and (3) the signal handlers MMG3D_mmg3dlib installs. Every call made here passes a
// tensor metric with the same options, so concurrent calls store the same pointer values (an
// aligned word on x86-64); the handlers are saved and put back once around all calls by the
// caller (KeepSignalHandlers). tests/unit/adapt/test_parallel_remesh.cpp checks that parts
// remeshed on many threads at once give bitwise the mesh they give one at a time.
#include <array>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "foehn/adapt/metric_math.hpp"
#include "foehn/adapt/remesh.hpp"
#include "foehn/mesh/tet_mesh.hpp"

namespace foehn::adapt::detail {

// What to freeze and bound in one call, beyond RemeshOptions.
struct MmgCallLimits {
  // Mmg's memory cap, MB (MMG3D_IPARAM_mem); 0 leaves Mmg's default (half the host's memory).
  // Mmg sizes its arrays and its gradation's edge table from the cap (up to 6 million tets
  // without one, 430 MB of table alone), and fills them before it starts: a cap near what the
  // mesh needs is what makes a small part cheap.
  double memory_megabytes = 0;
  // Boundary triangles with this tag are the interfaces between parts: marked required, as are
  // their nodes, and never modified. -1: none.
  std::int64_t interface_tag = -1;
  // Mmg's -hgradreq: how fast the cells may grow away from frozen (and kept boundary) nodes,
  // whose sizes Mmg takes from their frozen edges. > 0 the value, 0 Mmg's default (2.3), < 0 no
  // gradation from them.
  double frozen_gradation = 0;
};

struct MmgCallResult {
  TetMesh mesh;
  // Mmg's metric at the new nodes (its interpolation, after its gradation), one per node.
  std::vector<Sym3<double>> metric;
  // For each new node, the input node it is (a kept boundary or interface node, matched by
  // coordinates and given the input's coordinates bitwise), or -1 for a new interior node.
  std::vector<std::int32_t> kept_input_node;
  bool incomplete = false;  // MMG5_LOWFAILURE: conforming and checked, but not finished
};

// Mmg on `mesh` (its boundary kept when options.keep_boundary), then the result checked as
// adapt::remesh documents (valid, boundary outwards, every kept triangle the input's with its
// tag and coordinates). Does not touch the signal handlers: the caller holds KeepSignalHandlers.
// Errors: internal when Mmg fails or its mesh fails the checks; out_of_memory when Mmg cannot
// set up its mesh.
MmgCallResult call_mmg(const TetMesh& mesh, std::span<const Sym3<double>> metric,
                       const RemeshOptions& options, const MmgCallLimits& limits);

// MMG3D_mmg3dlib installs its own handlers for SIGABRT, SIGFPE, SIGILL, SIGSEGV, SIGTERM and
// SIGINT and leaves them at SIG_DFL when it returns: PETSc's (stack trace, MPI_Abort) and the
// MPI library's would be gone after the first remesh. They are put back however the calls end.
class KeepSignalHandlers {
 public:
  KeepSignalHandlers();
  ~KeepSignalHandlers();
  KeepSignalHandlers(const KeepSignalHandlers&) = delete;
  KeepSignalHandlers& operator=(const KeepSignalHandlers&) = delete;

 private:
  static constexpr std::array<int, 6> signals_{SIGABRT, SIGFPE, SIGILL, SIGSEGV, SIGTERM, SIGINT};
  std::array<struct sigaction, 6> saved_{};
};

// The cap for a whole mesh (adapt::remesh with max_nodes): measured with Mmg 5.8, it needs
// 600-1000 MB at its default table sizes (below that a 1.5k-node mesh fails at once, "Hashing
// problem") and about 2.5 kB per node it makes; 1 GB plus 8 kB per node of `nodes` leaves room
// for its intermediate meshes, while a metric asking for several times more ends in Mmg's
// failure (an error) instead of taking the host's memory.
double whole_mesh_megabytes(double nodes);
// The cap for one part of remesh_in_parallel, from its size and the nodes its metric asks for:
// Mmg's tables (its memOption: about 1 kB a node of room, the gradation's edge table 72 B a tet
// of room) for twice the larger of the part's nodes and the request, plus half its tets.
double part_megabytes(const TetMesh& part, double predicted_nodes);

// The longest side of the mesh's bounding box, m.
double longest_bounding_side(const TetMesh& mesh);

// adapt::remesh's checks of its input, and of the metric's predicted node count against
// options.max_nodes (remesh.cpp), for remesh_in_parallel to make the same ones.
void check_remesh_input(const TetMesh& mesh, std::span<const Sym3<double>> metric,
                        const RemeshOptions& options);
void check_predicted_size(const NodePrediction& predicted, const TetMesh& mesh,
                          const RemeshOptions& options);

}  // namespace foehn::adapt::detail
