// `proofpipe serve` taking circom inputs instead of witnesses (
// docs/api.md, docs/witness-gen.md): a real service whose key "m" has a wasm
// generator (--witness-gen m=wasm:...). Inline inputs and `proofpipe submit
// --inputs` uploads are proved end to end, every proof checked by snarkjs; a
// missing signal and a circuit assertion fail their partition at once with
// the generator's message while the job's others are proved; the 400s
// (witnesses with inputs, a non-object, a key without a generator) and the
// keys' "inputs" flag; flag misuse of serve and submit; and
// input partitions left queued by a drained service are proved after it
// starts again.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <string>

#include <fmt/format.h>

#include "support/cli.hpp"
#include "support/json_file.hpp"
#include "support/serve_fixture.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

class ServeInputs : public ServeFixture {
 protected:
  // "m" generates from inputs; "plain" (the same key again) takes witnesses only.
  void start_with_generator(std::vector<std::string> env = {}) {
    start({"--witness-gen", "m=wasm:" + (multi_io() / "circuit_js").string(), "--key",
           "plain=" + (multi_io() / "circuit.zkey").string()},
          std::move(env));
  }
  static json input(int i) { return read_json(multi_io() / fmt::format("inputs/w{:02}.json", i)); }
  // Fetches a done partition's proof and checks it with snarkjs.
  void expect_snarkjs_verifies(const std::string& id, const std::string& name) {
    auto c = serve_->client();
    auto got = c.Get("/v1/jobs/" + id + "/proofs/" + name);
    ASSERT_TRUE(got && got->status == 200) << id << "/" << name << ": " << (got ? got->body : "no answer");
    const json pair = json::parse(got->body);
    const fs::path proof = tmp_ / (id + "." + name + ".proof.json"), pub = tmp_ / (id + "." + name + ".public.json");
    std::ofstream(proof) << pair["proof"].dump();
    std::ofstream(pub) << pair["public"].dump();
    const auto v = snarkjs_verify(multi_io() / "verification_key.json", pub, proof);
    EXPECT_EQ(v.exit_code, 0) << id << "/" << name << ": " << v.output;
  }
  // A 400 whose one-line error contains `says`, and no job made.
  void expect_400(const json& body, const std::string& says) {
    auto r = post_job(body);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << body.dump() << "\n" << r->body;
    const std::string error = json_of(r).value("error", "");
    EXPECT_NE(error.find(says), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
};

TEST_F(ServeInputs, InlineAndUploadedInputsAreProvedAndSnarkjsVerifiesThem) {
  start_with_generator();
  auto r = post_job({{"key", "m"}, {"id", "inline"}, {"inputs", {{"w00", input(0)}, {"w03", input(3)}}}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  // The real client: a folder of input files, uploaded, waited for, written.
  const fs::path in = tmp_ / "in";
  fs::create_directories(in);
  for (int i : {5, 7})
    fs::copy_file(multi_io() / fmt::format("inputs/w{:02}.json", i), in / fmt::format("u{}.json", i));
  const auto sub = run_command(proofpipe() + fmt::format(" submit --server http://127.0.0.1:{}", serve_->port()) +
                               " --key m --id uploaded --wait --out " + quote(tmp_ / "out") + " --inputs " + quote(in));
  ASSERT_EQ(sub.exit_code, 0) << sub.output << serve_->log_text();

  auto c = serve_->client();
  const json job = wait_job(c, "inline", seconds(120));
  ASSERT_EQ(job.value("state", ""), "done") << job.dump() << serve_->log_text();
  for (const char* name : {"w00", "w03"}) expect_snarkjs_verifies("inline", name);
  // The public signals come from the generated witness: w00's are snarkjs's.
  const json w00 = json::parse(c.Get("/v1/jobs/inline/proofs/w00")->body);
  EXPECT_EQ(w00["public"], read_json(multi_io() / "snarkjs_public.json"));
  for (int i : {5, 7}) {
    const std::string stem = fmt::format("u{}", i);
    const auto v = snarkjs_verify(multi_io() / "verification_key.json", tmp_ / "out" / (stem + ".public.json"),
                                  tmp_ / "out" / (stem + ".proof.json"));
    EXPECT_EQ(v.exit_code, 0) << stem << ": " << v.output;
  }
  // The same inputs again under the same id: the same job (200), not a second one.
  auto again = post_job({{"key", "m"}, {"id", "inline"}, {"inputs", {{"w00", input(0)}, {"w03", input(3)}}}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
}

TEST_F(ServeInputs, ABadInputFailsItsPartitionOnceWithTheGeneratorsMessage) {
  start_with_generator();
  json missing = input(1);
  missing.erase("small");
  json assertion = input(2);
  assertion["small"] = "1099511627776";  // 2^40 breaks LessThan(32)'s range check (an assert in Num2Bits)
  auto r = post_job(
      {{"key", "m"}, {"id", "bad"}, {"inputs", {{"good", input(0)}, {"missing", missing}, {"assertion", assertion}}}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  auto c = serve_->client();
  const json job = wait_job(c, "bad", seconds(120));
  ASSERT_EQ(job.value("state", ""), "failed") << job.dump();
  EXPECT_EQ(job.value("partitions_done", 0), 1) << job.dump();
  EXPECT_EQ(job.value("partitions_failed", 0), 2) << job.dump();
  for (const auto& p : job["partitions"]) {
    const std::string name = p["name"];
    if (name == "good") {
      EXPECT_EQ(p["state"], "done") << p.dump();
      continue;
    }
    EXPECT_EQ(p["state"], "failed") << p.dump();
    EXPECT_EQ(p["attempts"], 1) << "a deterministic failure is not retried: " << p.dump();
    const std::string error = p["last_error"];
    EXPECT_NE(error.find("input '" + name + ".json': witness generator exited with code 1"), std::string::npos)
        << error;
    EXPECT_EQ(error.find((tmp_ / "state").string()), std::string::npos) << "the service's own path: " << error;
    EXPECT_NE(error.find(name == "missing" ? "Not all inputs have been set" : "Assert Failed"), std::string::npos)
        << error;
  }
  expect_snarkjs_verifies("bad", "good");

  // The refusals: 400, one line, and no job.
  expect_400({{"key", "m"}, {"witnesses", {wtns(0)}}, {"inputs", {{"a", input(0)}}}}, "not both");
  expect_400({{"key", "m"}, {"inputs", {{"a", 42}}}}, "input \"a\" is number, not a JSON object");
  expect_400({{"key", "plain"}, {"inputs", {{"a", input(0)}}}}, "key 'plain' takes no inputs");
  httplib::MultipartFormDataItems items = {{"key", "m", "", ""}, {"input", "[1, 2]", "list.json", "application/json"}};
  auto form = c.Post("/v1/jobs", items);
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 400) << form->body;
  EXPECT_NE(form->body.find("input 'list.json' is not a JSON object"), std::string::npos) << form->body;
  EXPECT_EQ(json_of(c.Get("/v1/jobs"))["jobs"].size(), 1u);
  // GET /v1/keys says which keys take inputs.
  const json keys = json_of(c.Get("/v1/keys"));
  ASSERT_EQ(keys["keys"].size(), 2u) << keys.dump();
  for (const auto& k : keys["keys"]) EXPECT_EQ(k["inputs"], k["name"] == "m") << k.dump();
}

TEST_F(ServeInputs, InputPartitionsQueuedAtADrainAreProvedAfterTheRestart) {
  // 300 ms per proof: most of the job is still queued when SIGTERM comes.
  start_with_generator({"PROOFPIPE_FAULTS=gpu.after_claim:delay=300"});
  json inputs = json::object();
  for (int i = 0; i < 6; ++i) inputs[fmt::format("w{:02}", i)] = input(i);
  ASSERT_EQ(post_job({{"key", "m"}, {"id", "later"}, {"inputs", inputs}})->status, 201);
  auto c = serve_->client();
  ASSERT_EQ(wait_job(c, "later", seconds(60), {"running"}).value("state", ""), "running");
  serve_->signal(SIGTERM);
  ASSERT_EQ(serve_->wait(seconds(60)), 0) << serve_->log_text();
  std::smatch m;
  const std::string log = serve_->log_text();
  ASSERT_TRUE(std::regex_search(log, m, std::regex(R"((\d+) partitions? proved in this life, (\d+) queued)"))) << log;
  EXPECT_GT(std::stoi(m[2]), 0) << log;
  serve_.reset();
  // Started again (with its generator): the queued inputs are generated and proved.
  start_with_generator();
  auto c2 = serve_->client();
  const json job = wait_job(c2, "later", seconds(120));
  ASSERT_EQ(job.value("state", ""), "done") << job.dump() << serve_->log_text();
  for (const auto& p : job["partitions"]) EXPECT_EQ(p["attempts"], 1) << "drained, not retried: " << p.dump();
  expect_snarkjs_verifies("later", "w05");
}

TEST_F(ServeInputs, GeneratorAndClientFlagMisuseIsOneLineAndExit2) {
  const std::string key = " --state-dir " + quote(tmp_ / "s") + " --key m=" + quote(multi_io() / "circuit.zkey");
  const std::string wasm = "wasm:" + (multi_io() / "circuit_js").string();
  struct Case {
    std::string command;
    const char* says;
  };
  for (const Case& c : {
           Case{"serve" + key + " --witness-gen " + quote("x=" + wasm), "no --key is named 'x'"},
           Case{"serve" + key + " --witness-gen " + quote(wasm), "expected NAME=wasm:"},
           Case{"serve" + key + " --witness-gen " + quote("m=wasm:" + tmp_.path().string()), "holds 0 .wasm files"},
           Case{"serve" + key + " --witness-gen " +
                    quote("m=wasm:" + (data_dir() / "multi_io_bn128" / "circuit_js").string()),
                "makes bn128 witnesses, key 'm'"},
           Case{"serve" + key + " --witness-gen " +
                    quote("m=wasm:" + (data_dir() / "sparse_dense" / "circuit_js").string()),
                "expects nVars = 351"},
           Case{"serve" + key + " --witness-gen " + quote("m=" + wasm) + " --witness-gen " + quote("m=" + wasm),
                "has a generator already"},
           Case{"submit --server http://127.0.0.1:9 --key m " + quote(wtns(0)) + " --inputs " +
                    quote(multi_io() / "inputs"),
                "not both"},
           Case{"submit --server http://127.0.0.1:9 --key m --paths --inputs " + quote(multi_io() / "inputs"),
                "always uploaded"},
           Case{"submit --server http://127.0.0.1:9 --key m", "give witness files"},
       }) {
    const auto r = run_command(proofpipe() + " " + c.command);
    EXPECT_EQ(r.exit_code, 2) << c.command << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.command << "\n" << r.output;
    EXPECT_NE(r.output.find("proofpipe: error:"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(tmp_ / "s")) << "a refused serve made its state dir";
}

}  // namespace
}  // namespace proofpipe::test
