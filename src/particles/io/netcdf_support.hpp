#pragma once
// Internal to foehn_particles_io: the netCDF-C calls every reader and writer needs, each
// return code checked and turned into a foehn::Error that names the file and the object.
// Not installed; the public headers never include netcdf.h.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "foehn/runtime/error.hpp"

namespace foehn::particles::netcdf {

// Throws foehn::Error(category) "<file>: <what>: <netCDF's message>" unless status is NC_NOERR.
void check(int status, const std::filesystem::path& file, std::string_view what,
           ErrorCategory category = ErrorCategory::invalid_input);

// An open netCDF dataset, closed on destruction (errors then ignored: an exception is already
// on its way). Reading errors are invalid_input (the content is bad), writing errors io.
class Dataset {
 public:
  // io when the file is missing or unreadable; invalid_input when it is not netCDF at all or
  // cannot be parsed (e.g. truncated).
  static Dataset open_for_reading(const std::filesystem::path& path);
  // A new netCDF-4 file, replacing any file of that name; io on failure.
  static Dataset create(const std::filesystem::path& path);
  Dataset(Dataset&& other) noexcept;
  Dataset& operator=(Dataset&&) = delete;
  Dataset(const Dataset&) = delete;
  ~Dataset();

  int id() const noexcept { return id_; }
  const std::filesystem::path& path() const noexcept { return path_; }
  // Checked close; `category` says whether a failure is a read or a write problem.
  void close(ErrorCategory category);

  // Dimension and variable lookup: nothing / their id; require_* fails naming the object.
  std::optional<int> find_dimension(const char* name) const;
  int require_dimension(const char* name) const;
  std::size_t dimension_length(int dimension) const;
  std::string dimension_name(int dimension) const;
  std::optional<int> find_variable(const char* name) const;
  int require_variable(const char* name) const;
  std::string variable_name(int variable) const;
  int variable_type(int variable) const;
  std::vector<int> variable_dimensions(int variable) const;
  // "(time, lev, lat, lon)"
  std::string describe_dimensions(int variable) const;

  // A text attribute, or nothing when the variable lacks it (NC_GLOBAL for the file).
  std::optional<std::string> text_attribute(int variable, const char* name) const;
  bool has_attribute(int variable, const char* name) const;
  // A numeric attribute's values converted to double (missing_value may hold several).
  std::vector<double> numeric_attribute(int variable, const char* name) const;
  // A buffer of `count` doubles for `item` (a variable or attribute of this file), after
  // checking the host memory: a netCDF-4 file can declare lengths far beyond its own size
  // (compressed or unwritten chunks), so its header alone must not size an allocation.
  std::vector<double> value_buffer(std::string_view item, std::size_t count) const;

  // Writing (io on failure).
  int define_dimension(const char* name, std::size_t length);
  int define_variable(const char* name, int type, const std::vector<int>& dimensions);
  void put_text_attribute(int variable, const char* name, std::string_view value);
  void end_definitions();

 private:
  Dataset(int id, std::filesystem::path path) : id_(id), path_(std::move(path)) {}
  int id_ = -1;
  std::filesystem::path path_;
};

// The values that mark a missing datum in a variable: its _FillValue (or the type's default
// fill value when it has none and fill mode is on) and every missing_value.
std::vector<double> missing_value_markers(const Dataset& dataset, int variable);

// A file written under "<path>.tmp" and renamed onto <path> by commit(), so a reader never
// sees half a file; an uncommitted temporary is removed on destruction.
class AtomicOutput {
 public:
  explicit AtomicOutput(const std::filesystem::path& path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  Dataset& dataset() noexcept { return dataset_; }
  // Closes the dataset (checked) and renames the temporary onto the final path (io on failure).
  void commit();

 private:
  std::filesystem::path final_path_, temporary_path_;
  Dataset dataset_;
  bool committed_ = false;
};

}  // namespace foehn::particles::netcdf
