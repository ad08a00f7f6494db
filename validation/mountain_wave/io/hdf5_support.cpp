#include "io/hdf5_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <optional>

#include "foehn/runtime/hdf5_superblock.hpp"
#include "foehn/runtime/input_file.hpp"

namespace foehn::mountainwave::detail {

namespace {

// H5Ewalk2 visits the most specific error first (H5E_WALK_UPWARD); keep that one.
herr_t keep_most_specific(unsigned position, const H5E_error2_t* error, void* client) {
  auto* detail = static_cast<std::string*>(client);
  if (position == 0 && error != nullptr && error->desc != nullptr) *detail = error->desc;
  return 0;
}

std::string quoted(const std::filesystem::path& file) {
  std::string text = "'";  // not "'" + string: GCC 12 warns falsely (-Wrestrict)
  return text.append(file.string()).append("'");
}

// The attribute's datatype class and whether it holds exactly one value; invalid_input when
// it does not exist.
struct AttributeShape {
  Hid attribute;
  Hid type;
  H5T_class_t type_class = H5T_NO_CLASS;
};

AttributeShape open_scalar_attribute(hid_t object, const char* name,
                                     const std::filesystem::path& file) {
  if (!has_attribute(object, name, file))
    fail(ErrorCategory::invalid_input, quoted(file), ": attribute '", name, "' is missing");
  AttributeShape shape;
  const std::string what = std::string("opening attribute '") + name + "'";
  shape.attribute =
      checked(H5Aopen(object, name, H5P_DEFAULT), H5Aclose, ErrorCategory::io, file, what);
  shape.type = checked(H5Aget_type(shape.attribute.get()), H5Tclose, ErrorCategory::io, file, what);
  shape.type_class = H5Tget_class(shape.type.get());
  if (shape.type_class == H5T_NO_CLASS) fail_hdf5(ErrorCategory::io, file, what);
  const Hid space =
      checked(H5Aget_space(shape.attribute.get()), H5Sclose, ErrorCategory::io, file, what);
  const hssize_t points = H5Sget_simple_extent_npoints(space.get());
  if (points < 0) fail_hdf5(ErrorCategory::io, file, what);
  if (points != 1)
    fail(ErrorCategory::invalid_input, quoted(file), ": attribute '", name, "' holds ", points,
         " values, expected one");
  return shape;
}

Hid scalar_space(const std::filesystem::path& file) {
  return checked(H5Screate(H5S_SCALAR), H5Sclose, ErrorCategory::io, file, "creating a dataspace");
}

template <typename T>
void write_numeric_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                             const T& value, const std::filesystem::path& file) {
  const std::string what = std::string("writing attribute '") + name + "'";
  const Hid space = scalar_space(file);
  const Hid attribute =
      checked(H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              ErrorCategory::io, file, what);
  check(H5Awrite(attribute.get(), memory_type, &value), ErrorCategory::io, file, what);
}

}  // namespace

QuietHdf5Errors::QuietHdf5Errors() {
  // H5Eget_auto2 also initialises the library; when even that fails there is nothing to
  // restore and the calls that follow report their own errors.
  if (H5Eget_auto2(H5E_DEFAULT, &previous_function_, &previous_data_) >= 0) {
    restore_ = H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0;
  }
}

QuietHdf5Errors::~QuietHdf5Errors() {
  if (restore_) (void)H5Eset_auto2(H5E_DEFAULT, previous_function_, previous_data_);
}

std::string hdf5_error_detail() {
  std::string detail;
  if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_most_specific, &detail) < 0) detail.clear();
  (void)H5Eclear2(H5E_DEFAULT);
  // One line: HDF5's text may carry a newline (a full disk's message ends in a time string).
  for (char& c : detail)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!detail.empty() && detail.back() == ' ') detail.pop_back();
  return detail.empty() ? std::string("no detail from HDF5") : detail;
}

void fail_hdf5(ErrorCategory category, const std::filesystem::path& file, std::string_view what) {
  const std::string detail = hdf5_error_detail();
  fail(category, quoted(file), ": ", what, " failed (HDF5: ", detail, ")");
}

Hid& Hid::operator=(Hid&& other) noexcept {
  if (this != &other) {
    (void)release();
    id_ = other.id_;
    closer_ = other.closer_;
    other.id_ = -1;
  }
  return *this;
}

