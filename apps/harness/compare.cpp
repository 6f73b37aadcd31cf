#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "results.hpp"

namespace harness {
namespace {

using nlohmann::json;

// Callers promise exactly one line on `err`, so messages that embed foreign text (exception
// messages, values read from a file) are flattened.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

// Thrown while loading or comparing; carries "<file>: <problem>" and becomes the single error
// line. An exception rather than error codes because the problems are found deep in nested
// field access and all end the comparison the same way.
struct Failure {
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw Failure{path + ": " + problem};
}

// One record of a file, with what matching and the table need.
struct Entry {
  Record rec;
  std::string key;    // canonical identity: study, variant and params (those both files have: rekey)
  std::string shown;  // params as the table shows them
  json params;
  bool timed() const { return rec.time && rec.time->median > 0; }  // a zero median cannot divide
  double median() const { return rec.time->median; }
  double stddev() const { return rec.time->stddev; }
  bool skipped() const { return rec.status == "skipped"; }
  // A failed run and a wrong answer are treated alike: neither yields a trustworthy timing.
  bool failed() const { return rec.status == "failed" || rec.validation == "fail"; }
};

struct ResultFile {
  std::string path;
  std::string study;
  std::string l2_flush;  // cold runs: how L2 was flushed between repetitions ("" for hot runs)
  std::vector<Entry> records;
};

Entry read_record(const std::string& path, std::size_t index, const json& j) {
  Entry e;
  try {
    e.rec = record_from_json(j, fmt::format("records[{}]", index));
  } catch (const std::runtime_error& bad) {
    fail(path, bad.what());
  }
  // '\x1f' cannot occur in dumped JSON (control characters are escaped there) nor sensibly in a
  // study or variant name, so the concatenation is unambiguous; nlohmann objects dump sorted.
  e.params = j.at("params");
  e.key = e.rec.study + '\x1f' + e.rec.variant + '\x1f' + e.params.dump();
  e.shown = format_params(e.rec.params);
  return e;
}

std::set<std::string> param_names(const std::vector<Entry>& records) {
  std::set<std::string> names;
  for (const Entry& e : records)
    for (const auto& [k, v] : e.params.items()) names.insert(k);
  return names;
}

// A study that gained an axis since BASE was run (or lost one) writes records with a parameter the
// other file has nowhere: the files are matched on the parameters both have, so the old points still
// meet their new selves (the new axis at its default). Two records of one file that differ only in
// such a parameter would meet one record of the other: refused, naming the parameter.
std::vector<std::string> rekey(std::vector<Entry>& records, const std::set<std::string>& keep, const std::string& path) {
  std::vector<std::string> dropped;
  for (const std::string& k : param_names(records))
    if (keep.count(k) == 0) dropped.push_back(k);
  if (dropped.empty()) return dropped;
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < records.size(); ++i) {
    Entry& e = records[i];
    json p = json::object();
    for (const auto& [k, v] : e.params.items())
      if (keep.count(k)) p[k] = v;
    e.key = e.rec.study + '\x1f' + e.rec.variant + '\x1f' + p.dump();
    const auto [it, inserted] = seen.emplace(e.key, i);
    if (!inserted)
      fail(path, fmt::format("records[{}] and records[{}] differ only in {}, which the other file does not have: they cannot be matched", it->second,
                             i, fmt::join(dropped, ", ")));
  }
  return dropped;
}

ResultFile load(const std::string& path) {
  json doc;
  try {
    doc = load_results_document(path);
  } catch (const std::runtime_error& e) {
    throw Failure{e.what()};
  }
  ResultFile file;
  file.path = path;
  file.study = doc["meta"]["study"].get<std::string>();
  // Cold files written before the flush was recorded flushed by writing (gpu.cu's flush_by_write_kernel).
  if (doc["meta"].value("cache", std::string("cold")) == "cold") file.l2_flush = doc["meta"].value("l2_flush", std::string("write"));
  const auto records = doc.find("records");

  std::map<std::string, std::size_t> seen;
  file.records.reserve(records->size());
  for (std::size_t i = 0; i < records->size(); ++i) {
    Entry rec = read_record(path, i, (*records)[i]);
    // Two records with one identity would make the matching ambiguous; better to refuse than to
    // compare against an arbitrary one.
    const auto [it, inserted] = seen.emplace(rec.key, i);
    if (!inserted) {
      fail(path, fmt::format("records[{}] duplicates records[{}] (same study, variant and params)", i, it->second));
    }
    file.records.push_back(std::move(rec));
  }
  return file;
}

enum class Verdict { Faster, Same, Slower, Invalid, Missing, New, Skipped, Changed };

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Faster: return "faster";
    case Verdict::Same: return "same";
    case Verdict::Slower: return "slower";
    case Verdict::Invalid: return "INVALID";
    case Verdict::Missing: return "missing";
    case Verdict::New: return "new";
    case Verdict::Skipped: return "skipped";
    case Verdict::Changed: return "CHANGED";
  }
  return "?";
}

