#include "netcdf_support.hpp"

#include <netcdf.h>

#include <fstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "foehn/runtime/memory_budget.hpp"
#include "netcdf_truncation.hpp"

namespace foehn::particles::netcdf {

namespace {
// The netCDF-3 formats (classic, 64-bit offset, CDF-5) start with "CDF".
bool starts_like_netcdf3(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[3] = {};
  return in.read(magic, sizeof magic) && std::string_view(magic, sizeof magic) == "CDF";
}
}  // namespace

void check(int status, const std::filesystem::path& file, std::string_view what,
           ErrorCategory category) {
  if (status == NC_NOERR) return;
  fail(category, file.string(), ": ", what, ": ", nc_strerror(status));
}

Dataset Dataset::open_for_reading(const std::filesystem::path& path) {
  std::error_code ignored;
  if (!std::filesystem::is_regular_file(path, ignored)) {
    fail(ErrorCategory::io, path.string(), ": no such file (or not a regular file)");
  }
  // libnetcdf sizes its tables from a netCDF-3 header's counts before it checks them, reads a
  // cut header's missing bytes as garbage, and parses on past a bad dimension id or list tag:
  // 13-byte and 2 KB files made nc_open allocate 5 to 15 GB (found by fuzzing). So a netCDF-3
  // file's header is parsed and checked against the file's size before netCDF reads it.
  if (starts_like_netcdf3(path)) require_complete_netcdf3_file(path);
  int id = -1;
  const int status = nc_open(path.c_str(), NC_NOWRITE, &id);
  // Positive codes are errno values (permissions, ...); negative ones mean netCDF could not
  // make sense of the bytes: not netCDF, truncated, corrupt.
  if (status > 0) check(status, path, "cannot open", ErrorCategory::io);
  if (status != NC_NOERR) {
    if (const std::optional<std::string> truncation = describe_truncation(path)) {
      fail(ErrorCategory::invalid_input, path.string(), ": ", *truncation, " (",
           nc_strerror(status), ")");
    }
  }
  check(status, path, "not a readable netCDF file (netCDF-3, CDF5 or netCDF-4/HDF5 expected)");
  Dataset dataset(id, path);
  int format = 0;
  check(nc_inq_format(id, &format), path, "reading the file format");
  // libnetcdf reads a truncated netCDF-3 file without complaint (zeros for the missing bytes).
  if (format == NC_FORMAT_CLASSIC || format == NC_FORMAT_64BIT_OFFSET || format == NC_FORMAT_CDF5) {
    require_complete_netcdf3_file(path);
  }
  return dataset;
}

Dataset Dataset::create(const std::filesystem::path& path) {
  int id = -1;
  check(nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &id), path, "cannot create",
        ErrorCategory::io);
  return Dataset(id, path);
}

Dataset::Dataset(Dataset&& other) noexcept
    : id_(std::exchange(other.id_, -1)), path_(std::move(other.path_)) {}

Dataset::~Dataset() {
  // Unchecked: only an early exit (an exception on its way) gets here with the file open.
  if (id_ >= 0) nc_close(id_);
}

void Dataset::close(ErrorCategory category) {
  if (id_ < 0) return;
  const int status = nc_close(std::exchange(id_, -1));
  check(status, path_, "closing failed", category);
}

std::optional<int> Dataset::find_dimension(const char* name) const {
  int dimension = -1;
  const int status = nc_inq_dimid(id_, name, &dimension);
  if (status == NC_EBADDIM) return std::nullopt;
  check(status, path_, std::string("looking up dimension '") + name + "'");
  return dimension;
}

int Dataset::require_dimension(const char* name) const {
  const std::optional<int> dimension = find_dimension(name);
  if (!dimension) fail(ErrorCategory::invalid_input, path_.string(), ": no dimension '", name, "'");
  return *dimension;
}

std::size_t Dataset::dimension_length(int dimension) const {
  std::size_t length = 0;
  check(nc_inq_dimlen(id_, dimension, &length), path_, "reading a dimension length");
  return length;
}

