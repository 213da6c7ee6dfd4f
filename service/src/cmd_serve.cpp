// `proofpipe serve` (docs/service.md): checks every flag, loads the keys,
// takes the state directory (0700, one service at a time), opens the queue
// (the SQLite journal, or PostgreSQL: docs/scale-out.md), starts the HTTP
// API and runs the coordinator's engine with the Service as its host until
// SIGTERM has drained it.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "cli_error.hpp"
#include "http_api.hpp"
#include "intake.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/ipc/partition_layout.hpp"
#include "proofpipe/service/commands.hpp"
#include "queue_open.hpp"
#include "run_setup.hpp"
#include "serve_setup.hpp"
#include "service.hpp"

namespace proofpipe::cli {
namespace {

using service::ServiceKey;

// `run`'s flags, from serve's (the same meaning; no witnesses, no --out).
RunArgs worker_args(const ServeArgs& a) {
  RunArgs r;
  r.synth_workers = a.synth_workers;
  r.gpu_workers = a.gpu_workers;
  r.gpus = a.gpus;
  r.slots = a.slots;
  r.mem_budget = a.mem_budget;
  r.synth_mem_max = a.synth_mem_max;
  r.gpu_mem_max = a.gpu_mem_max;
  r.mem_max = a.mem_max;
  r.max_attempts = a.max_attempts;
  r.backend = a.backend;
  r.hang_timeout_s = a.hang_timeout_s;
  r.sample_ms = a.sample_ms;
  return r;
}

int serve(const ServeArgs& args) {
  // Before any thread exists: SIGINT/SIGTERM must reach the engine's
  // signalfd, never an HTTP thread (whose default action would kill the
  // service half-way). Threads inherit this mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);

  auto listen = service::parse_listen(args.listen);
  if (!listen) return fail(listen.status());
  const auto& [host, port] = *listen;
  std::string token;
  if (!args.token_file.empty()) {
    auto t = service::read_token_file(args.token_file);
    if (!t) return fail(t.status());
    token = std::move(*t);
  } else if (!service::is_loopback(host)) {
    return fail(make_error(ErrorCode::kInvalidArgument,
                           "--listen {}: a non-loopback address needs --token-file (a bearer token clients must send)",
                           args.listen));
  }
  auto allow = service::check_allow_dirs(args.allow_dirs);
  if (!allow) return fail(allow.status());
  auto max_upload = parse_size(args.max_upload);
  if (!max_upload)
    return fail(make_error(ErrorCode::kInvalidArgument, "--max-upload: {}", max_upload.status().message()));
  if (!(args.drain_timeout_s >= 0 && args.drain_timeout_s <= 86400))
    return fail(make_error(ErrorCode::kInvalidArgument, "--drain-timeout must be between 0 and 86400 seconds"));

  auto flags = coord::check_worker_flags(worker_args(args));
  if (!flags) return fail(flags.status());
  auto keys = service::load_keys(args.keys);
  if (!keys) return fail(keys.status());
  auto backend = groth16::parse_backend_kind(flags->args.backend);
  if (!backend) return fail(backend.status());
  for (const ServiceKey& k : *keys) {
    if (Status st = coord::check_backend_curve(*backend, k.key->curve(), k.info.path); !st) return fail(st);
  }
  if (Status st = service::attach_generators(*keys, args.witness_gens); !st) return fail(st);
  // The ring's slots hold the largest key's record; --mem-max plans for all
  // of them resident at once.
  coord::KeySizes sizes = keys->front().sizes;
  for (const ServiceKey& k : *keys) sizes = coord::merge_key_sizes(sizes, k.sizes);
  auto cfg = coord::pipeline_config(*flags, sizes);
  if (!cfg) return fail(cfg.status());

  auto lease = service::parse_lease(args.lease);
  if (!lease) return fail(lease.status());
  const std::string node_id = args.node_id.empty() ? service::default_node_id() : args.node_id;
  if (!service::valid_name(node_id))
    return fail(
        make_error(ErrorCode::kInvalidArgument, "--node-id '{}': use [A-Za-z0-9._-], 1 to 128 characters", node_id));
  auto state = service::StateDir::take(args.state_dir);
  if (!state) return fail(state.status());
  auto queue = service::open_queue(args.queue, *state, {node_id, *lease, flags->args.max_attempts});
  if (!queue) return fail(queue.status());

  for (const ServiceKey& k : *keys) cfg->keys.push_back(k.info.path);
  cfg->out = state->path();
  service::ServiceConfig scfg;
  scfg.state_dir = state->path();
  scfg.allow_dirs = std::move(*allow);
  scfg.max_witness_bytes = *max_upload;
  scfg.drain_timeout_s = args.drain_timeout_s;
  scfg.mem_max = cfg->mem_max;
  scfg.node_id = node_id;
  scfg.claim_window = size_t(cfg->slots) + cfg->synth_workers;
  scfg.renew_every_s = *lease / 3;
  std::vector<std::string> names;
  for (const ServiceKey& k : *keys) {
    names.push_back(fmt::format("{} (2^{}, {} constraints{})", k.info.name, __builtin_ctzll(k.info.domain_size),
                                k.info.constraints, k.generator.empty() ? "" : ", takes inputs"));
  }
  service::Service svc(std::move(scfg), **queue, std::move(*keys));
  coord::Ledger ledger({}, flags->args.max_attempts);
  auto queued = svc.recover(ledger);
  if (!queued) return fail(queued.status());

  service::ApiConfig api_cfg;
  api_cfg.host = host;
  api_cfg.port = port;
  api_cfg.token = token;
  api_cfg.max_body_bytes = *max_upload;
  api_cfg.max_connections = args.max_connections;
  auto api = service::ApiServer::start(svc, api_cfg);
  if (!api) return fail(api.status());
  std::fprintf(stderr, "proofpipe serve: listening on http://%s:%d%s; keys %s; state %s; %zu partition%s queued\n",
               host.find(':') != std::string::npos ? ("[" + host + "]").c_str() : host.c_str(), (*api)->port(),
               token.empty() ? "" : " (bearer token required)", fmt::format("{}", fmt::join(names, ", ")).c_str(),
               state->path().c_str(), *queued, *queued == 1 ? "" : "s");

  auto report = coord::run_pipeline(*cfg, ledger, svc.pipeline_keys(), &svc);
  (*api)->stop();
  svc.release_claims();
  if (!report) return fail(report.status());
  if (!report->abort_reason.empty()) {
    std::fprintf(stderr, "proofpipe: error: the service stopped: %s; its queue is kept in %s\n",
                 report->abort_reason.c_str(), state->path().c_str());
    return kExitError;
  }
  const auto left = (*queue)->depth();
  std::fprintf(stderr, "proofpipe serve: stopped; %zu partition%s proved in this life, %s queued in the journal\n",
               ledger.count(coord::PartState::kDone), ledger.count(coord::PartState::kDone) == 1 ? "" : "s",
               left ? std::to_string(*left).c_str() : "(unknown: the queue is unreachable)");
  return kExitOk;
}

}  // namespace

int run_serve(const ServeArgs& args) { return serve(args); }

}  // namespace proofpipe::cli
