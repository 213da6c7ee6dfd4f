// A real `proofpipe serve` of the multi_io key as "m" for the pipeline
// suites that drive it over HTTP (serve_test.cpp, serve_inputs_test.cpp):
// one synthesis and one CPU proving worker, the test data as its
// --allow-dir, stopped with SIGTERM at the end (exit 0 expected) and no
// shared-memory ring left behind.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/serve_process.hpp"

namespace proofpipe::test {

class ServeFixture : public ::testing::Test {
 protected:
  using json = nlohmann::json;

  static std::filesystem::path multi_io() { return data_dir() / "multi_io"; }
  static std::string wtns(int i) { return (multi_io() / fmt::format("w{:02}.wtns", i)).string(); }

  void SetUp() override { rings_before_ = shm_rings(); }
  void TearDown() override {
    if (serve_) {
      serve_->signal(SIGTERM);
      EXPECT_EQ(serve_->wait(std::chrono::seconds(60)), 0) << serve_->log_text();
      serve_.reset();
    }
    EXPECT_TRUE(new_rings(rings_before_).empty());
  }
  // A service of the multi_io key (or dir_'s) as "m", allowed to read the test data.
  void start(std::vector<std::string> extra = {}, std::vector<std::string> env = {}) {
    std::vector<std::string> args = {"--key",           "m=" + (dir_ / "circuit.zkey").string(),
                                     "--listen",        "127.0.0.1:0",
                                     "--state-dir",     (tmp_ / "state").string(),
                                     "--allow-dir",     dir_.string(),
                                     "--synth-workers", "1",
                                     "--gpu-workers",   "1",
                                     "--backend",       "cpu"};
    args.insert(args.end(), extra.begin(), extra.end());
    serve_ = ServeProcess::start(args, tmp_ / "serve.log", env);
    ASSERT_TRUE(serve_ && serve_->port() > 0) << (serve_ ? serve_->log_text() : "spawn failed");
  }
  httplib::Result post_job(const json& body) {
    auto c = serve_->client();
    return c.Post("/v1/jobs", body.dump(), "application/json");
  }
  json job_body(const std::string& id, std::vector<int> witnesses, int priority = 0) {
    json w = json::array();
    for (int i : witnesses) w.push_back((dir_ / fmt::format("w{:02}.wtns", i)).string());
    json j = {{"key", "m"}, {"witnesses", w}, {"priority", priority}};
    if (!id.empty()) j["id"] = id;
    return j;
  }

  std::filesystem::path dir_ = multi_io();  // the key and witnesses
  TempDir tmp_;
  RingSnapshot rings_before_;
  std::unique_ptr<ServeProcess> serve_;
};

}  // namespace proofpipe::test
