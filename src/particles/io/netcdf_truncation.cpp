#include "netcdf_truncation.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string_view>
#include <system_error>
#include <vector>

#include "foehn/runtime/error.hpp"
#include "foehn/runtime/hdf5_superblock.hpp"

namespace foehn::particles::netcdf {

namespace {

// netCDF-3 header layout (NetCDF User Guide, "File Format Specification"): big-endian,
//   magic "CDF" version (1 classic, 2 64-bit offset, 5 CDF-5), numrecs,
//   dimension list, global attribute list, variable list;
// a list is a 4-byte tag and a count, or two zeros when absent; counts, lengths and dimension
// ids are 4 bytes (8 in CDF-5); names and attribute values are padded to 4 bytes; a variable
// ends with its type (4 bytes), vsize and begin (4 bytes in classic, 8 otherwise).
constexpr std::uint64_t tag_dimension = 0x0A;
constexpr std::uint64_t tag_variable = 0x0B;
constexpr std::uint64_t tag_attribute = 0x0C;
constexpr std::uint64_t saturated = std::numeric_limits<std::uint64_t>::max();

// Sizes computed from a corrupt header may overflow; saturating keeps them above any real file
// size, so such a header reads as "needs more bytes than the file has".
std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  return a > saturated - b ? saturated : a + b;
}
std::uint64_t multiply(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > saturated / b ? saturated : a * b;
}
std::uint64_t padded_to_4(std::uint64_t bytes) {
  return add(bytes, (4 - bytes % 4) % 4);
}

// The header needs bytes past the end of the file.
struct HeaderCut {
  std::uint64_t needed;
};
// The header says something libnetcdf itself would refuse.
struct HeaderCorrupt {
  std::string what;
};

// Sequential reads of a file's first bytes, each checked against the file's size.
class HeaderReader {
 public:
  HeaderReader(const std::filesystem::path& path, std::uint64_t size)
      : in_(path, std::ios::binary), size_(size) {
    if (!in_) fail(ErrorCategory::io, path.string(), ": cannot open to check its length");
  }

  void skip(std::uint64_t bytes) {
    require(bytes);
    in_.seekg(static_cast<std::streamoff>(position_ + bytes));
    position_ += bytes;
  }

  std::string bytes(std::uint64_t count) {
    require(count);
    std::string text(static_cast<std::size_t>(count), '\0');
    in_.read(text.data(), static_cast<std::streamsize>(count));
    if (static_cast<std::uint64_t>(in_.gcount()) != count) throw HeaderCut{position_ + count};
    position_ += count;
    return text;
  }

  // A big-endian unsigned integer of `width` bytes (4 or 8).
  std::uint64_t number(int width) {
    const std::string raw = bytes(static_cast<std::uint64_t>(width));
    std::uint64_t value = 0;
    for (const char byte : raw) value = value << 8 | static_cast<unsigned char>(byte);
    return value;
  }

 private:
  void require(std::uint64_t count) const {
    if (count > size_ - position_) throw HeaderCut{add(position_, count)};
  }

