#include "run_options.hpp"

#include <petscsys.h>

#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::mountainwave {

namespace {

// The default case of the main job: a coarser Mountainwave3D mesh that runs in minutes on two
// CPU cores; -mesh_tets 554394 is the published size.
constexpr int default_cells[3] = {24, 24, 20};

PetscErrorCode read(MPI_Comm comm, RunOptions& o, PetscInt cells[3], PetscBool* cells_set,
                    PetscInt* tets, char* backend, char* strategy, char* solves, char* output_dir,
                    char* restart, char* label, std::size_t text_size) {
  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, nullptr, "foehn-mountainwave: the Mountainwave3D dynamical core", "");
  PetscInt count = 3;
  PetscCall(
      PetscOptionsIntArray("-mesh_cells", "Mesh cells nx,ny,nz", "", cells, &count, cells_set));
  PetscCall(PetscOptionsInt("-mesh_tets",
                            "Mesh of about this many tets (554394: the published size)", "", *tets,
                            tets, nullptr));
  PetscCall(PetscOptionsReal("-mountain_height", "h0, m", "", o.domain.mountain_height,
                             &o.domain.mountain_height, nullptr));
  PetscCall(PetscOptionsReal("-mountain_half_width", "a, m", "", o.domain.mountain_half_width,
                             &o.domain.mountain_half_width, nullptr));
  PetscCall(PetscOptionsReal("-horizontal_grading",
                             "Mesh spacing at the mountain / mean spacing (0, 1]", "",
                             o.domain.horizontal_grading, &o.domain.horizontal_grading, nullptr));
  PetscCall(PetscOptionsReal("-vertical_grading", "Lowest layer / mean layer thickness (0, 1]", "",
                             o.domain.vertical_grading, &o.domain.vertical_grading, nullptr));
  PetscCall(PetscOptionsReal("-U", "Inflow speed, m/s", "", o.physics.inflow_speed,
                             &o.physics.inflow_speed, nullptr));
  PetscCall(PetscOptionsReal("-N", "Buoyancy frequency, 1/s", "", o.physics.buoyancy_frequency,
                             &o.physics.buoyancy_frequency, nullptr));
  PetscCall(PetscOptionsReal("-viscosity", "Kinematic viscosity, m^2/s", "", o.physics.viscosity,
                             &o.physics.viscosity, nullptr));
  PetscCall(PetscOptionsReal("-diffusivity", "Diffusivity of theta' and tracers, m^2/s", "",
                             o.physics.diffusivity, &o.physics.diffusivity, nullptr));
  PetscCall(PetscOptionsReal("-sponge_rate", "Largest Rayleigh damping rate, 1/s", "",
                             o.physics.sponge_rate, &o.physics.sponge_rate, nullptr));
  PetscBool closed = o.physics.closed_box ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscOptionsBool("-closed_box", "Walls everywhere, fluid at rest (conservation tests)",
                             "", closed, &closed, nullptr));
  o.physics.closed_box = closed;
  PetscCall(PetscOptionsReal("-dt", "Time step, s", "", o.numerics.dt, &o.numerics.dt, nullptr));
  PetscCall(PetscOptionsReal("-cfl", "Time step from this CFL number (overrides -dt)", "", o.cfl,
                             &o.cfl, nullptr));
  PetscCall(
      PetscOptionsReal("-end_time", "Simulated time, s", "", o.end_time, &o.end_time, nullptr));
  PetscInt max_steps = o.max_steps;
  PetscCall(PetscOptionsInt("-max_steps", "Stop after this many steps (-1: none)", "", max_steps,
                            &max_steps, nullptr));
  o.max_steps = max_steps;
  PetscInt picard = o.numerics.picard_iterations;
  PetscCall(PetscOptionsInt("-picard", "Picard iterations per step", "", picard, &picard, nullptr));
  o.numerics.picard_iterations = static_cast<int>(picard);
  PetscCall(PetscOptionsReal("-theta", "Time weighting of tracer transport (0.5..1)", "",
                             o.numerics.theta, &o.numerics.theta, nullptr));
  PetscInt interval = o.numerics.stabilisation_interval;
  PetscCall(PetscOptionsInt("-stabilisation_interval", "Steps between stabilisation assemblies", "",
                            interval, &interval, nullptr));
  o.numerics.stabilisation_interval = static_cast<int>(interval);
  PetscCall(PetscOptionsReal("-stabilisation_coefficient", "Weight of the pressure stabilisation",
                             "", o.numerics.stabilisation_coefficient,
                             &o.numerics.stabilisation_coefficient, nullptr));
  PetscCall(PetscOptionsString("-foehn_backend", "Assembly backend: cpu, cuda or auto", "", backend,
                               backend, text_size, nullptr));
  PetscCall(PetscOptionsString("-foehn_assembly",
                               "CUDA strategy: seed, fused_atomic, fused_map, deterministic", "",
                               strategy, strategy, text_size, nullptr));
  PetscCall(PetscOptionsString("-foehn_solves",
                               "Where PETSc's matrices, vectors and solves run: auto (the GPU with "
                               "the CUDA backend and a CUDA PETSc, when no GPU is shared by "
                               "several ranks), host or device",
                               "", solves, solves, text_size, nullptr));
  PetscCall(PetscOptionsReal("-output_interval",
                             "Simulated seconds between outputs (0: at the end)", "",
                             o.output_interval, &o.output_interval, nullptr));
  PetscInt checkpoint = o.checkpoint_interval;
  PetscCall(PetscOptionsInt("-checkpoint_interval",
                            "Steps between HDF5 checkpoints (0: at the end)", "", checkpoint,
                            &checkpoint, nullptr));
  o.checkpoint_interval = checkpoint;
  PetscCall(PetscOptionsString("-output_dir", "Folder of every output", "", output_dir, output_dir,
                               text_size, nullptr));
  PetscCall(PetscOptionsString("-restart", "Continue from this checkpoint", "", restart, restart,
                               text_size, nullptr));
  PetscBool vtk = o.write_vtk ? PETSC_TRUE : PETSC_FALSE,
            sections = o.write_sections ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscOptionsBool("-vtk", "Write the .pvd/.pvtu series", "", vtk, &vtk, nullptr));
  PetscCall(PetscOptionsBool("-sections", "Write HDF5 sections for the linear-theory comparison",
                             "", sections, &sections, nullptr));
  o.write_vtk = vtk;
  o.write_sections = sections;
  PetscInt tracer_columns = 0, tracer_levels = 0;
  PetscCall(PetscOptionsInt("-tracer_columns",
                            "Air parcels carried by the flow: parcels across y "
                            "(0: none; docs/particles_mesh.md)",
                            "", tracer_columns, &tracer_columns, nullptr));
  PetscCall(PetscOptionsInt("-tracer_levels", "Air parcels: parcels up z", "", tracer_levels,
                            &tracer_levels, nullptr));
  PetscCall(PetscOptionsReal("-tracer_x", "Air parcels: start plane x, m", "", o.tracers.x_start,
                             &o.tracers.x_start, nullptr));
  PetscCall(PetscOptionsReal("-tracer_y_half_width", "Air parcels: y in [-w, w], m", "",
                             o.tracers.y_half_width, &o.tracers.y_half_width, nullptr));
  PetscCall(PetscOptionsReal("-tracer_z_bottom", "Air parcels: lowest start height, m", "",
                             o.tracers.z_bottom, &o.tracers.z_bottom, nullptr));
  PetscCall(PetscOptionsReal("-tracer_z_top", "Air parcels: highest start height, m", "",
                             o.tracers.z_top, &o.tracers.z_top, nullptr));
  o.tracers.columns = static_cast<int>(tracer_columns);
  o.tracers.levels = static_cast<int>(tracer_levels);
  PetscInt warmup = o.timing_warmup_steps;
  PetscCall(PetscOptionsInt("-timing_warmup", "Steps left out of the timing table", "", warmup,
                            &warmup, nullptr));
  o.timing_warmup_steps = static_cast<int>(warmup);
  PetscCall(PetscOptionsString("-timing_label", "Configuration name in the timing table", "", label,
                               label, text_size, nullptr));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

