#include "config.hpp"

#include <algorithm>
#include <cmath>
#include <regex>

#include "errors.hpp"
#include "results.hpp"

namespace harness {

using nlohmann::json;

namespace {

const std::vector<std::string> kTopKeys = {"study",  "description", "seed",     "variants", "axes",
                                           "points", "repetitions", "validate", "cache",    "device_memory_limit"};
const std::vector<std::string> kRepKeys = {"warmup", "min", "max", "budget_ms", "target_rsd"};

[[noreturn]] void fail(const std::string& key, const std::string& why) {
  throw UsageError("config: '" + key + "': " + why);
}

std::string type_name(const json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_array()) return "a list";
  if (v.is_object()) return "an object";
  return "null";
}

void check_keys(const json& obj, const std::vector<std::string>& allowed, const std::string& where) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
      throw UsageError("config: unknown key '" + where + it.key() + "'" + did_you_mean(it.key(), allowed));
}

std::int64_t get_int(const json& v, const std::string& key, std::int64_t lo, std::int64_t hi) {
  if (!v.is_number_integer() && !v.is_number_unsigned()) fail(key, "expected an integer, got " + type_name(v));
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    fail(key, "out of range");
  std::int64_t x = v.get<std::int64_t>();
  if (x < lo || x > hi) fail(key, std::to_string(x) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

double get_real(const json& v, const std::string& key, double lo, double hi) {
  if (!v.is_number()) fail(key, "expected a number, got " + type_name(v));
  double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
    fail(key, "value " + v.dump() + " is out of range [" + json(lo).dump() + ", " + json(hi).dump() + "]");
  return x;
}

Value axis_value(const AxisSpec& axis, const json& v, const std::string& key) {
  switch (axis.kind) {
    case AxisKind::Size:
    case AxisKind::Int: {
      std::int64_t x = axis.kind == AxisKind::Size ? parse_size(v, key) : get_int(v, key, INT64_MIN, INT64_MAX);
      if (x < axis.min || x > axis.max)
        fail(key, std::to_string(x) + " is out of range [" + std::to_string(axis.min) + ", " + std::to_string(axis.max) + "]");
      return x;
    }
    case AxisKind::Real:
      return get_real(v, key, -1e300, 1e300);
    case AxisKind::Choice: {
      if (!v.is_string()) fail(key, "expected a string, got " + type_name(v));
      std::string s = v.get<std::string>();
      // A choice axis without a list takes any string (a file, a machine name); the study checks it.
      if (!axis.choices.empty() && std::find(axis.choices.begin(), axis.choices.end(), s) == axis.choices.end()) {
        std::string all;
        for (const auto& c : axis.choices) all += (all.empty() ? "" : ", ") + c;
        fail(key, "unknown value '" + s + "'" + did_you_mean(s, axis.choices) + "; one of: " + all);
      }
      return s;
    }
  }
  fail(key, "unsupported axis kind");
}

const AxisSpec& find_axis(const std::vector<AxisSpec>& axes, const std::string& name, const std::string& where) {
  for (const auto& a : axes)
    if (a.name == name) return a;
  std::vector<std::string> names;
  for (const auto& a : axes) names.push_back(a.name);
  throw UsageError("config: unknown axis '" + where + name + "'" + did_you_mean(name, names));
}

// One cartesian product: axes named in `sweep` take its values, the others their defaults.
void expand_sweep(const json& sweep, const std::string& where, const std::vector<AxisSpec>& axes,
                  std::vector<Params>& out) {
  if (!sweep.is_object()) fail(where, "expected an object of axis -> values, got " + type_name(sweep));
  for (auto it = sweep.begin(); it != sweep.end(); ++it) find_axis(axes, it.key(), where);
  std::vector<std::vector<Value>> lists;
  for (const auto& axis : axes) {
    std::vector<Value> values;
    if (sweep.contains(axis.name)) {
      const json& v = sweep.at(axis.name);
      std::string key = where + axis.name;
      if (v.is_array()) {
        if (v.empty()) fail(key, "empty list of values");
        for (size_t i = 0; i < v.size(); ++i) values.push_back(axis_value(axis, v[i], key + "[" + std::to_string(i) + "]"));
      } else {
        values.push_back(axis_value(axis, v, key));
      }
    } else {
      values = axis.defaults;
    }
    lists.push_back(values);
  }
  // Stable order: the first axis varies slowest.
  std::vector<size_t> idx(axes.size(), 0);
  while (true) {
    Params p;
    for (size_t a = 0; a < axes.size(); ++a) p[axes[a].name] = lists[a][idx[a]];
    out.push_back(std::move(p));
    size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++idx[a] < lists[a].size()) break;
      idx[a] = 0;
      if (a == 0) return;
    }
    if (axes.empty()) return;
  }
}

}  // namespace

