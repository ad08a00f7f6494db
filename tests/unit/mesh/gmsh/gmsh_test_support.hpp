#pragma once
// Helpers of the Gmsh reader/writer tests: a structured box mesh with tagged sides, a scratch
// folder, file helpers, the error checker and a runner for the real gmsh program.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "foehn/mesh/geometry.hpp"
#include "foehn/mesh/gmsh.hpp"
#include "foehn/mesh/tet_mesh.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::gmsh_test {

inline std::filesystem::path data_dir() { return std::filesystem::path(FOEHN_TEST_DATA_DIR) / "gmsh"; }

// Side tags of make_box_mesh.
enum : std::int32_t { side_x_min = 1, side_x_max, side_y_min, side_y_max, side_z_min, side_z_max };

// [0,lx]x[0,ly]x[0,lz] split into n[0]*n[1]*n[2] cubes of 6 positively oriented tets each
// (Kuhn split, conforming), boundary triangles oriented outward and tagged by side. Tet tags
// cycle through 1..3 by cell so that MSH 4.1 needs many element blocks.
inline TetMesh make_box_mesh(std::array<int, 3> n, std::array<double, 3> size = {1, 1, 1}) {
  TetMesh mesh;
  const auto node = [&](int i, int j, int k) { return (k * (n[1] + 1) + j) * (n[0] + 1) + i; };
  for (int k = 0; k <= n[2]; ++k)
    for (int j = 0; j <= n[1]; ++j)
      for (int i = 0; i <= n[0]; ++i)
        mesh.nodes.push_back({size[0] * i / n[0], size[1] * j / n[1], size[2] * k / n[2]});
  const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        for (const auto& perm : perms) {
          std::array<int, 3> at{i, j, k};
          Tet tet{};
          tet[0] = node(at[0], at[1], at[2]);
          for (int s = 0; s < 3; ++s) {
            ++at[perm[s]];
            tet[s + 1] = node(at[0], at[1], at[2]);
          }
          if (signed_volume(mesh, tet) < 0) std::swap(tet[1], tet[2]);
          mesh.tets.push_back(tet);
          mesh.tet_tags.push_back(1 + (i + j + k) % 3);
        }
  // Boundary = faces used by one tet; std::map keeps the order deterministic.
  std::map<std::array<std::int32_t, 3>, std::pair<Triangle, std::int32_t>> faces;
  std::map<std::array<std::int32_t, 3>, int> uses;
  for (const Tet& t : mesh.tets) {
    for (int opposite = 0; opposite < 4; ++opposite) {
      Triangle f{};
      int m = 0;
      for (int v = 0; v < 4; ++v)
        if (v != opposite) f[m++] = t[v];
      std::array<std::int32_t, 3> key = f;
      std::sort(key.begin(), key.end());
      const auto& a = mesh.nodes[f[0]];
      if (dot(cross(mesh.nodes[f[1]] - a, mesh.nodes[f[2]] - a), mesh.nodes[t[opposite]] - a) > 0)
        std::swap(f[1], f[2]);
      ++uses[key];
      faces[key] = {f, 0};
    }
  }
  for (const auto& [key, entry] : faces) {
    if (uses[key] != 1) continue;
    const Triangle& f = entry.first;
    std::int32_t tag = 0;
    for (int axis = 0; axis < 3 && tag == 0; ++axis) {
      const auto on = [&](double value) {
        return std::all_of(f.begin(), f.end(), [&](std::int32_t v) { return mesh.nodes[v][axis] == value; });
      };
      if (on(0.0)) tag = 1 + 2 * axis;
      else if (on(size[axis])) tag = 2 + 2 * axis;
    }
    mesh.boundary_faces.push_back(f);
    mesh.boundary_tags.push_back(tag);
  }
  return mesh;
}

inline double triangle_area(const TetMesh& mesh, const Triangle& f) {
  const auto& a = mesh.nodes[f[0]];
  return 0.5 * norm(cross(mesh.nodes[f[1]] - a, mesh.nodes[f[2]] - a));
}

// Total boundary area per tag.
inline std::map<std::int32_t, double> area_by_tag(const TetMesh& mesh) {
  std::map<std::int32_t, double> area;
  for (std::size_t i = 0; i < mesh.boundary_faces.size(); ++i)
    area[mesh.boundary_tags[i]] += triangle_area(mesh, mesh.boundary_faces[i]);
  return area;
}

// A folder of its own per test, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("foehn_gmsh_") + info->test_suite_name() + "_" + info->name();
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = std::filesystem::path(::testing::TempDir()) / (name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs `action`, expects a foehn::Error of `category` whose message contains each of
// `fragments`; returns the message (empty when no error was thrown).
inline std::string expect_error(const std::function<void()>& action, ErrorCategory category,
                                const std::vector<std::string>& fragments) {
  try {
    action();
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.category(), category) << message;
    for (const auto& fragment : fragments) {
      EXPECT_NE(message.find(fragment), std::string::npos)
          << "message lacks '" << fragment << "': " << message;
    }
    return message;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected foehn::Error, got " << typeid(e).name() << ": " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected a foehn::Error, but nothing was thrown";
  return {};
}

// read_gmsh on a file that must fail as invalid_input naming the file and the location
// ("line 12" or "byte offset 34").
inline std::string expect_bad_file(const std::filesystem::path& path,
                                   std::vector<std::string> fragments) {
  fragments.insert(fragments.begin(), path.string());
  return expect_error([&] { read_gmsh(path); }, ErrorCategory::invalid_input, fragments);
}

inline std::string format_name(GmshFormat f) {
  return std::string(f.version == GmshVersion::msh22 ? "msh22" : "msh41") + (f.binary ? "_binary" : "_ascii");
}

inline const std::array<GmshFormat, 4>& all_formats() {
  static const std::array<GmshFormat, 4> formats{{{GmshVersion::msh22, false},
                                                  {GmshVersion::msh22, true},
                                                  {GmshVersion::msh41, false},
                                                  {GmshVersion::msh41, true}}};
  return formats;
}

// Path of the gmsh program, empty when CMake did not find it.
inline std::string gmsh_program() {
#ifdef FOEHN_GMSH_EXECUTABLE
  return FOEHN_GMSH_EXECUTABLE;
#else
  return {};
#endif
}

// Runs gmsh with `arguments` (already quoted where needed); output goes to `log`.
// (Built with += : GCC 12 gives a false -Wrestrict warning for "'" + string + "'".)
inline std::string shell_quoted(const std::filesystem::path& p) {
  std::string text(1, '\'');
  text += p.string();
  text += '\'';
  return text;
}

inline int run_gmsh(const std::string& arguments, const std::filesystem::path& log) {
  std::string command = shell_quoted(std::filesystem::path(gmsh_program()));
  command += ' ';
  command += arguments;
  command += " -v 2 > ";
  command += shell_quoted(log);
  command += " 2>&1";
  return std::system(command.c_str());
}

}  // namespace foehn::gmsh_test

namespace foehn {
// Readable parameter names in test output and ctest ("msh41_binary", not the raw bytes).
inline void PrintTo(const GmshFormat& format, std::ostream* out) { *out << gmsh_test::format_name(format); }
}  // namespace foehn
