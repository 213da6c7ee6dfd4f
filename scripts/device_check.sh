#!/usr/bin/env bash
# The device check for a lent H200 (DEVELOPERS: one prepared script, run once).
#
# The device machine has nvcc, CMake and ninja but none of our apt packages
# (spdlog, zmq, gtest, GMP, ...) and no network, so the build happens HERE,
# for sm_90, and the binaries travel with the shared libraries they need:
#
#   here:    scripts/device_check.sh prepare
#            -> build-device/bin (gpu tests, proofpipe + workers, device bench)
#               build-device/lib (their non-glibc shared libraries)
#            scripts/device_check.sh stamp   (the binaries are of this tree?)
#   device:  run(command="scripts/device_check.sh", carry=["build-device/bin",
#                "build-device/lib"], timeout_s=540)
#
# On the device it runs the gpu-labelled tests, the device benchmarks (field
# mul rate, NTT and H step 2^20..2^24, G1 MSM 2^20..2^24, G2 MSM 2^20, CPU
# references in the same run), one full pipeline run at 2^20 x 4 with the CUDA
# backend (its take intake, then its copy intake) and the same with the CPU
# backend, and prints a short table last.
# What comes back in $OUT: summary.txt, gpu_tests.log, device_bench.jsonl,
# logs.tar.gz (test XML, bench and pipeline logs, a sanitizer log if a test
# failed) and the CUDA run's proofs as proofs.tar.gz, to check with snarkjs
# back here (there is no node on the device). Budget: one deadline of 480 s
# for the whole run; each stage's timeout is cut to what is left of it.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BD=${PP_DEVICE_BUILD:-build-device}  # override for a dry run of the script here

# What the binaries were built from: the commit and a hash of the
# uncommitted changes (the diff and the untracked files the device tool
# carries). `stamp` compares it with the tree here, so a stale build-device
# never spends a lease testing old code (a doc edit counts too: rebuild).
tree_stamp() {
    echo "$(git rev-parse HEAD) $({ git diff HEAD; git ls-files --others --exclude-standard -z |
        xargs -0 -r sha1sum; } | sha1sum | cut -c1-12)"
}