std::int64_t parse_size(const json& v, const std::string& key) {
  if (v.is_number_integer() || v.is_number_unsigned()) return get_int(v, key, 0, INT64_MAX);
  if (!v.is_string()) fail(key, "expected a size (an integer or \"2^k\"), got " + type_name(v));
  const std::string s = v.get<std::string>();
  static const std::regex pow_re(R"(^\s*2\s*\^\s*(\d{1,2})\s*(?:([+-])\s*(\d{1,18}))?\s*$)");
  static const std::regex int_re(R"(^\s*(\d{1,18})\s*$)");
  std::smatch m;
  if (std::regex_match(s, m, int_re)) return std::stoll(m[1]);
  if (std::regex_match(s, m, pow_re)) {
    int k = std::stoi(m[1]);
    if (k > 62) fail(key, "'" + s + "' is too large");
    std::int64_t x = std::int64_t(1) << k;
    if (m[2].matched) {
      std::int64_t c = std::stoll(m[3]);
      x = m[2] == "+" ? x + c : x - c;
    }
    if (x < 0) fail(key, "'" + s + "' is negative");
    return x;
  }
  fail(key, "cannot read '" + s + "' as a size (write an integer, \"2^k\" or \"2^k+c\")");
}

RunConfig load_config(const std::string& text, const std::string& source, const Study& study) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte locates the problem; the library's message is long, keep the line short.
    throw UsageError("config: " + source + " is not valid JSON (at byte " + std::to_string(e.byte) + ")");
  }
  if (!j.is_object()) throw UsageError("config: " + source + " must hold a JSON object, got " + type_name(j));
  check_keys(j, kTopKeys, "");

  RunConfig cfg;
  if (!j.contains("study")) fail("study", "missing (expected \"" + study.name() + "\")");
  if (!j["study"].is_string()) fail("study", "expected a string, got " + type_name(j["study"]));
  cfg.study = j["study"].get<std::string>();
  if (cfg.study != study.name()) fail("study", "this config is for '" + cfg.study + "', not '" + study.name() + "'");
  if (j.contains("description") && !j["description"].is_string()) fail("description", "expected a string");
  if (j.contains("seed")) cfg.seed = static_cast<std::uint64_t>(get_int(j["seed"], "seed", 0, INT64_MAX));

  std::vector<std::string> all;
  for (const auto& v : study.variants()) all.push_back(v.name);
  if (j.contains("variants")) {
    const json& v = j["variants"];
    if (v.is_string() && v.get<std::string>() == "all") {
      cfg.variants = all;
    } else {
      if (!v.is_array()) fail("variants", "expected a list of variant names or \"all\", got " + type_name(v));
      if (v.empty()) fail("variants", "empty list");
      for (size_t i = 0; i < v.size(); ++i) {
        std::string key = "variants[" + std::to_string(i) + "]";
        if (!v[i].is_string()) fail(key, "expected a string, got " + type_name(v[i]));
        std::string name = v[i].get<std::string>();
        if (std::find(all.begin(), all.end(), name) == all.end())
          fail(key, "unknown variant '" + name + "'" + did_you_mean(name, all) + " (see 'bench list')");
        if (std::find(cfg.variants.begin(), cfg.variants.end(), name) == cfg.variants.end()) cfg.variants.push_back(name);
      }
    }
  } else {
    cfg.variants = all;
  }

  const auto axes = study.axes();
  if (j.contains("axes")) {
    const json& a = j["axes"];
    if (a.is_array()) {
      if (a.empty()) fail("axes", "empty list of sweeps");
      for (size_t i = 0; i < a.size(); ++i) expand_sweep(a[i], "axes[" + std::to_string(i) + "].", axes, cfg.points);
    } else {
      expand_sweep(a, "axes.", axes, cfg.points);
    }
  }
  if (j.contains("points")) {
    const json& pts = j["points"];
    if (!pts.is_array()) fail("points", "expected a list of points, got " + type_name(pts));
    for (size_t i = 0; i < pts.size(); ++i) {
      std::string where = "points[" + std::to_string(i) + "].";
      if (!pts[i].is_object()) fail("points[" + std::to_string(i) + "]", "expected an object, got " + type_name(pts[i]));
      for (auto it = pts[i].begin(); it != pts[i].end(); ++it)
        if (it.value().is_array()) fail(where + it.key(), "a point takes one value per axis (use 'axes' for lists)");
      expand_sweep(pts[i], where, axes, cfg.points);
    }
  }
  if (!j.contains("axes") && !j.contains("points")) expand_sweep(json::object(), "axes.", axes, cfg.points);
  for (size_t i = 0; i < cfg.points.size(); ++i) {
    std::string why = study.check_params(cfg.points[i]);
    if (!why.empty()) throw UsageError("config: point " + std::to_string(i) + " (" + params_to_json(cfg.points[i]).dump() + "): " + why);
  }

  if (j.contains("repetitions")) {
    const json& r = j["repetitions"];
    if (!r.is_object()) fail("repetitions", "expected an object, got " + type_name(r));
    check_keys(r, kRepKeys, "repetitions.");
    if (r.contains("warmup")) cfg.reps.warmup = static_cast<int>(get_int(r["warmup"], "repetitions.warmup", 0, 1000));
    if (r.contains("min")) cfg.reps.min = static_cast<int>(get_int(r["min"], "repetitions.min", 1, 100000));
    if (r.contains("max")) cfg.reps.max = static_cast<int>(get_int(r["max"], "repetitions.max", 1, 100000));
    if (r.contains("budget_ms")) cfg.reps.budget_ms = get_real(r["budget_ms"], "repetitions.budget_ms", 0.0, 3.6e6);
    if (r.contains("target_rsd")) cfg.reps.target_rsd = get_real(r["target_rsd"], "repetitions.target_rsd", 0.0, 1.0);
    if (cfg.reps.max < cfg.reps.min) fail("repetitions.max", "smaller than repetitions.min");
  }
  if (j.contains("validate")) {
    if (!j["validate"].is_boolean()) fail("validate", "expected true or false, got " + type_name(j["validate"]));
    cfg.validate = j["validate"].get<bool>();
  }
  if (j.contains("cache")) {
    const json& c = j["cache"];
    if (!c.is_string() || (c != "cold" && c != "hot")) fail("cache", "expected \"cold\" (L2 flushed between repetitions) or \"hot\"");
    cfg.cold = c == "cold";
  }
  if (j.contains("device_memory_limit")) {
    cfg.device_memory_limit = parse_size(j["device_memory_limit"], "device_memory_limit");
    if (cfg.device_memory_limit < (std::int64_t(1) << 20)) fail("device_memory_limit", "must be at least 2^20 bytes");
  }
  cfg.as_run = j;
  return cfg;
}

