#include "foehn/runtime/hdf5_superblock.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string_view>
#include <system_error>

namespace foehn {

namespace {

constexpr std::string_view hdf5_signature("\x89HDF\r\n\x1a\n", 8);
constexpr std::uint64_t cut = ~std::uint64_t{0};

// The end-of-file address of a superblock at offset 0 (HDF5 File Format Specification,
// superblock versions 0 to 3, addresses little-endian), from the file's first bytes `head`:
// nothing when the address is undefined or the version unknown, `cut` when `head` ends first.
std::optional<std::uint64_t> stored_end_of_file(std::string_view head) {
  if (head.size() < 14) return cut;
  const auto version = static_cast<unsigned char>(head[8]);
  std::size_t offset_size = 0, address_at = 0;
  if (version <= 1) {  // byte 13: size of offsets; 24 (28): base, free-space, end addresses
    offset_size = static_cast<unsigned char>(head[13]);
    address_at = (version == 0 ? 24 : 28) + 2 * offset_size;
  } else if (version <= 3) {  // byte 9: size of offsets; 12: base, extension, end addresses
    offset_size = static_cast<unsigned char>(head[9]);
    address_at = 12 + 2 * offset_size;
  } else {
    return std::nullopt;
  }
  if (offset_size < 2 || offset_size > 8) return std::nullopt;
  if (head.size() < address_at + offset_size) return cut;
  std::uint64_t end = 0;
  bool undefined = true;  // all bits set
  for (std::size_t i = offset_size; i-- > 0;) {
    const auto byte = static_cast<unsigned char>(head[address_at + i]);
    end = end << 8 | byte;
    undefined = undefined && byte == 0xff;
  }
  if (undefined) return std::nullopt;
  return end;
}

// The file's first `count` bytes (fewer when it is shorter); empty when it cannot be read.
std::string file_head(const std::filesystem::path& file, std::size_t count) {
  std::ifstream in(file, std::ios::binary);
  std::string head(count, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return head;
}

}  // namespace

std::optional<int> hdf5_superblock_version(const std::filesystem::path& file) {
  const std::string head = file_head(file, hdf5_signature.size() + 1);
  if (head.size() <= hdf5_signature.size() || !head.starts_with(hdf5_signature))
    return std::nullopt;
  return static_cast<unsigned char>(head[hdf5_signature.size()]);
}

std::optional<std::string> hdf5_truncation(const std::filesystem::path& file) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(file, error);
  if (error || size == 0) return std::nullopt;
  const std::string head = file_head(file, 64);  // versions 0 to 3: the address before byte 60
  const bool signature_cut = head.size() < hdf5_signature.size();
  if (signature_cut ? !hdf5_signature.starts_with(head) : !head.starts_with(hdf5_signature))
    return std::nullopt;
  const std::optional<std::uint64_t> end = stored_end_of_file(head);
  if (end == cut)
    return "truncated: the file ends after " + std::to_string(size) + " bytes, inside its HDF5 " +
           (signature_cut ? "signature" : "superblock");
  if (end && *end > size)
    return "truncated: its HDF5 superblock puts the end of the file at byte " +
           std::to_string(*end) + ", the file has only " + std::to_string(size) + " bytes";
  return std::nullopt;
}

}  // namespace foehn