struct Row {
  std::string variant;
  std::string params;
  std::string base_ms = "-";
  std::string new_ms = "-";
  std::string ratio = "-";
  Verdict verdict = Verdict::Same;
  std::string note;
  bool gate_fails = false;
};

std::string show_ms(const Entry& e) { return e.timed() ? fmt::format("{:.4f}", e.median()) : "-"; }

// A row for a record that has no partner in the other file.
Row unmatched_row(const Entry& e, Verdict v) {
  Row row;
  row.variant = e.rec.variant;
  row.params = e.shown;
  (v == Verdict::Missing ? row.base_ms : row.new_ms) = show_ms(e);
  row.verdict = v;
  return row;
}

std::string show_percent(double fraction) {
  const double pct = fraction * 100.0;
  const std::string s = fmt::format("{:.1f}", pct);
  // Keep the familiar "5.0%" but do not round a deliberately fine threshold such as 0.25% away.
  if (std::fabs(std::strtod(s.c_str(), nullptr) - pct) > 1e-9) return fmt::format("{:.4g}%", pct);
  return s + "%";
}

Row compare_pair(const Entry& b, const Entry& n, double threshold, bool gate_cpu) {
  Row row;
  row.variant = n.rec.variant;
  row.params = n.shown;
  row.base_ms = show_ms(b);
  row.new_ms = show_ms(n);

  if (b.skipped() || n.skipped()) {
    row.verdict = Verdict::Skipped;
    row.note = b.skipped() && n.skipped() ? "skipped in both" : b.skipped() ? "skipped in BASE" : "skipped in NEW";
    return row;
  }
  if (n.failed()) {
    row.verdict = Verdict::Invalid;
    // Failing in both is a known problem, not a regression introduced by NEW.
    row.gate_fails = !b.failed();
    const char* what = n.rec.status == "failed" ? "run failed in NEW" : "validation failed in NEW";
    row.note = row.gate_fails ? what : fmt::format("{}, also in BASE", what);
    return row;
  }
  if (!b.timed() || !n.timed()) {
    row.verdict = Verdict::Skipped;
    row.note = !b.timed() ? "no timing in BASE" : "no timing in NEW";
    return row;
  }

  const double r = n.median() / b.median();
  // Two standard errors of the difference of the medians, relative to BASE: a change smaller than
  // what the runs' own scatter explains is not reported, however tight the threshold.
  const double noise = 2.0 * std::hypot(b.stddev(), n.stddev()) / b.median();
  const double allowance = std::max(threshold, noise);
  row.ratio = fmt::format("{:.3f}", r);
  if (r > 1.0 + allowance) {
    row.verdict = Verdict::Slower;
    row.gate_fails = gate_cpu || n.rec.kind != VariantKind::Cpu;
  } else if (r < 1.0 - allowance) {
    row.verdict = Verdict::Faster;
  } else {
    row.verdict = Verdict::Same;
  }
  if (noise > threshold) row.note = fmt::format("noise +/-{:.1f}%", noise * 100.0);
  if (row.verdict == Verdict::Slower && !row.gate_fails)
    row.note += fmt::format("{}CPU baseline, not gated (--include-cpu)", row.note.empty() ? "" : "; ");
  if (b.failed()) row.note += fmt::format("{}validation failed in BASE", row.note.empty() ? "" : "; ");
  return row;
}

