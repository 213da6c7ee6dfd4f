// hide_passwords (pg_secrets.hpp): where a connection string keeps its
// password, in the forms libpq takes (docs/scale-out.md).
#include "pg_secrets.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace proofpipe::service {
namespace {

std::string percent_decoded(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += char(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The passwords `conninfo` holds, as written (the URL's user:PASSWORD@, and
// every password=VALUE: up to '&', '#' or a space, or a quoted '...').
std::vector<std::string> passwords_in(std::string_view conninfo) {
  std::vector<std::string> out;
  if (const size_t scheme = conninfo.find("://"); scheme != std::string_view::npos) {
    const std::string_view rest = conninfo.substr(scheme + 3);
    const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
      const std::string_view userinfo = authority.substr(0, at);
      if (const size_t colon = userinfo.find(':'); colon != std::string_view::npos)
        out.emplace_back(userinfo.substr(colon + 1));
    }
  }
  for (size_t at = conninfo.find("password"); at != std::string_view::npos; at = conninfo.find("password", at + 1)) {
    // A parameter's own name: at the start, or after '?', '&' or a space
    // (not application_name=password=...).
    if (at > 0 && std::string_view("?& \t").find(conninfo[at - 1]) == std::string_view::npos) continue;
    size_t i = at + 8;
    while (i < conninfo.size() && conninfo[i] == ' ') ++i;
    if (i >= conninfo.size() || conninfo[i] != '=') continue;
    ++i;
    while (i < conninfo.size() && conninfo[i] == ' ') ++i;
    size_t end = i;
    if (i < conninfo.size() && conninfo[i] == '\'') {
      for (end = i + 1; end < conninfo.size() && conninfo[end] != '\''; ++end)
        if (conninfo[end] == '\\') ++end;
      out.emplace_back(conninfo.substr(i + 1, std::min(end, conninfo.size()) - i - 1));
      out.emplace_back(conninfo.substr(i, std::min(end + 1, conninfo.size()) - i));
      continue;
    }
    while (end < conninfo.size() && conninfo[end] != '&' && conninfo[end] != '#' && conninfo[end] != ' ') ++end;
    out.emplace_back(conninfo.substr(i, end - i));
  }
  const size_t given = out.size();
  for (size_t k = 0; k < given; ++k) out.push_back(percent_decoded(out[k]));
  // Longest first, so a password that holds another is hidden whole.
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return out;
}

}  // namespace

std::string hide_passwords(std::string text, std::string_view conninfo) {
  for (const std::string& secret : passwords_in(conninfo)) {
    if (secret.empty()) continue;
    for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3))
      text.replace(at, secret.size(), "***");
  }
  return text;
}

}  // namespace proofpipe::service
