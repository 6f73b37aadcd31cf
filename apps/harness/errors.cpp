#include "errors.hpp"

#include <algorithm>

namespace harness {

static size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    // A truncated or extended name ("budget" for "budget_ms") is as good as a one-letter typo.
    bool prefix = !word.empty() && (c.rfind(word, 0) == 0 || word.rfind(c, 0) == 0);
    size_t d = prefix ? 1 : edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  // Beyond about a third of the word the suggestion is noise rather than help.
  if (best.empty() || best_d > std::max<size_t>(2, word.size() / 3)) return "";
  return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string n = nearest(word, candidates);
  return n.empty() ? std::string() : " (did you mean '" + n + "'?)";
}

}  // namespace harness
