// The HTTP API (proofpipe/service/http_api.hpp) over real HTTP on 127.0.0.1 against
// a FakeCore: every route and status code of docs/api.md — idempotent 200 and
// conflicting 409 submissions, multipart uploads, strict JSON (400), the body
// limit (413), the token (401), readiness (503), 404 and 405.
#include <gtest/gtest.h>

#include <thread>

#include "proofpipe/service/job_json.hpp"
#include "support/api_fixture.hpp"

namespace proofpipe::test {
namespace {

using nlohmann::json;

TEST_F(ApiTest, SubmitJsonCreatesThenSameContentIs200AndOtherContentIs409) {
  const std::string body = R"({"id":"j1","key":"k","witnesses":["/w/a.wtns","/w/b.wtns"],"priority":5})";
  const auto first = post_json(body);
  ASSERT_EQ(status_of(first), 201) << first->body;
  EXPECT_EQ(first->get_header_value("Location"), "/v1/jobs/j1");
  const json j = body_of(first);
  EXPECT_EQ(j["id"], "j1");
  EXPECT_EQ(j["priority"], 5);
  EXPECT_EQ(j["state"], "queued");
  ASSERT_EQ(j["partitions"].size(), 2u);
  EXPECT_EQ(j["partitions"][1]["name"], "b");

  const auto again = post_json(body);
  ASSERT_EQ(status_of(again), 200) << again->body;
  EXPECT_EQ(body_of(again)["id"], "j1");

  const auto other = post_json(R"({"id":"j1","key":"k","witnesses":["/w/a.wtns"],"priority":5})");
  ASSERT_EQ(status_of(other), 409) << other->body;
  const json c = body_of(other);
  EXPECT_EQ(c["id"], "j1");
  EXPECT_NE(c["error"].get<std::string>().find("'j1'"), std::string::npos) << c;

  ASSERT_EQ(core.submitted().size(), 3u);
  EXPECT_EQ(core.submitted()[0].paths, (std::vector<std::string>{"/w/a.wtns", "/w/b.wtns"}));
  EXPECT_EQ(core.submitted()[0].priority, 5);
}

TEST_F(ApiTest, SubmitWithoutIdGetsOneFromTheCore) {
  const auto r = post_json(R"({"key":"k","witnesses":["/w/a.wtns"]})");
  ASSERT_EQ(status_of(r), 201) << r->body;
  EXPECT_EQ(body_of(r)["id"], "job-1");
  EXPECT_FALSE(core.submitted().at(0).id.has_value());
  EXPECT_EQ(core.submitted().at(0).priority, 0);
}

TEST_F(ApiTest, MultipartWithTwoFilesBecomesTwoUploads) {
  const std::string a(3000, 'a'), b = std::string("\0\1binary\xff", 10);
  const httplib::MultipartFormDataItems items = {
      {"id", "up1", "", ""},
      {"key", "k", "", ""},
      {"priority", "-3", "", ""},
      {"witness", a, "w00.wtns", "application/octet-stream"},
      {"witness", b, "w01.wtns", "application/octet-stream"},
  };
  const auto r = client->Post("/v1/jobs", items);
  ASSERT_EQ(status_of(r), 201) << r->body;
  const auto req = core.submitted().at(0);
  EXPECT_EQ(req.id, "up1");
  EXPECT_EQ(req.key, "k");
  EXPECT_EQ(req.priority, -3);
  EXPECT_TRUE(req.paths.empty());
  ASSERT_EQ(req.uploads.size(), 2u);
  EXPECT_EQ(req.uploads[0].filename, "w00.wtns");
  EXPECT_EQ(req.uploads[0].bytes, a);
  EXPECT_EQ(req.uploads[1].filename, "w01.wtns");
  EXPECT_EQ(req.uploads[1].bytes, b);
  EXPECT_EQ(body_of(r)["partitions"].size(), 2u);
}

TEST_F(ApiTest, MalformedOrLooselyTypedSubmissionsAre400WithoutCallingTheCore) {
  const char* bad[] = {
      "{",                                                                 // not JSON
      "[]",                                                                // not an object
      R"({"key":"k","witnesses":["/a"],"priority":NaN})",                  // NaN is no JSON
      R"({"key":"k","witnesses":["/a"],"priority":1.5})",                  // not an integer
      R"({"key":"k","witnesses":["/a"],"priority":1.0})",                  // a float, even if whole
      R"({"key":"k","witnesses":["/a"],"priority":"1"})",                  // a string
      R"({"key":"k","witnesses":["/a"],"priority":9223372036854775808})",  // 2^63
      R"({"key":"k","witnesses":"/a"})",                                   // not a list
      R"({"key":"k","witnesses":[1]})",                                    // not strings
      R"({"key":"k","witnesses":[]})",                                     // empty
      R"({"key":"k"})",                                                    // no witnesses
      R"({"witnesses":["/a"]})",                                           // no key
      R"({"key":7,"witnesses":["/a"]})",                                   // key not a string
      R"({"key":"k","witnesses":["/a"],"id":"a/b"})",                      // id with a slash
      R"({"key":"k","witnesses":["/a"],"id":".."})",                       // id ..
      R"({"key":"k","witnesses":["/a"],"id":null})",                       // id null
      R"({"key":"k","witnesses":["/a"],"colour":"red"})",                  // unknown field
  };
  for (const char* body : bad) {
    SCOPED_TRACE(body);
    EXPECT_EQ(status_of(post_json(body)), 400);
  }
  const auto r = post_json(R"({"key":"k","witnesses":["/a"],"colour":"red"})");
  EXPECT_NE(body_of(r)["error"].get<std::string>().find("colour"), std::string::npos);
  // Multipart: an unknown field, a priority that is no integer, a value given twice, no file name.
  using Part = httplib::MultipartFormData;
  const std::pair<Part, Part> forms[] = {
      {{"key", "k", "", ""}, {"colour", "red", "", ""}},
      {{"key", "k", "", ""}, {"priority", "1.5", "", ""}},
      {{"key", "k", "", ""}, {"key", "k2", "", ""}},
      {{"key", "k", "", ""}, {"witness", "x", "", ""}},
  };
  for (const auto& [a, b] : forms) {
    const httplib::MultipartFormDataItems items = {a, b, {"witness", "w", "w.wtns", ""}};
    EXPECT_EQ(status_of(client->Post("/v1/jobs", items)), 400) << b.name << "=" << b.content;
  }
  EXPECT_TRUE(core.submitted().empty());
  // Neither JSON nor a form.
  EXPECT_EQ(status_of(client->Post("/v1/jobs", "key=k", "text/plain")), 415);
}

TEST_F(ApiTest, CoreErrorsMapToStatuses) {
  const std::pair<ErrorCode, int> cases[] = {
      {ErrorCode::kInvalidArgument, 400},
      {ErrorCode::kBadFormat, 400},
      {ErrorCode::kNotFound, 400},
      {ErrorCode::kPermissionDenied, 403},
      {ErrorCode::kUnavailable, 503},
      {ErrorCode::kResourceExhausted, 413},
      {ErrorCode::kIo, 500},
      {ErrorCode::kInternal, 500},
  };
  for (const auto& [code, status] : cases) {
    core.set_submit_error(Status(code, "witness 'w.wtns': line one\nline two"));
    const auto r = post_json(R"({"key":"k","witnesses":["/a"]})");
    EXPECT_EQ(status_of(r), status) << error_code_name(code);
    EXPECT_EQ(body_of(r)["error"], "witness 'w.wtns': line one line two");
    // "Try again later" says when (docs/api.md): a full state disk at intake among them.
    if (r) {
      EXPECT_EQ(r->get_header_value("Retry-After"), status == 503 ? "1" : "") << error_code_name(code);
    }
  }
}

TEST_F(ApiTest, GetListCancelAndKeys) {
  ASSERT_EQ(status_of(post_json(R"({"id":"a","key":"k","witnesses":["/w/x.wtns"]})")), 201);
  ASSERT_EQ(status_of(post_json(R"({"id":"b","key":"k","witnesses":["/w/y.wtns"]})")), 201);
  const auto one = client->Get("/v1/jobs/a");
  ASSERT_EQ(status_of(one), 200);
  const auto job = service::job_from_json(body_of(one));
  ASSERT_TRUE(job.is_ok()) << job.status().to_string();
  EXPECT_EQ(job->id, "a");
  EXPECT_EQ(job->partitions.size(), 1u);

  const auto all = client->Get("/v1/jobs");
  ASSERT_EQ(status_of(all), 200);
  const json list = body_of(all)["jobs"];
  ASSERT_EQ(list.size(), 2u);
  EXPECT_FALSE(list[0].contains("partitions"));
  // Written a job at a time, the answer is the same text as the whole tree's.
  EXPECT_EQ(all->body, service::dump_json(json{{"jobs", list}}) + "\n");
  EXPECT_EQ(body_of(client->Get("/v1/jobs?limit=1"))["jobs"].size(), 1u);

  const auto cancelled = client->Delete("/v1/jobs/b");
  ASSERT_EQ(status_of(cancelled), 200);
  EXPECT_EQ(body_of(cancelled)["state"], "cancelled");
  EXPECT_EQ(body_of(cancelled)["partitions"][0]["state"], "cancelled");
  const json only = body_of(client->Get("/v1/jobs?state=cancelled"))["jobs"];
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0]["id"], "b");

