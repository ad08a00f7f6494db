// Every way a checkpoint file can be wrong, on one rank: each gives a foehn::Error of the right
// category naming the file, and HDF5 prints nothing.
#include <hdf5.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "foehn/runtime/hdf5_superblock.hpp"
#include "io/checkpoint.hpp"
#include "io/section_sampler.hpp"
#include "support/temp_dir.hpp"
#include "validation/io/io_test_support.hpp"

namespace foehn::mountainwave {
namespace {

using foehn::testing::distribute_on;
using foehn::testing::error_of;
using foehn::testing::same_bits;
using foehn::testing::TempDir;
using foehn::testing::test_state;

const CheckpointMetadata metadata{CaseFingerprint().add("cells", "6x6x4").add("dt", 1.0).str()};
constexpr double marker = 12345.678901234567;  // one distinctive pressure value, to corrupt

std::vector<char> bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::filesystem::path& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Edits a written checkpoint with the HDF5 C API (checksums are recomputed by HDF5, so these
// files are well-formed HDF5 with wrong contents).
class Hdf5Edit {
 public:
  explicit Hdf5Edit(const std::filesystem::path& path)
      : file_(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)) {
    EXPECT_GE(file_, 0);
  }
  ~Hdf5Edit() { EXPECT_GE(H5Fclose(file_), 0); }
  hid_t file() const { return file_; }

  void set_integer_attribute(const char* name, std::int64_t value) {
    const hid_t attribute = H5Aopen(file_, name, H5P_DEFAULT);
    ASSERT_GE(attribute, 0);
    EXPECT_GE(H5Awrite(attribute, H5T_NATIVE_INT64, &value), 0);
    EXPECT_GE(H5Aclose(attribute), 0);
  }
  void set_double_attribute(const char* name, double value) {
    const hid_t attribute = H5Aopen(file_, name, H5P_DEFAULT);
    ASSERT_GE(attribute, 0);
    EXPECT_GE(H5Awrite(attribute, H5T_NATIVE_DOUBLE, &value), 0);
    EXPECT_GE(H5Aclose(attribute), 0);
  }
  void delete_link(const char* name) { EXPECT_GE(H5Ldelete(file_, name, H5P_DEFAULT), 0); }
  // Rewrites one value of a float64 dataset.
  void set_value(const char* dataset_name, std::size_t index, double value) {
    const hid_t dataset = H5Dopen2(file_, dataset_name, H5P_DEFAULT);
    ASSERT_GE(dataset, 0);
    const hid_t space = H5Dget_space(dataset);
    const hssize_t count = H5Sget_simple_extent_npoints(space);
    std::vector<double> values(static_cast<std::size_t>(count));
    EXPECT_GE(H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    values.at(index) = value;
    EXPECT_GE(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
              0);
    EXPECT_GE(H5Sclose(space), 0);
    EXPECT_GE(H5Dclose(dataset), 0);
  }
  void replace_with_vector(const char* name, std::size_t size) {
    delete_link(name);
    const hsize_t dims[1] = {size};
    const hid_t space = H5Screate_simple(1, dims, nullptr);
    const hid_t dataset =
        H5Dcreate2(file_, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(dataset, 0);
    const std::vector<double> zeros(size, 0.0);
    EXPECT_GE(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data()), 0);
    EXPECT_GE(H5Dclose(dataset), 0);
    EXPECT_GE(H5Sclose(space), 0);
  }

 private:
  hid_t file_ = -1;
};

class CheckpointFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    whole_ = foehn::testing::io_test_mountain();
    mesh_ = distribute_on(MPI_COMM_SELF, whole_);
    state_ = test_state(mesh_);
    state_.pressure[7] = marker;
    path_ = folder_ / "checkpoint.h5";
    write_checkpoint(mesh_, state_, path_, metadata);
  }

  // The error reading `path` gives, with a check that HDF5 printed nothing.
  foehn::testing::ThrownError read_error(const std::filesystem::path& path,
                                         const CheckpointMetadata& expected = metadata) {
    ::testing::internal::CaptureStderr();
    auto error = error_of([&] { (void)read_checkpoint(mesh_, path, expected); });
    const std::string printed = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(printed, "") << "HDF5 printed its error stack";
    EXPECT_TRUE(error.thrown);
    EXPECT_NE(error.message.find(path.filename().string()), std::string::npos)
        << "the message should name the file: " << error.message;
    return error;
  }

