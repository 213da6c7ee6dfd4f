// write_atomically_impl (bin_writer.hpp).
#include "bin_writer.hpp"

#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

namespace proofpipe::formats::detail {
namespace {
struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
}  // namespace

Status write_atomically_impl(const std::filesystem::path& path, const std::string& what,
                             void (*body)(BinWriter&, const void*), const void* ctx) {
  const std::filesystem::path tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  auto io_error = [&](const char* op, int err) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    return make_error(ErrorCode::kIo, "{}: {}: {}", what, op, std::strerror(err));
  };
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(tmp.c_str(), "wb"));
  if (!f) return make_error(ErrorCode::kIo, "{}: cannot create: {}", what, std::strerror(errno));
  std::setvbuf(f.get(), nullptr, _IOFBF, size_t(1) << 20);
  BinWriter out(f.get());
  body(out, ctx);
  if (out.error() != 0) return io_error("write", out.error());
  if (std::fflush(f.get()) != 0) return io_error("write", errno);
  std::FILE* raw = f.release();
  if (std::fclose(raw) != 0) return io_error("close", errno);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return io_error("rename", errno);
  return Status::ok();
}

}  // namespace proofpipe::formats::detail
