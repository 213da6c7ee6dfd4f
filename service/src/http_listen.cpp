// The address and token side of the API (http_api.hpp): --listen parsing,
// what counts as loopback (serve's "off loopback needs --token-file" rule),
// the constant-time token comparison and reading --token-file.
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "proofpipe/common/safe_file.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/service/http_api.hpp"

namespace proofpipe::service {
namespace {

constexpr size_t kMaxTokenBytes = 4096;

}  // namespace

Result<std::pair<std::string, int>> parse_listen(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return make_error(ErrorCode::kInvalidArgument,
                      "--listen '{}': {} (expected ADDRESS:PORT, e.g. 127.0.0.1:7300 or [::1]:7300)", text, why);
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("no :PORT");
  std::string host(text.substr(0, colon));
  const std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  if (!parse_uint(port_text, &port) || port > 65535) return bad("the port is not a whole number from 0 to 65535");
  in6_addr a6{};
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    if (inet_pton(AF_INET6, host.c_str(), &a6) != 1) return bad("not an IPv6 address in the brackets");
  } else {
    in_addr a4{};
    if (inet_pton(AF_INET, host.c_str(), &a4) != 1)
      return bad(host.find(':') != std::string::npos ? "an IPv6 address goes in brackets"
                                                     : "not an IPv4 address (names are not resolved)");
  }
  return std::make_pair(std::move(host), int(port));
}

bool is_loopback(std::string_view host) {
  const std::string h(host);
  in_addr a4{};
  if (inet_pton(AF_INET, h.c_str(), &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
  in6_addr a6{};
  if (inet_pton(AF_INET6, h.c_str(), &a6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&a6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  // Every byte of b is looked at whatever a holds; no branch depends on a
  // byte's value. The lengths may show (a token's length is no secret).
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  for (size_t i = 0; i < b.size(); ++i) {
    const auto x = static_cast<unsigned char>(i < a.size() ? a[i] : 0);
    diff |= x ^ static_cast<unsigned char>(b[i]);
  }
  return diff == 0;
}

Result<std::string> read_token_file(const std::filesystem::path& path) {
  // O_NOFOLLOW: a link is refused, never followed; O_NONBLOCK: a FIFO is
  // refused below instead of blocking the open.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP)
      return make_error(ErrorCode::kInvalidArgument, "token file '{}' is a symbolic link", path.string());
    return make_error(err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo, "token file '{}': {}", path.string(),
                      std::strerror(err));
  }
  struct stat st {};
  std::string text(kMaxTokenBytes + 1, '\0');
  ssize_t got = -1;
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (regular) got = ::read(fd, text.data(), text.size());
  const int err = errno;
  ::close(fd);
  if (!regular)
    return make_error(ErrorCode::kInvalidArgument, "token file '{}' is a {}, not a regular file", path.string(),
                      file_kind(st.st_mode));
  // The file holds a secret: one another user wrote could hold a token they
  // chose, and one others can read has leaked it (the rule ssh keeps for
  // private keys). Checked on the opened file, so a swap cannot slip past.
  if (st.st_uid != ::geteuid())
    return make_error(ErrorCode::kPermissionDenied, "token file '{}' belongs to uid {}, not to this user ({})",
                      path.string(), st.st_uid, ::geteuid());
  if ((st.st_mode & 077) != 0)
    return make_error(ErrorCode::kPermissionDenied,
                      "token file '{}' can be read or written by others (mode {:04o}): chmod 600 it", path.string(),
                      st.st_mode & 07777);
  if (got < 0) return make_error(ErrorCode::kIo, "token file '{}': {}", path.string(), std::strerror(err));
  if (size_t(got) > kMaxTokenBytes)
    return make_error(ErrorCode::kInvalidArgument, "token file '{}' is larger than {} bytes", path.string(),
                      kMaxTokenBytes);
  text.resize(size_t(got));
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (text.empty()) return make_error(ErrorCode::kInvalidArgument, "token file '{}' is empty", path.string());
  for (char c : text) {
    if (c <= ' ' || c > '~')
      return make_error(ErrorCode::kInvalidArgument,
                        "token file '{}': the token has a space, control or non-ASCII character (one line of "
                        "printable ASCII)",
                        path.string());
  }
  return text;
}

}  // namespace proofpipe::service
