// proofpipe: the command-line front (docs/design/overview.md §7). Parses arguments and
// hands each subcommand to its implementation in src/.
#include <CLI/CLI.hpp>

#include "proofpipe/common/logging.hpp"
#include "proofpipe/coordinator/commands.hpp"
#include "proofpipe/shm/layout.hpp"
#include "src/cli_checks.hpp"
#include "src/cli_error.hpp"

int main(int argc, char** argv) {
  using namespace proofpipe::cli;
  proofpipe::init_logging("proofpipe");
  CLI::App app{"proofpipe: a Groth16 proving pipeline for circom/snarkjs keys (BLS12-381)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line());
  // A worker count: at least 1 each (their sum is checked against the ring's seats later).
  const CLI::Validator kSeats = count_range(1, proofpipe::shm::kMaxSeats);

  ProveArgs prove;
  auto* p = app.add_subcommand("prove", "prove one witness: writes snarkjs proof.json and public.json");
  p->add_option("zkey", prove.zkey, "circuit.zkey (Groth16, BLS12-381)")->required();
  p->add_option("wtns", prove.wtns, "witness.wtns")->required();
  p->add_option("proof", prove.proof, "output proof.json")->required();
  p->add_option("public", prove.public_json, "output public.json")->required();
  p->add_option("--backend", prove.backend, "auto|cpu|cuda")->default_val("auto");

  VerifyArgs verify;
  auto* v = app.add_subcommand("verify", "verify a proof: prints OK (exit 0) or INVALID (exit 1); 2 on error");
  v->add_option("vkey", verify.vkey, "verification_key.json")->required();
  v->add_option("public", verify.public_json, "public.json")->required();
  v->add_option("proof", verify.proof, "proof.json")->required();

  ExportVkeyArgs vk;
  auto* e = app.add_subcommand("export-vkey", "write snarkjs's verification_key.json for a zkey");
  e->add_option("zkey", vk.zkey, "circuit.zkey")->required();
  e->add_option("vkey", vk.vkey, "output verification_key.json")->required();

  SetupDevArgs setup_dev;
  auto* sd = app.add_subcommand("setup-dev", "TESTING ONLY: Groth16 setup from random toxic waste (no ptau) -> zkey");
  sd->add_option("r1cs", setup_dev.r1cs, "circuit.r1cs (circom, BLS12-381)")->required();
  sd->add_option("zkey", setup_dev.zkey, "output circuit.zkey (snarkjs format)")->required();

  GenArgs gen;
  auto* g =
      app.add_subcommand("gen", "TESTING ONLY: synthetic circuit + dev key + P satisfying witnesses (benchmarks)");
  g->add_option("--constraints", gen.constraints, "number of constraints")
      ->default_val(1u << 16)
      ->check(count_range(1, 1u << 30));
  g->add_option("--partitions", gen.partitions, "number of witnesses")
      ->default_val(10)
      ->check(count_range(1, 1u << 20));
  g->add_option("--out", gen.out, "output folder")->required();
  g->add_option("--seed", gen.seed, "circuit and witness seed")->default_val(1);

  RunArgs run;
  auto* r = app.add_subcommand("run", "prove a batch of witnesses through the multi-process pipeline");
  r->add_option("--zkey", run.zkey, "circuit.zkey (Groth16, BLS12-381)")->required();
  r->add_option("--witness", run.witnesses, "witness files (.wtns), one partition each");
  r->add_option("--witness-dir", run.witness_dir, "prove every .wtns in this folder (sorted by name)");
  r->add_option("--out", run.out, "output folder: <stem>.proof.json, <stem>.public.json, summary.json")->required();
  auto* overwrite = r->add_flag("--overwrite", run.overwrite,
                                "replace the outputs of an earlier run in --out (else such an --out is refused)");
  r->add_flag("--resume", run.resume,
              "keep the proofs in --out that verify against this key and witness, prove the rest")
      ->excludes(overwrite);
  r->add_option("--synth-workers", run.synth_workers, "synthesis worker processes")->default_val(2)->check(kSeats);
  r->add_option("--gpu-workers", run.gpu_workers, "proving worker processes (default: one per --gpus device, else 1)")
      ->check(kSeats);
  r->add_option("--gpus", run.gpus,
                "CUDA devices for the proving workers, e.g. 0,1 or GPU-<uuid>: worker i sees only device i mod count "
                "(CUDA_VISIBLE_DEVICES); implies --backend cuda");
  r->add_option("--slots", run.slots, "ring slots K (default: from --mem-budget, else synth + gpu workers)")
      ->check(count_range(1, proofpipe::shm::kMaxSlots));
  r->add_option("--mem-budget", run.mem_budget, "ring memory budget, e.g. 4G: K = how many slots fit");
  r->add_option("--synth-mem-max", run.synth_mem_max,
                "memory cap per synthesis worker, e.g. 2G (cgroup; else RLIMIT_AS)");
  r->add_option("--gpu-mem-max", run.gpu_mem_max, "memory cap per proving worker, e.g. 8G (cgroup only)");
  r->add_option("--mem-max", run.mem_max,
                "memory cap on the whole run, e.g. 16G: coordinator, ring and workers in one cgroup; K and the "
                "per-worker caps derived from it");
  r->add_option("--max-attempts", run.max_attempts, "attempts per partition before it is marked failed")
      ->default_val(3)
      ->check(count_range(1, 1000));
  r->add_option("--backend", run.backend, "auto|cpu|cuda")->default_val("auto");
  r->add_option("--run-dir", run.run_dir, "private run directory to create (default: a fresh one)");
  r->add_option("--hang-timeout", run.hang_timeout_s,
                "seconds without a heartbeat before a worker is killed (0.5 to 604800)")
      ->default_val(30)
      ->check(hang_timeout_check());
  r->add_option("--metrics", run.metrics, "write one JSON line per sample and per event (docs/metrics.md)");
  r->add_option("--sample-ms", run.sample_ms, "sampling interval in milliseconds")
      ->default_val(250)
      ->check(count_range(10, 60000));

  StatusArgs status;
  auto* st = app.add_subcommand("status", "show a running `proofpipe run`: workers, slots, partitions, memory");
  st->add_option("--run-dir", status.run_dir, "the run's directory (default: the only live run)");
  st->add_flag("--json", status.json, "print the raw status JSON");

  DemoArgs demo;
  auto* d =
      app.add_subcommand("demo", "prove the bundled circuit's partitions through the full pipeline and verify them");
  d->add_option("--out", demo.out, "output folder")->default_val("proofpipe-demo");
  d->add_flag("--overwrite", demo.overwrite, "replace the outputs of an earlier demo in --out");
  d->add_option("--synth-workers", demo.synth_workers, "synthesis worker processes")->default_val(2)->check(kSeats);
  d->add_option("--gpu-workers", demo.gpu_workers, "proving worker processes")->default_val(1)->check(kSeats);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    // Help and version print as CLI11 does (exit 0); a usage error is one
    // "proofpipe: error:" line and exit 2, like every other error.
    if (err.get_exit_code() == 0) return app.exit(err);
    return fail(err.what());
  }
  if (p->parsed()) return run_prove(prove);
  if (v->parsed()) return run_verify(verify);
  if (e->parsed()) return run_export_vkey(vk);
  if (sd->parsed()) return run_setup_dev(setup_dev);
  if (g->parsed()) return run_gen(gen);
  if (r->parsed()) return run_run(run);
  if (d->parsed()) return run_demo(demo);
  if (st->parsed()) return run_status(status);
  return 2;
}
