// write_xdmf: a file's time on its top grid, also when the top grid is a collection of sections
// (readers of a series of files, ParaView's XDMF3 reader among them, time each file by its top
// grid: without it they numbered a sections series 0, 1, 2, ...).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/xdmf.hpp"

namespace foehn::mountainwave {
namespace {

XdmfGrid plane(const std::string& name) {
  XdmfGrid grid;
  grid.name = name;
  grid.topology = XdmfTopology::rectilinear_2d;
  grid.geometry = {{"s.h5", "/" + name + "/x", {4}}, {"s.h5", "/" + name + "/z", {3}}};
  grid.attributes = {{"w", {"s.h5", "/" + name + "/w", {3, 4}}}};
  return grid;
}

std::string written(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Xdmf, ACollectionCarriesTheFilesTimeAsItsSectionsDo) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("foehn_xdmf_test_" + std::to_string(::getpid()) + ".xmf");
  write_xdmf(path, 1200.0, {plane("xz"), plane("yz")});
  const std::string text = written(path);
  std::filesystem::remove(path);
  const std::size_t collection = text.find("GridType=\"Collection\"");
  ASSERT_NE(collection, std::string::npos) << text;
  const std::size_t first_time = text.find("<Time Value=\"1200\"/>");
  const std::size_t first_section = text.find("GridType=\"Uniform\"");
  ASSERT_NE(first_time, std::string::npos) << text;
  EXPECT_GT(first_time, collection) << text;
  EXPECT_LT(first_time, first_section) << "the collection's own time comes first:\n" << text;
  // ... and every section keeps it too: three in all.
  std::size_t times = 0;
  for (std::size_t at = text.find("<Time "); at != std::string::npos;
       at = text.find("<Time ", at + 1))
    ++times;
  EXPECT_EQ(times, 3u) << text;
}

}  // namespace
}  // namespace foehn::mountainwave
