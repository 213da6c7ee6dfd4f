// A witness made for one input by a circom generator under a memory cap,
// as `proofpipe fullprove` needs it: each attempt in a fresh child in its
// own capped cgroup leaf (else RLIMIT_AS), with run --inputs's rule
// (docs/witness-gen.md): a generator that fails on the input by itself
// fails at once; one killed, crashed or out of memory is tried again.
#pragma once

#include <cstdint>
#include <string_view>

#include "proofpipe/common/status.hpp"
#include "proofpipe/ipc/messages.hpp"

namespace proofpipe::engine {

// A memfd holding the .wtns (the caller closes it). `input` names the input
// in errors; a failure on the input is kInvalidArgument.
Result<int> generate_witness(const ipc::GenerateRequest& req, uint64_t mem_max, unsigned max_attempts,
                             std::string_view input);

}  // namespace proofpipe::engine