namespace {

// A point whose largest size axis exceeds `limit` has all its size axes divided by the same power of
// two (their ratios, e.g. inputs per bucket, stay). A point the study refuses so shrunk keeps its
// sizes; points that shrink to the same one run once.
void shrink_points(RunConfig& cfg, const Study& study, std::int64_t limit) {
  const auto axes = study.axes();
  std::vector<Params> points;
  for (Params p : cfg.points) {
    std::int64_t largest = 0;
    for (const auto& a : axes)
      if (a.kind == AxisKind::Size && p.count(a.name)) largest = std::max(largest, std::get<std::int64_t>(p.at(a.name)));
    int shift = 0;
    while ((largest >> shift) > limit) ++shift;
    if (shift > 0) {
      Params q = p;
      for (const auto& a : axes)
        if (a.kind == AxisKind::Size && q.count(a.name))
          q[a.name] = std::max<std::int64_t>({std::get<std::int64_t>(q.at(a.name)) >> shift, a.min, 1});
      if (study.check_params(q).empty()) p = q;
    }
    if (std::find(points.begin(), points.end(), p) == points.end()) points.push_back(p);
  }
  cfg.points = points;
}

}  // namespace

void make_quick(RunConfig& cfg, const Study& study) {
  cfg.reps.warmup = std::min(cfg.reps.warmup, 1);
  cfg.reps.min = std::min(cfg.reps.min, 3);
  cfg.reps.max = std::min(cfg.reps.max, 5);
  cfg.reps.budget_ms = std::min(cfg.reps.budget_ms, 100.0);
  // Sizes too, so that a smoke run of a default config takes seconds on a CPU.
  constexpr std::int64_t kQuickMaxSize = std::int64_t(1) << 20;
  const std::int64_t limit = cfg.as_run.contains("size_limit") ? std::min(kQuickMaxSize, cfg.as_run["size_limit"].get<std::int64_t>()) : kQuickMaxSize;
  shrink_points(cfg, study, limit);
  cfg.as_run["quick"] = {{"size_limit", limit}};
}

