// MatrixMarket files: what is written reads back bit for bit, and malformed files are rejected
// with a message naming the file and the line.

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "assembly_test_mesh.hpp"
#include "foehn/fe/cpu_assembler.hpp"
#include "foehn/fe/matrix_market.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::fe {
namespace {

namespace fs = std::filesystem;

class MatrixMarket : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("foehn_mtx_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path path(const std::string& name) const { return folder_ / name; }
  fs::path write_text(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  std::size_t files_in_folder() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(folder_), {}));
  }
  // The reader must fail with invalid_input and "<file>:<line>: ...<detail>...".
  void expect_rejected(const std::string& text, int line, const std::string& detail) const {
    const fs::path file = write_text("bad.mtx", text);
    try {
      read_matrix_market(file);
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::invalid_input) << e.what();
      const std::string where = file.string() + ":" + std::to_string(line) + ": ";
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos)
          << "expected '" << where << "' in: " << e.what();
      EXPECT_NE(std::string(e.what()).find(detail), std::string::npos)
          << "expected '" << detail << "' in: " << e.what();
    }
  }
  fs::path folder_;
};

void expect_bitwise_equal(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a[k]), std::bit_cast<std::uint64_t>(b[k]))
        << "entry " << k << ": " << a[k] << " vs " << b[k];
}

void expect_same_matrix(const PointCsr& a, const PointCsr& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.row_offsets, b.row_offsets);
  EXPECT_EQ(a.column_indices, b.column_indices);
  expect_bitwise_equal(a.values, b.values);
}

// Values that a careless "%g" or "%.15g" would not round-trip.
std::vector<double> awkward_values() {
  return {1.0 / 3.0,
          -2.0 / 3.0,
          0.1,
          -0.0,
          0.0,
          1e300 / 7.0,
          std::numeric_limits<double>::max(),
          std::numeric_limits<double>::min(),
          std::numeric_limits<double>::denorm_min(),
          -std::numeric_limits<double>::denorm_min() * 12345.0,
          std::nextafter(1.0, 2.0),
          123456789012345678.0,
          -6.02214076e23};
}

TEST_F(MatrixMarket, AwkwardValuesRoundTripBitwise) {
  // A 4 x 5 matrix with an empty row, an empty column and every awkward value.
  const std::vector<double> v = awkward_values();
  PointCsr m;
  m.rows = 4;
  m.cols = 5;
  m.row_offsets = {0, 4, 4, 9, 13};
  m.column_indices = {0, 1, 3, 4, 0, 1, 2, 3, 4, 0, 1, 3, 4};
  m.values = v;
  write_matrix_market(m, path("m.mtx"), "an awkward matrix\nsecond comment line");
  expect_same_matrix(read_matrix_market(path("m.mtx")), m);
  EXPECT_EQ(files_in_folder(), 1u);  // no temporary left behind

  write_matrix_market_vector(v, path("v.mtx"));
  expect_bitwise_equal(read_matrix_market_vector(path("v.mtx")), v);
}

