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