prepare() {
    set -e
    # Taken before the build: an edit made while it compiles leaves the stamp stale.
    local stamp_at_start
    stamp_at_start=$(tree_stamp)
    cmake -S . -B "$BD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPP_STRICT=ON -DPP_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DPP_NATIVE=OFF >/dev/null
    # An object whose header list ninja lost ("#deps 0": seen 2026-12-04 on
    # msm_g2.cu.o after a build that stopped on another target's error) is
    # not rebuilt when a header changes, and the stamp only checks sources:
    # drop such objects so they are compiled again.
    { ninja -C "$BD" -t deps 2>/dev/null || true; } | awk '/: #deps 0,/ {sub(":$", "", $1); print $1}' |
        while read -r obj; do echo "rebuilding $obj (no header list)"; rm -f "$BD/$obj"; done
    cmake --build "$BD" -j "$(nproc)" --target pp_cuda_gpu_tests proofpipe proofpipe-gpu-worker \
        proofpipe-synth-worker pp_device_bench pp_record_bench
    # The carry-chain scan (PtxCarryScan, tests/cuda) over this build's
    # own kept PTX: CI scans its build, but these are the binaries that go
    # to the device. Not carried (the tool carries at most 64 MiB).
    cmake --build "$BD" -j "$(nproc)" --target pp_cuda_unit_tests
    "$BD/bin/pp_cuda_unit_tests" --gtest_filter='PtxCarryScan.*' | grep -E 'violations|PASSED|FAILED'
    rm -f "$BD/bin/pp_cuda_unit_tests"
    rm -rf "$BD/lib" && mkdir -p "$BD/lib"
    # Every shared library the binaries load except the C/C++ runtime, which
    # the device image has in newer versions (glibc and libstdc++ are
    # backward compatible; the libraries below are not there at all). All of
    # glibc's own libraries stay behind: libresolv & co. use GLIBC_PRIVATE
    # symbols and load only next to their own libc.
    for b in pp_cuda_gpu_tests proofpipe proofpipe-gpu-worker proofpipe-synth-worker pp_device_bench pp_record_bench; do
        ldd "$BD/bin/$b" | awk '$3 ~ /^\// {print $3}'
    done | sort -u | grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libresolv|libutil|libanl|libnss_[a-z]+|ld-linux[^/]*)\.so' |
        while read -r lib; do cp -L "$lib" "$BD/lib/"; done
    # The device tool carries at most 64 MiB with the tree: drop the symbols
    # (the CUDA fatbins, ~10 MB per binary, stay).
    strip --strip-unneeded "$BD"/bin/* 2>/dev/null || true
    echo "$ROOT" >"$BD/bin/BUILT_AT"  # the absolute paths compiled into the binaries
    echo "$stamp_at_start" >"$BD/bin/BUILT_FROM"
    du -sh "$BD/bin" "$BD/lib"
    echo "next: run(command=\"scripts/device_check.sh\", carry=[\"$BD/bin\", \"$BD/lib\"], timeout_s=540)"
}

stamp() {
    local built now
    built=$(cat "$BD/bin/BUILT_FROM" 2>/dev/null || echo "none")
    now=$(tree_stamp)
    echo "built from: $built"
    echo "tree now:   $now"
    [[ $built == "$now" ]] || { echo "stale: run scripts/device_check.sh prepare first" >&2; return 1; }
}

# Seconds left before the run's deadline, at most $1.
left() {
    local l=$(( DEADLINE - $(date +%s) ))
    (( l < $1 )) && echo $(( l > 0 ? l : 1 )) || echo "$1"
}

# The gpu tests run one group per process, from the most basic up, so that a
# sticky device error (illegal address, ...) in one group cannot hide the
# results of the next. The pipeline test has a process of its own: its GPU
# worker needs a second CUDA context, which an EXCLUSIVE_PROCESS card would
# refuse to a test process that already holds one. The first test that fails
# is run again under compute-sanitizer (memcheck), which the device image
# has, so that a glue bug names its kernel and address in this one call.
readonly GPU_GROUPS=("CudaBackendFactory.*:CudaField*" "CudaNtt*" "CudaMsm*"
                     "CudaBackend.*:-CudaBackend.PipelineRun*" "CudaBackend.PipelineRun*")

gpu_tests() {
    local out=$1 group i=0 rc=0 rc_g first_failed="" budget
    : >"$out/gpu_tests.log"
    for group in "${GPU_GROUPS[@]}"; do
        budget=$(left 150)
        if (( budget < 20 )); then echo "-- no time left for $group" | tee -a "$out/gpu_tests.log"; rc=124; continue; fi
        echo "-- gtest_filter=$group" | tee -a "$out/gpu_tests.log"
        timeout -k 5 "$budget" "$BD/bin/pp_cuda_gpu_tests" --gtest_filter="$group" --gtest_output="xml:$WORK/gpu_tests_$i.xml" \
            >"$WORK/gpu_group.log" 2>&1
        rc_g=$?
        cat "$WORK/gpu_group.log" >>"$out/gpu_tests.log"
        grep -E '^\[  (FAILED|SKIPPED) |^\[  PASSED|tests? ran' "$WORK/gpu_group.log" | tail -12
        [[ $rc_g == 0 ]] || { rc=$rc_g; echo "group exit $rc_g"; }
        grep -q 'Running 0 tests' "$WORK/gpu_group.log" && { rc=1; echo "group $group ran no test (renamed?)"; }
        if [[ $rc_g != 0 && $rc_g != 124 && $rc_g != 137 && -z $first_failed ]]; then
            # The first failed test of the group (typed tests print
            # "Suite/0.Name, where TypeParam = ..."). A crash or a timeout
            # names none: rerunning a whole group under the sanitizer could
            # eat the budget of the figures, so the end stage covers it then.
            first_failed=$(sed -n 's/^\[  FAILED  \] \([^ ,]*\)[, ].*/\1/p' "$WORK/gpu_group.log" | head -1)
        fi
        i=$((i + 1))
    done
    if [[ -n $first_failed ]]; then
        local san
        san=$(find_sanitizer)
        if [[ -n $san ]]; then
            echo "-- compute-sanitizer memcheck: $first_failed" | tee -a "$out/gpu_tests.log"
            timeout -k 5 "$(left 90)" "$san" --tool memcheck --print-limit 20 --error-exitcode 99 \
                "$BD/bin/pp_cuda_gpu_tests" --gtest_filter="$first_failed" >"$WORK/sanitizer.log" 2>&1
            echo "sanitizer exit $?" >>"$WORK/sanitizer.log"
            grep -E '=========|FAILED|exit' "$WORK/sanitizer.log" | head -30
        else
            echo "no compute-sanitizer on this machine"
        fi
    fi
    return $rc
}

# With the time left at the end: memcheck and racecheck over small tests
# that reach every kernel family (an out-of-bounds read or a shared-memory
# race can leave the answers right on one card and run). Last, because the
# figures above are what the issue asks for; each tool is skipped when less
# than 30 s are left.
readonly SANITIZE_FILTER="CudaMsm.G2MatchesCpu:CudaNtt.ComputeHMatchesCpu:CudaBackend.ProofsEqualCpuBackendForSameRandomness"