TEST_F(MatrixMarket, WritesTheStandardHeaderAndOneBasedIndices) {
  PointCsr m;
  m.rows = 2;
  m.cols = 3;
  m.row_offsets = {0, 1, 2};
  m.column_indices = {2, 0};
  m.values = {0.5, -1.0};
  write_matrix_market(m, path("m.mtx"), "made by a test");
  std::ifstream in(path("m.mtx"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text,
            "%%MatrixMarket matrix coordinate real general\n"
            "% made by a test\n"
            "2 3 2\n"
            "1 3 0.5\n"
            "2 1 -1\n");
}

TEST_F(MatrixMarket, AssembledOperatorsRoundTripBitwise) {
  const TetMesh mesh = testing::small_mountain_mesh(4);
  const CpuAssembler assembler(mesh);
  BlockCsrMatrix momentum = assembler.create_matrix<MomentumOperator>();
  assembler.assemble(MomentumOperator{}, momentum);
  const PointCsr expected = to_point_csr(momentum);
  write_matrix_market(expected, path("momentum.mtx"));
  expect_same_matrix(read_matrix_market(path("momentum.mtx")), expected);

  BlockCsrMatrix divergence = assembler.create_matrix<DivergenceOperator>();
  assembler.assemble(DivergenceOperator{}, divergence);
  const PointCsr rectangular = to_point_csr(divergence);
  write_matrix_market(rectangular, path("divergence.mtx"));
  expect_same_matrix(read_matrix_market(path("divergence.mtx")), rectangular);
}

TEST_F(MatrixMarket, ReadsUnsortedSymmetricAndIntegerFiles) {
  const fs::path file = write_text("s.mtx",
                                   "%%MatrixMarket matrix coordinate integer symmetric\r\n"
                                   "% comment\r\n"
                                   "\r\n"
                                   "3 3 4\r\n"
                                   "3 1 7\r\n"
                                   "1 1 +2\r\n"
                                   "2 2 3\r\n"
                                   "3 3 -1\r\n");
  const PointCsr m = read_matrix_market(file);
  EXPECT_EQ(m.row_offsets, (std::vector<std::int64_t>{0, 2, 3, 5}));
  EXPECT_EQ(m.column_indices, (std::vector<std::int32_t>{0, 2, 1, 0, 2}));
  EXPECT_EQ(m.values, (std::vector<double>{2, 7, 3, 7, -1}));
}

TEST_F(MatrixMarket, RejectsMalformedFilesNamingFileAndLine) {
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  expect_rejected("", 1, "empty file");
  expect_rejected("1 1 1\n1 1 1\n", 1, "not a MatrixMarket file");
  expect_rejected("%%MatrixMarket matrix array real general\n1 1\n1\n", 1, "format 'array'");
  expect_rejected("%%MatrixMarket matrix coordinate complex general\n", 1, "field 'complex'");
  expect_rejected("%%MatrixMarket matrix coordinate real hermitian\n", 1, "symmetry 'hermitian'");
  expect_rejected(banner, 1, "size line");
  expect_rejected(banner + "% c\n2 2\n", 3, "size line");
  expect_rejected(banner + "2 x 1\n1 1 1\n", 2, "column count 'x'");
  expect_rejected(banner + "2 2 1\n3 1 1.0\n", 3, "row index 3 is out of range 1..2");
  expect_rejected(banner + "2 2 1\n1 0 1.0\n", 3, "column index 0 is out of range");
  expect_rejected(banner + "2 2 2\n1 1 1.0\n2 2 1.0x\n", 4, "value '1.0x' is not a number");
  expect_rejected(banner + "2 2 1\n1 1 1e999\n", 3, "out of the range of double");
  expect_rejected(banner + "2 2 1\n1 1\n", 3, "found 2 item(s)");
  expect_rejected(banner + "2 2 1\n1 1 1 1\n", 3, "extra text");
  expect_rejected(banner + "2 2 3\n1 1 1\n2 2 1\n", 4, "file ends after 2 of the 3 entries");
  expect_rejected(banner + "2 2 1\n1 1 1\n2 2 1\n", 4, "more entries than the 1");
  expect_rejected(banner + "2 2 3\n1 2 1\n2 2 1\n1 2 5\n", 5,
                  "duplicate entry (1, 2), also on line 3");
  expect_rejected("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", 3,
                  "above the diagonal");
}

TEST_F(MatrixMarket, RejectsMalformedVectors) {
  const fs::path wrong_columns =
      write_text("v.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  EXPECT_THROW(read_matrix_market_vector(wrong_columns), Error);
  const fs::path truncated =
      write_text("t.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n");
  try {
    read_matrix_market_vector(truncated);
    ADD_FAILURE() << "a truncated vector was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(truncated.string() + ":4: file ends after 2 of the 3"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(MatrixMarket, MissingFilesAndFoldersAreIoErrors) {
  try {
    read_matrix_market(path("nowhere.mtx"));
    ADD_FAILURE() << "a missing file was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::io);
    EXPECT_NE(std::string(e.what()).find("nowhere.mtx"), std::string::npos) << e.what();
  }
  const std::vector<double> v{1.0};
  try {
    write_matrix_market_vector(v, path("no/such/folder/v.mtx"));
    ADD_FAILURE() << "wrote into a missing folder";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::io);
    EXPECT_NE(std::string(e.what()).find("no/such/folder"), std::string::npos) << e.what();
  }
  EXPECT_EQ(files_in_folder(), 0u);
}

TEST_F(MatrixMarket, RejectsAnInconsistentMatrixBeforeWriting) {
  PointCsr m;
  m.rows = 2;
  m.cols = 2;
  m.row_offsets = {0, 1, 2};
  m.column_indices = {0, 2};  // column 2 of a 2-column matrix
  m.values = {1.0, 2.0};
  EXPECT_THROW(write_matrix_market(m, path("m.mtx")), Error);
  EXPECT_EQ(files_in_folder(), 0u);
}

}  // namespace
}  // namespace foehn::fe
