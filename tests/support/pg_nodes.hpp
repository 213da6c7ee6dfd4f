// Several real `proofpipe serve` nodes sharing one throwaway PostgreSQL queue
// (support/pg_cluster.hpp), for the scale-out tests (docs/scale-out.md): each
// node has its own port, state directory and log, the multi_io key as "m",
// one synthesis and one CPU proving worker, and a short lease so a dead
// node's work moves on within seconds.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <pqxx/pqxx>

#include "support/cli.hpp"
#include "support/pg_cluster.hpp"
#include "support/serve_process.hpp"

namespace proofpipe::test {

class PgNodes : public ::testing::Test {
 protected:
  using json = nlohmann::json;

  void SetUp() override {
    std::string why;
    cluster_ = PgCluster::start(why);
    if (!cluster_) GTEST_SKIP() << why;
    rings_before_ = shm_rings();
  }
  void TearDown() override {
    for (auto& n : nodes_) {
      if (!n || n->exited()) continue;
      n->signal(SIGCONT);  // a test may leave one stopped
      n->signal(SIGTERM);
      if (!n->wait(std::chrono::seconds(20))) n->kill_group(SIGKILL);
    }
    // A node killed with -9 leaves its ring behind: remove those of our own
    // nodes' pids only (other suites may run rings of their own meanwhile).
    for (const std::string& name : new_rings(rings_before_)) {
      for (const auto& n : nodes_) {
        if (n && name.starts_with(fmt::format("proofpipe-{}-", n->pid()))) std::filesystem::remove("/dev/shm/" + name);
      }
    }
    nodes_.clear();
    cluster_.reset();
  }

  static std::filesystem::path multi_io() { return data_dir() / "multi_io"; }
  static std::string wtns(int i) { return (multi_io() / fmt::format("w{:02}.wtns", i)).string(); }
  // n witness numbers from `first` on, wrapping at the fixture's 12.
  static std::vector<int> witnesses(int first, int n) {
    std::vector<int> w;
    w.reserve(size_t(n));
    for (int k = 0; k < n; ++k) w.push_back((first + k) % 12);
    return w;
  }

  std::vector<std::string> node_args(size_t i, const std::string& lease) const {
    return {"--key",           "m=" + (multi_io() / "circuit.zkey").string(),
            "--listen",        "127.0.0.1:0",
            "--state-dir",     (tmp_ / fmt::format("node{}", i)).string(),
            "--allow-dir",     multi_io().string(),
            "--synth-workers", "1",
            "--gpu-workers",   "1",
            "--backend",       "cpu",
            "--drain-timeout", "10",
            "--queue",         cluster_->url(),
            "--node-id",       fmt::format("n{}", i),
            "--lease",         lease};
  }
  std::vector<std::string> all_args(size_t i, const std::string& lease) const {
    std::vector<std::string> args = node_args(i, lease);
    if (auto it = extra_args_.find(i); it != extra_args_.end())
      args.insert(args.end(), it->second.begin(), it->second.end());
    return args;
  }
  // Nodes 0..n-1 started at the same moment (each waits for its own start line).
  void start_nodes(size_t n, const std::vector<std::string>& env = {}, const std::string& lease = "2s") {
    const size_t first = nodes_.size();
    for (size_t i = first; i < first + n; ++i) {
      nodes_.push_back(ServeProcess::launch(all_args(i, lease), tmp_ / fmt::format("node{}.log", i), env));
      ASSERT_NE(nodes_.back(), nullptr) << "spawn failed";
    }
    for (size_t i = first; i < first + n; ++i) ASSERT_TRUE(nodes_[i]->await_port()) << nodes_[i]->log_text();
  }
  ServeProcess& node(size_t i) { return *nodes_[i]; }

  // POST /v1/jobs to node `i`: witnesses w<k> as paths under --allow-dir;
  // the HTTP status, or -1 (the transport error printed).
  int submit(size_t i, const std::string& id, const std::vector<int>& witnesses, int priority = 0) {
    json w = json::array();
    for (int k : witnesses) w.push_back(wtns(k));
    auto c = node(i).client();
    auto r = c.Post("/v1/jobs", json{{"id", id}, {"key", "m"}, {"witnesses", w}, {"priority", priority}}.dump(),
                    "application/json");
    if (!r) ADD_FAILURE() << "POST to node " << i << ": " << httplib::to_string(r.error());
    return r ? r->status : -1;
  }

  int64_t sql(const std::string& query) const {
    pqxx::connection c(cluster_->url());
    pqxx::work tx(c);
    return tx.exec(query)[0][0].as<int64_t>();
  }
  // For failure messages: the partitions not done, and every node's log.
  std::string dump() const {
    std::string out = "partitions not done (job, idx, status, attempts, claimed_by, fence, lease left s):\n";
    try {
      pqxx::connection c(cluster_->url());
      pqxx::work tx(c);
      for (const auto& r :
           tx.exec("SELECT job_seq, idx, status, attempts, coalesce(claimed_by, '-'), fence, "
                   "coalesce(extract(epoch FROM lease_until - now()), 0) FROM partitions WHERE status != 'done' "
                   "ORDER BY job_seq, idx")) {
        for (const auto& f : r) out += std::string(f.c_str()) + " ";
        out += "\n";
      }
    } catch (const std::exception& e) {
      out += std::string("(") + e.what() + ")\n";
    }
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i]) out += fmt::format("--- node {} ---\n{}", i, nodes_[i]->log_text());
    }
    return out;
  }
  // Polls `done` every 50 ms for up to `limit`.
  static bool eventually(const std::function<bool()>& done, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done();
  }
  // Every partition of the queue: one proof, and it verifies (fetched over
  // HTTP from node `via`, which need not be the node that proved it).
  void expect_one_verified_proof_each(size_t via, int64_t partitions) {
    EXPECT_EQ(sql("SELECT count(*) FROM partitions WHERE status = 'done'"), partitions);
    EXPECT_EQ(sql("SELECT count(*) FROM proofs"), partitions);
    EXPECT_EQ(sql("SELECT count(*) FROM attempts WHERE result = 'done'"), partitions);
    pqxx::connection conn(cluster_->url());
    pqxx::work tx(conn);
    auto c = node(via).client();
    for (const auto& row : tx.exec("SELECT j.id, p.name FROM partitions p JOIN jobs j ON j.seq = p.job_seq")) {
      const std::string id = row[0].as<std::string>(), name = row[1].as<std::string>();
      auto got = c.Get(fmt::format("/v1/jobs/{}/proofs/{}", id, name));
      ASSERT_TRUE(got && got->status == 200) << id << "/" << name;
      const json pair = json::parse(got->body);
      const auto dir = tmp_ / "check";
      std::filesystem::create_directories(dir);
      std::ofstream(dir / "p.json") << pair["proof"].dump();
      std::ofstream(dir / "i.json") << pair["public"].dump();
      const auto v = pp_verify(multi_io() / "verification_key.json", dir / "i.json", dir / "p.json");
      EXPECT_EQ(v.exit_code, 0) << id << "/" << name << ": " << v.output;
    }
  }

  TempDir tmp_;
  std::map<size_t, std::vector<std::string>> extra_args_;  // node i's flags beyond node_args (set before start_nodes)
  std::unique_ptr<PgCluster> cluster_;
  std::vector<std::unique_ptr<ServeProcess>> nodes_;
  RingSnapshot rings_before_;
};

}  // namespace proofpipe::test