std::string Dataset::dimension_name(int dimension) const {
  char name[NC_MAX_NAME + 1] = {};
  check(nc_inq_dimname(id_, dimension, name), path_, "reading a dimension name");
  return name;
}

std::optional<int> Dataset::find_variable(const char* name) const {
  int variable = -1;
  const int status = nc_inq_varid(id_, name, &variable);
  if (status == NC_ENOTVAR) return std::nullopt;
  check(status, path_, std::string("looking up variable '") + name + "'");
  return variable;
}

int Dataset::require_variable(const char* name) const {
  const std::optional<int> variable = find_variable(name);
  if (!variable) fail(ErrorCategory::invalid_input, path_.string(), ": no variable '", name, "'");
  return *variable;
}

std::string Dataset::variable_name(int variable) const {
  char name[NC_MAX_NAME + 1] = {};
  check(nc_inq_varname(id_, variable, name), path_, "reading a variable name");
  return name;
}

int Dataset::variable_type(int variable) const {
  nc_type type = NC_NAT;
  check(nc_inq_vartype(id_, variable, &type), path_,
        "reading the type of " + variable_name(variable));
  return type;
}

std::vector<int> Dataset::variable_dimensions(int variable) const {
  int count = 0;
  check(nc_inq_varndims(id_, variable, &count), path_,
        "reading the rank of " + variable_name(variable));
  std::vector<int> dimensions(static_cast<std::size_t>(count));
  if (count > 0) {
    check(nc_inq_vardimid(id_, variable, dimensions.data()), path_,
          "reading the dimensions of " + variable_name(variable));
  }
  return dimensions;
}

std::string Dataset::describe_dimensions(int variable) const {
  std::string text = "(";
  const std::vector<int> dimensions = variable_dimensions(variable);
  for (std::size_t d = 0; d < dimensions.size(); ++d) {
    if (d > 0) text += ", ";
    text += dimension_name(dimensions[d]) + " = " + std::to_string(dimension_length(dimensions[d]));
  }
  return text + ")";
}

bool Dataset::has_attribute(int variable, const char* name) const {
  int attribute = -1;
  const int status = nc_inq_attid(id_, variable, name, &attribute);
  if (status == NC_ENOTATT) return false;
  check(status, path_, std::string("looking up attribute '") + name + "'");
  return true;
}