sanitize_small() {
    local out=$1 san tool budget rc
    san=$(find_sanitizer)
    [[ -n $san ]] || { echo "sanitizers: no compute-sanitizer on this machine" >>"$out/summary.txt"; return; }
    for tool in memcheck racecheck; do
        budget=$(left 90)
        if (( budget < 30 )); then echo "sanitizer $tool: no time left" >>"$out/summary.txt"; continue; fi
        echo "== compute-sanitizer $tool (small tests, ${budget} s at most)"
        timeout -k 5 "$budget" "$san" --tool "$tool" --print-limit 20 --error-exitcode 99 \
            "$BD/bin/pp_cuda_gpu_tests" --gtest_filter="$SANITIZE_FILTER" >"$WORK/sanitizer_$tool.log" 2>&1
        rc=$?
        if [[ $rc == 124 || $rc == 137 ]]; then  # inconclusive, not a failure: the tools slow kernels 10-100x
            echo "sanitizer $tool: timed out after $budget s (inconclusive; partial log in logs.tar.gz)" | tee -a "$out/summary.txt"
            continue
        fi
        echo "sanitizer $tool: exit $rc ($( [[ $rc == 0 ]] && echo clean || echo "see logs.tar.gz: sanitizer_$tool.log"))" \
            | tee -a "$out/summary.txt"
    done
}

# compute-sanitizer's path on the device image, or nothing.
find_sanitizer() { command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null; }

# Packs everything under $WORK into $OUT/logs.tar.gz (the device tool brings
# back at most 8 files); called after each stage, so a run cut short at its
# time limit still returns what it had.
pack() { tar -C "$WORK" -czf "$1/logs.tar.gz" . 2>/dev/null; }

