#include "foehn/adapt/parallel_remesh.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "foehn/adapt/metric.hpp"
#include "foehn/mesh/partition.hpp"
#include "foehn/mesh/topology.hpp"
#include "foehn/mesh/validate.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stopwatch.hpp"
#include "mmg_call.hpp"
#include "parallel_remesh_band.hpp"

namespace foehn::adapt {

namespace {

using detail::Band;
using detail::Merged;

// For every tet face (slot 4 t + f, f the face opposite local node f): the tet across it, or
// -1 on the surface, where `boundary` holds the boundary triangle it is.
struct FaceNeighbours {
  std::vector<std::int32_t> across, boundary;
};

FaceNeighbours face_neighbours(const TetMesh& mesh) {
  FaceNeighbours neighbours{tet_face_neighbours(mesh, "adapt::remesh_in_parallel"),
                            std::vector<std::int32_t>(4 * mesh.tets.size(), -1)};
  const detail::BoundaryLookup boundary(mesh);
  for (std::size_t slot = 0; slot < neighbours.across.size(); ++slot) {
    if (neighbours.across[slot] >= 0) continue;
    const Tet& tet = mesh.tets[slot / 4];
    const auto& local = tet_local_faces[slot % 4];
    const std::int32_t found = boundary.find({tet[local[0]], tet[local[1]], tet[local[2]]});
    if (found < 0)
      fail(ErrorCategory::invalid_input, "adapt::remesh_in_parallel: face ", slot % 4, " of tet ",
           slot / 4,
           " lies on the surface but is no boundary triangle: the boundary is to be kept and "
           "must be given whole");
    neighbours.boundary[slot] = found;
  }
  return neighbours;
}

// Nodes on a face between tets of different parts.
std::vector<char> interface_nodes(const TetMesh& mesh, const FaceNeighbours& neighbours,
                                  const std::vector<std::int32_t>& part) {
  std::vector<char> on(mesh.nodes.size(), 0);
  for (std::size_t t = 0; t < mesh.tets.size(); ++t)
    for (int f = 0; f < 4; ++f) {
      const std::int32_t other = neighbours.across[4 * t + f];
      if (other < 0 || part[static_cast<std::size_t>(other)] == part[t]) continue;
      for (const int k : tet_local_faces[static_cast<std::size_t>(f)])
        on[static_cast<std::size_t>(mesh.tets[t][k])] = 1;
    }
  return on;
}

// Tets with a node flagged.
std::size_t tets_touching(const TetMesh& mesh, const std::vector<char>& flagged) {
  std::size_t count = 0;
  for (const Tet& tet : mesh.tets)
    count += std::any_of(tet.begin(), tet.end(),
                         [&](std::int32_t n) { return flagged[static_cast<std::size_t>(n)] != 0; });
  return count;
}

// One part as a mesh of its own: its tets, their nodes, the whole mesh's boundary triangles it
// holds and, tagged interface_tag and oriented out of the part, its faces against other parts.
struct Part {
  TetMesh mesh;
  std::vector<std::int32_t> whole_node;  // the node of the whole mesh each of its nodes is
  std::vector<Sym3<double>> metric;
};

Part extract_part(const TetMesh& whole, std::span<const Sym3<double>> metric,
                  const FaceNeighbours& neighbours, const std::vector<std::int32_t>& part,
                  std::span<const std::int32_t> tets, std::int32_t interface_tag) {
  Part p;
  p.whole_node.reserve(4 * tets.size());
  for (const std::int32_t t : tets)
    for (const std::int32_t n : whole.tets[static_cast<std::size_t>(t)]) p.whole_node.push_back(n);
  std::sort(p.whole_node.begin(), p.whole_node.end());
  p.whole_node.erase(std::unique(p.whole_node.begin(), p.whole_node.end()), p.whole_node.end());
  const auto local = [&](std::int32_t n) {
    return static_cast<std::int32_t>(std::lower_bound(p.whole_node.begin(), p.whole_node.end(), n) -
                                     p.whole_node.begin());
  };
  p.mesh.nodes.reserve(p.whole_node.size());
  p.metric.reserve(p.whole_node.size());
  for (const std::int32_t n : p.whole_node) {
    p.mesh.nodes.push_back(whole.nodes[static_cast<std::size_t>(n)]);
    p.metric.push_back(metric[static_cast<std::size_t>(n)]);
  }
  const std::int32_t mine = part[static_cast<std::size_t>(tets.front())];
  for (const std::int32_t t : tets) {
    const Tet& tet = whole.tets[static_cast<std::size_t>(t)];
    p.mesh.tets.push_back({local(tet[0]), local(tet[1]), local(tet[2]), local(tet[3])});
    if (!whole.tet_tags.empty())
      p.mesh.tet_tags.push_back(whole.tet_tags[static_cast<std::size_t>(t)]);
    for (int f = 0; f < 4; ++f) {
      const auto slot = static_cast<std::size_t>(4 * t + f);
      const std::int32_t other = neighbours.across[slot];
      if (other >= 0 && part[static_cast<std::size_t>(other)] == mine) continue;
      if (other < 0) {
        const auto b = static_cast<std::size_t>(neighbours.boundary[slot]);
        const Triangle& face = whole.boundary_faces[b];
        p.mesh.boundary_faces.push_back({local(face[0]), local(face[1]), local(face[2])});
        p.mesh.boundary_tags.push_back(whole.boundary_tags[b]);
      } else {
        const auto& corners = tet_local_faces[static_cast<std::size_t>(f)];
        p.mesh.boundary_faces.push_back(
            {local(tet[corners[0]]), local(tet[corners[1]]), local(tet[corners[2]])});
        p.mesh.boundary_tags.push_back(interface_tag);
      }
    }
  }
  return p;
}

Merged merge_parts(const TetMesh& whole, std::span<const Sym3<double>> metric,
                   const std::vector<char>& frozen_throughout, const std::vector<Part>& parts,
                   const std::vector<detail::MmgCallResult>& results, std::int32_t interface_tag) {
  std::vector<std::int32_t> new_of_old(whole.nodes.size(), -1);
  for (std::size_t p = 0; p < parts.size(); ++p)
    for (const std::int32_t kept : results[p].kept_input_node)
      if (kept >= 0) new_of_old[static_cast<std::size_t>(parts[p].whole_node[kept])] = 0;
  Merged merged;
  for (std::size_t n = 0; n < whole.nodes.size(); ++n) {
    if (new_of_old[n] < 0) continue;
    new_of_old[n] = static_cast<std::int32_t>(merged.mesh.nodes.size());
    merged.mesh.nodes.push_back(whole.nodes[n]);
    merged.metric.push_back(metric[n]);
    merged.frozen_throughout.push_back(frozen_throughout[n]);
  }
  merged.node_of_input = new_of_old;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const detail::MmgCallResult& r = results[p];
    std::vector<std::int32_t> merged_node(r.mesh.nodes.size());
    for (std::size_t n = 0; n < merged_node.size(); ++n) {
      const std::int32_t kept = r.kept_input_node[n];
      if (kept >= 0) {
        merged_node[n] = new_of_old[static_cast<std::size_t>(parts[p].whole_node[kept])];
        continue;
      }
      merged_node[n] = static_cast<std::int32_t>(merged.mesh.nodes.size());
      merged.mesh.nodes.push_back(r.mesh.nodes[n]);
      merged.metric.push_back(r.metric[n]);
      merged.frozen_throughout.push_back(0);
    }
    for (std::size_t t = 0; t < r.mesh.tets.size(); ++t) {
      const Tet& tet = r.mesh.tets[t];
      merged.mesh.tets.push_back(
          {merged_node[tet[0]], merged_node[tet[1]], merged_node[tet[2]], merged_node[tet[3]]});
    }
    merged.mesh.tet_tags.insert(merged.mesh.tet_tags.end(), r.mesh.tet_tags.begin(),
                                r.mesh.tet_tags.end());
    for (std::size_t f = 0; f < r.mesh.boundary_faces.size(); ++f) {
      if (r.mesh.boundary_tags[f] == interface_tag) continue;
      const Triangle& face = r.mesh.boundary_faces[f];
      merged.mesh.boundary_faces.push_back(
          {merged_node[face[0]], merged_node[face[1]], merged_node[face[2]]});
      merged.mesh.boundary_tags.push_back(r.mesh.boundary_tags[f]);
    }
  }
  return merged;
}

// work(i) for i in [0, count) on up to `threads` threads (the caller's among them); the first
// failure, by index, is rethrown once all have ended.
template <typename Work>
void run_on_threads(int threads, int count, const Work& work) {
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(count));
  std::atomic<int> next{0};
  const auto worker = [&] {
    for (int i = next++; i < count; i = next++) try {
        work(i);
      } catch (...) {
        failures[static_cast<std::size_t>(i)] = std::current_exception();
      }
  };
  {
    std::vector<std::jthread> pool;  // joined when it goes, also if a thread cannot start
    try {
      for (int t = 1; t < std::min(threads, count); ++t) pool.emplace_back(worker);
    } catch (const std::system_error& e) {
      next = count;
      fail(ErrorCategory::unavailable, "adapt::remesh_in_parallel: could not start thread ",
           pool.size() + 1, " of ", threads, ": ", e.what());
    }
    worker();
  }
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

// A tag no boundary triangle has, for the interfaces.
std::int32_t unused_tag(const TetMesh& mesh) {
  std::int32_t highest = 0;
  for (const std::int32_t tag : mesh.boundary_tags) highest = std::max(highest, tag);
  if (highest == std::numeric_limits<std::int32_t>::max())
    fail(ErrorCategory::invalid_input, "adapt::remesh_in_parallel: a boundary tag is ", highest,
         ", leaving no tag free to mark the interfaces between parts");
  return highest + 1;
}

void check_parallel_options(const ParallelRemeshOptions& o) {
  if (o.threads < 0 || o.parts < 0)
    fail(ErrorCategory::invalid_input, "adapt::remesh_in_parallel: threads ", o.threads,
         " and parts ", o.parts, " must be >= 0 (0: chosen from the host)");
  if (!std::isfinite(o.frozen_gradation))
    fail(ErrorCategory::invalid_input, "adapt::remesh_in_parallel: frozen_gradation ",
         o.frozen_gradation, " must be finite");
  if (!(o.short_edge >= 0 && o.short_edge_fraction >= 0) || !std::isfinite(o.short_edge) ||
      !std::isfinite(o.short_edge_fraction))
    fail(ErrorCategory::invalid_input, "adapt::remesh_in_parallel: short_edge ", o.short_edge,
         " m and short_edge_fraction ", o.short_edge_fraction, " must be finite and >= 0");
  if (o.max_passes < 1 || o.avoid_cost < 1 || o.avoid_cost > 10000 || o.band_layers < 0)
    fail(ErrorCategory::invalid_input, "adapt::remesh_in_parallel: max_passes ", o.max_passes,
         " must be at least 1, avoid_cost ", o.avoid_cost, " in [1, 10000] and band_layers ",
         o.band_layers, " >= 0");
}

// One pass: the parts remeshed at once and merged. Triangles of `whole` tagged interface_tag
// (a band's surface) are frozen as the interfaces between parts are.
Merged remesh_parts(const TetMesh& whole, std::span<const Sym3<double>> metric,
                    std::vector<char> frozen_throughout, const std::vector<std::int32_t>& part,
                    int part_count, std::int32_t interface_tag, int threads,
                    const RemeshOptions& options, const ParallelRemeshOptions& parallel, int pass,
                    ParallelRemeshPass& measured) {
  Stopwatch watch;
  const FaceNeighbours neighbours = face_neighbours(whole);
  const std::vector<char> on_interface = interface_nodes(whole, neighbours, part);
  for (std::size_t n = 0; n < frozen_throughout.size(); ++n)
    frozen_throughout[n] = frozen_throughout[n] && on_interface[n];
  // The tets of each part, by a counting sort on the part.
  std::vector<std::size_t> offsets(static_cast<std::size_t>(part_count) + 1, 0);
  for (const std::int32_t p : part) ++offsets[static_cast<std::size_t>(p) + 1];
  for (std::size_t p = 0; p < static_cast<std::size_t>(part_count); ++p)
    offsets[p + 1] += offsets[p];
  std::vector<std::int32_t> tets_of_part(part.size());
  {
    std::vector<std::size_t> fill(offsets.begin(), offsets.end() - 1);
    for (std::size_t t = 0; t < part.size(); ++t)
      tets_of_part[fill[static_cast<std::size_t>(part[t])]++] = static_cast<std::int32_t>(t);
  }
  std::vector<std::size_t> nonempty;
  for (std::size_t p = 0; p < static_cast<std::size_t>(part_count); ++p)
    if (offsets[p + 1] > offsets[p]) nonempty.push_back(p);
  std::vector<Part> parts(nonempty.size());
  std::vector<detail::MmgCallResult> results(nonempty.size());
  std::vector<double> seconds(nonempty.size(), 0);
  const auto count = static_cast<int>(nonempty.size());
  measured.parts = count;
  measured.remeshed_tets = whole.tets.size();
  run_on_threads(threads, count, [&](int i) {
    const auto k = static_cast<std::size_t>(i);
    const std::size_t p = nonempty[k];
    parts[k] = extract_part(
        whole, metric, neighbours, part,
        std::span(tets_of_part).subspan(offsets[p], offsets[p + 1] - offsets[p]), interface_tag);
  });
  for (const Part& p : parts)
    measured.interface_faces += static_cast<std::size_t>(
        std::count(p.mesh.boundary_tags.begin(), p.mesh.boundary_tags.end(), interface_tag));
  // Faces between parts were counted from both sides, a band's surface from its side only.
  const auto band_surface = static_cast<std::size_t>(
      std::count(whole.boundary_tags.begin(), whole.boundary_tags.end(), interface_tag));
  measured.interface_faces = (measured.interface_faces - band_surface) / 2 + band_surface;
  measured.split = watch.lap();
  run_on_threads(threads, count, [&](int i) {
    const auto k = static_cast<std::size_t>(i);
    const Stopwatch own;
    try {
      detail::MmgCallLimits limits;
      limits.interface_tag = interface_tag;
      limits.frozen_gradation = parallel.frozen_gradation;
      // A part is not refused on its own (the whole metric was); its cap follows its size.
      if (parallel.cap_part_memory)
        limits.memory_megabytes = detail::part_megabytes(
            parts[k].mesh,
            predict_nodes(parts[k].mesh, parts[k].metric, true, options.nodes_per_complexity)
                .nodes);
      results[k] = detail::call_mmg(parts[k].mesh, parts[k].metric, options, limits);
      if (results[k].incomplete)
        fail(ErrorCategory::internal, "Mmg could not finish (MMG5_LOWFAILURE)");
    } catch (const Error& e) {
      fail(e.category(), "adapt::remesh_in_parallel: pass ", pass + 1, ", part ", nonempty[k] + 1,
           " of ", part_count, " (", parts[k].mesh.nodes.size(), " nodes, ",
           parts[k].mesh.tets.size(), " tets): ", e.what());
    } catch (const std::bad_alloc&) {
      fail(ErrorCategory::out_of_memory, "adapt::remesh_in_parallel: pass ", pass + 1, ", part ",
           nonempty[k] + 1, " of ", part_count, ": out of host memory");
    }
    seconds[k] = own.seconds();
  });
  measured.mmg = watch.lap();
  for (const double s : seconds) {
    measured.slowest_part = std::max(measured.slowest_part, s);
    measured.mmg_cpu += s;
  }
  Merged merged = merge_parts(whole, metric, frozen_throughout, parts, results, interface_tag);
  measured.merge = watch.lap();
  measured.nodes = merged.mesh.nodes.size();
  measured.tets = merged.mesh.tets.size();
  measured.nodes_frozen_throughout = static_cast<std::size_t>(
      std::count(merged.frozen_throughout.begin(), merged.frozen_throughout.end(), 1));
  return merged;
}

int parts_for(const TetMesh& mesh, const ParallelRemeshOptions& o, int threads) {
  if (o.parts > 0) return std::min<int>(o.parts, static_cast<int>(mesh.tets.size()));
  const std::size_t most =
      std::max<std::size_t>(1, mesh.tets.size() / std::max<std::size_t>(o.min_tets_per_part, 1));
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), most));
}

}  // namespace

