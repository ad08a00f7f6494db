#include "foehn/runtime/input_file.hpp"

#include <system_error>

#include "foehn/runtime/error.hpp"

namespace foehn {

namespace {

const char* kind_of(std::filesystem::file_type type) {
  switch (type) {
    case std::filesystem::file_type::directory:
      return "a folder";
    case std::filesystem::file_type::fifo:
      return "a FIFO";
    case std::filesystem::file_type::socket:
      return "a socket";
    case std::filesystem::file_type::character:
      return "a character device";
    case std::filesystem::file_type::block:
      return "a block device";
    default:
      return "not a regular file";
  }
}

}  // namespace

void require_regular_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status))
    fail(ErrorCategory::io, what, " '", path.string(), "': no such file");
  if (!std::filesystem::is_regular_file(status))
    fail(ErrorCategory::io, what, " '", path.string(), "': is ", kind_of(status.type()),
         ", not a file");
}

}  // namespace foehn