on_device() {
    local out="${OUT:-/tmp/device_check_out}" t0 rc_tests rc_bench
    WORK=$(mktemp -d /tmp/device_check.XXXXXX)
    t0=$(date +%s)
    DEADLINE=$(( t0 + ${PP_DEVICE_CHECK_BUDGET:-480} ))
    mkdir -p "$out"
    export LD_LIBRARY_PATH="$ROOT/$BD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export PP_REQUIRE_GPU=1  # on a lent GPU, a test that finds no device fails, it does not skip
    # The binaries carry this checkout's absolute paths (test data, bin dir):
    # make them resolve on the device's copy of the tree.
    local built_root
    built_root=$(cat "$BD/bin/BUILT_AT" 2>/dev/null)
    if [[ -n $built_root && $built_root != "$ROOT" && ! -e $built_root ]]; then
        mkdir -p "$(dirname "$built_root")" && ln -sfn "$ROOT" "$built_root"
    fi
    {
        echo "== device check: binaries built from $(cat "$BD/bin/BUILT_FROM" 2>/dev/null || echo '?')"
        nvidia-smi --query-gpu=name,driver_version,compute_mode,memory.total --format=csv,noheader 2>&1
        df -h /dev/shm /tmp 2>&1 | tail -2
    } | tee "$out/summary.txt"
    echo "== gpu tests"
    gpu_tests "$out"
    rc_tests=$?
    local passed failed skipped
    passed=$(grep -c '^\[       OK \]' "$out/gpu_tests.log")
    failed=$(grep -c '^\[  FAILED  \].*ms)' "$out/gpu_tests.log")
    skipped=$(grep -c '^\[  SKIPPED \].*ms)' "$out/gpu_tests.log")
    {
        echo "gpu tests: exit $rc_tests, $passed passed, $failed failed, $skipped skipped ($(( $(date +%s) - t0 )) s)"
        [[ -f $WORK/sanitizer.log ]] && echo "sanitizer: $(grep -c '^========= Invalid\|^========= Program hit' "$WORK/sanitizer.log") errors (logs.tar.gz: sanitizer.log)"
    } >>"$out/summary.txt"
    pack "$out"
    echo "== device benchmarks"
    timeout -k 5 "$(left 240)" "$BD/bin/pp_device_bench" --reps 5 --json "$out/device_bench.jsonl" 2>&1 | tee "$WORK/device_bench.log"
    rc_bench=${PIPESTATUS[0]}
    {
        echo "device bench: exit $rc_bench ($(( $(date +%s) - t0 )) s)"
        sed -n '/^$/,$p' "$WORK/device_bench.log" | tail -30
    } >>"$out/summary.txt"
    # The record checksum's seal and intake passes on the device machine's
    # 16 cores (docs/performance.md has the 2-core figures): seconds.
    timeout -k 5 "$(left 40)" "$BD/bin/pp_record_bench" --benchmark_min_time=0.2 >"$WORK/record_bench.log" 2>&1
    local rc_record=$?
    {
        echo "record checksum (pp_record_bench, $(nproc) cores; exit $rc_record):"
        grep -E '^(seal|intake|start_copy)_' "$WORK/record_bench.log" | awk '{printf "  %-22s %8s %s\n", $1, $2, $3}'
    } >>"$out/summary.txt"
    pack "$out"
    local k="${PP_DEVICE_CHECK_LOG:-20}"  # smaller for a dry run without a GPU
    # cuda: the worker's default (take) intake, uploads straight from the
    # page-locked ring; cuda_copy: its copy intake (PP_GPU_INTAKE=copy), to
    # compare the intake and H stage medians; cpu: the CPU backend.
    echo "== pipeline 2^$k x 4: cuda (take intake), cuda (copy intake), cpu backend"
    local w="/tmp/pp_gen_${k}_4" pipe_cuda="-" pipe_cuda_copy="-" pipe_cpu="-"
    if timeout -k 5 "$(left 90)" "$BD/bin/proofpipe" gen --constraints $(( (1 << k) - 8 )) --partitions 4 --out "$w" \
        >"$WORK/gen.log" 2>&1; then
        local args=() run intake s e
        for f in "$w"/*.wtns; do args+=(--witness "$f"); done
        for run in cuda cuda_copy cpu; do
            intake=""
            [[ $run == cuda_copy ]] && intake=copy
            rm -rf "/tmp/pp_out_$run"
            s=$(date +%s.%N)
            if PP_GPU_INTAKE=$intake PROOFPIPE_NO_PROGRESS=1 timeout -k 5 "$(left 120)" "$BD/bin/proofpipe" run \
                --zkey "$w/circuit.zkey" "${args[@]}" --out "/tmp/pp_out_$run" --synth-workers 4 --gpu-workers 1 \
                --slots 3 --backend "${run%_copy}" >"$WORK/run_$run.log" 2>&1; then
                e=$(date +%s.%N)
                printf -v "pipe_$run" '%s s' "$(awk -v a="$s" -v b="$e" 'BEGIN {printf "%.2f", b - a}')"
            else
                tail -20 "$WORK/run_$run.log"
            fi
        done
        cp "$w/verification_key.json" /tmp/pp_out_cuda/ 2>/dev/null
        tar -C /tmp -czf "$out/proofs.tar.gz" pp_out_cuda 2>/dev/null
    else
        tail -5 "$WORK/gen.log"
    fi
    {
        echo "pipeline 2^$k x 4 (4 synth, 1 gpu, 3 slots): cuda $pipe_cuda, cuda copy intake $pipe_cuda_copy, cpu $pipe_cpu"
        # Where the proving worker's time went (its own per-proof timings).
        for run in cuda cuda_copy cpu; do
            sed -n "s/^proving stages, /  $run: /p" "$WORK/run_$run.log" 2>/dev/null
        done
        # The proving worker's peak memory (RSS, cgroup): the take intake
        # should hold one record less than the copy intake.
        for run in cuda cuda_copy cpu; do
            grep -E '^gpu\.[0-9]+ \(' "$WORK/run_$run.log" 2>/dev/null | tr -s ' ' | sed "s/^/  $run memory: /"
        done
        grep -h "transfers stay pageable" "$WORK"/run_cuda*.log 2>/dev/null | head -2
        # Device memory the worker took at set-up (points, buffers, MSM scratch).
        grep -ho "backend prepared.*" "$WORK/run_cuda.log" 2>/dev/null | head -1 | sed "s/^/  cuda: /"
    } >>"$out/summary.txt"
    pack "$out"
    sanitize_small "$out"
    pack "$out"
    echo
    echo "== device check summary ($(( $(date +%s) - t0 )) s)"
    cat "$out/summary.txt"
    # Green only if every check that needs the GPU passed: tests, bench, the
    # CUDA pipeline run, and the sanitizers that ran.
    [[ $rc_tests == 0 && $rc_bench == 0 && $pipe_cuda != "-" ]] && ! grep -q 'sanitizer.*exit [1-9]' "$out/summary.txt"
}

case "${1:-run}" in
    prepare) prepare ;;
    stamp) stamp ;;
    run) on_device ;;
    *) echo "usage: $0 [prepare|stamp|run]" >&2; exit 2 ;;
esac
