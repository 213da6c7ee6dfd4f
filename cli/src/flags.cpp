// The flags of every `proofpipe` subcommand (flags.hpp): one function per
// subcommand binding its CLI11 options to its Args, added to the App in the
// order `proofpipe --help` lists them. What each subcommand does is in its
// cmd_*.cpp; main.cpp only builds the App, parses and dispatches.
#include "flags.hpp"

#include <string>

#include <CLI/CLI.hpp>

#include "cli_checks.hpp"
#include "proofpipe/shm/layout.hpp"

namespace proofpipe::cli {
namespace {

// The worker, slot, cap and attempt flags `run` and `serve` share (RunArgs
// and ServeArgs name the fields alike).
void add_worker_flags(CLI::App* c, engine::WorkerFlags& a) {
  // A worker count: at least 1 each (their sum is checked against the ring's seats later).
  const CLI::Validator seats = count_range(1, shm::kMaxSeats);
  c->add_option("--synth-workers", a.synth_workers, "synthesis worker processes")->default_val(2)->check(seats);
  c->add_option("--gpu-workers", a.gpu_workers, "proving worker processes (default: one per --gpus device, else 1)")
      ->check(seats);
  c->add_option("--gpus", a.gpus,
                "CUDA devices for the proving workers, e.g. 0,1 or GPU-<uuid>: worker i sees only device i mod count "
                "(CUDA_VISIBLE_DEVICES); implies --backend cuda");
  c->add_option("--slots", a.slots, "ring slots K (default: from --mem-budget, else synth + proving workers)")
      ->check(count_range(1, shm::kMaxSlots));
  c->add_option("--mem-budget", a.mem_budget, "ring memory budget, e.g. 4G: K = how many slots fit");
  c->add_option("--synth-mem-max", a.synth_mem_max,
                "memory cap per synthesis worker, e.g. 2G (cgroup; else RLIMIT_AS)");
  c->add_option("--gpu-mem-max", a.gpu_mem_max, "memory cap per proving worker, e.g. 8G (cgroup only)");
  c->add_option("--mem-max", a.mem_max,
                "memory cap on the whole pipeline, e.g. 16G: coordinator, ring and workers in one cgroup; K and the "
                "per-worker caps derived from it");
  c->add_option("--max-attempts", a.max_attempts, "attempts per partition before it is marked failed")
      ->default_val(3)
      ->check(count_range(1, 1000));
  c->add_option("--backend", a.backend, "auto|cpu|cuda")->default_val("auto");
  c->add_option("--hang-timeout", a.hang_timeout_s,
                "seconds without a heartbeat before a worker is killed (0.5 to 604800)")
      ->default_val(30)
      ->check(hang_timeout_check());
  c->add_option("--witness-gen-timeout", a.witness_gen_timeout,
                "wall-clock limit per witness generator run, e.g. 90s, 10m: over it the partition fails (not "
                "retried) and the generator's processes are killed")
      ->default_val("10m");
  c->add_option("--sample-ms", a.sample_ms, "sampling interval in milliseconds")
      ->default_val(250)
      ->check(count_range(10, 60000));
}

// serve's --key NAME=PATH: a name of A-Z a-z 0-9 . _ - (it is used in URLs
// and the journal) and a path.
CLI::Validator key_spec_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto eq = text.find('=');
        const std::string name = text.substr(0, eq);
        const bool ok = eq != std::string::npos && eq > 0 && eq + 1 < text.size() &&
                        name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
                            std::string::npos;
        return ok ? "" : "'" + text + "' is not NAME=PATH.zkey (NAME of A-Z a-z 0-9 . _ -)";
      },
      "NAME=PATH");
}

// --server and --token-file of the service's clients.
void add_client_flags(CLI::App* c, ClientArgs& a) {
  c->add_option("--server", a.server, "the service's URL (default: $PROOFPIPE_SERVER, else http://127.0.0.1:7300)");
  c->add_option("--token-file", a.token_file, "file holding the bearer token (default: $PROOFPIPE_TOKEN_FILE)");
  c->add_option("--timeout", a.timeout_s, "seconds each request to the server may take in all (default 60)")
      ->check(CLI::Range(0.1, 86400.0));
}