bool Hid::release() noexcept {
  if (id_ < 0 || closer_ == nullptr) return true;
  const herr_t code = closer_(id_);
  id_ = -1;
  return code >= 0;
}

Hid checked(hid_t id, Hid::Closer closer, ErrorCategory category, const std::filesystem::path& file,
            std::string_view what) {
  if (id < 0) fail_hdf5(category, file, what);
  return Hid(id, closer);
}

void check(herr_t code, ErrorCategory category, const std::filesystem::path& file,
           std::string_view what) {
  if (code < 0) fail_hdf5(category, file, what);
}

namespace {
// Locks files where the file system supports it, without failing where it does not (NFS,
// some parallel file systems), which HDF5 1.10's default would.
Hid file_access_properties(const std::filesystem::path& file) {
  Hid access = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, ErrorCategory::io, file,
                       "creating file-access properties");
  check(H5Pset_file_locking(access.get(), true, true), ErrorCategory::io, file,
        "setting file locking");
  return access;
}

// Object creation (file, group, dataset) without modification times, so equal contents give
// equal files.
Hid untimed_object_properties(hid_t list_class, const std::filesystem::path& file) {
  Hid properties = checked(H5Pcreate(list_class), H5Pclose, ErrorCategory::io, file,
                           "creating object-creation properties");
  check(H5Pset_obj_track_times(properties.get(), false), ErrorCategory::io, file,
        "switching off object times");
  return properties;
}
}  // namespace

Hid create_file(const std::filesystem::path& file) {
  const Hid access = file_access_properties(file);
  // The 1.10 file format: a version-3 superblock, version-2 object headers and the chunk
  // indices of 1.10 all carry checksums, so HDF5 refuses corrupt metadata instead of decoding
  // it (HDF5 1.10.8 crashes or loops on some corrupt version-0 files; tests/fuzz/README.md).
  // HDF5 1.10 or later reads these files (h5py, ParaView, netCDF-C 4.6 and later).
  check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V110, H5F_LIBVER_V110), ErrorCategory::io,
        file, "choosing the HDF5 1.10 file format");
  // The root group's object header (version 2) would record its creation time.
  const Hid creation = untimed_object_properties(H5P_FILE_CREATE, file);
  return checked(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, creation.get(), access.get()), H5Fclose,
                 ErrorCategory::io, file, "creating the HDF5 file");
}

void require_complete_hdf5_file(const std::filesystem::path& file) {
  require_regular_file(file, "HDF5 file");  // a FIFO would block the reads below
  if (const std::optional<std::string> why = hdf5_truncation(file))
    fail(ErrorCategory::invalid_input, quoted(file), ": ", *why);
}

Hid open_file_for_reading(const std::filesystem::path& file) {
  require_complete_hdf5_file(file);
  const Hid access = file_access_properties(file);
  return checked(H5Fopen(file.c_str(), H5F_ACC_RDONLY, access.get()), H5Fclose, ErrorCategory::io,
                 file, "opening the HDF5 file");
}

void close_file(Hid& file_id, const std::filesystem::path& file) {
  if (!file_id.release()) fail_hdf5(ErrorCategory::io, file, "closing (flushing) the file");
}

Hid create_group(hid_t parent, const char* name, const std::filesystem::path& file) {
  const Hid properties = untimed_object_properties(H5P_GROUP_CREATE, file);
  return checked(H5Gcreate2(parent, name, H5P_DEFAULT, properties.get(), H5P_DEFAULT), H5Gclose,
                 ErrorCategory::io, file, std::string("creating group '") + name + "'");
}

Hid open_group(hid_t parent, const char* name, const std::filesystem::path& file) {
  return checked(H5Gopen2(parent, name, H5P_DEFAULT), H5Gclose, ErrorCategory::invalid_input, file,
                 std::string("opening group '") + name + "'");
}

bool has_link(hid_t parent, const char* name, const std::filesystem::path& file) {
  const htri_t exists = H5Lexists(parent, name, H5P_DEFAULT);
  if (exists < 0) fail_hdf5(ErrorCategory::io, file, std::string("looking for '") + name + "'");
  return exists > 0;
}

