// Chemistry: mechanisms in every format Foehn reads, and the Rosenbrock solvers (CPU reference,
// GPU) over many independent cells given as arrays [cell][species] in the mechanism's order.
// Concentrations are updated in place: NumPy arrays on either backend, CUDA device arrays
// (CuPy) on the GPU backend without leaving the device.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "foehn/chemistry/chemistry_batch.hpp"
#include "foehn/chemistry/cuda_chemistry.hpp"
#include "foehn/chemistry/mechanism.hpp"
#include "foehn/chemistry/rosenbrock_solver.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn::python {

namespace {

using chemistry::ChemistryBatch;
using chemistry::ChemistryStepReport;
using chemistry::Mechanism;

struct MechanismHandle {
  Mechanism mechanism;
};

// The unit named as the library names it (concentration_unit_name).
chemistry::ConcentrationUnit unit_of(const std::string& name) {
  for (auto unit :
       {chemistry::ConcentrationUnit::molecule_per_cm3, chemistry::ConcentrationUnit::mol_per_m3})
    if (name == chemistry::concentration_unit_name(unit)) return unit;
  fail(ErrorCategory::invalid_input, "concentration unit '", name,
       "' is not one of 'molecule cm-3', 'mol m-3'");
}

struct SolverSettings {
  std::string backend, method, strategy, layout;
  double relative_tolerance, initial_step, min_step, max_step;
  int max_steps;
  std::vector<double> absolute_tolerance;  // per species, or empty: the mechanism's
  bool throw_on_failure;
};

// The ranges foehn-box's -chem_* options allow (box_options.cpp), and a largest step not below
// the smallest: Solver(min_step=10, max_step=1) once ran, every step clamped to 1 s.
void check_solver_settings(const SolverSettings& s) {
  const auto require = [](bool ok, const char* name, double value, const char* range) {
    if (!ok)
      fail(ErrorCategory::invalid_input, "chemistry.Solver: ", name, " = ", value, " (", range,
           " expected)");
  };
  require(s.relative_tolerance > 0.0 && s.relative_tolerance <= 1.0, "rtol", s.relative_tolerance,
          "0 < rtol <= 1");
  for (const double atol : s.absolute_tolerance)
    require(std::isfinite(atol) && atol > 0.0, "atol", atol, "finite, > 0");
  require(s.max_steps >= 1, "max_steps", s.max_steps, ">= 1");
  require(std::isfinite(s.initial_step) && s.initial_step > 0.0, "initial_step", s.initial_step,
          "finite, > 0 s");
  require(std::isfinite(s.min_step) && s.min_step > 0.0, "min_step", s.min_step, "finite, > 0 s");
  require(std::isfinite(s.max_step) && s.max_step >= 0.0, "max_step", s.max_step,
          "finite, >= 0 s; 0: the whole chemistry step");
  if (s.max_step > 0.0 && s.max_step < s.min_step)
    fail(ErrorCategory::invalid_input, "chemistry.Solver: max_step = ", s.max_step,
         " s is below min_step = ", s.min_step, " s");
}

class Solver {
 public:
  Solver(const Mechanism& mechanism, const SolverSettings& s) : mechanism_(mechanism) {
    check_solver_settings(s);
    chemistry::RosenbrockOptions options;
    options.method = chemistry::parse_rosenbrock_method(s.method);
    options.control.relative_tolerance = s.relative_tolerance;
    options.control.initial_step = s.initial_step;
    options.control.min_step = s.min_step;
    options.control.max_step = s.max_step;
    options.control.max_steps = s.max_steps;
    options.absolute_tolerance = s.absolute_tolerance;
    options.throw_on_failure = s.throw_on_failure;
    const std::string backend = chosen_backend(s.backend);
    if (backend == "cpu") {
      cpu_.emplace(mechanism, options);
    } else if (backend == "cuda") {
      chemistry::CudaChemistrySettings settings;
      settings.strategy = chemistry::parse_gpu_chemistry_strategy(s.strategy);
      settings.layout = chemistry::parse_cell_layout(s.layout);
      stream_ = std::make_unique<Stream>();
      gpu_.emplace(mechanism, options, settings, *stream_);
    }
  }

