// write_pvtu: pieces through write_vtu (VTK's serial XML writer, atomic), the summary through
// a small writer of our own.
//
// Why not vtkXMLPUnstructuredGridWriter (NumberOfPieces / StartPiece / EndPiece /
// WriteSummaryFile)? In VTK 9.1 it decides which pieces the summary lists by reducing
// "piece written" flags through a vtkMultiProcessController (PrepareSummaryFile): without a
// vtkMPIController, rank 0's summary lists rank 0's piece only, and a vtkMPIController would
// tie libfoehn to VTK's MPI module and its MPI build. It also writes every file in place under
// its final name, so a crash leaves half-written files and a summary naming missing pieces.
// The summary itself is a few lines of XML (no data): we write exactly what VTK 9.1 writes
// (checked against its output) through AtomicOutputFile, after all pieces exist, and the
// tests read the result back with vtkXMLPUnstructuredGridReader.

#include <bit>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "foehn/petsc/pvtu.hpp"
#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/xml_text.hpp"
#include "mpi_support.hpp"

namespace foehn::petsc {

namespace {

constexpr const char* rank_field_name = "rank";
constexpr const char* tet_tag_name = "tet_tag";  // as write_vtu names tet_tags

// The arrays of a piece as the summary must declare them: name, VTK type, components.
struct ArrayDeclaration {
  std::string name;
  const char* type = "Float64";
  int components = 1;
};

struct PieceArrays {
  std::vector<ArrayDeclaration> point_data, cell_data;

