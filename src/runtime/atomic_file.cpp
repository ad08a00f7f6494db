#include "foehn/runtime/atomic_file.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>

#include "foehn/runtime/error.hpp"

namespace foehn {

namespace {
std::filesystem::path temporary_name_for(const std::filesystem::path& destination) {
  std::filesystem::path temporary = destination;
  // Same folder, so the final rename is atomic on POSIX file systems; the pid keeps two
  // processes writing the same file from sharing a temporary.
  temporary += ".tmp." + std::to_string(::getpid());
  return temporary;
}
}  // namespace

int remove_abandoned_temporaries(const std::filesystem::path& folder) {
  int removed = 0;
  std::error_code ec;
  std::filesystem::directory_iterator entries(folder, ec);
  if (ec) return 0;
  for (const std::filesystem::directory_entry& entry : entries) {
    const std::string name = entry.path().filename().string();
    const std::size_t marker = name.rfind(".tmp.");
    if (marker == std::string::npos || marker == 0) continue;
    const std::string pid_text = name.substr(marker + 5);
    if (pid_text.empty() || pid_text.size() > 10 ||
        pid_text.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const long long number = std::stoll(pid_text);
    if (number <= 0 || number > std::numeric_limits<pid_t>::max()) continue;
    const auto pid = static_cast<pid_t>(number);
    // Alive (or not ours to signal): another writer may still be at work.
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    if (!entry.is_regular_file(ec)) continue;
    if (std::filesystem::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

void check_output_folder(const std::filesystem::path& folder, std::string_view option) {
  if (folder.empty()) fail(ErrorCategory::invalid_input, option, ": the folder name is empty");
  std::error_code ec;
  for (std::filesystem::path part = folder; !part.empty(); part = part.parent_path()) {
    const std::filesystem::file_status status = std::filesystem::status(part, ec);
    if (std::filesystem::is_directory(status)) return;  // the rest can be made below it
    if (std::filesystem::exists(status))
      fail(ErrorCategory::invalid_input, option, " '", folder.string(), "': '", part.string(),
           "' exists and is not a folder");
    if (part == part.parent_path()) break;  // the root
  }
}

void make_output_folder(const std::filesystem::path& folder, std::string_view option) {
  check_output_folder(folder, option);
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec)
    fail(ErrorCategory::io, option, " '", folder.string(),
         "': cannot create the folder: ", ec.message());
}

AtomicOutputFile::AtomicOutputFile(std::filesystem::path destination)
    : destination_(std::move(destination)), temporary_(temporary_name_for(destination_)) {
  if (destination_.empty()) fail(ErrorCategory::io, "output path is empty");
  std::filesystem::path folder = destination_.parent_path();
  if (folder.empty()) folder = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    fail(ErrorCategory::io, "cannot write '", destination_.string(), "': folder '", folder.string(),
         "' does not exist");
  }
  if (std::filesystem::is_directory(destination_, ec)) {
    fail(ErrorCategory::io, "cannot write '", destination_.string(), "': it is a folder");
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    fail(ErrorCategory::io, "cannot write '", destination_.string(), "': folder '", folder.string(),
         "' is not writable (", std::strerror(errno), ")");
  }
}

AtomicOutputFile::~AtomicOutputFile() {
  if (committed_) return;
  if (stream_.is_open()) stream_.close();
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

std::ofstream& AtomicOutputFile::stream() {
  if (!stream_.is_open()) {
    stream_.open(temporary_, std::ios::binary | std::ios::trunc);
    if (!stream_) {
      fail(ErrorCategory::io, "cannot open '", temporary_.string(), "' for writing (",
           std::strerror(errno), ")");
    }
  }
  return stream_;
}

namespace {

// The system's reason for the stream's failed write.
std::string why() {
  return errno != 0 ? std::strerror(errno) : "the stream reported an error";
}

}  // namespace

void AtomicOutputFile::commit() {
  if (committed_) return;
  if (stream_.is_open()) {
    // errno from the stream's failed write says why (a full disk: ENOSPC); the temporary is
    // removed by the destructor, so nothing is left under either name.
    stream_.flush();
    if (!stream_)
      fail(ErrorCategory::io, "writing '", destination_.string(), "' failed (", why(), ")");
    stream_.close();
    if (stream_.fail())
      fail(ErrorCategory::io, "closing '", destination_.string(), "' failed (", why(), ")");
  }
  std::error_code ec;
  if (!std::filesystem::exists(temporary_, ec)) {
    fail(ErrorCategory::io, "cannot finish '", destination_.string(),
         "': the writer produced no file");
  }
  std::filesystem::rename(temporary_, destination_, ec);
  if (ec) {
    fail(ErrorCategory::io, "cannot rename '", temporary_.string(), "' to '", destination_.string(),
         "': ", ec.message());
  }
  committed_ = true;
}

}  // namespace foehn