  bool uses_gpu() const { return gpu_.has_value(); }

  // concentrations: cells x species, updated in place; the conditions on the host.
  nb::dict solve(AnyMutableDoubles concentrations, HostDoubles temperature, HostDoubles pressure,
                 std::optional<HostDoubles> external_rates, double duration) {
    if (!std::isfinite(duration) || duration <= 0.0)
      fail(ErrorCategory::invalid_input, "duration: ", duration, " s (finite, > 0 expected)");
    const std::size_t species = mechanism_.species.size();
    const std::size_t cells = temperature.size();
    if (concentrations.size() != cells * species)
      fail(ErrorCategory::invalid_input, "concentrations: ", concentrations.size(), " values for ",
           cells, " cells (the temperatures) x ", species, " species expected");
    ChemistryBatch batch;
    batch.cell_count = static_cast<std::int64_t>(cells);
    batch.temperature.assign(temperature.data(), temperature.data() + cells);
    batch.pressure.assign(pressure.data(), pressure.data() + pressure.size());
    if (external_rates)
      batch.external_rates.assign(external_rates->data(),
                                  external_rates->data() + external_rates->size());
    else
      batch.external_rates.assign(cells * mechanism_.external_rate_names.size(), 0.0);
    const bool on_device =
        memory_of(concentrations.device_type(), "concentrations") == FOEHN_MEMORY_DEVICE;
    if (on_device && !gpu_)
      fail(ErrorCategory::invalid_input,
           "concentrations on the GPU need the cuda backend (this solver runs on the CPU)");
    ChemistryStepReport report;
    {
      nb::gil_scoped_release unlocked;
      if (on_device) {
        batch.concentrations.assign(concentrations.size(), 0.0);  // validated, not used
        gpu_->upload_device(concentrations.data(), batch);
        report = gpu_->advance(duration);
        gpu_->download_device(concentrations.data());
      } else {
        batch.concentrations.assign(concentrations.data(),
                                    concentrations.data() + concentrations.size());
        report = gpu_ ? gpu_->solve(batch, duration) : cpu_->solve(batch, duration);
        std::copy(batch.concentrations.begin(), batch.concentrations.end(), concentrations.data());
      }
    }
    nb::dict out;
    out["cells"] = report.cells;
    out["failed_cells"] = report.failed_cells;
    out["first_failed_cell"] = report.first_failed_cell;
    out["first_failure"] = std::string(chemistry::cell_status_name(report.first_failure));
    out["accepted_steps"] = report.accepted;
    out["rejected_steps"] = report.rejected;
    out["function_evaluations"] = report.function_evaluations;
    out["jacobian_evaluations"] = report.jacobian_evaluations;
    out["most_attempts"] = report.most_attempts;
    return out;
  }

 private:
  Mechanism mechanism_;
  std::optional<chemistry::CpuChemistrySolver> cpu_;
  std::unique_ptr<Stream> stream_;
  std::optional<chemistry::CudaChemistrySolver> gpu_;
};

}  // namespace

