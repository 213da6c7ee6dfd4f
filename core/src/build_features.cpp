// What this build's -march let the compiler use, as a constant in the data
// section: compiled with the build's own flags (unlike cpu_features.cpp, which
// reads it), and executing no code, so reading it is safe on any CPU.
#include "proofpipe/cpu/features.hpp"

namespace proofpipe::cpu {

constinit const uint32_t kBuildFeatures = build_features();

}  // namespace proofpipe::cpu
