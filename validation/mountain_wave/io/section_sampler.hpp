#pragma once
// Sampling nodal fields on the regular grids of the "mountain-wave sections" layout
// (validation/linear_theory/sections_io.py, docs/linear_theory.md), which
// compare_to_linear_theory.py reads to compare the core with linear theory.
//
//   SectionSampler sampler(mesh, SectionGrid{});    // locates every point once (collective)
//   SectionValues w = sampler.sample(state.velocity, 3, 2);      // rank 0 gets the values
//   sampler.write_state_sections("out/sections_0100.h5", state, MountainWaveCase{});
//
// Each sample point is located in the rank's tets (a uniform bucket grid over the tets'
// bounding boxes, then a barycentric test with a small tolerance); a point found by several
// ranks (on a face between ranks) is taken by the lowest of them, so every point is counted
// exactly once. A sample is the P1 interpolant, exact for fields linear in space. Points in no
// tet (below the terrain, outside the domain) get NaN.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "foehn/petsc/distributed_mesh.hpp"
#include "model_state.hpp"

namespace foehn::mountainwave {

// first, first + step, ... up to last (included when it is a whole number of steps away,
// within 1e-9 steps); every value computed as first + i * step, so axes are exact multiples.
// Throws foehn::Error (invalid_input) for step <= 0, last < first or non-finite values.
std::vector<double> evenly_spaced(double first, double last, double step);

// The points sampled. All axes strictly increasing (sections_io.py requires it); metres, with
// the summit at x = y = 0 and z measured from the flat ground z = 0.
struct SectionGrid {
  // Horizontal sections: the grid x by y at each height; none when heights is empty.
  std::vector<double> x = evenly_spaced(-30000.0, 30000.0, 250.0);
  std::vector<double> y = evenly_spaced(-30000.0, 30000.0, 250.0);
  std::vector<double> heights = {2000.0, 5000.0};
  // The vertical section at y = section_y: section_x by section_z; none when section_z is empty.
  std::vector<double> section_x = evenly_spaced(-30000.0, 30000.0, 250.0);
  std::vector<double> section_z = evenly_spaced(0.0, 16000.0, 100.0);
  double section_y = 0.0;

  bool has_horizontal() const noexcept { return !heights.empty(); }
  bool has_section() const noexcept { return !section_z.empty(); }
  std::size_t horizontal_points() const noexcept;  // heights * y * x (0 without)
  std::size_t section_points() const noexcept;     // section_z * section_x (0 without)
};

// Sampled values, on rank 0 (empty on the other ranks). NaN where no tet holds the point.
struct SectionValues {
  std::vector<double> horizontal;  // [heights][y][x], row-major
  std::vector<double> section;     // [section_z][section_x], row-major
};

struct NamedSectionValues {
  std::string name;  // w, theta, u, v or p (the names sections_io.py knows)
  SectionValues values;
};

// The case attributes of a sections file (compare_to_linear_theory.py computes the theory for
// them); defaults: the published Mountainwave3D case.
struct MountainWaveCase {
  double h0 = 400.0;          // mountain height, m
  double a = 1000.0;          // half width, m
  double U = 10.0;            // inflow speed along x, m/s
  double N = 0.01;            // Brunt-Vaisala frequency, 1/s
  double theta0 = 293.15;     // reference potential temperature, K
  double g = 9.81;            // m/s^2
  double length_x = 60000.0;  // domain lengths (the theory's periodic window), m; 0 = unknown
  double length_y = 60000.0;
};

class SectionSampler {
 public:
  // Collective on mesh.comm. Keeps no reference to `mesh` (it copies what it needs); the
  // communicator must outlive the sampler. tolerance: how far outside a tet (in barycentric
  // coordinates) a point may lie and still be taken, for points on faces, edges and the
  // domain boundary. Throws foehn::Error (invalid_input, on every rank) for a grid whose axes
  // are not finite and strictly increasing, or one with no point at all.
  SectionSampler(const petsc::DistributedMesh& mesh, SectionGrid grid, double tolerance = 1e-9);

  const SectionGrid& grid() const noexcept { return grid_; }
  std::size_t point_count() const noexcept {
    return grid_.horizontal_points() + grid_.section_points();
  }
  // Points this rank interpolates (its share; the shares of all ranks add up to points_found).
  std::size_t points_taken_here() const noexcept { return points_.size(); }
  // Points found in some tet, over all ranks (the same on every rank).
  std::int64_t points_found() const noexcept { return points_found_; }

  // Collective. `local_field` holds `components` values per local node (owned then ghosts,
  // interleaved); returns the P1 interpolant of component `component` at every point on rank 0
  // (empty vectors elsewhere). Throws foehn::Error (invalid_input, on every rank) for a field of
  // the wrong size or a component out of range.
  SectionValues sample(std::span<const double> local_field, int components, int component) const;

  // Collective; rank 0 writes `path` (its folder must exist) in the sections layout, under a
  // temporary name renamed when complete: root attributes layout, layout_version, source, h0,
  // a, U, N, theta0, g, length_x, length_y, time; /x, /y, /horizontal/{z,<fields>} when the
  // grid has horizontal sections; /section_y0/{x,z,<fields>} (attribute y) when it has the
  // vertical section. `fields` must include w; names must be those sections_io.py knows (w,
  // theta, u, v, p), each once; values as sample() returns them. Throws foehn::Error on every
  // rank: invalid_input for bad fields, io when the file cannot be written.
  void write_sections(const std::filesystem::path& path, double time,
                      const MountainWaveCase& attributes,
                      const std::vector<NamedSectionValues>& fields) const;

  // Samples the layout's fields from the core's state and writes them (collective):
  // w = velocity z, u = velocity x - U (the layout's u is the perturbation), v, theta = theta'
  // (the perturbation from theta0 (1 + N^2 z / g), as ModelState holds it), p = p'/rho0.
  void write_state_sections(const std::filesystem::path& path, const ModelState& state,
                            const MountainWaveCase& attributes) const;

 private:
  struct TakenPoint {
    std::int32_t point = 0;               // index over horizontal then section points
    std::array<std::int32_t, 4> nodes{};  // local nodes of the tet holding it
    std::array<double, 4> weights{};      // barycentric coordinates
  };

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::int32_t local_nodes_ = 0;
  SectionGrid grid_;
  std::vector<TakenPoint> points_;  // in increasing point order
  std::int64_t points_found_ = 0;
  // Rank 0: for each rank, how many points it takes and, concatenated, which.
  std::vector<int> taken_counts_, taken_displacements_;
  std::vector<std::int32_t> taken_points_;
};

}  // namespace foehn::mountainwave