void register_chemistry(nb::module_& module) {
  nb::class_<MechanismHandle>(module, "Mechanism")
      .def_static(
          "read",
          [](const std::string& path) { return MechanismHandle{chemistry::read_mechanism(path)}; },
          nb::arg("path"))
      .def_static(
          "parse",
          [](const std::string& text, const std::string& format, const std::string& source,
             const std::string& include_folder) {
            if (format == "json") return MechanismHandle{chemistry::parse_mechanism(text, source)};
            if (format == "yaml")
              return MechanismHandle{chemistry::parse_mechanism_yaml(text, source)};
            if (format == "kpp")
              return MechanismHandle{chemistry::parse_kpp_mechanism(text, source, include_folder)};
            fail(ErrorCategory::invalid_input, "mechanism format '", format,
                 "' is not one of json, yaml, kpp");
          },
          nb::arg("text"), nb::arg("format"), nb::arg("source"), nb::arg("include_folder"))
      .def_static(
          "synthetic",
          [](int species, int reactions, std::uint64_t seed) {
            return MechanismHandle{chemistry::make_synthetic_mechanism(species, reactions, seed)};
          },
          nb::arg("species"), nb::arg("reactions"), nb::arg("seed"))
      .def_prop_ro("name", [](const MechanismHandle& m) { return m.mechanism.name; })
      .def_prop_ro("species",
                   [](const MechanismHandle& m) {
                     std::vector<std::string> names;
                     for (const auto& s : m.mechanism.species) names.push_back(s.name);
                     return names;
                   })
      .def_prop_ro("constant_species",
                   [](const MechanismHandle& m) {
                     std::vector<std::string> names;
                     for (const auto& s : m.mechanism.species)
                       if (s.constant) names.push_back(s.name);
                     return names;
                   })
      .def_prop_ro("reactions",
                   [](const MechanismHandle& m) {
                     std::vector<std::string> equations;
                     for (const auto& r : m.mechanism.reactions)
                       equations.push_back(m.mechanism.equation(r));
                     return equations;
                   })
      .def_prop_ro("external_rates",
                   [](const MechanismHandle& m) { return m.mechanism.external_rate_names; })
      .def_prop_ro(
          "concentration_unit",
          [](const MechanismHandle& m) {
            return std::string(chemistry::concentration_unit_name(m.mechanism.concentration_unit));
          })
      .def("in_unit",
           [](const MechanismHandle& m, const std::string& unit) {
             return MechanismHandle{chemistry::in_concentration_unit(m.mechanism, unit_of(unit))};
           })
      .def("to_json",
           [](const MechanismHandle& m) { return chemistry::mechanism_to_json(m.mechanism); })
      .def("to_openatmos_json",
           [](const MechanismHandle& m) {
             return chemistry::mechanism_to_openatmos_v1_json(m.mechanism);
           })
      .def("to_openatmos_yaml", [](const MechanismHandle& m) {
        return chemistry::mechanism_to_openatmos_v1_yaml(m.mechanism);
      });

  nb::class_<Solver>(module, "ChemistrySolver")
      .def(
          "__init__",
          [](Solver* self, const MechanismHandle& mechanism, const std::string& backend,
             const std::string& method, double relative_tolerance,
             std::vector<double> absolute_tolerance, int max_steps, double initial_step,
             double min_step, double max_step, const std::string& strategy,
             const std::string& layout, bool throw_on_failure) {
            new (self) Solver(mechanism.mechanism,
                              SolverSettings{backend, method, strategy, layout, relative_tolerance,
                                             initial_step, min_step, max_step, max_steps,
                                             std::move(absolute_tolerance), throw_on_failure});
          },
          nb::arg("mechanism"), nb::arg("backend"), nb::arg("method"),
          nb::arg("relative_tolerance"), nb::arg("absolute_tolerance"), nb::arg("max_steps"),
          nb::arg("initial_step"), nb::arg("min_step"), nb::arg("max_step"), nb::arg("strategy"),
          nb::arg("layout"), nb::arg("throw_on_failure"))
      .def_prop_ro("uses_gpu", &Solver::uses_gpu)
      // noconvert: concentrations of another dtype or layout are refused (TypeError), never
      // integrated in a hidden copy while the caller's array stays as it was.
      .def("solve", &Solver::solve, nb::arg("concentrations").noconvert(), nb::arg("temperature"),
           nb::arg("pressure"), nb::arg("external_rates").none(), nb::arg("duration"));
}

}  // namespace foehn::python
