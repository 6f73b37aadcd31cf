// Minimal test helpers (the project takes no test framework dependency): CHECK records a failure
// and goes on; each test executable returns test_summary() from main.
#pragma once
#include <cstdio>
#include <sstream>
#include <string>

namespace testing_detail {
inline int& failures() { static int n = 0; return n; }
inline int& checks() { static int n = 0; return n; }
}  // namespace testing_detail

#define CHECK(cond)                                                                     \
  do {                                                                                  \
    ++testing_detail::checks();                                                         \
    if (!(cond)) {                                                                      \
      ++testing_detail::failures();                                                     \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);     \
    }                                                                                   \
  } while (0)

#define CHECK_MSG(cond, msg)                                                            \
  do {                                                                                  \
    ++testing_detail::checks();                                                         \
    if (!(cond)) {                                                                      \
      ++testing_detail::failures();                                                     \
      std::ostringstream os_;                                                           \
      os_ << msg;                                                                       \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s (%s)\n", __FILE__, __LINE__, #cond, \
                   os_.str().c_str());                                                  \
    }                                                                                   \
  } while (0)

inline int test_summary(const char* name) {
  std::printf("%s: %d checks, %d failed\n", name, testing_detail::checks(), testing_detail::failures());
  return testing_detail::failures() == 0 ? 0 : 1;
}
