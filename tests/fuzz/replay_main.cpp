// The main of the corpus replays (ctest -L fuzz): feeds every file of the folders (or the
// files) named on the command line to a fuzz target's LLVMFuzzerTestOneInput, as libFuzzer
// would, in a normal build without libFuzzer. Each seed and each minimised finding of
// tests/fuzz/corpus thus runs on every build: a reader change that crashes on one of them, or
// lets an exception other than foehn::Error escape, fails the test.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Optional, as with libFuzzer: targets that need one-time setup (MPI) define it.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

std::vector<std::filesystem::path> inputs_of(const std::filesystem::path& argument) {
  std::vector<std::filesystem::path> inputs;
  if (std::filesystem::is_directory(argument)) {
    for (const auto& entry : std::filesystem::directory_iterator(argument))
      if (entry.is_regular_file()) inputs.push_back(entry.path());
    std::sort(inputs.begin(), inputs.end());  // a stable order, for reproducible logs
  } else {
    inputs.push_back(argument);
  }
  return inputs;
}

std::vector<std::uint8_t> bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <corpus folder or file>...\n", argv[0]);
    return 2;
  }
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::size_t replayed = 0;
  for (int a = 1; a < argc; ++a) {
    if (!std::filesystem::exists(argv[a])) {
      std::fprintf(stderr, "%s: no such corpus folder or file\n", argv[a]);
      return 2;
    }
    for (const std::filesystem::path& input : inputs_of(argv[a])) {
      const std::vector<std::uint8_t> bytes = bytes_of(input);
      // Named before it runs: a crash leaves no other trace of which input it was.
      std::printf("%s\n", input.c_str());
      std::fflush(stdout);
      try {
        LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      } catch (const std::exception& error) {  // the target lets only foehn::Error end quietly
        std::fprintf(stderr, "%s: uncaught exception: %s\n", input.c_str(), error.what());
        return 1;
      } catch (...) {
        std::fprintf(stderr, "%s: uncaught exception of a non-standard type\n", input.c_str());
        return 1;
      }
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::fprintf(stderr, "no input found: the corpus is empty\n");
    return 1;
  }
  std::printf("replayed %zu inputs without a finding\n", replayed);
  return 0;
}
