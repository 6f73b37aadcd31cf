// Errors the harness turns into exit codes: UsageError -> one line and exit 2, before any GPU work.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The candidate closest to `word` by edit distance, or "" when none is plausibly meant.
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);
// " (did you mean 'x'?)" or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace harness
