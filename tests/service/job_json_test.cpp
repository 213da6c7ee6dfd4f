// The API's JSON shapes (proofpipe/service/job_json.hpp): a Job with partitions
// and a KeyInfo survive the trip server -> JSON -> client; times are ISO 8601
// UTC with milliseconds and null while not yet; the client refuses an answer
// with a missing or mistyped field, naming it. Random jobs are seeded.
#include <gtest/gtest.h>

#include "proofpipe/service/job_json.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

using nlohmann::json;
using namespace proofpipe::service;

TEST(JobJson, TimesAreIso8601UtcWithMilliseconds) {
  EXPECT_EQ(time_to_json(0), json(nullptr));
  EXPECT_EQ(time_to_json(1700000000.25), "2023-11-14T22:13:20.250Z");
  EXPECT_EQ(time_to_json(1700000039.9996), "2023-11-14T22:14:00.000Z");  // rounds into the next minute, never :60
  EXPECT_EQ(time_to_json(951782400.001), "2000-02-29T00:00:00.001Z");
  const auto back = time_from_json("2023-11-14T22:13:20.250Z");
  ASSERT_TRUE(back.is_ok());
  EXPECT_DOUBLE_EQ(*back, 1700000000.25);
  EXPECT_EQ(*time_from_json(nullptr), 0.0);
  for (const char* bad : {"2023-11-14T22:13:20Z", "2023-11-14 22:13:20.250Z", "2023-13-14T22:13:20.250Z",
                          "2023-11-14T24:13:20.250Z", "2023-11-14T22:13:20.250+01", "x023-11-14T22:13:20.250Z"}) {
    EXPECT_FALSE(time_from_json(bad).is_ok()) << bad;
  }
  EXPECT_FALSE(time_from_json(12).is_ok());
}

TEST(JobJson, RandomJobsRoundTrip) {
  PP_SEEDED_RNG(rng);
  for (int round = 0; round < 200; ++round) {
    Job job;
    job.id = "job-" + std::to_string(rng() % 100000);
    job.key = "key" + std::to_string(rng() % 5);
    job.digest = std::to_string(rng());
    job.priority = int64_t(rng());  // any int64, both signs
    job.state = JobState(rng() % 5);
    const double base = 1.6e9 + double(rng() % 100000000);
    // Millisecond times (what the JSON keeps), some of them not yet (0).
    const auto when = [&](double t) { return rng() % 4 == 0 ? 0.0 : t + double(rng() % 1000000) / 1000.0; };
    job.submitted_at = base;
    job.started_at = when(base);
    job.finished_at = when(base + 1000);
    const uint32_t parts = uint32_t(rng() % 6) + 1;
    for (uint32_t i = 0; i < parts; ++i) {
      PartitionInfo p;
      p.index = i;
      p.name = "w" + std::to_string(i);
      p.status = PartStatus(rng() % 5);
      p.attempts = uint32_t(rng() % 4);
      p.last_error = rng() % 2 ? "" : "worker \"synth.1\" died\n(signal 9)";
      p.started_at = when(base);
      p.finished_at = when(base + 5);
      if (p.status == PartStatus::kDone) p.times = part_times(0.5, 1.25, 2.0, {0.125, 0.75, 1.0});
      job.partitions.push_back(p);
    }
    job.total = parts;
    job.done = uint32_t(rng() % (parts + 1));
    job.failed = parts - job.done;

    const json j = json::parse(dump_json(job_to_json(job, true)));
    const auto back = job_from_json(j);
    ASSERT_TRUE(back.is_ok()) << back.status().to_string() << "\n" << j.dump(1);
    EXPECT_EQ(back->id, job.id);
    EXPECT_EQ(back->key, job.key);
    EXPECT_EQ(back->digest, job.digest);
    EXPECT_EQ(back->priority, job.priority);
    EXPECT_EQ(back->state, job.state);
    EXPECT_NEAR(back->submitted_at, job.submitted_at, 1e-3);
    EXPECT_NEAR(back->started_at, job.started_at, 1e-3);
    EXPECT_NEAR(back->finished_at, job.finished_at, 1e-3);
    EXPECT_EQ(back->total, job.total);
    EXPECT_EQ(back->done, job.done);
    EXPECT_EQ(back->failed, job.failed);
    ASSERT_EQ(back->partitions.size(), job.partitions.size());
    for (size_t i = 0; i < parts; ++i) {
      const auto &a = back->partitions[i], &b = job.partitions[i];
      EXPECT_EQ(a.index, b.index);
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.status, b.status);
      EXPECT_EQ(a.attempts, b.attempts);
      EXPECT_EQ(a.last_error, b.last_error);
      EXPECT_NEAR(a.started_at, b.started_at, 1e-3);
      EXPECT_NEAR(a.finished_at, b.finished_at, 1e-3);
      EXPECT_EQ(a.times.synth_s, b.times.synth_s);
      EXPECT_EQ(a.times.stages.msms_s, b.times.stages.msms_s);
      EXPECT_EQ(j["partitions"][i]["seconds"].is_null(), b.status != PartStatus::kDone);
    }
    EXPECT_FALSE(job_to_json(job, false).contains("partitions"));
  }
}

TEST(JobJson, AnswersWithMissingOrMistypedFieldsAreRefusedByName) {
  Job job;
  job.id = "a";
  job.partitions.push_back(PartitionInfo{});
  const json good = job_to_json(job, true);
  ASSERT_TRUE(job_from_json(good).is_ok());
  const std::pair<const char*, json> changes[] = {
      {"priority", 1.5},   {"priority", "1"}, {"state", "sleeping"}, {"partitions_done", -1},
      {"submitted_at", 5}, {"id", nullptr},   {"partitions", "x"},
  };
  for (const auto& [field, value] : changes) {
    json j = good;
    j[field] = value;
    const auto r = job_from_json(j);
    ASSERT_FALSE(r.is_ok()) << field;
    EXPECT_NE(r.status().message().find(field == std::string("submitted_at") ? "time" : field), std::string::npos)
        << r.status().message();
  }
  json j = good;
  j.erase("key");
  EXPECT_NE(job_from_json(j).status().message().find("'key'"), std::string::npos);
  j = good;
  j["partitions"][0]["attempts"] = "x";
  EXPECT_NE(job_from_json(j).status().message().find("'attempts'"), std::string::npos);
  EXPECT_FALSE(job_from_json(json::array()).is_ok());
}

TEST(JobJson, InvalidUtf8IsReplacedNotThrown) {
  Job job;
  job.id = "a";
  job.partitions.push_back(PartitionInfo{});
  job.partitions[0].last_error = "bad \xff byte";
  const std::string text = dump_json(job_to_json(job, true));
  EXPECT_NE(text.find("bad \xef\xbf\xbd byte"), std::string::npos) << text;
}

}  // namespace
}  // namespace proofpipe::test