void add_prove(CLI::App& app, ProveArgs& a) {
  auto* p = app.add_subcommand("prove", "prove one witness: writes snarkjs proof.json and public.json");
  p->add_option("zkey", a.zkey, "circuit.zkey (Groth16, BLS12-381 or BN254)")->required();
  p->add_option("wtns", a.wtns, "witness.wtns")->required();
  p->add_option("proof", a.proof, "output proof.json")->required();
  p->add_option("public", a.public_json, "output public.json")->required();
  p->add_option("--backend", a.backend, "auto|cpu|cuda")->default_val("auto");
}

void add_fullprove(CLI::App& app, FullproveArgs& a) {
  auto* fp = app.add_subcommand(
      "fullprove", "make the witness with the circom generator (in a capped child), then prove it as prove does");
  fp->add_option("input", a.input, "input.json (the circuit's inputs)")->required();
  fp->add_option("generator", a.generator, "circuit.wasm, its circuit_js folder, or a native generator")->required();
  fp->add_option("zkey", a.zkey, "circuit.zkey (Groth16, BLS12-381 or BN254)")->required();
  fp->add_option("proof", a.proof, "output proof.json")->required();
  fp->add_option("public", a.public_json, "output public.json")->required();
  fp->add_option("--mem-max", a.mem_max, "memory cap on the generator, e.g. 2G (cgroup; else RLIMIT_AS)")
      ->default_val("16G");
  fp->add_option("--max-attempts", a.max_attempts, "generator runs before giving up (crashes, OOM kills)")
      ->default_val(3)
      ->check(count_range(1, 100));
  fp->add_option("--backend", a.backend, "auto|cpu|cuda")->default_val("auto");
}

void add_verify(CLI::App& app, VerifyArgs& a) {
  auto* v = app.add_subcommand("verify", "verify a proof: prints OK (exit 0) or INVALID (exit 1); 2 on error");
  v->add_option("vkey", a.vkey, "verification_key.json")->required();
  v->add_option("public", a.public_json, "public.json")->required();
  v->add_option("proof", a.proof, "proof.json")->required();
}

void add_export_vkey(CLI::App& app, ExportVkeyArgs& a) {
  auto* e = app.add_subcommand("export-vkey", "write snarkjs's verification_key.json for a zkey");
  e->add_option("zkey", a.zkey, "circuit.zkey")->required();
  e->add_option("vkey", a.vkey, "output verification_key.json")->required();
}

void add_setup_dev(CLI::App& app, SetupDevArgs& a) {
  auto* sd = app.add_subcommand("setup-dev", "TESTING ONLY: Groth16 setup from random toxic waste (no ptau) -> zkey");
  sd->add_option("r1cs", a.r1cs, "circuit.r1cs (circom, BLS12-381 or BN254: the key takes its curve)")->required();
  sd->add_option("zkey", a.zkey, "output circuit.zkey (snarkjs format)")->required();
}

void add_gen(CLI::App& app, GenArgs& a) {
  auto* g =
      app.add_subcommand("gen", "TESTING ONLY: synthetic circuit + dev key + P satisfying witnesses (benchmarks)");
  g->add_option("--constraints", a.constraints, "number of constraints")
      ->default_val(1u << 16)
      ->check(count_range(1, 1u << 30));
  g->add_option("--partitions", a.partitions, "number of witnesses")->default_val(10)->check(count_range(1, 1u << 20));
  g->add_option("--out", a.out, "output folder")->required();
  g->add_option("--seed", a.seed, "circuit and witness seed")->default_val(1);
  g->add_option("--curve", a.curve, "bls12381 or bn128 (BN254)")
      ->default_val("bls12381")
      ->check(CLI::IsMember({"bls12381", "bn128"}));
}