bool has_attribute(hid_t object, const char* name, const std::filesystem::path& file) {
  const htri_t exists = H5Aexists(object, name);
  if (exists < 0)
    fail_hdf5(ErrorCategory::io, file, std::string("looking for attribute '") + name + "'");
  return exists > 0;
}

namespace {
herr_t collect_link_name(hid_t, const char* name, const H5L_info_t*, void* client) {
  static_cast<std::vector<std::string>*>(client)->emplace_back(name);
  return 0;
}
}  // namespace

std::vector<std::string> link_names(hid_t group, const std::filesystem::path& file) {
  std::vector<std::string> names;
  hsize_t position = 0;
  if (H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &position, collect_link_name, &names) < 0)
    fail_hdf5(ErrorCategory::io, file, "listing a group");
  return names;
}

void write_attribute(hid_t object, const char* name, double value,
                     const std::filesystem::path& file) {
  write_numeric_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, value, file);
}

void write_attribute(hid_t object, const char* name, std::int64_t value,
                     const std::filesystem::path& file) {
  write_numeric_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, value, file);
}

void write_attribute(hid_t object, const char* name, std::string_view value,
                     const std::filesystem::path& file) {
  if (value.size() > max_string_attribute_bytes)
    fail(ErrorCategory::internal, quoted(file), ": attribute '", name, "' would hold ",
         value.size(), " bytes, more than the ", max_string_attribute_bytes, " a reader accepts");
  const std::string what = std::string("writing attribute '") + name + "'";
  // Fixed-length, padded with NULs: the bytes sit in the (checksummed) object header, where a
  // variable-length string's would sit in the global heap, which has no checksum. A fixed
  // length of zero does not exist in HDF5; the empty string is one NUL.
  const Hid type = checked(H5Tcopy(H5T_C_S1), H5Tclose, ErrorCategory::io, file, what);
  check(H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1)), ErrorCategory::io, file,
        what);
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), ErrorCategory::io, file, what);
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), ErrorCategory::io, file, what);
  std::string text(value);
  text.resize(std::max<std::size_t>(value.size(), 1), '\0');
  const Hid space = scalar_space(file);
  const Hid attribute =
      checked(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              ErrorCategory::io, file, what);
  check(H5Awrite(attribute.get(), type.get(), text.data()), ErrorCategory::io, file, what);
}

double read_double_attribute(hid_t object, const char* name, const std::filesystem::path& file) {
  const AttributeShape shape = open_scalar_attribute(object, name, file);
  if (shape.type_class != H5T_FLOAT && shape.type_class != H5T_INTEGER)
    fail(ErrorCategory::invalid_input, quoted(file), ": attribute '", name, "' is not a number");
  double value = 0.0;
  check(H5Aread(shape.attribute.get(), H5T_NATIVE_DOUBLE, &value), ErrorCategory::io, file,
        std::string("reading attribute '") + name + "'");
  return value;
}

std::int64_t read_integer_attribute(hid_t object, const char* name,
                                    const std::filesystem::path& file) {
  const AttributeShape shape = open_scalar_attribute(object, name, file);
  if (shape.type_class != H5T_INTEGER)
    fail(ErrorCategory::invalid_input, quoted(file), ": attribute '", name, "' is not an integer");
  std::int64_t value = 0;
  check(H5Aread(shape.attribute.get(), H5T_NATIVE_INT64, &value), ErrorCategory::io, file,
        std::string("reading attribute '") + name + "'");
  return value;
}