  std::ifstream in_;
  std::uint64_t size_;
  std::uint64_t position_ = 0;
};

struct Netcdf3Variable {
  std::string name;
  std::vector<std::uint64_t> dimensions;
  std::uint64_t value_size = 0;  // bytes of one value in the file
  std::uint64_t begin = 0;       // file offset of its data (its first record's, for records)
};

struct Netcdf3Header {
  int version = 0;
  std::uint64_t records = 0;
  std::vector<std::uint64_t> dimension_lengths;  // 0: the record (unlimited) dimension
  std::vector<Netcdf3Variable> variables;
};

std::uint64_t value_size(std::uint64_t type, int version) {
  // NC_BYTE .. NC_DOUBLE in every version; NC_UBYTE .. NC_UINT64 only in CDF-5.
  constexpr std::array<std::uint64_t, 12> sizes{0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
  if (type == 0 || type >= sizes.size() || (version != 5 && type > 6)) {
    throw HeaderCorrupt{"unknown netCDF type " + std::to_string(type)};
  }
  return sizes[type];
}

class Netcdf3HeaderParser {
 public:
  explicit Netcdf3HeaderParser(HeaderReader& in) : in_(in) {}

  Netcdf3Header parse() {
    const std::string magic = in_.bytes(4);
    header_.version = magic[3];
    if (magic.compare(0, 3, "CDF") != 0 ||
        (header_.version != 1 && header_.version != 2 && header_.version != 5)) {
      throw HeaderCorrupt{"not a netCDF-3 file"};
    }
    header_.records = count();
    for (std::uint64_t n = list(tag_dimension, "dimension"), d = 0; d < n; ++d) {
      name();
      header_.dimension_lengths.push_back(count());
    }
    attributes();
    for (std::uint64_t n = list(tag_variable, "variable"), v = 0; v < n; ++v) variable();
    return std::move(header_);
  }

 private:
  // Counts, lengths and dimension ids: 4 bytes, 8 in CDF-5.
  std::uint64_t count() { return in_.number(header_.version == 5 ? 8 : 4); }

  // The number of entries of a list with `tag`. Like libnetcdf, an empty list is absent
  // whatever its tag says.
  std::uint64_t list(std::uint64_t tag, const char* what) {
    const std::uint64_t found = in_.number(4);
    const std::uint64_t entries = count();
    if (entries != 0 && found != tag) {
      throw HeaderCorrupt{std::string("bad tag of the ") + what + " list"};
    }
    return entries;
  }

  // Names are kept for messages, so a corrupt length must not allocate the whole file.
  std::string name() {
    constexpr std::uint64_t longest_kept = 256;  // NC_MAX_NAME
    const std::uint64_t length = count();
    std::string text = in_.bytes(std::min(length, longest_kept));
    in_.skip(padded_to_4(length) - text.size());
    return text;
  }

  void attributes() {
    for (std::uint64_t n = list(tag_attribute, "attribute"), a = 0; a < n; ++a) {
      name();
      const std::uint64_t size = value_size(in_.number(4), header_.version);
      in_.skip(padded_to_4(multiply(count(), size)));
    }
  }

  void variable() {
    Netcdf3Variable v;
    v.name = name();
    const std::uint64_t rank = count();
    for (std::uint64_t d = 0; d < rank; ++d) {
      const std::uint64_t dimension = count();
      if (dimension >= header_.dimension_lengths.size()) {
        throw HeaderCorrupt{"variable '" + v.name + "' refers to a missing dimension"};
      }
      v.dimensions.push_back(dimension);
    }
    attributes();
    v.value_size = value_size(in_.number(4), header_.version);
    (void)count();  // vsize: recomputed from the shape below, as libnetcdf does
    v.begin = in_.number(header_.version == 1 ? 4 : 8);
    header_.variables.push_back(std::move(v));
  }

  HeaderReader& in_;
  Netcdf3Header header_;
};

bool is_record_variable(const Netcdf3Header& header, const Netcdf3Variable& v) {
  return !v.dimensions.empty() && header.dimension_lengths[v.dimensions.front()] == 0;
}

// Bytes of a fixed-size variable, or of one record of a record variable, unpadded.
std::uint64_t data_bytes(const Netcdf3Header& header, const Netcdf3Variable& v) {
  std::uint64_t values = 1;
  for (std::size_t d = is_record_variable(header, v) ? 1 : 0; d < v.dimensions.size(); ++d) {
    values = multiply(values, header.dimension_lengths[v.dimensions[d]]);
  }
  return multiply(values, v.value_size);
}

// Distance between two records of a variable: every record variable's padded record, except
// that a file with one record variable packs its records (libnetcdf's NC_computeshapes).
std::uint64_t record_size(const Netcdf3Header& header) {
  std::uint64_t size = 0;
  const Netcdf3Variable* first = nullptr;
  for (const Netcdf3Variable& v : header.variables) {
    if (!is_record_variable(header, v)) continue;
    if (first == nullptr) first = &v;
    size = add(size, padded_to_4(data_bytes(header, v)));
  }
  if (first != nullptr && size == padded_to_4(data_bytes(header, *first))) {
    size = data_bytes(header, *first);
  }
  return size;
}

std::uint64_t size_of(const std::filesystem::path& path) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) fail(ErrorCategory::io, path.string(), ": cannot read its size: ", error.message());
  return size;
}

