// serve() (serve.hpp): every setting checked, the keys loaded, the state
// directory taken (0700, one service at a time), the queue opened (the
// SQLite journal, or PostgreSQL: docs/scale-out.md), the HTTP API started,
// and the engine run with the Service as its host until SIGTERM has
// drained it.
#include "proofpipe/service/serve.hpp"

#include <signal.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "intake.hpp"
#include "proofpipe/common/clock.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/engine/engine.hpp"
#include "proofpipe/engine/plan.hpp"
#include "proofpipe/service/http_api.hpp"
#include "queue_open.hpp"
#include "serve_setup.hpp"
#include "service.hpp"

namespace proofpipe::service {

Status serve(const ServeOptions& args) {
  // Before any thread exists: SIGINT/SIGTERM must reach the engine's
  // signalfd, never an HTTP thread (whose default action would kill the
  // service half-way). Threads inherit this mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);

  auto listen = parse_listen(args.listen);
  if (!listen) return (listen.status());
  const auto& [host, port] = *listen;
  std::string token;
  if (!args.token_file.empty()) {
    auto t = read_token_file(args.token_file);
    if (!t) return (t.status());
    token = std::move(*t);
  } else if (!is_loopback(host)) {
    return (make_error(ErrorCode::kInvalidArgument,
                       "--listen {}: a non-loopback address needs --token-file (a bearer token clients must send)",
                       args.listen));
  }
  auto allow = check_allow_dirs(args.allow_dirs);
  if (!allow) return (allow.status());
  auto max_upload = parse_size(args.max_upload);
  if (!max_upload) return (make_error(ErrorCode::kInvalidArgument, "--max-upload: {}", max_upload.status().message()));
  if (!(args.drain_timeout_s >= 0 && args.drain_timeout_s <= 86400))
    return (make_error(ErrorCode::kInvalidArgument, "--drain-timeout must be between 0 and 86400 seconds"));

  double retain_s = 0;
  if (!args.retain.empty()) {
    const std::optional<double> r = parse_duration_s(args.retain);
    if (!r || *r < 1)
      return make_error(ErrorCode::kInvalidArgument,
                        "--retain '{}': give a duration of at least 1s, e.g. 30d or 12h (leave it out to keep ended "
                        "jobs forever)",
                        args.retain);
    retain_s = *r;
  }

  auto flags = engine::check_worker_flags(args.workers);
  if (!flags) return (flags.status());
  auto keys = load_keys(args.keys);
  if (!keys) return (keys.status());
  auto backend = groth16::parse_backend_kind(flags->given.backend);
  if (!backend) return (backend.status());
  for (const ServiceKey& k : *keys) {
    if (Status st = engine::check_backend_curve(*backend, k.key->curve(), k.info.path); !st) return (st);
  }
  if (Status st = attach_generators(*keys, args.witness_gens); !st) return (st);
  // The ring's slots hold the largest key's record; --mem-max plans for all
  // of them resident at once.
  engine::KeySizes sizes = keys->front().sizes;
  for (const ServiceKey& k : *keys) sizes = engine::merge_key_sizes(sizes, k.sizes);
  auto cfg = engine::pipeline_config(*flags, sizes);
  if (!cfg) return (cfg.status());

  auto lease = parse_lease(args.lease);
  if (!lease) return (lease.status());
  const std::string node_id = args.node_id.empty() ? default_node_id() : args.node_id;
  if (!valid_name(node_id))
    return (
        make_error(ErrorCode::kInvalidArgument, "--node-id '{}': use [A-Za-z0-9._-], 1 to 128 characters", node_id));
  auto state = StateDir::take(args.state_dir);
  if (!state) return (state.status());
  auto queue = open_queue(args.queue, *state, {node_id, *lease, flags->given.max_attempts});
  if (!queue) return (queue.status());

  for (const ServiceKey& k : *keys) cfg->keys.push_back(k.info.path);
  cfg->out = state->path();
  ServiceConfig scfg;
  scfg.state_dir = state->path();
  scfg.allow_dirs = std::move(*allow);
  scfg.max_witness_bytes = *max_upload;
  scfg.drain_timeout_s = args.drain_timeout_s;
  scfg.retain_s = retain_s;
  scfg.mem_max = cfg->mem_max;
  scfg.node_id = node_id;
  scfg.claim_window = size_t(cfg->slots) + cfg->synth_workers;
  scfg.renew_every_s = *lease / 3;
  std::vector<std::string> names;
  for (const ServiceKey& k : *keys) {
    names.push_back(fmt::format("{} (2^{}, {} constraints{})", k.info.name, __builtin_ctzll(k.info.domain_size),
                                k.info.constraints, k.generator.empty() ? "" : ", takes inputs"));
  }
  Service svc(std::move(scfg), **queue, std::move(*keys));
  engine::Ledger ledger({}, flags->given.max_attempts);
  auto queued = svc.recover(ledger);
  if (!queued) return (queued.status());

  ApiConfig api_cfg;
  api_cfg.host = host;
  api_cfg.port = port;
  api_cfg.token = token;
  api_cfg.max_body_bytes = *max_upload;
  api_cfg.max_connections = args.max_connections;
  auto api = ApiServer::start(svc, api_cfg);
  if (!api) return (api.status());
  std::fprintf(stderr, "proofpipe serve: listening on http://%s:%d%s; keys %s; state %s; %zu partition%s queued\n",
               host.find(':') != std::string::npos ? ("[" + host + "]").c_str() : host.c_str(), (*api)->port(),
               token.empty() ? "" : " (bearer token required)", fmt::format("{}", fmt::join(names, ", ")).c_str(),
               state->path().c_str(), *queued, *queued == 1 ? "" : "s");

  auto report = engine::run(*cfg, ledger, svc.pipeline_keys(), &svc);
  (*api)->stop();
  svc.release_claims();
  if (!report) return (report.status());
  if (!report->abort_reason.empty()) {
    return make_error(ErrorCode::kInternal, "the service stopped: {}; its queue is kept in {}", report->abort_reason,
                      state->path().string());
  }
  const auto left = (*queue)->depth();
  std::fprintf(stderr, "proofpipe serve: stopped; %zu partition%s proved in this life, %s queued in the journal\n",
               ledger.count(engine::PartState::kDone), ledger.count(engine::PartState::kDone) == 1 ? "" : "s",
               left ? std::to_string(*left).c_str() : "(unknown: the queue is unreachable)");
  return Status::ok();
}

}  // namespace proofpipe::service
