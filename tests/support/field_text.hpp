// A field element's raw limbs as one hex number (most significant limb
// first), for assertion messages that name the exact failing input.
#pragma once

#include <cstdio>
#include <string>

namespace proofpipe::test {

template <class F>
std::string show(const F& x) {
  std::string s = "0x";
  for (size_t i = F::N; i-- > 0;) {
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x.l[i]));
    s += buf;
  }
  return s;
}

}  // namespace proofpipe::test