TetMesh remesh_in_parallel(const TetMesh& mesh, std::span<const Sym3<double>> metric,
                           const RemeshOptions& options, const ParallelRemeshOptions& parallel,
                           ParallelRemeshReport* report) {
  const Stopwatch watch;
  check_parallel_options(parallel);
  const int threads = parallel.threads > 0
                          ? parallel.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  detail::check_remesh_input(mesh, metric, options);
  const int part_count = parts_for(mesh, parallel, threads);
  ParallelRemeshReport local;
  ParallelRemeshReport& r = report != nullptr ? *report : local;
  r = ParallelRemeshReport{};
  r.threads = threads;
  if (part_count <= 1) {
    TetMesh adapted = remesh(mesh, metric, options, &r);
    r.threads = 1;
    return adapted;
  }
  if (!options.keep_boundary)
    fail(ErrorCategory::invalid_input, "adapt::remesh_in_parallel: ", part_count,
         " parts need keep_boundary (the interfaces between parts are frozen as the boundary is)");
  const NodePrediction predicted = predict_nodes(mesh, metric, true, options.nodes_per_complexity);
  detail::check_predicted_size(predicted, mesh, options);
  if (!remeshing_available())
    fail(ErrorCategory::unavailable,
         "adapt::remesh_in_parallel: this build of Foehn has no Mmg (configure with "
         "FOEHN_MMG_DIR, which scripts/setup-mmg.sh provides)");

  Stopwatch lap;
  const std::int32_t interface_tag = unused_tag(mesh);
  // Mmg leaves edges far below the metric's sizes at frozen triangles (43 m at -adapt_hmin 125 on
  // 16 parts, where serial Mmg keeps 74 m): a later pass frees them as it frees frozen nodes.
  const double short_edge = parallel.short_edge > 0 ? parallel.short_edge
                                                    : parallel.short_edge_fraction *
                                                          detail::smallest_requested_edge(metric);
  Merged current;
  std::vector<char> to_free;
  struct Repaired {
    Merged mesh;
    std::size_t short_edge_nodes = 0;
    double shortest = 0;
  } repaired;
  double shortest_before = 0;  // the shortest edge off the boundary after the last pass
  {
    const detail::KeepSignalHandlers handlers;
    for (int pass = 0; pass < parallel.max_passes; ++pass) {
      ParallelRemeshPass measured;
      // A pass with no frozen node left to free only repairs short edges: the mesh before it is
      // kept, to be taken back if the pass makes the shortest edge worse.
      const bool repairing = pass > 0 && r.passes.back().nodes_frozen_throughout == 0;
      if (repairing) repaired = {current, r.passes.back().short_edge_nodes, shortest_before};
      // A later pass remeshes to Mmg's metric at the last pass's nodes (already gradated once,
      // and gradated again). Measured on the default case's metric at step 20, in 4 parts
      // against serial Mmg's 290k tets: 292k tets and quality at least serial Mmg's; the given
      // metric interpolated instead, 309k tets and worse angles; no gradation after the first
      // pass, 257k tets and a worse tail on the unit test's mesh.
      lap.lap();
      if (pass == 0) {
        PartitionOptions balance;
        if (parallel.balance_work) balance.element_weights = detail::work_weights(mesh, metric);
        const std::vector<std::int32_t> part = partition_elements(mesh, part_count, balance);
        r.partition += lap.lap();
        current =
            remesh_parts(mesh, metric, std::vector<char>(mesh.nodes.size(), 1), part, part_count,
                         interface_tag, threads, options, parallel, pass, measured);
      } else if (parallel.band_layers == 0) {
        // The whole mesh again, its interfaces kept off the nodes frozen in every pass so far.
        PartitionOptions balance;
        if (parallel.balance_work)
          balance.element_weights = detail::work_weights(current.mesh, current.metric);
        const std::vector<std::int32_t> part = partition_elements_avoiding(
            current.mesh, part_count, to_free, parallel.avoid_cost, balance);
        r.partition += lap.lap();
        current =
            remesh_parts(current.mesh, current.metric, std::move(current.frozen_throughout), part,
                         part_count, interface_tag, threads, options, parallel, pass, measured);
      } else {
        // The band around the nodes to free, its surface frozen too.
        const std::vector<char> in_band =
            detail::band_around(current.mesh, to_free, parallel.band_layers);
        const Band band = detail::cut_band(current, in_band, to_free, interface_tag);
        int band_parts = 0;
        const std::vector<std::int32_t> part =
            detail::split_band(band, part_count, parallel, &band_parts);
        r.partition += lap.lap();
        const Merged remeshed =
            remesh_parts(band.mesh, band.metric, band.frozen, part, band_parts, interface_tag,
                         threads, options, parallel, pass, measured);
        lap.lap();
        current = detail::splice_band(current, in_band, band, remeshed);
        measured.merge += lap.lap();
        measured.nodes = current.mesh.nodes.size();
        measured.tets = current.mesh.tets.size();
      }
      // The next pass frees the nodes frozen in every pass so far and those at edges too short.
      to_free = current.frozen_throughout;
      double shortest = 0;
      if (short_edge > 0) {
        std::vector<char> at_short(current.mesh.nodes.size(), 0);
        measured.short_edge_nodes =
            detail::flag_short_edges(current.mesh, short_edge, at_short, &shortest);
        for (std::size_t n = 0; n < to_free.size(); ++n) to_free[n] = to_free[n] || at_short[n];
      }
      // A pass that only freed short edges (none frozen before it) and left a shorter one than
      // it found is undone: the band's new frozen surface can give Mmg worse edges than it took.
      if (repairing && shortest < repaired.shortest) {
        measured.undone = true;
        r.passes.push_back(measured);
        current = std::move(repaired.mesh);
        r.passes.back().short_edge_nodes = repaired.short_edge_nodes;
        break;
      }
      r.passes.push_back(measured);
      shortest_before = shortest;
      if (pass > 0 && measured.nodes_frozen_throughout == 0 && measured.short_edge_nodes == 0)
        break;
      // Short edges Mmg will not remove (the same band again, as many left): stop trying.
      const ParallelRemeshPass* before =
          r.passes.size() > 1 ? &r.passes[r.passes.size() - 2] : nullptr;
      if (before != nullptr && before->nodes_frozen_throughout == 0 &&
          measured.nodes_frozen_throughout == 0 &&
          measured.short_edge_nodes >= before->short_edge_nodes)
        break;
    }
  }
  r.nodes_never_free = r.passes.back().nodes_frozen_throughout;
  r.short_edge_nodes_left = r.passes.back().short_edge_nodes;
  r.tets_never_free = tets_touching(current.mesh, current.frozen_throughout);
  // The merged mesh is checked whole: conforming across the interfaces, the boundary the input's.
  MeshCheckResult check = check_mesh(current.mesh);
  if (!check.ok())
    fail(ErrorCategory::internal,
         "adapt::remesh_in_parallel: the merged mesh fails the checks: ", check.summary());
  r.nodes = current.mesh.nodes.size();
  r.tets = current.mesh.tets.size();
  r.boundary_faces = current.mesh.boundary_faces.size();
  r.predicted_nodes = predicted.nodes;
  r.shortest_edge = shortest_edge_length(current.mesh);
  r.seconds = watch.seconds();
  return std::move(current.mesh);
}

}  // namespace foehn::adapt