  // E.g. "point data: height Float64 x1, wind Float64 x3; cell data: rank Float64 x1";
  // identical on every rank when the ranks agree on their fields.
  std::string signature() const {
    std::string text;
    for (const auto* list : {&point_data, &cell_data}) {
      text += list == &point_data ? "point data:" : "; cell data:";
      for (const ArrayDeclaration& a : *list)
        text += std::string(&a == list->data() ? " " : ", ") + a.name + ' ' + a.type + " x" +
                std::to_string(a.components);
    }
    return text;
  }
};

// Mirrors write_vtu: node fields and tet fields as Float64, then tet_tag as Int32.
PieceArrays arrays_of(const TetMesh& piece) {
  PieceArrays arrays;
  for (const MeshField& f : piece.node_fields)
    arrays.point_data.push_back({f.name, "Float64", f.components});
  for (const MeshField& f : piece.tet_fields)
    arrays.cell_data.push_back({f.name, "Float64", f.components});
  if (!piece.tet_tags.empty()) arrays.cell_data.push_back({tet_tag_name, "Int32", 1});
  return arrays;
}

// write_vtu makes the first Float64 array with 1, 3 and 9 components the active scalars,
// vectors and tensors; the summary says the same so ParaView colours by the same array.
void write_data_element(std::ofstream& out, const char* element,
                        const std::vector<ArrayDeclaration>& arrays) {
  std::string scalars, vectors, tensors;
  for (const ArrayDeclaration& a : arrays) {
    if (std::string_view(a.type) != "Float64") continue;
    if (a.components == 1 && scalars.empty())
      scalars = a.name;
    else if (a.components == 3 && vectors.empty())
      vectors = a.name;
    else if (a.components == 9 && tensors.empty())
      tensors = a.name;
  }
  out << "    <" << element;
  if (!scalars.empty()) out << " Scalars=\"" << xml_escaped(scalars) << "\"";
  if (!vectors.empty()) out << " Vectors=\"" << xml_escaped(vectors) << "\"";
  if (!tensors.empty()) out << " Tensors=\"" << xml_escaped(tensors) << "\"";
  out << ">\n";
  for (const ArrayDeclaration& a : arrays) {
    out << "      <PDataArray type=\"" << a.type << "\" Name=\"" << xml_escaped(a.name) << "\"";
    if (a.components != 1) out << " NumberOfComponents=\"" << a.components << "\"";
    out << "/>\n";
  }
  out << "    </" << element << ">\n";
}

void write_summary(const std::filesystem::path& path, const PieceArrays& arrays, int pieces,
                   const VtuOptions& options) {
  AtomicOutputFile file(path);
  std::ofstream& out = file.stream();
  out << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\""
      << (std::endian::native == std::endian::little ? "LittleEndian" : "BigEndian")
      << "\" header_type=\"UInt64\"";
  if (options.encoding == VtuEncoding::binary_appended && options.compress)
    out << " compressor=\"vtkZLibDataCompressor\"";
  out << ">\n"
      << "  <PUnstructuredGrid GhostLevel=\"0\">\n";
  write_data_element(out, "PPointData", arrays.point_data);
  write_data_element(out, "PCellData", arrays.cell_data);
  out << "    <PPoints>\n"
      << "      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n"
      << "    </PPoints>\n";
  for (int r = 0; r < pieces; ++r) {
    out << "    <Piece Source=\"" << xml_escaped(pvtu_piece_path(path, r).filename().string())
        << "\"/>\n";
  }
  out << "  </PUnstructuredGrid>\n"
      << "</VTKFile>\n";
  file.commit();
}

}  // namespace

std::filesystem::path pvtu_piece_path(const std::filesystem::path& path, int rank) {
  std::filesystem::path piece = path;
  piece.replace_filename(path.stem().string() + "_" + std::to_string(rank) + ".vtu");
  return piece;
}

void write_pvtu(const DistributedMesh& mesh, const std::filesystem::path& path,
                std::span<const MeshField> node_fields, std::span<const MeshField> tet_fields,
                const VtuOptions& options) {
  const detail::CommShape shape = detail::comm_shape(mesh.comm, "write_pvtu");
  const std::filesystem::path piece_path = pvtu_piece_path(path, shape.rank);

  // 1. Each rank assembles its piece: the local mesh, the extra fields, its rank per tet.
  TetMesh piece;
  PieceArrays arrays;
  detail::run_collectively(mesh.comm, [&] {
    if (path.extension() != ".pvtu" || path.stem().empty())
      fail(ErrorCategory::invalid_input, "write_pvtu: '", path.string(),
           "' is not a .pvtu file name");
    if (mesh.size != shape.size || mesh.rank != shape.rank)
      fail(ErrorCategory::invalid_input, "write_pvtu: the mesh was distributed as rank ", mesh.rank,
           " of ", mesh.size, " but the communicator has ", shape.rank, " of ", shape.size);
    piece = mesh.local;
    // The caller's fields first: the first of each size becomes ParaView's active array, and a
    // series should open coloured by what the caller wrote, not by the mesh's own fields (the
    // mountain-wave output once opened coloured by boundary_kind).
    piece.node_fields.insert(piece.node_fields.begin(), node_fields.begin(), node_fields.end());
    piece.tet_fields.insert(piece.tet_fields.begin(), tet_fields.begin(), tet_fields.end());
    piece.tet_fields.push_back(
        {rank_field_name, 1,
         std::vector<double>(piece.tet_count(), static_cast<double>(shape.rank))});
    arrays = arrays_of(piece);
  });

  // 2. The pieces, once the ranks know they declare the same arrays (rank 0's summary speaks
  // for all of them).
  std::string reference = arrays.signature();
  long long reference_length = static_cast<long long>(reference.size());
  FOEHN_MPI_CHECK(MPI_Bcast(&reference_length, 1, MPI_LONG_LONG, 0, mesh.comm));
  reference.resize(static_cast<std::size_t>(reference_length));
  FOEHN_MPI_CHECK(MPI_Bcast(reference.data(), detail::to_mpi_count(reference_length, "bytes"),
                            MPI_CHAR, 0, mesh.comm));
  detail::run_collectively(mesh.comm, [&] {
    if (arrays.signature() != reference)
      fail(ErrorCategory::invalid_input, "write_pvtu: this rank's fields (", arrays.signature(),
           ") differ from rank 0's (", reference, ")");
    write_vtu(piece, piece_path, options);
  });

  // 3. The summary, which only now may name every piece.
  detail::run_collectively(mesh.comm, [&] {
    if (shape.rank == 0) write_summary(path, arrays, shape.size, options);
  });
}

}  // namespace foehn::petsc