std::optional<std::string> Dataset::text_attribute(int variable, const char* name) const {
  if (!has_attribute(variable, name)) return std::nullopt;
  nc_type type = NC_NAT;
  std::size_t length = 0;
  check(nc_inq_att(id_, variable, name, &type, &length), path_,
        std::string("reading attribute '") + name + "'");
  if (type == NC_STRING) {
    // netCDF-4 string attributes (written by xarray, for one) hold one value; read the first.
    std::vector<char*> values(length, nullptr);
    check(nc_get_att_string(id_, variable, name, values.data()), path_,
          std::string("reading attribute '") + name + "'");
    std::string text = length > 0 && values[0] != nullptr ? values[0] : "";
    check(nc_free_string(length, values.data()), path_, "freeing a string attribute");
    return text;
  }
  if (type != NC_CHAR) {
    fail(ErrorCategory::invalid_input, path_.string(), ": attribute '", name, "' of ",
         variable == NC_GLOBAL ? std::string("the file") : variable_name(variable), " is not text");
  }
  std::string text(length, '\0');
  if (length > 0) {
    check(nc_get_att_text(id_, variable, name, text.data()), path_,
          std::string("reading attribute '") + name + "'");
  }
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

std::vector<double> Dataset::value_buffer(std::string_view item, std::size_t count) const {
  // concat, not "'" + string: GCC 12 warns falsely (-Wrestrict) on the latter.
  check_host_memory(
      foehn::detail::concat("'", path_.string(), "': ", item, " (", count, " values of 8 B)"),
      static_cast<double>(count) * sizeof(double));
  return std::vector<double>(count);
}

std::vector<double> Dataset::numeric_attribute(int variable, const char* name) const {
  std::size_t length = 0;
  check(nc_inq_attlen(id_, variable, name, &length), path_,
        std::string("reading attribute '") + name + "'");
  std::vector<double> values =
      value_buffer(std::string("attribute '") + name + "' of " + variable_name(variable), length);
  if (length > 0) {
    check(nc_get_att_double(id_, variable, name, values.data()), path_,
          std::string("reading attribute '") + name + "' of " + variable_name(variable) +
              " as a number");
  }
  return values;
}

int Dataset::define_dimension(const char* name, std::size_t length) {
  int dimension = -1;
  check(nc_def_dim(id_, name, length, &dimension), path_,
        std::string("defining dimension '") + name + "'", ErrorCategory::io);
  return dimension;
}

int Dataset::define_variable(const char* name, int type, const std::vector<int>& dimensions) {
  int variable = -1;
  check(nc_def_var(id_, name, type, static_cast<int>(dimensions.size()), dimensions.data(),
                   &variable),
        path_, std::string("defining variable '") + name + "'", ErrorCategory::io);
  return variable;
}

void Dataset::put_text_attribute(int variable, const char* name, std::string_view value) {
  check(nc_put_att_text(id_, variable, name, value.size(), value.data()), path_,
        std::string("writing attribute '") + name + "'", ErrorCategory::io);
}

void Dataset::end_definitions() {
  check(nc_enddef(id_), path_, "leaving define mode", ErrorCategory::io);
}

std::vector<double> missing_value_markers(const Dataset& dataset, int variable) {
  std::vector<double> markers;
  if (dataset.has_attribute(variable, "_FillValue")) {
    const std::vector<double> fill = dataset.numeric_attribute(variable, "_FillValue");
    markers.insert(markers.end(), fill.begin(), fill.end());
  } else {
    // Without an explicit _FillValue, values never written read as the type's default.
    int no_fill = 0;
    check(nc_inq_var_fill(dataset.id(), variable, &no_fill, nullptr), dataset.path(),
          "reading the fill mode of " + dataset.variable_name(variable));
    const int type = dataset.variable_type(variable);
    if (!no_fill && type == NC_FLOAT) markers.push_back(static_cast<double>(NC_FILL_FLOAT));
    if (!no_fill && type == NC_DOUBLE) markers.push_back(NC_FILL_DOUBLE);
    // Packed integers: the type's default fill.
    if (!no_fill && type == NC_SHORT) markers.push_back(NC_FILL_SHORT);
    if (!no_fill && type == NC_BYTE) markers.push_back(NC_FILL_BYTE);
    if (!no_fill && type == NC_INT) markers.push_back(NC_FILL_INT);
    if (!no_fill && type == NC_USHORT) markers.push_back(NC_FILL_USHORT);
    if (!no_fill && type == NC_UBYTE) markers.push_back(NC_FILL_UBYTE);
  }
  if (dataset.has_attribute(variable, "missing_value")) {
    const std::vector<double> missing = dataset.numeric_attribute(variable, "missing_value");
    markers.insert(markers.end(), missing.begin(), missing.end());
  }
  return markers;
}

AtomicOutput::AtomicOutput(const std::filesystem::path& path)
    : final_path_(path),
      temporary_path_(path.string() + ".tmp"),
      dataset_(Dataset::create(temporary_path_)) {}

AtomicOutput::~AtomicOutput() {
  if (committed_) return;
  try {
    dataset_.close(ErrorCategory::io);
  } catch (...) {  // the original error is already propagating; this one adds nothing
  }
  std::error_code ignored;
  std::filesystem::remove(temporary_path_, ignored);
}

void AtomicOutput::commit() {
  dataset_.close(ErrorCategory::io);
  std::error_code error;
  std::filesystem::rename(temporary_path_, final_path_, error);
  if (error) {
    fail(ErrorCategory::io, final_path_.string(), ": cannot rename ", temporary_path_.string(),
         " onto it: ", error.message());
  }
  committed_ = true;
}

}  // namespace foehn::particles::netcdf
