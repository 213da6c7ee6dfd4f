// The Supervisor's side of worker messages (supervisor.hpp): it answers status
// requests, hands every other message to the Scheduler (which checks it and
// decides) and executes the actions that come back: sends, samples, and the
// verification and writing of a proof before the Scheduler commits it once.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "proofpipe/engine/key.hpp"
#include "proofpipe/engine/outputs.hpp"
#include "supervisor.hpp"

namespace proofpipe::engine {

using ipc::MsgHeader;
using ipc::MsgType;

void Supervisor::drain_messages() {
  while (auto env = router_->try_recv()) on_message(*env);
}

void Supervisor::on_message(const ipc::Envelope& env) {
  const MsgHeader& h = env.message.header;
  if (h.type == MsgType::kStatusRequest && h.role == ipc::Role::kClient) {
    MsgHeader reply;
    reply.type = MsgType::kStatusReply;
    reply.role = ipc::Role::kClient;
    router_->send(env.peer, ipc::Message{reply, status_json(snapshot()).dump()});
    return;
  }
  // The retry rule for a generated witness (docs/witness-gen.md): the
  // worker lives on after its generator failed, and this side owns the
  // cgroup, so it says which failures an OOM kill caused. A failure the
  // worker calls deterministic is not, when its cgroup recorded an OOM kill
  // meanwhile (the generator's message then reports a killed child); a
  // generator killed by SIGKILL was the cap's doing when the counter rose.
  // Only from the seat's live incarnation: the counter is that leaf's.
  if (h.type == MsgType::kSynthFailed && h.seat < workers_.size() && workers_[h.seat].role == ipc::Role::kSynth &&
      h.incarnation == workers_[h.seat].incarnation && new_oom(workers_[h.seat])) {
    ipc::Message m = env.message;
    if ((h.flags & ipc::kFlagPermanent) != 0) {
      m.header.flags &= ~ipc::kFlagPermanent;
      m.body += " (its cgroup recorded an OOM kill: retried)";
    } else {
      ExitInfo oom;
      oom.oom_killed = true;
      oom.cap_bytes = cfg_.synth_mem_max;
      m.body += ": " + oom.describe();
    }
    execute(scheduler_->on_message(env.peer, m, now()));
    return;
  }
  execute(scheduler_->on_message(env.peer, env.message, now()));
}

void Supervisor::execute(const Actions& actions) {
  for (const Action& a : actions) {
    switch (a.kind) {
      case Action::Kind::kSend: {
        SeatProcess& w = workers_[a.seat];
        if (!router_->send(w.peer, a.message)) {
          spdlog::debug("{} to {} not delivered (peer gone)", ipc::msg_type_name(a.message.header.type), w.peer);
        }
        break;
      }
      case Action::Kind::kVerify: verify_and_commit(a); break;
      case Action::Kind::kSample: sample(a.event, a.partition); break;
      case Action::Kind::kWorkDone: workers_[a.seat].consecutive_deaths = 0; break;
      case Action::Kind::kHello: {
        SeatProcess& w = workers_[a.seat];
        w.ever_hello = true;
        if (w.retired) {
          spdlog::warn("{}.{} is back after its retirement ({})", ipc::role_name(w.role), w.seat, w.retired_because);
          w.retired = false;
        }
        if (!ever_all_hello_) {
          ever_all_hello_ = std::all_of(workers_.begin(), workers_.end(), [&](const SeatProcess& s) {
            return scheduler_->seat(s.seat).alive && scheduler_->seat(s.seat).hello;
          });
        }
        if (w.role == ipc::Role::kProver) reporter_.gpu_hello(w.seat, ipc::decode_gpu_hello(a.message.body));
        break;
      }
    }
  }
}

void Supervisor::send(SeatProcess& w, MsgType type, MsgHeader h, std::string body) {
  h.type = type;
  h.role = w.role;
  h.seat = w.seat;
  h.incarnation = w.incarnation;
  if (!router_->send(w.peer, ipc::Message{h, std::move(body)})) {
    spdlog::debug("{} to {} not delivered (peer gone)", ipc::msg_type_name(type), w.peer);
  }
}

// Every proof is checked before it is committed (docs/pipeline.md).
void Supervisor::verify_and_commit(const Action& a) {
  const Partition& p = ledger_.at(*a.partition);
  if (!p.signals_known) {
    // A generated witness whose SEALED was lost (its worker died after the
    // seal): nothing to verify against, so it is generated again.
    spdlog::error("{}: the public signals of its generated witness were lost: generating it again", p.stem);
    scheduler_->proof_rejected(p.index, "the public signals of its generated witness were lost with its SEALED message",
                               /*permanent=*/false);
    return;
  }
  const PipelineKey& key = *keys_[p.key];
  auto verdict = key.verify(p.public_signals, a.proof);
  if (!verdict || !verdict->valid) {
    const std::string why = verdict ? verdict->reason : verdict.status().message();
    spdlog::error("{}: invalid proof from gpu.{} ({}): retrying", p.stem, a.seat, why);
    // The wording `prove` uses; `prove` on this witness tells which it is.
    scheduler_->proof_rejected(p.index,
                               fmt::format("invalid proof ({}): the witness does not satisfy the circuit's "
                                           "constraints (the proof does not verify), or the key is corrupt",
                                           why),
                               /*permanent=*/false);
    return;
  }
  const Status st = host_ ? host_->store_proof(p, a.proof)
                          : write_partition_outputs(key, cfg_.out, p.stem, a.proof, p.public_signals);
  if (!st) {
    scheduler_->proof_rejected(p.index, st.message(), /*permanent=*/true);
    spdlog::error("{}", st.message());
    return;
  }
  Actions after = scheduler_->committed(p.index, a.stages, now());
  if (after.empty()) return;  // a duplicate
  execute(after);
  reporter_.committed(p);
}

}  // namespace proofpipe::engine