SolvePlacement parse_solve_placement(const std::string& name) {
  if (name == "auto" || name.empty()) return SolvePlacement::automatic;
  if (name == "host") return SolvePlacement::host;
  if (name == "device") return SolvePlacement::device;
  fail(ErrorCategory::invalid_input, "-foehn_solves ", name, ": expected auto, host or device");
}

}  // namespace

RunOptions read_run_options(MPI_Comm comm) {
  RunOptions o;
  o.domain.cells_x = default_cells[0];
  o.domain.cells_y = default_cells[1];
  o.domain.cells_z = default_cells[2];
  PetscInt cells[3] = {default_cells[0], default_cells[1], default_cells[2]};
  PetscBool cells_set = PETSC_FALSE;
  PetscInt tets = 0;
  // One buffer size for every string option.
  char backend[PETSC_MAX_PATH_LEN] = "auto", strategy[PETSC_MAX_PATH_LEN] = "fused_atomic",
       solves[PETSC_MAX_PATH_LEN] = "auto", output_dir[PETSC_MAX_PATH_LEN] = "out",
       restart[PETSC_MAX_PATH_LEN] = "", label[PETSC_MAX_PATH_LEN] = "";
  FOEHN_PETSC_CHECK(read(comm, o, cells, &cells_set, &tets, backend, strategy, solves, output_dir,
                         restart, label, PETSC_MAX_PATH_LEN));
  if (cells_set) {
    o.domain.cells_x = static_cast<int>(cells[0]);
    o.domain.cells_y = static_cast<int>(cells[1]);
    o.domain.cells_z = static_cast<int>(cells[2]);
  }
  if (tets > 0) {
    if (cells_set) fail(ErrorCategory::invalid_input, "give -mesh_cells or -mesh_tets, not both");
    const MountainMeshOptions sized =
        mountain_options_for_tets(static_cast<std::size_t>(tets), o.domain);
    o.domain.cells_x = sized.cells_x;
    o.domain.cells_y = sized.cells_y;
    o.domain.cells_z = sized.cells_z;
  }
  check_mountain_options(o.domain);
  o.backend = backend;
  o.numerics.strategy = fe::parse_assembly_strategy(strategy);
  o.numerics.solves = parse_solve_placement(solves);
  o.output_dir = output_dir;
  o.restart = restart;
  o.timing_label = label;
  if (!(o.end_time > 0) || o.output_interval < 0 || o.checkpoint_interval < 0 || o.cfl < 0 ||
      o.timing_warmup_steps < 0)
    fail(ErrorCategory::invalid_input, "-end_time must be > 0; -output_interval, ",
         "-checkpoint_interval, -cfl and -timing_warmup >= 0");
  if (!(o.physics.inflow_speed >= 0) || !(o.physics.buoyancy_frequency >= 0) ||
      !(o.physics.viscosity >= 0) || !(o.physics.diffusivity >= 0) || !(o.physics.sponge_rate >= 0))
    fail(ErrorCategory::invalid_input,
         "-U, -N, -viscosity, -diffusivity and -sponge_rate must be >= 0");
  if (o.tracers.columns < 0 || o.tracers.levels < 0 ||
      (o.tracers.columns > 0) != (o.tracers.levels > 0))
    fail(ErrorCategory::invalid_input,
         "-tracer_columns and -tracer_levels must both be > 0 (or both 0), got ", o.tracers.columns,
         " and ", o.tracers.levels);
  return o;
}

}  // namespace foehn::mountainwave
