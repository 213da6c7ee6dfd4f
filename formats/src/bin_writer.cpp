// write_atomically_impl (bin_writer.hpp).
#include "bin_writer.hpp"

#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

#include "proofpipe/common/safe_file.hpp"

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
  // The temporary is created by PendingFile (exclusive, never through a
  // link); the buffered stream writes through a duplicate of its descriptor.
  PP_ASSIGN_OR_RETURN(PendingFile file, PendingFile::create(path, what));
  auto io_error = [&](const char* op, int err) {
    return make_error(ErrorCode::kIo, "cannot write {} '{}': {} failed: {}", what, path.string(), op,
                      std::strerror(err));
  };
  const int fd = ::dup(file.fd());
  if (fd < 0) return io_error("dup", errno);
  std::unique_ptr<std::FILE, FileCloser> f(::fdopen(fd, "wb"));
  if (!f) {
    const int err = errno;
    ::close(fd);
    return io_error("fdopen", err);
  }
  std::setvbuf(f.get(), nullptr, _IOFBF, size_t(1) << 20);
  BinWriter out(f.get());
  body(out, ctx);
  if (out.error() != 0) return io_error("write", out.error());
  if (std::fflush(f.get()) != 0) return io_error("write", errno);
  std::FILE* raw = f.release();
  if (std::fclose(raw) != 0) return io_error("close", errno);
  return file.commit();
}

}  // namespace proofpipe::formats::detail
