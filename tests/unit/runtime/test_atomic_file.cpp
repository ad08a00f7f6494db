// AtomicOutputFile: a destination appears only complete, or not at all.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "foehn/runtime/atomic_file.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    folder_ = fs::temp_directory_path() /
              ("foehn_atomic_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(folder_, fs::perms::owner_all, ignored);
    fs::remove_all(folder_, ignored);
  }
  std::size_t files_in_folder() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(folder_), {}));
  }
  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static ErrorCategory category_of_opening(const fs::path& path) {
    try {
      AtomicOutputFile file(path);
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
      return error.category();
    }
    ADD_FAILURE() << "opening " << path << " did not throw";
    return ErrorCategory::internal;
  }
  fs::path folder_;
};

TEST_F(AtomicFile, CommitRenamesIntoPlace) {
  const fs::path destination = folder_ / "out.txt";
  {
    AtomicOutputFile file(destination);
    file.stream() << "complete";
    EXPECT_FALSE(fs::exists(destination)) << "visible before commit";
    EXPECT_TRUE(fs::exists(file.temporary_path()));
    EXPECT_EQ(file.temporary_path().parent_path(), destination.parent_path());
    file.commit();
    EXPECT_FALSE(fs::exists(file.temporary_path()));
  }
  EXPECT_EQ(read(destination), "complete");
  EXPECT_EQ(files_in_folder(), 1u);
}

TEST_F(AtomicFile, CommitReplacesAnOldFile) {
  const fs::path destination = folder_ / "out.txt";
  std::ofstream(destination) << "old";
  AtomicOutputFile file(destination);
  file.stream() << "new";
  EXPECT_EQ(read(destination), "old");
  file.commit();
  EXPECT_EQ(read(destination), "new");
}

TEST_F(AtomicFile, NoCommitLeavesNoFile) {
  const fs::path destination = folder_ / "half.txt";
  {
    AtomicOutputFile file(destination);
    file.stream() << "half written";
  }  // e.g. an exception unwinding the writer
  EXPECT_FALSE(fs::exists(destination));
  EXPECT_EQ(files_in_folder(), 0u) << "the temporary file was left behind";
}

TEST_F(AtomicFile, ExternalWriterUsesTheTemporaryPath) {
  const fs::path destination = folder_ / "mesh.vtu";
  AtomicOutputFile file(destination);
  std::ofstream(file.temporary_path()) << "written by a library";
  file.commit();
  EXPECT_EQ(read(destination), "written by a library");
}

TEST_F(AtomicFile, CommitWithoutAnyOutputIsAnIoError) {
  AtomicOutputFile file(folder_ / "nothing.txt");
  try {
    file.commit();
    FAIL() << "commit without a file succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::io);
  }
  EXPECT_FALSE(fs::exists(folder_ / "nothing.txt"));
}

TEST_F(AtomicFile, MissingFolderIsAnIoError) {
  EXPECT_EQ(category_of_opening(folder_ / "no_such_folder" / "out.txt"), ErrorCategory::io);
}

TEST_F(AtomicFile, DestinationThatIsAFolderIsAnIoError) {
  fs::create_directory(folder_ / "sub");
  EXPECT_EQ(category_of_opening(folder_ / "sub"), ErrorCategory::io);
}

TEST_F(AtomicFile, UnwritableFolderIsAnIoError) {
  const fs::path locked = folder_ / "locked";
  fs::create_directory(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  if (::access(locked.c_str(), W_OK) == 0) {
    GTEST_SKIP() << "running with privileges that ignore folder permissions (root)";
  }
  EXPECT_EQ(category_of_opening(locked / "out.txt"), ErrorCategory::io);
}

TEST_F(AtomicFile, OutputFolderIsMadeWithItsParents) {
  make_output_folder(folder_ / "a" / "b", "-output_dir");
  EXPECT_TRUE(fs::is_directory(folder_ / "a" / "b"));
  make_output_folder(folder_ / "a" / "b", "-output_dir");  // again: nothing to do
}

TEST_F(AtomicFile, OutputFolderThatIsAFileNamesTheOption) {
  std::ofstream(folder_ / "taken") << "x";
  for (const fs::path& folder : {folder_ / "taken", folder_ / "taken" / "sub"}) {
    try {
      make_output_folder(folder, "-output_dir");
      FAIL() << folder << " accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.category(), ErrorCategory::invalid_input);
      const std::string message = error.what();
      EXPECT_NE(message.find("-output_dir '" + folder.string() + "'"), std::string::npos)
          << message;
      EXPECT_NE(message.find("exists and is not a folder"), std::string::npos) << message;
    }
  }
}

// A run killed mid-write leaves "<file>.tmp.<pid>"; a restart removes those of processes that
// no longer run, and nothing else.
TEST_F(AtomicFile, AbandonedTemporariesAreRemovedOthersKept) {
  const std::string alive = std::to_string(::getpid());
  for (const char* name : {"a.vtu.tmp.2147483646", "b.h5.tmp.999999999", "keep.tmp.x", ".tmp.5",
                           "keep.vtu", "keep.tmp.12a"})
    std::ofstream(folder_ / name) << "x";
  std::ofstream(folder_ / ("mine.vtu.tmp." + alive)) << "x";
  fs::create_directory(folder_ / "sub");
  std::ofstream(folder_ / "sub" / "deep.vtu.tmp.999999999") << "x";
  EXPECT_EQ(remove_abandoned_temporaries(folder_), 2);
  EXPECT_FALSE(fs::exists(folder_ / "a.vtu.tmp.2147483646"));
  EXPECT_FALSE(fs::exists(folder_ / "b.h5.tmp.999999999"));
  for (const std::string& name :
       {std::string("keep.tmp.x"), std::string(".tmp.5"), std::string("keep.vtu"),
        std::string("keep.tmp.12a"), "mine.vtu.tmp." + alive,
        std::string("sub/deep.vtu.tmp.999999999")})
    EXPECT_TRUE(fs::exists(folder_ / name)) << name;
  EXPECT_EQ(remove_abandoned_temporaries(folder_ / "missing"), 0);
}

}  // namespace
}  // namespace foehn