void add_run(CLI::App& app, RunArgs& a) {
  auto* r = app.add_subcommand("run", "prove a batch of witnesses through the multi-process pipeline");
  r->footer(
      "Exit codes: 0 every partition proved; 2 bad input or a set-up error (one line naming it; nothing "
      "written); 3 some partitions failed (named on stderr and in summary.json; the others' proofs are "
      "written); 130 interrupted by SIGINT/SIGTERM (workers stopped, summary written).");
  r->add_option("--zkey", a.zkey, "circuit.zkey (Groth16, BLS12-381 or BN254)")->required();
  auto* witness = r->add_option("--witness", a.witnesses, "witness files (.wtns), one partition each");
  auto* witness_dir =
      r->add_option("--witness-dir", a.witness_dir, "prove every .wtns in this folder (sorted by name)");
  auto* inputs = r->add_option("--inputs", a.inputs,
                               "circuit input JSON files or folders (their *.json): generate each witness in a "
                               "synthesis worker (docs/witness-gen.md)")
                     ->excludes(witness, witness_dir);
  r->add_option("--witness-gen", a.witness_gen,
                "with --inputs: wasm:<circuit_js folder or .wasm> (node + circom's generate_witness.js) or "
                "native:<executable built from circom --c>")
      ->needs(inputs);
  r->add_option("--out", a.out, "output folder: <stem>.proof.json, <stem>.public.json, summary.json")->required();
  auto* overwrite = r->add_flag("--overwrite", a.overwrite,
                                "replace the outputs of an earlier run in --out (else such an --out is refused)");
  r->add_flag("--resume", a.resume, "keep the proofs in --out that verify against this key and witness, prove the rest")
      ->excludes(overwrite);
  add_worker_flags(r, a.workers);
  r->add_option("--run-dir", a.run_dir, "private run directory to create (default: a fresh one)");
  r->add_option("--metrics", a.metrics, "write one JSON line per sample and per event (docs/metrics.md)");
}

void add_status(CLI::App& app, StatusArgs& a) {
  auto* st = app.add_subcommand("status", "show a running `proofpipe run`: workers, slots, partitions, memory");
  st->add_option("--run-dir", a.run_dir, "the run's directory (default: the only live run)");
  st->add_flag("--json", a.json, "print the raw status JSON");
}

void add_doctor(CLI::App& app, DoctorArgs& a) {
  auto* dr = app.add_subcommand("doctor",
                                "check this host before production: cgroups, /dev/shm, limits, CUDA, CPU "
                                "(exit 1 when something would stop a run)");
  dr->add_option("--zkey", a.zkey, "compare /dev/shm and the locked-memory limit with this key's ring");
  dr->add_flag("--json", a.json, "print the checks as JSON");
}

void add_demo(CLI::App& app, DemoArgs& a) {
  // A worker count: at least 1 each.
  const CLI::Validator seats = count_range(1, shm::kMaxSeats);
  auto* d =
      app.add_subcommand("demo", "prove the bundled circuit's partitions through the full pipeline and verify them");
  d->add_option("--out", a.out, "output folder")->default_val("proofpipe-demo");
  d->add_flag("--overwrite", a.overwrite, "replace the outputs of an earlier demo in --out");
  d->add_flag("--from-inputs", a.from_inputs,
              "start from the circuit's input JSON files: witnesses generated in the synthesis workers");
  d->add_option("--curve", a.curve, "bls12381, bn128 (BN254), or both (into <out>/bls12381 and <out>/bn128)")
      ->default_val("bls12381");
  d->add_option("--synth-workers", a.synth_workers, "synthesis worker processes")->default_val(2)->check(seats);
  d->add_option("--gpu-workers", a.gpu_workers, "proving worker processes")->default_val(1)->check(seats);
}

