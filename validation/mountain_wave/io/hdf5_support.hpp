#pragma once
// Private to io/: the small part of HDF5's C API the checkpoint and sections files need, with
// every return code checked. A failed call becomes foehn::Error naming the file, the operation
// and HDF5's own most specific message (HDF5's automatic printing of its error stack is
// switched off while a QuietHdf5Errors is alive, so nothing reaches stderr).
//
// Files are plain serial HDF5 files written and read by one rank (rank 0); see checkpoint.cpp
// for why not parallel HDF5.
#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "foehn/runtime/error.hpp"

namespace foehn::mountainwave::detail {

// Switches off HDF5's printing of its error stack for its lifetime (the previous handler comes
// back afterwards), so failures reach the caller only as foehn::Error.
class QuietHdf5Errors {
 public:
  QuietHdf5Errors();
  ~QuietHdf5Errors();
  QuietHdf5Errors(const QuietHdf5Errors&) = delete;
  QuietHdf5Errors& operator=(const QuietHdf5Errors&) = delete;

 private:
  H5E_auto2_t previous_function_ = nullptr;
  void* previous_data_ = nullptr;
  bool restore_ = false;
};

// HDF5's most specific message on the current error stack (e.g. "truncated file: eof = ...");
// clears the stack.
std::string hdf5_error_detail();

// Throws foehn::Error(category, "'<file>': <what> failed (<detail>)").
[[noreturn]] void fail_hdf5(ErrorCategory category, const std::filesystem::path& file,
                            std::string_view what);

// Owns one HDF5 identifier and closes it with the function that matches its kind.
class Hid {
 public:
  using Closer = herr_t (*)(hid_t);
  Hid() = default;
  Hid(hid_t id, Closer closer) noexcept : id_(id), closer_(closer) {}
  ~Hid() { (void)release(); }
  Hid(Hid&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = -1; }
  Hid& operator=(Hid&& other) noexcept;
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;

  hid_t get() const noexcept { return id_; }
  // Closes now and reports whether that worked (a file's close writes its metadata, so its
  // result matters).
  bool release() noexcept;

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

// `id` owned by a Hid, or foehn::Error(category) naming the file and `what` when it is < 0.
Hid checked(hid_t id, Hid::Closer closer, ErrorCategory category, const std::filesystem::path& file,
            std::string_view what);
void check(herr_t code, ErrorCategory category, const std::filesystem::path& file,
           std::string_view what);

// Throws invalid_input "'<file>': truncated: ..." when `file` begins like an HDF5 file (its
// signature, or a prefix of it) but ends inside the superblock or before the end-of-file
// address the superblock records. HDF5 reports a file cut inside its superblock with unrelated
// messages ("bad byte number in an address"), and a cut signature as "not HDF5".
void require_complete_hdf5_file(const std::filesystem::path& file);

// Files. create_file truncates and writes the HDF5 1.10 file format, whose metadata all
// carry checksums (readable by HDF5 1.10 and later); open_file_for_reading fails with invalid_input
// for a truncated file (require_complete_hdf5_file) and with io otherwise (naming HDF5's reason).
Hid create_file(const std::filesystem::path& file);
Hid open_file_for_reading(const std::filesystem::path& file);
// Closes a file written through create_file: io error when its metadata cannot be written.
void close_file(Hid& file_id, const std::filesystem::path& file);

Hid create_group(hid_t parent, const char* name, const std::filesystem::path& file);
Hid open_group(hid_t parent, const char* name, const std::filesystem::path& file);
bool has_link(hid_t parent, const char* name, const std::filesystem::path& file);
bool has_attribute(hid_t object, const char* name, const std::filesystem::path& file);
// Names of the links in a group, in increasing name order.
std::vector<std::string> link_names(hid_t group, const std::filesystem::path& file);

// Scalar attributes. Strings are fixed-length UTF-8 padded with NULs, at most
// max_string_attribute_bytes (h5py reads them as bytes).
inline constexpr std::size_t max_string_attribute_bytes = 1 << 16;
void write_attribute(hid_t object, const char* name, double value,
                     const std::filesystem::path& file);
void write_attribute(hid_t object, const char* name, std::int64_t value,
                     const std::filesystem::path& file);
void write_attribute(hid_t object, const char* name, std::string_view value,
                     const std::filesystem::path& file);
// The readers accept what a scalar attribute of the right kind holds (any integer width for
// integers, fixed-length strings) and throw invalid_input naming the attribute when it has
// another kind or shape, or is a variable-length string (HDF5 reads those from the global
// heap, which has no checksum, and crashes on some corrupt ones).
double read_double_attribute(hid_t object, const char* name, const std::filesystem::path& file);
std::int64_t read_integer_attribute(hid_t object, const char* name,
                                    const std::filesystem::path& file);
std::string read_string_attribute(hid_t object, const char* name,
                                  const std::filesystem::path& file);

struct DatasetOptions {
  // Chunked with HDF5's Fletcher-32 checksum filter, so a corrupted byte makes the read fail
  // instead of returning a wrong value (checkpoints); contiguous otherwise (like h5py's).
  bool checksum = false;
  const char* units = nullptr;        // "units" attribute, when given
  const char* description = nullptr;  // "description" attribute, when given
};

// A float64 dataset of shape `dims` (row-major, values.size() == product of dims).
void write_dataset(hid_t parent, const char* name, std::span<const double> values,
                   const std::vector<hsize_t>& dims, const std::filesystem::path& file,
                   const DatasetOptions& options = {});
// A 32-bit integer dataset (little-endian), contiguous.
void write_int32_dataset(hid_t parent, const char* name, std::span<const std::int32_t> values,
                         const std::vector<hsize_t>& dims, const std::filesystem::path& file);
// A contiguous 2-D dataset of rows x columns written in blocks of whole rows, in any order
// (a file assembled from pieces that arrive one at a time, never all in memory). Element type:
// float64 (values of double) or int32 (values of std::int32_t).
class RowBlockDataset {
 public:
  enum class Type { float64, int32 };
  RowBlockDataset(hid_t parent, const char* name, Type type, hsize_t rows, hsize_t columns,
                  const std::filesystem::path& file, const char* units = nullptr);
  // Rows [first_row, first_row + rows) from `values` (rows x columns elements of the type).
  void write_rows(hsize_t first_row, hsize_t rows, const void* values);

 private:
  Hid dataset_;
  Type type_;
  hsize_t rows_, columns_;
  std::filesystem::path file_;
  std::string name_;
};

// The shape of a dataset; invalid_input when `name` is not a float64 dataset.
std::vector<hsize_t> float64_dataset_dims(hid_t parent, const char* name,
                                          const std::filesystem::path& file);
// All values of a float64 dataset (exact bits); io when the read fails, e.g. on a checksum
// mismatch.
std::vector<double> read_dataset(hid_t parent, const char* name, const std::filesystem::path& file);

}  // namespace foehn::mountainwave::detail