std::string read_string_attribute(hid_t object, const char* name,
                                  const std::filesystem::path& file) {
  const AttributeShape shape = open_scalar_attribute(object, name, file);
  if (shape.type_class != H5T_STRING)
    fail(ErrorCategory::invalid_input, quoted(file), ": attribute '", name, "' is not a string");
  const std::string what = std::string("reading attribute '") + name + "'";
  const htri_t variable = H5Tis_variable_str(shape.type.get());
  if (variable < 0) fail_hdf5(ErrorCategory::io, file, what);
  // HDF5 reads a variable-length string from the unchecksummed global heap, trusting the
  // sizes and indices found there: on a corrupt file it loops, crashes or allocates gigabytes.
  if (variable > 0)
    fail(ErrorCategory::invalid_input, quoted(file), ": attribute '", name,
         "' is a variable-length string; Foehn writes and reads fixed-length ones only");
  const std::size_t size = H5Tget_size(shape.type.get());
  if (size == 0) fail_hdf5(ErrorCategory::io, file, what);
  if (size > max_string_attribute_bytes)
    fail(ErrorCategory::invalid_input, quoted(file), ": attribute '", name, "' holds ", size,
         " bytes, more than the ", max_string_attribute_bytes, " accepted");
  const Hid memory_type = checked(H5Tcopy(H5T_C_S1), H5Tclose, ErrorCategory::io, file, what);
  // HDF5 converts no strings between character sets: read in the file's (ASCII or UTF-8).
  const H5T_cset_t cset = H5Tget_cset(shape.type.get());
  if (cset < 0) fail_hdf5(ErrorCategory::io, file, what);
  check(H5Tset_cset(memory_type.get(), cset), ErrorCategory::io, file, what);
  check(H5Tset_size(memory_type.get(), size + 1), ErrorCategory::io, file, what);
  check(H5Tset_strpad(memory_type.get(), H5T_STR_NULLTERM), ErrorCategory::io, file, what);
  std::string buffer(size + 1, '\0');
  check(H5Aread(shape.attribute.get(), memory_type.get(), buffer.data()), ErrorCategory::io, file,
        what);
  buffer.resize(buffer.find('\0') == std::string::npos ? buffer.size() : buffer.find('\0'));
  return buffer;
}

namespace {

// Creates dataset `name` of `file_type` and shape `dims`, writes `count` values of `memory_type`
// (count must equal the product of dims) and returns it; chunked with Fletcher-32 when asked.
Hid create_and_write(hid_t parent, const char* name, const void* values, std::size_t count,
                     hid_t file_type, hid_t memory_type, const std::vector<hsize_t>& dims,
                     const std::filesystem::path& file, bool checksum) {
  const std::string what = std::string("writing dataset '") + name + "'";
  const hsize_t places = std::accumulate(dims.begin(), dims.end(), hsize_t{1},
                                         [](hsize_t a, hsize_t b) { return a * b; });
  if (places != count)
    fail(ErrorCategory::internal, quoted(file), ": dataset '", name, "' has ", count,
         " values for ", places, " places");
  const Hid space = checked(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                            H5Sclose, ErrorCategory::io, file, what);
  const Hid properties = untimed_object_properties(H5P_DATASET_CREATE, file);
  if (checksum && places > 0) {
    // Chunks of about 64 Ki values (512 KiB) along the first dimension.
    std::vector<hsize_t> chunk = dims;
    const hsize_t row = places / dims[0];
    chunk[0] = std::max<hsize_t>(1, std::min<hsize_t>(dims[0], (hsize_t{1} << 16) / row));
    check(H5Pset_chunk(properties.get(), static_cast<int>(chunk.size()), chunk.data()),
          ErrorCategory::io, file, what);
    check(H5Pset_fletcher32(properties.get()), ErrorCategory::io, file, what);
  }
  Hid dataset = checked(
      H5Dcreate2(parent, name, file_type, space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT),
      H5Dclose, ErrorCategory::io, file, what);
  if (places > 0)
    check(H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values),
          ErrorCategory::io, file, what);
  return dataset;
}

}  // namespace

void write_dataset(hid_t parent, const char* name, std::span<const double> values,
                   const std::vector<hsize_t>& dims, const std::filesystem::path& file,
                   const DatasetOptions& options) {
  const Hid dataset = create_and_write(parent, name, values.data(), values.size(), H5T_IEEE_F64LE,
                                       H5T_NATIVE_DOUBLE, dims, file, options.checksum);
  if (options.units != nullptr)
    write_attribute(dataset.get(), "units", std::string_view(options.units), file);
  if (options.description != nullptr)
    write_attribute(dataset.get(), "description", std::string_view(options.description), file);
}

void write_int32_dataset(hid_t parent, const char* name, std::span<const std::int32_t> values,
                         const std::vector<hsize_t>& dims, const std::filesystem::path& file) {
  (void)create_and_write(parent, name, values.data(), values.size(), H5T_STD_I32LE,
                         H5T_NATIVE_INT32, dims, file, false);
}