std::string plural(std::size_t n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// The determinism gate (--exact): the outcome and the named metrics must not change.
Row compare_exact(const Entry& b, const Entry& n, const std::vector<std::string>& prefixes) {
  Row row;
  row.variant = n.rec.variant;
  row.params = n.shown;
  if (b.rec.status != n.rec.status || b.rec.validation != n.rec.validation) {
    row.verdict = Verdict::Changed;
    row.gate_fails = true;
    row.note = fmt::format("outcome {}/{} -> {}/{}", b.rec.status, b.rec.validation, n.rec.status, n.rec.validation);
    return row;
  }
  auto covered = [&](const std::string& key) {
    for (const auto& p : prefixes)
      if (key.rfind(p, 0) == 0) return true;
    return false;
  };
  auto same = [](const Value& x, const Value& y) {
    if (x.index() != y.index()) return false;
    if (const double* a = std::get_if<double>(&x)) {
      const double c = std::get<double>(y);
      return *a == c || std::fabs(*a - c) <= 1e-12 * std::max(std::fabs(*a), std::fabs(c));
    }
    return x == y;
  };
  std::size_t checked = 0;
  std::set<std::string> keys;
  for (const auto& [k, v] : b.rec.metrics) keys.insert(k);
  for (const auto& [k, v] : n.rec.metrics) keys.insert(k);
  for (const auto& k : keys) {
    if (!covered(k)) continue;
    ++checked;
    const auto bi = b.rec.metrics.find(k), ni = n.rec.metrics.find(k);
    const std::string bv = bi == b.rec.metrics.end() ? "absent" : harness::to_string(bi->second);
    const std::string nv = ni == n.rec.metrics.end() ? "absent" : harness::to_string(ni->second);
    if (bi == b.rec.metrics.end() || ni == n.rec.metrics.end() || !same(bi->second, ni->second)) {
      row.verdict = Verdict::Changed;
      row.gate_fails = true;
      row.note = fmt::format("{}: {} -> {}", k, bv, nv);
      return row;
    }
  }
  row.verdict = b.skipped() ? Verdict::Skipped : Verdict::Same;
  row.note = checked ? plural(checked, "metric") + " equal" : "no metric under the prefixes";
  return row;
}

void print_table(const std::vector<Row>& rows, std::ostream& out) {
  const char* h[] = {"variant", "params", "base ms", "new ms", "ratio", "verdict"};
  std::size_t w[6];
  for (int i = 0; i < 6; ++i) w[i] = std::string(h[i]).size();
  for (const Row& r : rows) {
    w[0] = std::max(w[0], r.variant.size());
    w[1] = std::max(w[1], r.params.size());
    w[2] = std::max(w[2], r.base_ms.size());
    w[3] = std::max(w[3], r.new_ms.size());
    w[4] = std::max(w[4], r.ratio.size());
    w[5] = std::max(w[5], std::string(to_string(r.verdict)).size());
  }
  auto line = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d,
                  const std::string& e, const std::string& f, const std::string& note) {
    std::string s = fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {:<{}}  {}", a, w[0], b, w[1], c, w[2], d,
                                w[3], e, w[4], f, w[5], note);
    s.erase(s.find_last_not_of(' ') + 1);
    out << s << '\n';
  };
  line(h[0], h[1], h[2], h[3], h[4], h[5], "");
  for (const Row& r : rows) line(r.variant, r.params, r.base_ms, r.new_ms, r.ratio, to_string(r.verdict), r.note);
}

}  // namespace

double parse_threshold(const std::string& text) {
  const std::string hint = "expected a percentage such as '5%' or a fraction such as '0.05'";
  auto reject = [&](const std::string& why) -> double {
    throw std::invalid_argument(one_line(fmt::format("--threshold '{}': {}", text, why)));
  };

  std::string s = trim(text);
  bool percent = false;
  if (!s.empty() && s.back() == '%') {
    percent = true;
    s = trim(s.substr(0, s.size() - 1));
  }
  if (!s.empty() && s.front() == '-') return reject("must not be negative");
  // Validate the shape by hand: strtod alone would also take "inf", "nan", hex floats and
  // exponents, none of which a person means by a threshold.
  std::size_t digits = 0, dots = 0;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.') {
      ++dots;
    } else {
      return reject(hint);
    }
  }
  if (digits == 0 || dots > 1) return reject(hint);

  double value = std::strtod(s.c_str(), nullptr);
  if (percent) value /= 100.0;
  if (!(value < 1.0)) {
    return reject(percent ? "must be below 100%" : "must be below 1 (a bare number is a fraction: 0.05 means 5%)");
  }
  return value;
}