void add_serve(CLI::App& app, ServeArgs& a) {
  auto* sv = app.add_subcommand("serve", "run the resident proving service: HTTP/JSON API, job journal (docs/api.md)");
  sv->add_option("--key", a.keys, "NAME=PATH.zkey: a key to load and keep (repeatable)")
      ->required()
      ->check(key_spec_check());
  sv->add_option("--listen", a.listen, "ADDRESS:PORT to listen on (off loopback: needs --token-file)")
      ->default_val("127.0.0.1:7300");
  sv->add_option("--state-dir", a.state_dir, "the journal and the proofs (created 0700)")
      ->default_val("proofpipe-state");
  sv->add_option("--token-file", a.token_file, "bearer token every request but /healthz must carry");
  sv->add_option("--allow-dir", a.allow_dirs, "witness paths must lie under one of these (default: uploads only)");
  sv->add_option("--drain-timeout", a.drain_timeout_s, "seconds SIGTERM waits for partitions in flight")
      ->default_val(60)
      ->check(CLI::Range(0.0, 86400.0));
  sv->add_option("--retain", a.retain,
                 "remove an ended job's rows and proofs this long after it ended, e.g. 30d, 12h (default: keep "
                 "forever)");
  sv->add_option("--max-upload", a.max_upload, "largest request body, e.g. 1GiB")->default_val("1GiB");
  sv->add_option("--max-connections", a.max_connections, "open API connections (one address: an eighth)")
      ->default_val(1024)
      ->check(CLI::Range(2u, 1000000u));
  sv->add_option("--queue", a.queue, "sqlite (the journal in --state-dir) or postgresql://... (many nodes)")
      ->default_val("sqlite");
  sv->add_option("--node-id", a.node_id, "this node's id in a shared queue (default: HOSTNAME-PID)");
  sv->add_option("--lease", a.lease, "how long a claim lasts unrenewed, e.g. 30s")->default_val("30s");
  sv->add_option("--witness-gen", a.witness_gens,
                 "NAME=wasm:<circuit_js>|native:<exe>: key NAME's jobs may give circom inputs (repeatable)");
  add_worker_flags(sv, a.workers);
}

void add_submit(CLI::App& app, SubmitArgs& a, bool& paths) {
  auto* sb = app.add_subcommand("submit", "submit witnesses (or inputs) to `proofpipe serve` as one job (docs/api.md)");
  add_client_flags(sb, a);
  sb->add_option("--key", a.key, "NAME of a key the service loaded")->required();
  sb->add_option("--id", a.id, "job id: the same id and content again is the same job");
  sb->add_option("--priority", a.priority, "higher first, then older first")->default_val(0);
  sb->add_option("--out", a.out, "with --wait: folder for <name>.proof.json and <name>.public.json")->default_val(".");
  sb->add_flag("--wait", a.wait, "wait for the job to end and write its proofs into --out");
  sb->add_flag("--paths", paths, "send the witnesses' paths (on the server, under --allow-dir), not the files");
  sb->add_option("--inputs", a.inputs, "circom input JSON files or folders (their *.json) instead of witnesses");
  sb->add_option("wtns", a.witnesses, "witness files (.wtns), one partition each");
}

void add_jobs(CLI::App& app, JobsArgs& a) {
  auto* jb = app.add_subcommand("jobs", "list the service's jobs, or one job's partitions");
  add_client_flags(jb, a);
  jb->add_option("id", a.id, "a job id: its partitions (default: the list of jobs)");
  jb->add_option("--state", a.state, "list only jobs in this state")
      ->check(CLI::IsMember({"queued", "running", "done", "failed", "cancelled"}));
  jb->add_flag("--json", a.json, "print the server's JSON");
}

void add_cancel(CLI::App& app, CancelArgs& a) {
  auto* cn = app.add_subcommand("cancel", "cancel a job: none of its partitions is started after the answer");
  add_client_flags(cn, a);
  cn->add_option("id", a.id, "the job id")->required();
}

}  // namespace

void add_commands(CLI::App& app, CommandArgs& args) {
  add_prove(app, args.prove);
  add_fullprove(app, args.fullprove);
  add_verify(app, args.verify);
  add_export_vkey(app, args.export_vkey);
  add_setup_dev(app, args.setup_dev);
  add_gen(app, args.gen);
  add_run(app, args.run);
  add_status(app, args.status);
  add_doctor(app, args.doctor);
  add_demo(app, args.demo);
  add_serve(app, args.serve);
  add_submit(app, args.submit, args.submit_paths);
  add_jobs(app, args.jobs);
  add_cancel(app, args.cancel);
}

}  // namespace proofpipe::cli
