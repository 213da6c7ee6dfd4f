// PP_ASSERT: for bugs (broken invariants), never for bad input. Prints the
// condition, file:line and a message, then aborts. On in every build type:
// the checks kept in hot loops are PP_DEBUG_ASSERT, compiled out in Release.
#pragma once

namespace proofpipe::detail {
[[noreturn]] void assert_fail(const char* cond, const char* file, int line, const char* msg);
}

#define PP_ASSERT(cond, msg)                                            \
  do {                                                                  \
    if (!(cond)) [[unlikely]]                                           \
      ::proofpipe::detail::assert_fail(#cond, __FILE__, __LINE__, msg); \
  } while (0)

#ifdef NDEBUG
#define PP_DEBUG_ASSERT(cond, msg) ((void)0)
#else
#define PP_DEBUG_ASSERT(cond, msg) PP_ASSERT(cond, msg)
#endif