RowBlockDataset::RowBlockDataset(hid_t parent, const char* name, Type type, hsize_t rows,
                                 hsize_t columns, const std::filesystem::path& file,
                                 const char* units)
    : type_(type), rows_(rows), columns_(columns), file_(file), name_(name) {
  const std::string what = std::string("creating dataset '") + name + "'";
  const hsize_t dims[2] = {rows, columns};
  const Hid space =
      checked(H5Screate_simple(2, dims, nullptr), H5Sclose, ErrorCategory::io, file, what);
  const Hid properties = untimed_object_properties(H5P_DATASET_CREATE, file);
  dataset_ =
      checked(H5Dcreate2(parent, name, type == Type::float64 ? H5T_IEEE_F64LE : H5T_STD_I32LE,
                         space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT),
              H5Dclose, ErrorCategory::io, file, what);
  if (units != nullptr) write_attribute(dataset_.get(), "units", std::string_view(units), file);
}

void RowBlockDataset::write_rows(hsize_t first_row, hsize_t rows, const void* values) {
  const std::string what = "writing rows of dataset '" + name_ + "'";
  if (first_row > rows_ || rows > rows_ - first_row)
    fail(ErrorCategory::internal, quoted(file_), ": rows [", first_row, ", ", first_row + rows,
         ") of dataset '", name_, "' lie outside its ", rows_, " rows");
  if (rows == 0) return;
  const hsize_t start[2] = {first_row, 0}, count[2] = {rows, columns_};
  const Hid file_space =
      checked(H5Dget_space(dataset_.get()), H5Sclose, ErrorCategory::io, file_, what);
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
        ErrorCategory::io, file_, what);
  const Hid memory_space =
      checked(H5Screate_simple(2, count, nullptr), H5Sclose, ErrorCategory::io, file_, what);
  check(H5Dwrite(dataset_.get(), type_ == Type::float64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT32,
                 memory_space.get(), file_space.get(), H5P_DEFAULT, values),
        ErrorCategory::io, file_, what);
}

namespace {
Hid open_float64_dataset(hid_t parent, const char* name, const std::filesystem::path& file,
                         std::vector<hsize_t>& dims) {
  if (!has_link(parent, name, file))
    fail(ErrorCategory::invalid_input, quoted(file), ": dataset '", name, "' is missing");
  const std::string what = std::string("opening dataset '") + name + "'";
  Hid dataset = checked(H5Dopen2(parent, name, H5P_DEFAULT), H5Dclose, ErrorCategory::invalid_input,
                        file, what);
  const Hid type = checked(H5Dget_type(dataset.get()), H5Tclose, ErrorCategory::io, file, what);
  if (H5Tget_class(type.get()) != H5T_FLOAT || H5Tget_size(type.get()) != sizeof(double))
    fail(ErrorCategory::invalid_input, quoted(file), ": dataset '", name, "' is not float64");
  const Hid space = checked(H5Dget_space(dataset.get()), H5Sclose, ErrorCategory::io, file, what);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) fail_hdf5(ErrorCategory::io, file, what);
  dims.assign(static_cast<std::size_t>(rank), 0);
  if (rank > 0 && H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0)
    fail_hdf5(ErrorCategory::io, file, what);
  return dataset;
}
}  // namespace

std::vector<hsize_t> float64_dataset_dims(hid_t parent, const char* name,
                                          const std::filesystem::path& file) {
  std::vector<hsize_t> dims;
  (void)open_float64_dataset(parent, name, file, dims);
  return dims;
}

std::vector<double> read_dataset(hid_t parent, const char* name,
                                 const std::filesystem::path& file) {
  std::vector<hsize_t> dims;
  const Hid dataset = open_float64_dataset(parent, name, file, dims);
  const hsize_t count = std::accumulate(dims.begin(), dims.end(), hsize_t{1},
                                        [](hsize_t a, hsize_t b) { return a * b; });
  std::vector<double> values(static_cast<std::size_t>(count));
  if (count > 0 &&
      H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    fail_hdf5(ErrorCategory::io, file,
              std::string("reading dataset '") + name + "' (corrupt or truncated data?)");
  return values;
}

}  // namespace foehn::mountainwave::detail
