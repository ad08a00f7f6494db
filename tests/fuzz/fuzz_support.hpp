#pragma once
// Shared by the fuzz targets of tests/fuzz: the fuzz input as a file (the readers take paths,
// as applications call them) and the checks that turn a silently wrong result into a crash the
// fuzzer records.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace foehn::fuzz {

// One file per process, rewritten for every input. In /dev/shm where there is one: a
// million inputs should cost neither disk writes nor the disk's latency. The process id keeps
// parallel fuzzers (-jobs) and ctest's parallel replays apart.
class InputFile {
 public:
  explicit InputFile(const std::string& extension) {
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::is_directory("/dev/shm", ec)
                                             ? std::filesystem::path("/dev/shm")
                                             : std::filesystem::temp_directory_path();
    path_ = folder / ("foehn-fuzz-" + std::to_string(::getpid()) + "." + extension);
    remove_files_of_ended_processes(folder);
  }
  ~InputFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Replaces the file's content with the input; a failure here is the harness's, not the
  // reader's, so it stops the run.
  const std::filesystem::path& write(const std::uint8_t* data, std::size_t size) {
    std::FILE* file = std::fopen(path_.c_str(), "wb");
    const bool written = file != nullptr && (size == 0 || std::fwrite(data, 1, size, file) == size);
    if (file == nullptr || std::fclose(file) != 0 || !written) {
      std::fprintf(stderr, "fuzz harness: cannot write %s\n", path_.c_str());
      std::abort();
    }
    return path_;
  }

 private:
  // A process that crashed (every finding, and every fork-mode job that hits one) never ran its
  // destructor: its file would stay in /dev/shm, in memory, until reboot.
  static void remove_files_of_ended_processes(const std::filesystem::path& folder) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
      const std::string name = entry.path().filename().string();
      const std::string prefix = "foehn-fuzz-";
      if (name.rfind(prefix, 0) != 0) continue;
      const std::string pid = name.substr(prefix.size(), name.find('.') - prefix.size());
      if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
      if (!std::filesystem::exists("/proc/" + pid, ec)) std::filesystem::remove(entry.path(), ec);
    }
  }

  std::filesystem::path path_;
};

// A reader that returned instead of throwing promised a consistent result; a broken promise
// is a finding like a crash (the caller would index out of range or compute garbage later).
inline void require(bool condition, const char* promise) {
  if (condition) return;
  std::fprintf(stderr, "fuzz target: the reader returned a result that breaks: %s\n", promise);
  std::abort();
}

}  // namespace foehn::fuzz