  for (const char* q :
       {"?state=sleeping", "?limit=0", "?limit=x", "?limit=10001", "?colour=red", "?state=done&state=failed"}) {
    EXPECT_EQ(status_of(client->Get((std::string("/v1/jobs") + q).c_str())), 400) << q;
  }

  service::KeyInfo k{"main", "/keys/main.zkey", "bls12381", 65536, 65600, 2, 65536, 123456, 7890};
  core.set_keys({k});
  const auto keys = client->Get("/v1/keys");
  ASSERT_EQ(status_of(keys), 200);
  const auto back = service::key_from_json(body_of(keys)["keys"].at(0));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->name, "main");
  EXPECT_EQ(back->slot_bytes, 7890u);
  EXPECT_EQ(back->constraints, 65536u);
}

TEST_F(ApiTest, ProofIsTheStoredJsonEmbeddedInOrder) {
  ASSERT_EQ(status_of(post_json(R"({"id":"p","key":"k","witnesses":["/w/w00.wtns"]})")), 201);
  const std::string proof = "{\n \"pi_a\": [\n  \"1\"\n ],\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}";
  core.put_proof("p", "w00", {proof, "[\n \"7\"\n]"});
  const auto r = client->Get("/v1/jobs/p/proofs/w00");
  ASSERT_EQ(status_of(r), 200) << r->body;
  const auto j = nlohmann::ordered_json::parse(r->body);
  EXPECT_EQ(j["proof"].dump(1), proof);  // snarkjs's key order kept: pi_a, protocol, curve
  EXPECT_EQ(j["public"], nlohmann::ordered_json::array({"7"}));

  core.put_proof("p", "bad", {"{not json", "[]"});
  EXPECT_EQ(status_of(client->Get("/v1/jobs/p/proofs/bad")), 500);
}