void cut_sizes(RunConfig& cfg, const Study& study, std::int64_t limit) {
  if (limit < 1) throw UsageError("--size-limit: expected a size of at least 1, got " + std::to_string(limit));
  shrink_points(cfg, study, limit);
  cfg.as_run["size_limit"] = limit;
}

void select_variants(RunConfig& cfg, const std::string& comma_list, const Study& study) {
  std::vector<std::string> all;
  for (const auto& v : study.variants()) all.push_back(v.name);
  std::vector<std::string> chosen;
  size_t pos = 0;
  while (pos <= comma_list.size()) {
    size_t end = comma_list.find(',', pos);
    if (end == std::string::npos) end = comma_list.size();
    std::string name = comma_list.substr(pos, end - pos);
    if (!name.empty()) {
      if (std::find(all.begin(), all.end(), name) == all.end())
        throw UsageError("--variants: unknown variant '" + name + "'" + did_you_mean(name, all) + " (see 'bench list')");
      if (std::find(chosen.begin(), chosen.end(), name) == chosen.end()) chosen.push_back(name);
    }
    pos = end + 1;
  }
  if (chosen.empty()) throw UsageError("--variants: no variant named");
  cfg.variants = chosen;
  cfg.as_run["variants"] = chosen;
}

void set_axis(RunConfig& cfg, const std::string& option, const std::string& axis, const Value& value, const Study& study) {
  bool found = false;
  for (const auto& a : study.axes()) found = found || a.name == axis;
  if (!found) throw UsageError(option + ": study '" + study.name() + "' has no '" + axis + "' axis");
  std::vector<Params> points;
  for (Params p : cfg.points) {
    p[axis] = value;
    if (std::find(points.begin(), points.end(), p) == points.end()) points.push_back(std::move(p));
  }
  for (size_t i = 0; i < points.size(); ++i)
    if (std::string why = study.check_params(points[i]); !why.empty())
      throw UsageError(option + ": point " + std::to_string(i) + " (" + params_to_json(points[i]).dump() + "): " + why);
  cfg.points = std::move(points);
  cfg.as_run["set_axes"][axis] = params_to_json({{axis, value}})[axis];
}

}  // namespace harness
