#pragma once
// Output files are written under a temporary name in the destination folder and renamed into
// place only when complete, so an interrupted run never leaves a half-written file behind.

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace foehn {

// Makes `folder` and its parents for outputs. A path (or a parent) that exists as something
// other than a folder is the user's input: foehn::Error(invalid_input) naming `option` (e.g.
// "-output_dir") and the path; any other failure (no permission) is io, named the same way.
void make_output_folder(const std::filesystem::path& folder, std::string_view option);
// The check of make_output_folder alone, made nothing: for options read before any work.
void check_output_folder(const std::filesystem::path& folder, std::string_view option);

// Removes what interrupted writers left in `folder` (not its subfolders): files named
// "<name>.tmp.<pid>" whose process no longer runs on this host. A restart calls it, so that a
// run killed mid-write leaves nothing behind once it is resumed. Returns how many it removed;
// a file it cannot remove is left (never an error: the outputs are still right).
int remove_abandoned_temporaries(const std::filesystem::path& folder);

class AtomicOutputFile {
 public:
  // Checks that the destination folder exists and is writable; throws foehn::Error (io)
  // naming the path otherwise.
  explicit AtomicOutputFile(std::filesystem::path destination);
  ~AtomicOutputFile();  // removes the temporary file unless commit() succeeded
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  // Where a writer (our own stream or a library such as VTK) must write.
  const std::filesystem::path& temporary_path() const noexcept { return temporary_; }
  const std::filesystem::path& destination() const noexcept { return destination_; }

  // Opens the temporary file as a binary stream (for writers of our own).
  std::ofstream& stream();

  // Flushes and closes the stream (if opened), checks the temporary file exists and renames
  // it over the destination. Throws foehn::Error (io) on any failure.
  void commit();

 private:
  std::filesystem::path destination_;
  std::filesystem::path temporary_;
  std::ofstream stream_;
  bool committed_ = false;
};

}  // namespace foehn
