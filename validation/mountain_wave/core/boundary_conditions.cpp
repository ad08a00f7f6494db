#include "boundary_conditions.hpp"

#include <algorithm>

#include "field_updates.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::mountainwave {

void mark_boundary_kinds(TetMesh& mesh) {
  if (mesh.boundary_tags.size() != mesh.boundary_faces.size() || mesh.boundary_faces.empty())
    fail(ErrorCategory::invalid_input, "mark_boundary_kinds: the mesh has ",
         mesh.boundary_faces.size(), " boundary faces and ", mesh.boundary_tags.size(),
         " tags; the mountain-wave core needs tagged boundaries (terrain 1, top 2, inflow 3, "
         "outflow 4, lateral 5)");
  MeshField field{boundary_kind_field, 1, std::vector<double>(mesh.node_count(), 0.0)};
  std::vector<std::uint32_t> bits(mesh.node_count(), 0);
  for (std::size_t f = 0; f < mesh.boundary_faces.size(); ++f) {
    const std::int32_t tag = mesh.boundary_tags[f];
    if (tag < 1 || tag > 5)
      fail(ErrorCategory::invalid_input, "mark_boundary_kinds: boundary face ", f, " has tag ", tag,
           " (expected 1..5)");
    for (const std::int32_t node : mesh.boundary_faces[f])
      bits.at(static_cast<std::size_t>(node)) |= 1u << (tag - 1);
  }
  for (std::size_t n = 0; n < bits.size(); ++n) field.values[n] = bits[n];
  std::erase_if(mesh.node_fields, [](const MeshField& f) { return f.name == boundary_kind_field; });
  mesh.node_fields.push_back(std::move(field));
}

std::vector<std::uint32_t> boundary_kinds(const TetMesh& local) {
  for (const MeshField& field : local.node_fields)
    if (field.name == boundary_kind_field) {
      std::vector<std::uint32_t> bits(field.values.size());
      for (std::size_t n = 0; n < bits.size(); ++n)
        bits[n] = static_cast<std::uint32_t>(field.values[n]);
      return bits;
    }
  fail(ErrorCategory::invalid_input, "the mesh has no '", boundary_kind_field,
       "' node field (mark_boundary_kinds before distributing it)");
}

DirichletSets dirichlet_sets(const std::vector<std::uint32_t>& kinds, const Physics& physics) {
  DirichletSets sets;
  for (std::size_t n = 0; n < kinds.size(); ++n) {
    const auto node = static_cast<std::int32_t>(n);
    const std::uint32_t k = kinds[n];
    if (physics.closed_box) {
      // Walls: no normal flow on every side (w on terrain follows the slope).
      if (k & (on_inflow | on_outflow)) sets.velocity_nodes[0].push_back(node);
      if (k & on_lateral) sets.velocity_nodes[1].push_back(node);
      if (k & (on_terrain | on_top)) sets.velocity_nodes[2].push_back(node);
      continue;
    }
    if (k & on_inflow) {
      for (auto& component : sets.velocity_nodes) component.push_back(node);
      sets.tracer_nodes.push_back(node);
      continue;
    }
    if (k & on_lateral) sets.velocity_nodes[1].push_back(node);
    if (k & (on_terrain | on_top)) sets.velocity_nodes[2].push_back(node);
    if (k & on_outflow) sets.pressure_nodes.push_back(node);
  }
  return sets;
}

BoundaryVelocityData boundary_velocity_data(const TetMesh& local,
                                            const std::vector<std::uint32_t>& kinds,
                                            const Physics& physics,
                                            const MountainMeshOptions& domain) {
  const std::size_t nodes = local.node_count();
  BoundaryVelocityData data{std::vector<double>(nodes, 0.0), std::vector<double>(nodes, 0.0),
                            std::vector<double>(nodes, 0.0)};
  constexpr double step = 1.0;  // m, central differences of the analytic terrain
  for (std::size_t n = 0; n < kinds.size(); ++n) {
    const std::uint32_t k = kinds[n];
    if ((k & on_inflow) && !physics.closed_box) {
      data.inflow_u[n] = physics.inflow_speed;
      continue;
    }
    if (k & on_terrain) {
      const double x = local.nodes[n][0], y = local.nodes[n][1];
      data.slope_x[n] = (mountain_surface_height(domain, x + step, y) -
                         mountain_surface_height(domain, x - step, y)) /
                        (2 * step);
      data.slope_y[n] = (mountain_surface_height(domain, x, y + step) -
                         mountain_surface_height(domain, x, y - step)) /
                        (2 * step);
    }
  }
  return data;
}

void velocity_boundary_values(const BoundaryVelocityData& data, const std::vector<double>& velocity,
                              std::vector<double>& values) {
  const std::size_t nodes = data.inflow_u.size();
  values.assign(3 * nodes, 0.0);
  const BoundaryVelocity f{velocity.data(), data.inflow_u.data(), data.slope_x.data(),
                           data.slope_y.data(), values.data()};
  for (std::size_t n = 0; n < nodes; ++n) f(n);
}

}  // namespace foehn::mountainwave
