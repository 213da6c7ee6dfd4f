// The multipart/form-data parser of POST /v1/jobs (service/src/http_form.hpp):
// the boundary from the Content-Type (quoted or not), parts as views into
// the body, binary content with CRLFs in it, and the malformed and
// over-limit forms it refuses (each one line naming what is wrong).
#include <gtest/gtest.h>

#include <string>

#include "http_form.hpp"

namespace proofpipe::test {
namespace {

using service::FormPart;
using service::parse_form;

std::string part(const std::string& name, const std::string& content, const std::string& filename = "") {
  std::string p = "--XyZ\r\nContent-Disposition: form-data; name=\"" + name + "\"";
  if (!filename.empty()) p += "; filename=\"" + filename + "\"\r\nContent-Type: application/octet-stream";
  return p + "\r\n\r\n" + content + "\r\n";
}

TEST(HttpForm, BoundaryComesFromTheContentType) {
  EXPECT_EQ(service::form_boundary("multipart/form-data; boundary=XyZ"), "XyZ");
  EXPECT_EQ(service::form_boundary("multipart/form-data; boundary=\"a b\""), "a b");
  EXPECT_EQ(service::form_boundary("Multipart/Form-Data;boundary=q"), "q");
  EXPECT_EQ(service::form_boundary("application/json"), "");
  EXPECT_EQ(service::form_boundary("multipart/form-data"), "");
}

TEST(HttpForm, PartsAreViewsOfTheirExactBytes) {
  const std::string binary("\r\n--Xy\0\r\n\r\nend", 16);
  const std::string body = "preamble\r\n" + part("key", "k") + part("witness", binary, "w0.wtns") + "--XyZ--\r\n";
  const auto parts = parse_form(body, "XyZ");
  ASSERT_TRUE(parts.is_ok()) << parts.status().to_string();
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].name, "key");
  EXPECT_EQ((*parts)[0].filename, "");
  EXPECT_EQ((*parts)[0].content, "k");
  EXPECT_EQ((*parts)[1].filename, "w0.wtns");
  EXPECT_EQ((*parts)[1].content, binary);
  EXPECT_GE((*parts)[1].content.data(), body.data());  // a view, not a copy
  EXPECT_LT((*parts)[1].content.data(), body.data() + body.size());
}

TEST(HttpForm, MalformedFormsAreOneLineNamingTheProblem) {
  const std::pair<std::string, const char*> bad[] = {
      {part("key", "k"), "does not end with the boundary"},  // no closing delimiter
      {"no boundary at all", "never appears"},
      {"--XyZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XyZ--", "no name"},
      {"--XyZ\r\nContent-Disposition: form-data; name=\"a\"", "headers do not end"},
      {"--XyZ junk", "CRLF"},
  };
  for (const auto& [body, words] : bad) {
    const auto r = parse_form(body, "XyZ");
    ASSERT_FALSE(r.is_ok()) << body;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(words), std::string::npos) << r.status().message();
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  }
  EXPECT_FALSE(parse_form("--\r\n", "").is_ok());  // no boundary
}

TEST(HttpForm, FilesAndFieldsAreCounted) {
  std::string files;
  for (size_t i = 0; i <= service::kMaxFormFiles; ++i) files += part("witness", "w", "w" + std::to_string(i) + ".wtns");
  const auto over = parse_form(files + "--XyZ--", "XyZ");
  ASSERT_FALSE(over.is_ok());
  EXPECT_EQ(over.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(over.status().message().find("1024 files"), std::string::npos) << over.status().message();
  std::string fields;
  for (size_t i = 0; i <= service::kMaxFormFields; ++i) fields += part("f" + std::to_string(i), "v");
  const auto many = parse_form(fields + "--XyZ--", "XyZ");
  ASSERT_FALSE(many.is_ok());
  EXPECT_EQ(many.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace proofpipe::test