  TempDir folder_;
  TetMesh whole_;
  petsc::DistributedMesh mesh_;
  ModelState state_;
  std::filesystem::path path_;
};

TEST_F(CheckpointFileTest, GoodFileReadsBack) {
  EXPECT_TRUE(same_bits(read_checkpoint(mesh_, path_, metadata), state_));
}

// A restart continues the checkpoint's clock: a step no run takes, a negative time, or a time
// that is not the step times the run's dt (each restart once ran on with such a clock).
TEST_F(CheckpointFileTest, AClockNoRunLeftBehindIsRefused) {
  CheckpointMetadata with_dt = metadata;
  with_dt.dt = state_.time / static_cast<double>(state_.step);
  EXPECT_TRUE(same_bits(read_checkpoint(mesh_, path_, with_dt), state_));
  with_dt.dt *= 1.001;
  EXPECT_NE(read_error(path_, with_dt).message.find("is not its step 42 times dt"),
            std::string::npos);
  Hdf5Edit(path_).set_integer_attribute("step", std::int64_t{1} << 62);
  EXPECT_NE(read_error(path_).message.find("corrupt header"), std::string::npos);
  Hdf5Edit(path_).set_integer_attribute("step", 42);
  Hdf5Edit(path_).set_double_attribute("time", -5.0);
  EXPECT_NE(read_error(path_).message.find("corrupt header"), std::string::npos);
}

TEST_F(CheckpointFileTest, MissingFileOrFolder) {
  EXPECT_EQ(read_error(folder_ / "missing.h5").category, ErrorCategory::io);
  std::filesystem::create_directory(folder_ / "folder.h5");
  EXPECT_EQ(read_error(folder_ / "folder.h5").category, ErrorCategory::io);
  // A FIFO blocked the restart until something wrote into it.
  ASSERT_EQ(::mkfifo((folder_ / "fifo.h5").c_str(), 0600), 0);
  const auto fifo = read_error(folder_ / "fifo.h5");
  EXPECT_EQ(fifo.category, ErrorCategory::io);
  EXPECT_NE(fifo.message.find("is a FIFO, not a file"), std::string::npos) << fifo.message;
}

TEST_F(CheckpointFileTest, NotHdf5) {
  write_bytes(folder_ / "text.h5", {'h', 'e', 'l', 'l', 'o', '\n'});
  const auto error = read_error(folder_ / "text.h5");
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("not an HDF5 file"), std::string::npos) << error.message;
  write_bytes(folder_ / "empty.h5", {});
  EXPECT_EQ(read_error(folder_ / "empty.h5").category, ErrorCategory::invalid_input);
}

TEST_F(CheckpointFileTest, Hdf5ButNotACheckpoint) {
  // A sections file is HDF5 with a "layout" but no "format" attribute.
  SectionGrid grid;
  grid.x = grid.y = grid.section_x = evenly_spaced(-3000.0, 3000.0, 1000.0);
  grid.section_z = evenly_spaced(1000.0, 2000.0, 500.0);
  const SectionSampler sampler(mesh_, grid);
  sampler.write_state_sections(folder_ / "sections.h5", state_, MountainWaveCase{});
  auto error = read_error(folder_ / "sections.h5");
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("not a Foehn mountain-wave checkpoint"), std::string::npos)
      << error.message;

  {
    Hdf5Edit edit(path_);
    EXPECT_GE(H5Adelete(edit.file(), "format"), 0);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attribute =
        H5Acreate2(edit.file(), "format", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT);
    const int one = 1;
    EXPECT_GE(H5Awrite(attribute, H5T_NATIVE_INT, &one), 0);
    EXPECT_GE(H5Aclose(attribute), 0);
    EXPECT_GE(H5Sclose(space), 0);
  }
  error = read_error(path_);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("'format' is not a string"), std::string::npos) << error.message;
}

TEST_F(CheckpointFileTest, WrongVersion) {
  Hdf5Edit(path_).set_integer_attribute("format_version", 1);
  const auto error = read_error(path_);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("version 1, this build reads version 2"), std::string::npos)
      << error.message;
}

