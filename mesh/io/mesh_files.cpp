#include "foehn/mesh/mesh_files.hpp"

#include "foehn/mesh/vtk_io.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {

namespace {

// A path from a language binding may hold a NUL; the file system would see only the part
// before it (a file of another name, written or read without a word).
void require_no_nul(const std::filesystem::path& path, const char* verb) {
  const auto& text = path.native();
  if (text.find('\0') != std::string::npos)
    fail(ErrorCategory::invalid_input, "cannot ", verb, " '", path.string().c_str(),
         "...': the path holds a NUL character");
}

}  // namespace

TetMesh read_mesh_file(const std::filesystem::path& path) {
  require_no_nul(path, "read");
  const std::string extension = path.extension().string();
  if (extension == ".msh") return read_gmsh(path);
  if (extension == ".vtu") return read_vtu(path);
  fail(ErrorCategory::invalid_input, "cannot read '", path.string(), "': unknown mesh format '",
       extension, "' (Foehn reads .msh in Gmsh 2.2/4.1 ASCII or binary, and .vtu)");
}

void write_mesh_file(const TetMesh& mesh, const std::filesystem::path& path,
                     const GmshFormat& gmsh_format) {
  require_no_nul(path, "write");
  const std::string extension = path.extension().string();
  if (extension == ".msh") return write_gmsh(mesh, path, gmsh_format);
  if (extension == ".vtu") return write_vtu(mesh, path);
  fail(ErrorCategory::invalid_input, "cannot write '", path.string(), "': unknown mesh format '",
       extension, "' (Foehn writes .vtu and .msh)");
}

}  // namespace foehn