std::string bytes_text(std::uint64_t count) {
  return std::to_string(count) + (count == 1 ? " byte" : " bytes");
}

std::string header_cut(std::uint64_t needed, std::uint64_t size) {
  return "truncated: its netCDF-3 header runs past the end of the file (it needs at least " +
         std::to_string(needed) + " bytes, the file has " + std::to_string(size) + ")";
}

// The first bytes of a file, fewer when it is shorter.
std::string head_of(const std::filesystem::path& path, std::size_t count) {
  std::ifstream in(path, std::ios::binary);
  std::string head(count, '\0');
  in.read(head.data(), static_cast<std::streamsize>(count));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return head;
}

}  // namespace

void require_complete_netcdf3_file(const std::filesystem::path& path) {
  const std::uint64_t size = size_of(path);
  HeaderReader in(path, size);
  Netcdf3Header header;
  try {
    header = Netcdf3HeaderParser(in).parse();
  } catch (const HeaderCut& cut) {
    fail(ErrorCategory::invalid_input, path.string(), ": ", header_cut(cut.needed, size));
  } catch (const HeaderCorrupt& corrupt) {
    fail(ErrorCategory::invalid_input, path.string(), ": corrupt netCDF-3 header (", corrupt.what,
         ")");
  }
  const std::uint64_t record_stride = record_size(header);
  // In file order: the message names the first variable the cut reaches.
  const Netcdf3Variable* cut = nullptr;
  std::uint64_t cut_end = 0;
  for (const Netcdf3Variable& v : header.variables) {
    const std::uint64_t bytes = data_bytes(header, v);
    const bool record = is_record_variable(header, v);
    if (bytes == 0 || (record && header.records == 0)) continue;
    const std::uint64_t end =
        record ? add(add(v.begin, multiply(header.records - 1, record_stride)), bytes)
               : add(v.begin, bytes);
    if (end > size && (cut == nullptr || v.begin < cut->begin)) {
      cut = &v;
      cut_end = end;
    }
  }
  if (cut == nullptr) return;
  std::string detail;
  if (is_record_variable(header, *cut)) {
    const std::uint64_t bytes = data_bytes(header, *cut);
    const std::uint64_t whole_records =
        size < add(cut->begin, bytes) ? 0 : (size - cut->begin - bytes) / record_stride + 1;
    detail = ", with " + std::to_string(whole_records) + " of its " +
             std::to_string(header.records) + " records complete";
  }
  fail(ErrorCategory::invalid_input, path.string(), ": truncated: the data of variable '",
       cut->name, "' end at byte ", cut_end, " but the file has only ", size, " bytes", detail,
       " (netCDF would read the missing bytes as zeros)");
}

std::optional<std::string> describe_truncation(const std::filesystem::path& path) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return std::nullopt;
  // Superblock versions 0 and 1 end their end-of-file address before byte 60.
  const std::string head = head_of(path, 64);
  if (head.empty()) return "the file is empty";
  if (head.size() < 4 && std::string_view("CDF").starts_with(head)) {
    return "truncated: the file ends after " + bytes_text(size) + ", inside the netCDF-3 magic";
  }
  if (head.starts_with("CDF")) {
    try {
      HeaderReader in(path, size);
      (void)Netcdf3HeaderParser(in).parse();
    } catch (const HeaderCut& cut) {
      return header_cut(cut.needed, size);
    } catch (const HeaderCorrupt&) {
      return std::nullopt;  // netCDF's own message says more
    }
    return std::nullopt;
  }
  return hdf5_truncation(path);
}

}  // namespace foehn::particles::netcdf