// Checkpoint format 2 is the HDF5 1.10 file format (superblock 2 or later: checksummed
// metadata) with fixed-length string attributes (no global heap, which has no checksum).
TEST_F(CheckpointFileTest, WrittenWithChecksummedMetadataAndFixedLengthStrings) {
  const std::optional<int> superblock = hdf5_superblock_version(path_);
  ASSERT_TRUE(superblock.has_value());
  EXPECT_GE(*superblock, 2);
  Hdf5Edit edit(path_);
  for (const char* name : {"format", "case_fingerprint", "node_numbering"}) {
    const hid_t attribute = H5Aopen(edit.file(), name, H5P_DEFAULT);
    ASSERT_GE(attribute, 0) << name;
    const hid_t type = H5Aget_type(attribute);
    EXPECT_EQ(H5Tget_class(type), H5T_STRING) << name;
    EXPECT_EQ(H5Tis_variable_str(type), 0) << name;
    EXPECT_GE(H5Tclose(type), 0);
    EXPECT_GE(H5Aclose(attribute), 0);
  }
}

// Each dataset says what it holds: the kinematic pressure is not to be read as pascals.
TEST_F(CheckpointFileTest, DatasetsCarryUnitsAndMeaning) {
  Hdf5Edit edit(path_);
  const auto text = [&](const char* dataset, const char* name) {
    const hid_t attribute = H5Aopen_by_name(edit.file(), dataset, name, H5P_DEFAULT, H5P_DEFAULT);
    if (attribute < 0) return std::string("<none>");
    const hid_t type = H5Aget_type(attribute);
    std::string value(H5Tget_size(type), '\0');
    EXPECT_GE(H5Aread(attribute, type, value.data()), 0);
    EXPECT_GE(H5Tclose(type), 0);
    EXPECT_GE(H5Aclose(attribute), 0);
    return value.substr(0, value.find('\0'));
  };
  EXPECT_EQ(text("nodes/pressure", "units"), "m2 s-2");
  EXPECT_NE(text("nodes/pressure", "description").find("not Pa"), std::string::npos);
  EXPECT_NE(text("nodes/pressure", "description").find("'p' in the .pvtu"), std::string::npos);
  EXPECT_EQ(text("nodes/velocity", "units"), "m s-1");
  EXPECT_EQ(text("nodes/theta", "units"), "K");
  EXPECT_EQ(text("nodes/coordinates", "units"), "m");
  for (const char* tracer : {"nodes/qv", "nodes/qc", "nodes/qr"})
    EXPECT_EQ(text(tracer, "units"), "kg kg-1") << tracer;
}

// A file of checkpoint format 1 (or any HDF5 file in the 1.8-compatible default format) is
// refused from its superblock, before HDF5 decodes its unchecksummed metadata.
TEST_F(CheckpointFileTest, OldFileFormatIsRefusedBeforeHdf5ReadsIt) {
  const std::filesystem::path old = folder_ / "format1.h5";
  const hid_t file = H5Fcreate(old.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_GE(H5Fclose(file), 0);
  EXPECT_EQ(hdf5_superblock_version(old), 0);
  const auto error = read_error(old);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("HDF5 superblock version 0, not a Foehn checkpoint of format "
                               "version 2"),
            std::string::npos)
      << error.message;
}

TEST_F(CheckpointFileTest, VariableLengthOrHugeStringAttributeIsRefused) {
  const auto replace_string = [&](const char* name, std::size_t size) {
    Hdf5Edit edit(path_);
    EXPECT_GE(H5Adelete(edit.file(), name), 0);
    const hid_t type = H5Tcopy(H5T_C_S1);
    EXPECT_GE(H5Tset_size(type, size), 0);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attribute = H5Acreate2(edit.file(), name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(attribute, 0);
    const std::string text = "foehn.mountain_wave_checkpoint";
    const char* pointer = text.c_str();
    std::vector<char> fixed(size == H5T_VARIABLE ? 0 : size, 'x');
    EXPECT_GE(H5Awrite(attribute, type,
                       size == H5T_VARIABLE ? static_cast<const void*>(&pointer) : fixed.data()),
              0);
    EXPECT_GE(H5Aclose(attribute), 0);
    EXPECT_GE(H5Sclose(space), 0);
    EXPECT_GE(H5Tclose(type), 0);
  };
  replace_string("format", H5T_VARIABLE);
  auto error = read_error(path_);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("attribute 'format' is a variable-length string"), std::string::npos)
      << error.message;

  write_checkpoint(mesh_, state_, path_, metadata);
  replace_string("case_fingerprint", 100000);
  error = read_error(path_);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("'case_fingerprint' holds 100000 bytes, more than the 65536"),
            std::string::npos)
      << error.message;
}

