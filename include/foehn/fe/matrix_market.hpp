#pragma once
// MatrixMarket text files (https://math.nist.gov/MatrixMarket/formats.html) for assembled
// matrices and vectors, so that users can inspect them, diff two runs and load them in SciPy
// (scipy.io.mmread), Octave or Julia.
//
// Written: "%%MatrixMarket matrix coordinate real general" with 1-based indices, rows in order
// and columns sorted, and vectors as "%%MatrixMarket matrix array real general" (one column).
// Values are printed with 17 significant digits, which is enough for every double to read
// back bit for bit; a file written here and read back is the same matrix exactly.
// Files go through AtomicOutputFile: an interrupted write leaves no half-written file.

#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "foehn/fe/block_csr_matrix.hpp"

namespace foehn::fe {

// `comment` (possibly several lines) is written after the banner, each line behind '%'.
// Throws foehn::Error: io when the folder is missing or unwritable or the write fails,
// invalid_input for an inconsistent PointCsr.
void write_matrix_market(const PointCsr& matrix, const std::filesystem::path& path,
                         std::string_view comment = {});

// A vector as an n x 1 array.
void write_matrix_market_vector(std::span<const double> values, const std::filesystem::path& path,
                                std::string_view comment = {});

// Reads a coordinate file of field real or integer, symmetry general or symmetric (the
// mirrored entries are added). The result has sorted columns in every row; explicit zeros
// are kept. Throws foehn::Error: io when the file cannot be opened or read, invalid_input
// "file:line: problem" for a malformed file (bad banner, unsupported format, bad size line,
// index out of range, unparsable value, duplicate entry, too few or too many entries).
PointCsr read_matrix_market(const std::filesystem::path& path);

// Reads an array file (real or integer, general) with one column.
std::vector<double> read_matrix_market_vector(const std::filesystem::path& path);

}  // namespace foehn::fe
