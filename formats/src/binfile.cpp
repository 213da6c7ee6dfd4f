// BinFile section-table walk and the bounds-checked Cursor.
#include "proofpipe/formats/binfile.hpp"

namespace proofpipe::formats {

namespace {

// Little-endian loads from a span position already known to be in range.
uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // hosts are little-endian (x86-64, aarch64)
  return v;
}
uint64_t load_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

bool printable_ascii(std::span<const uint8_t> b) {
  for (uint8_t c : b) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace

Result<std::span<const uint8_t>> Cursor::bytes(uint64_t n, const char* field) {
  if (n > remaining()) {
    return make_error(ErrorCode::kBadFormat, "{}: truncated: {} needs {} bytes at offset {}, only {} left", what_,
                      field, n, pos_, remaining());
  }
  auto out = data_.subspan(pos_, n);
  pos_ += n;
  return out;
}

Result<uint32_t> Cursor::u32(const char* field) {
  auto b = bytes(4, field);
  if (!b.is_ok()) return b.status();
  return load_u32(b->data());
}

Result<uint64_t> Cursor::u64(const char* field) {
  auto b = bytes(8, field);
  if (!b.is_ok()) return b.status();
  return load_u64(b->data());
}

Status Cursor::expect_end() const {
  if (remaining() != 0) {
    return make_error(ErrorCode::kBadFormat, "{}: {} unexpected trailing bytes at offset {}", what_, remaining(), pos_);
  }
  return Status::ok();
}

Result<BinFile> BinFile::parse(std::span<const uint8_t> bytes, std::string_view magic, uint32_t version,
                               std::string what) {
  BinFile f;
  f.bytes_ = bytes;
  f.what_ = std::move(what);
  if (bytes.size() < 4) {
    return f.error("truncated: {} bytes, too short for the magic '{}'", bytes.size(), magic);
  }
  auto got_magic = bytes.first(4);
  if (magic.size() != 4 || std::memcmp(got_magic.data(), magic.data(), 4) != 0) {
    if (printable_ascii(got_magic)) {
      return f.error("bad magic '{}', expected '{}'",
                     std::string_view(reinterpret_cast<const char*>(got_magic.data()), 4), magic);
    }
    return f.error("bad magic {:02x} {:02x} {:02x} {:02x}, expected '{}'", got_magic[0], got_magic[1], got_magic[2],
                   got_magic[3], magic);
  }
  Cursor c(bytes, f.what_);
  PP_RETURN_IF_ERROR(c.skip(4, "magic"));
  PP_ASSIGN_OR_RETURN(f.version_, c.u32("version"));
  if (f.version_ != version) {
    return f.error("unsupported {} version {} (expected {})", magic, f.version_, version);
  }
  PP_ASSIGN_OR_RETURN(uint32_t n_sections, c.u32("nSections"));
  // Each section costs at least its 12-byte header: a count beyond that is a
  // corrupt table, caught before reserving anything.
  if (n_sections > c.remaining() / 12) {
    return f.error("truncated: header claims {} sections, the file has room for at most {}", n_sections,
                   c.remaining() / 12);
  }
  f.sections_.reserve(n_sections);
  for (uint32_t i = 0; i < n_sections; ++i) {
    BinSection s;
    s.header_offset = c.offset();
    PP_ASSIGN_OR_RETURN(s.type, c.u32("section type"));
    PP_ASSIGN_OR_RETURN(s.size, c.u64("section size"));
    s.data_offset = c.offset();
    if (s.size > c.remaining()) {
      return f.error("truncated: section {} (#{} at offset {}) claims {} bytes, only {} left in the file", s.type,
                     i + 1, s.header_offset, s.size, c.remaining());
    }
    if (f.find(s.type) != nullptr) {
      return f.error("duplicate section {} at offset {}", s.type, s.header_offset);
    }
    PP_RETURN_IF_ERROR(c.skip(s.size, "section data"));
    f.sections_.push_back(s);
  }
  if (c.remaining() != 0) {
    return f.error("{} unexpected bytes after the last section (offset {})", c.remaining(), c.offset());
  }
  return f;
}

const BinSection* BinFile::find(uint32_t type) const {
  for (const auto& s : sections_) {
    if (s.type == type) return &s;
  }
  return nullptr;
}

Result<std::span<const uint8_t>> BinFile::section(uint32_t type) const {
  const BinSection* s = find(type);
  if (s == nullptr) return error("section {} is missing", type);
  // parse() proved data_offset + size <= bytes_.size(); subspan re-checks nothing.
  return bytes_.subspan(s->data_offset, s->size);
}

Result<std::span<const uint8_t>> BinFile::section(uint32_t type, uint64_t expected_size) const {
  PP_ASSIGN_OR_RETURN(auto data, section(type));
  if (data.size() != expected_size) {
    return error("section {} is {} bytes, expected {}", type, data.size(), expected_size);
  }
  return data;
}

Result<Cursor> BinFile::cursor(uint32_t type) const {
  PP_ASSIGN_OR_RETURN(auto data, section(type));
  return Cursor(data, fmt::format("{} section {}", what_, type));
}

}  // namespace proofpipe::formats