// Every byte of the file flipped in turn (every 5th byte, to stay fast): the read fails with a
// foehn::Error (checksums of metadata and data) or returns the state written, never another.
TEST_F(CheckpointFileTest, EveryCorruptedByteIsCaughtOrHarmless) {
  const std::vector<char> bytes = bytes_of(path_);
  const std::filesystem::path corrupt = folder_ / "corrupt.h5";
  std::size_t caught = 0, harmless = 0;
  for (std::size_t at = 0; at < bytes.size(); at += 5) {
    std::vector<char> flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
    write_bytes(corrupt, flipped);
    ::testing::internal::CaptureStderr();
    try {
      const ModelState read = read_checkpoint(mesh_, corrupt, metadata);
      EXPECT_TRUE(same_bits(read, state_)) << "byte " << at << " changed the state read";
      ++harmless;
    } catch (const foehn::Error&) {
      ++caught;
    }
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "byte " << at;
    // Nothing left open on the error path: HDF5 would loop over it when the library closes at
    // exit and print "infinite loop closing library".
    EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0) << "byte " << at;
  }
  // Unused bytes (padding, free space) are about 5 % of the file.
  EXPECT_GT(caught, 10 * harmless) << caught << " caught, " << harmless << " harmless";
}

TEST_F(CheckpointFileTest, FingerprintMismatchNamesTheOption) {
  const CheckpointMetadata other{CaseFingerprint().add("cells", "6x6x4").add("dt", 0.5).str()};
  const auto error = read_error(path_, other);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("dt: 1 in the checkpoint, 0.5 in this run"), std::string::npos)
      << error.message;
}

TEST_F(CheckpointFileTest, OtherMeshSizeOrShape) {
  const TetMesh bigger_input = foehn::testing::io_test_mountain(7);
  mesh_ = distribute_on(MPI_COMM_SELF, bigger_input);
  auto error = read_error(path_);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("written for a mesh of 245 nodes"), std::string::npos)
      << error.message;

  // Same counts, another mountain: the coordinates tell.
  const TetMesh lower_input = foehn::testing::io_test_mountain(6, 300.0);
  mesh_ = distribute_on(MPI_COMM_SELF, lower_input);
  error = read_error(path_);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("another mesh"), std::string::npos) << error.message;
}

// Cut inside the signature, inside the superblock (HDF5 itself then says "bad byte number in
// an address"), in the metadata, in the data and in the last bytes: all invalid input, named.
TEST_F(CheckpointFileTest, TruncatedFile) {
  std::vector<char> bytes = bytes_of(path_);
  for (const std::size_t keep :
       {std::size_t{3}, std::size_t{8}, std::size_t{30}, std::size_t{600}, bytes.size() / 3,
        bytes.size() / 2, bytes.size() - 8, bytes.size() - 1}) {
    write_bytes(folder_ / "truncated.h5", std::vector<char>(bytes.begin(), bytes.begin() + keep));
    const auto error = read_error(folder_ / "truncated.h5");
    EXPECT_EQ(error.category, ErrorCategory::invalid_input) << keep << " bytes: " << error.message;
    EXPECT_NE(error.message.find("truncated"), std::string::npos) << error.message;
  }
  // read_checkpoint_info (the tools' entry) checks the same way.
  write_bytes(folder_ / "truncated.h5", std::vector<char>(bytes.begin(), bytes.end() - 1));
  const auto info_error = error_of([&] { (void)read_checkpoint_info(folder_ / "truncated.h5"); });
  EXPECT_EQ(info_error.category, ErrorCategory::invalid_input);
  EXPECT_NE(info_error.message.find("truncated.h5': truncated: its HDF5 superblock puts the end"),
            std::string::npos)
      << info_error.message;
}