TEST_F(ApiTest, UnknownJobsProofsAndRoutesAre404) {
  ASSERT_EQ(status_of(post_json(R"({"id":"p","key":"k","witnesses":["/w/w00.wtns"]})")), 201);
  const auto no_job = client->Get("/v1/jobs/nope");
  EXPECT_EQ(status_of(no_job), 404);
  EXPECT_NE(body_of(no_job)["error"].get<std::string>().find("'nope'"), std::string::npos);
  EXPECT_EQ(status_of(client->Delete("/v1/jobs/nope")), 404);
  EXPECT_EQ(status_of(client->Get("/v1/jobs/nope/proofs/w00")), 404);
  const auto not_proved = client->Get("/v1/jobs/p/proofs/w00");
  EXPECT_EQ(status_of(not_proved), 404);
  EXPECT_NE(body_of(not_proved)["error"].get<std::string>().find("no proof 'w00'"), std::string::npos);
  EXPECT_EQ(status_of(client->Get("/v2/jobs")), 404);
  EXPECT_EQ(status_of(client->Get("/v1/jobs/a/b")), 404);
}

TEST_F(ApiTest, WrongMethodIs405WithAllow) {
  const auto put = client->Put("/v1/jobs", "{}", "application/json");
  EXPECT_EQ(status_of(put), 405);
  EXPECT_EQ(put->get_header_value("Allow"), "GET, HEAD, POST");
  const auto del = client->Delete("/v1/keys");
  EXPECT_EQ(status_of(del), 405);
  EXPECT_EQ(del->get_header_value("Allow"), "GET, HEAD");
  EXPECT_EQ(status_of(client->Post("/v1/jobs/x", "{}", "application/json")), 405);
  EXPECT_EQ(status_of(client->Delete("/healthz")), 405);
}

TEST_F(ApiTest, HeadAnswersAsGetWithoutTheBody) {
  const std::string got = raw("HEAD /v1/keys HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  ASSERT_EQ(got.rfind("HTTP/1.1 200", 0), 0u) << got;
  EXPECT_NE(got.find("Content-Length: 12\r\n"), std::string::npos) << got;  // {"keys":[]} and a newline
  EXPECT_EQ(got.size(), got.find("\r\n\r\n") + 4) << got;                   // and no body
  const auto get = client->Get("/v1/keys");
  ASSERT_EQ(status_of(get), 200);
  EXPECT_EQ(get->body.size(), 12u);
}

TEST_F(ApiTest, HealthReadinessAndMetrics) {
  EXPECT_EQ(status_of(client->Get("/healthz")), 200);
  EXPECT_EQ(status_of(client->Get("/readyz")), 200);
  core.set_health({false, true, "draining"});
  const auto r = client->Get("/readyz");
  EXPECT_EQ(status_of(r), 503);
  EXPECT_EQ(body_of(r)["why_not"], "draining");
  EXPECT_EQ(body_of(r)["draining"], true);
  EXPECT_EQ(status_of(client->Get("/healthz")), 200);  // alive while draining

  service::ServiceMetrics m;
  m.restarts = 4;
  core.set_metrics(m);
  const auto met = client->Get("/metrics");
  ASSERT_EQ(status_of(met), 200);
  EXPECT_EQ(met->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(met->body.find("\nproofpipe_restarts_total 4\n"), std::string::npos) << met->body;
}

}  // namespace
}  // namespace proofpipe::test