int compare_results(const std::string& base_path, const std::string& new_path, double threshold,
                    std::ostream& out, std::ostream& err, bool gate_cpu, const std::vector<std::string>& exact) {
  try {
    if (!(threshold >= 0.0 && threshold < 1.0)) {
      err << "error: --threshold " << threshold << " must be a fraction in [0, 1)\n";
      return 2;
    }
    ResultFile base = load(base_path);
    ResultFile neu = load(new_path);
    if (base.study != neu.study) {
      fail(new_path, fmt::format("study '{}' differs from study '{}' of {}", one_line(neu.study),
                                 one_line(base.study), base_path));
    }

    const std::set<std::string> base_names = param_names(base.records), new_names = param_names(neu.records);
    std::set<std::string> common;
    for (const std::string& k : base_names)
      if (new_names.count(k)) common.insert(k);
    const std::vector<std::string> only_base = rekey(base.records, common, base_path), only_new = rekey(neu.records, common, new_path);
    if (!only_new.empty()) out << "note: matched without " << fmt::format("{}", fmt::join(only_new, ", ")) << " (a parameter only NEW's records have)\n";
    if (base.l2_flush != neu.l2_flush && !base.l2_flush.empty() && !neu.l2_flush.empty())
      out << "note: BASE flushed L2 by " << base.l2_flush << " and NEW by " << neu.l2_flush
          << " between repetitions: a write flush's dirty lines were written back inside the timed runs, so short GPU "
             "records differ by the method too (LP_L2_FLUSH=" << base.l2_flush << " runs NEW's binaries the other way)\n";
    if (!only_base.empty()) out << "note: matched without " << fmt::format("{}", fmt::join(only_base, ", ")) << " (a parameter only BASE's records have)\n";

    std::map<std::string, const Entry*> new_by_key;
    for (const Entry& r : neu.records) new_by_key.emplace(r.key, &r);

    std::vector<Row> rows;
    std::set<std::string> matched_keys;
    std::size_t matched = 0;
    for (const Entry& b : base.records) {
      const auto it = new_by_key.find(b.key);
      if (it == new_by_key.end()) {
        rows.push_back(unmatched_row(b, Verdict::Missing));
        continue;
      }
      ++matched;
      matched_keys.insert(b.key);
      rows.push_back(exact.empty() ? compare_pair(b, *it->second, threshold, gate_cpu) : compare_exact(b, *it->second, exact));
    }
    if (matched == 0) fail(new_path, fmt::format("no record of NEW matches BASE ({})", base_path));
    for (const Entry& n : neu.records)
      if (matched_keys.count(n.key) == 0) rows.push_back(unmatched_row(n, Verdict::New));

    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      if (a.variant != b.variant) return a.variant < b.variant;
      return a.params < b.params;
    });

    std::map<Verdict, std::size_t> count;
    std::size_t regressions_invalid = 0, gated_slower = 0, changed = 0;
    for (const Row& r : rows) {
      ++count[r.verdict];
      if (r.verdict == Verdict::Changed) ++changed;
      if (r.verdict == Verdict::Invalid && r.gate_fails) ++regressions_invalid;
      if (r.verdict == Verdict::Slower && r.gate_fails) ++gated_slower;
    }
    const std::size_t slower = count[Verdict::Slower];

    print_table(rows, out);
    if (exact.empty())
      out << fmt::format(
        "compare: {} matched, {} faster, {} same, {} slower, {} invalid, {} missing, {} new, {} skipped; "
        "threshold {}\n",
        matched, count[Verdict::Faster], count[Verdict::Same], slower, count[Verdict::Invalid], count[Verdict::Missing],
        count[Verdict::New], count[Verdict::Skipped], show_percent(threshold));
    if (!exact.empty()) {
      out << fmt::format("compare --exact: {} matched, {} same, {} CHANGED, {} skipped, {} missing, {} new\n", matched,
                         count[Verdict::Same], changed, count[Verdict::Skipped], count[Verdict::Missing], count[Verdict::New]);
      out << "verdict: " << (changed ? fmt::format("CHANGED ({})", plural(changed, "record")) : std::string("no change")) << '\n';
      return changed ? 1 : 0;
    }
    if (gated_slower == 0 && regressions_invalid == 0) {
      out << "verdict: no slow-down" << (slower > gated_slower ? " (CPU baselines slower, not gated)" : "") << "\n";
      return 0;
    }
    std::string verdict;
    if (gated_slower > 0) verdict = fmt::format("SLOW-DOWN ({})", plural(gated_slower, "record"));
    if (regressions_invalid > 0) {
      verdict += fmt::format("{}INVALID ({})", verdict.empty() ? "" : "; ", plural(regressions_invalid, "record"));
    }
    out << "verdict: " << verdict << '\n';
    return 1;
  } catch (const Failure& f) {
    err << "error: " << one_line(f.message) << '\n';
  } catch (const std::exception& e) {
    err << "error: comparing " << base_path << " with " << new_path << ": " << one_line(e.what()) << '\n';
  }
  return 2;
}

}  // namespace harness