TEST_F(CheckpointFileTest, CorruptDataFailsItsChecksum) {
  std::vector<char> bytes = bytes_of(path_);
  char pattern[sizeof(double)];
  std::memcpy(pattern, &marker, sizeof pattern);
  const auto at = std::search(bytes.begin(), bytes.end(), std::begin(pattern), std::end(pattern));
  ASSERT_NE(at, bytes.end()) << "the marker value is not in the file";
  at[3] = static_cast<char>(at[3] ^ 0x10);  // one flipped bit in the mantissa
  write_bytes(folder_ / "corrupt.h5", bytes);
  const auto error = read_error(folder_ / "corrupt.h5");
  EXPECT_EQ(error.category, ErrorCategory::io);
  EXPECT_NE(error.message.find("pressure"), std::string::npos) << error.message;
}

TEST_F(CheckpointFileTest, NonFiniteValue) {
  Hdf5Edit(path_).set_value("nodes/theta", 5, std::numeric_limits<double>::quiet_NaN());
  auto error = read_error(path_);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("theta' is nan at input node 5"), std::string::npos)
      << error.message;
  write_checkpoint(mesh_, state_, path_, metadata);
  Hdf5Edit(path_).set_value("nodes/velocity", 3 * 9 + 2, -HUGE_VAL);
  error = read_error(path_);
  EXPECT_NE(error.message.find("at input node 9 component 2"), std::string::npos) << error.message;
}

TEST_F(CheckpointFileTest, MissingOrMisshapenDataset) {
  Hdf5Edit(path_).delete_link("nodes/qc");
  auto error = read_error(path_);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("'qc' is missing"), std::string::npos) << error.message;

  write_checkpoint(mesh_, state_, path_, metadata);
  Hdf5Edit(path_).replace_with_vector("nodes/pressure", whole_.node_count() - 1);
  error = read_error(path_);
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("wrong shape"), std::string::npos) << error.message;

  write_checkpoint(mesh_, state_, path_, metadata);
  Hdf5Edit(path_).replace_with_vector("nodes/velocity", 3 * whole_.node_count());
  EXPECT_EQ(read_error(path_).category, ErrorCategory::invalid_input);
}

TEST_F(CheckpointFileTest, WriterRefusesBadStatesAndKeepsTheOldFile) {
  const std::vector<char> before = bytes_of(path_);
  ModelState bad = state_;
  bad.tracers[1][4] = std::numeric_limits<double>::quiet_NaN();
  auto error = error_of([&] { write_checkpoint(mesh_, bad, path_, metadata); });
  EXPECT_EQ(error.category, ErrorCategory::invalid_input);
  EXPECT_NE(error.message.find("'qc' is nan"), std::string::npos) << error.message;

  bad = state_;
  bad.velocity.resize(5);
  EXPECT_EQ(error_of([&] { write_checkpoint(mesh_, bad, path_, metadata); }).category,
            ErrorCategory::invalid_input);
  const std::vector<MeshField> clash{{"theta", 1, state_.theta}};
  EXPECT_EQ(error_of([&] { write_checkpoint(mesh_, state_, path_, metadata, clash); }).category,
            ErrorCategory::invalid_input);
  EXPECT_EQ(bytes_of(path_), before);

  // Unwritable destination: a folder of the checkpoint's name.
  std::filesystem::create_directory(folder_ / "taken.h5");
  EXPECT_EQ(
      error_of([&] { write_checkpoint(mesh_, state_, folder_ / "taken.h5", metadata); }).category,
      ErrorCategory::io);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder_.path()))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"checkpoint.h5", "taken.h5"}));
}

TEST(CaseFingerprintTest, FormatsAndCompares) {
  const std::string a = CaseFingerprint().add("n", 48).add("dt", 0.1).add("name", "x").str();
  EXPECT_EQ(a, "n=48;dt=0.1;name=x;");
  const std::string b = CaseFingerprint().add("n", 48).add("dt", std::nextafter(0.1, 1.0)).str();
  EXPECT_EQ(describe_fingerprint_difference(a, b),
            "dt: 0.1 in the checkpoint, 0.10000000000000002 in this run; "
            "name: x in the checkpoint, missing in this run");
  EXPECT_EQ(describe_fingerprint_difference("free text", "other"),
            "the checkpoint has 'free text', this run 'other'");
  EXPECT_THROW(CaseFingerprint().add("a=b", 1), foehn::Error);
  EXPECT_THROW(CaseFingerprint().add("a", "x;y"), foehn::Error);
}

}  // namespace
}  // namespace foehn::mountainwave
