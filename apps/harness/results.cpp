#include "results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace harness {

using nlohmann::json;

json record_to_json(const Record& r) {
  json j;
  j["study"] = r.study;
  j["variant"] = r.variant;
  j["kind"] = to_string(r.kind);
  j["params"] = params_to_json(r.params);
  j["status"] = r.status;
  if (r.time) {
    j["time_ms"] = {{"median", r.time->median}, {"min", r.time->min},       {"max", r.time->max},
                    {"stddev", r.time->stddev}, {"count", r.time->samples.size()}, {"samples", r.time->samples}};
    j["ns_per_input"] = r.ns_per_input;
    j["GBps"] = r.gbps;
    j["fraction_of_copy_ceiling"] = r.fraction_of_copy > 0 ? json(r.fraction_of_copy) : json(nullptr);
  } else {
    j["time_ms"] = nullptr;
    j["ns_per_input"] = nullptr;
    j["GBps"] = nullptr;
    j["fraction_of_copy_ceiling"] = nullptr;
  }
  j["validation"] = r.validation;
  j["note"] = r.note;
  if (!r.metrics.empty()) j["metrics"] = params_to_json(r.metrics);
  return j;
}

namespace {

// Reads one record, naming the record and the key in every complaint ("records[3]: key
// 'time_ms.median' must be a number, got string"), so that a broken file can be fixed by hand.
class RecordReader {
 public:
  RecordReader(const json& rec, const std::string& where) : rec_(rec), where_(where) {
    if (!rec.is_object()) throw std::runtime_error(where + " must be an object, got " + rec.type_name());
  }
  const json* find(const json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }
  const json& require(const json& obj, const char* key, const std::string& name) const {
    const json* v = find(obj, key);
    if (!v) problem(name, "is missing");
    return *v;
  }
  std::string string_field(const char* key) const {
    const json& v = require(rec_, key, key);
    if (!v.is_string()) problem(key, std::string("must be a string, got ") + v.type_name());
    return v.get<std::string>();
  }
  std::string choice_field(const char* key, std::initializer_list<const char*> allowed) const {
    std::string v = string_field(key);
    std::string list;
    for (const char* a : allowed) {
      if (v == a) return v;
      list += (list.empty() ? "" : "|") + std::string(a);
    }
    problem(key, "must be one of " + list + ", got '" + v + "'");
  }
  double number(const json& v, const std::string& name) const {
    if (!v.is_number()) problem(name, std::string("must be a number, got ") + v.type_name());
    return v.get<double>();
  }
  [[noreturn]] void problem(const std::string& key, const std::string& what) const {
    std::string msg = where_ + ": key '" + key + "' " + what;
    std::replace(msg.begin(), msg.end(), '\n', ' ');  // callers promise one line
    throw std::runtime_error(msg);
  }

 private:
  const json& rec_;
  std::string where_;
};

}  // namespace

json params_to_json(const Params& p) {
  json j = json::object();
  for (const auto& [k, v] : p) std::visit([&](const auto& x) { j[k] = x; }, v);
  return j;
}

Params params_from_json(const json& j) {
  Params p;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const json& v = it.value();
    if (v.is_number_integer() || v.is_number_unsigned())
      p[it.key()] = v.get<std::int64_t>();
    else if (v.is_number())
      p[it.key()] = v.get<double>();
    else if (v.is_string())
      p[it.key()] = v.get<std::string>();
    else
      p[it.key()] = v.dump();  // not produced by the harness; kept readable rather than refused
  }
  return p;
}

std::string format_params(const Params& p) {
  std::string s;
  for (const auto& [k, v] : p) {
    std::string shown = to_string(v);
    if (auto i = std::get_if<std::int64_t>(&v); i && *i >= 1024 && (*i & (*i - 1)) == 0)
      shown = "2^" + std::to_string(63 - __builtin_clzll(static_cast<unsigned long long>(*i)));
    s += (s.empty() ? "" : " ") + k + "=" + shown;
  }
  return s.empty() ? "-" : s;
}

Record record_from_json(const json& j, const std::string& where) {
  RecordReader r(j, where);
  Record rec;
  rec.study = r.string_field("study");
  rec.variant = r.string_field("variant");
  const std::string kind = r.choice_field("kind", {"ours", "peer", "cpu", "probe"});
  rec.kind = kind == "ours" ? VariantKind::Ours : kind == "peer" ? VariantKind::Peer : kind == "probe" ? VariantKind::Probe : VariantKind::Cpu;
  const json& params = r.require(j, "params", "params");
  if (!params.is_object()) r.problem("params", std::string("must be an object, got ") + params.type_name());
  rec.params = params_from_json(params);
  rec.status = r.choice_field("status", {"ok", "failed", "skipped"});
  rec.validation = r.choice_field("validation", {"pass", "fail", "skipped"});
  if (const json* note = r.find(j, "note"); note && note->is_string()) rec.note = note->get<std::string>();
  if (const json* metrics = r.find(j, "metrics"); metrics && !metrics->is_null()) {
    if (!metrics->is_object()) r.problem("metrics", std::string("must be an object, got ") + metrics->type_name());
    rec.metrics = params_from_json(*metrics);
  }
  const json* time = r.find(j, "time_ms");
  if (!time || time->is_null()) {
    // Skipped and failed records legitimately carry no timing; a successful one must.
    if (rec.status == "ok") r.problem("time_ms", "is missing or null although status is 'ok'");
    return rec;
  }
  if (!time->is_object()) r.problem("time_ms", std::string("must be an object or null, got ") + time->type_name());
  TimeStats t;
  t.median = r.number(r.require(*time, "median", "time_ms.median"), "time_ms.median");
  const json& sd = r.require(*time, "stddev", "time_ms.stddev");
  t.stddev = sd.is_null() ? 0.0 : r.number(sd, "time_ms.stddev");  // one sample has no spread
  if (!std::isfinite(t.median) || t.median < 0) r.problem("time_ms.median", "must be >= 0, got " + std::to_string(t.median));
  if (!std::isfinite(t.stddev) || t.stddev < 0) r.problem("time_ms.stddev", "must be >= 0, got " + std::to_string(t.stddev));
  if (const json* v = r.find(*time, "min"); v && !v->is_null()) t.min = r.number(*v, "time_ms.min");
  if (const json* v = r.find(*time, "max"); v && !v->is_null()) t.max = r.number(*v, "time_ms.max");
  if (const json* v = r.find(*time, "samples"); v && v->is_array())
    for (size_t i = 0; i < v->size(); ++i) t.samples.push_back(r.number((*v)[i], "time_ms.samples[" + std::to_string(i) + "]"));
  rec.time = t;
  auto opt_number = [&](const char* key) {
    const json* v = r.find(j, key);
    return v && !v->is_null() ? r.number(*v, key) : 0.0;
  };
  rec.ns_per_input = opt_number("ns_per_input");
  rec.gbps = opt_number("GBps");
  rec.fraction_of_copy = opt_number("fraction_of_copy_ceiling");
  return rec;
}

static std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Where the JSON writes null (a number that is not finite), the CSV leaves the field empty.
static std::string num(double x) {
  if (!std::isfinite(x)) return "";
  std::ostringstream os;
  os.precision(9);
  os << x;
  return os.str();
}

static std::string csv_value(const Value& v) {
  if (const double* d = std::get_if<double>(&v); d && !std::isfinite(*d)) return "";
  return csv_field(to_string(v));
}

std::string records_to_csv(const std::vector<Record>& records) {
  std::set<std::string> keys, metric_keys;
  for (const auto& r : records) {
    for (const auto& [k, v] : r.params) keys.insert(k);
    for (const auto& [k, v] : r.metrics) metric_keys.insert(k);
  }
  std::ostringstream os;
  os << "study,variant,kind";
  for (const auto& k : keys) os << ",param." << k;
  os << ",status,median_ms,min_ms,max_ms,stddev_ms,count,ns_per_input,GBps,fraction_of_copy_ceiling,validation,note";
  for (const auto& k : metric_keys) os << ",metric." << k;
  os << '\n';
  for (const auto& r : records) {
    os << csv_field(r.study) << ',' << csv_field(r.variant) << ',' << to_string(r.kind);
    for (const auto& k : keys) {
      auto it = r.params.find(k);
      os << ',' << (it == r.params.end() ? "" : csv_value(it->second));
    }
    os << ',' << r.status;
    if (r.time)
      os << ',' << num(r.time->median) << ',' << num(r.time->min) << ',' << num(r.time->max) << ','
         << num(r.time->stddev) << ',' << r.time->samples.size() << ',' << num(r.ns_per_input) << ','
         << num(r.gbps) << ',' << (r.fraction_of_copy > 0 ? num(r.fraction_of_copy) : "");
    else
      os << ",,,,,,,,";
    os << ',' << r.validation << ',' << csv_field(r.note);
    for (const auto& k : metric_keys) {
      auto it = r.metrics.find(k);
      os << ',' << (it == r.metrics.end() ? "" : csv_value(it->second));
    }
    os << '\n';
  }
  return os.str();
}

json load_results_document(const std::string& path) {
  auto fail = [&](const std::string& problem) {
    std::string msg = path + ": " + problem;
    std::replace(msg.begin(), msg.end(), '\n', ' ');  // one line
    std::replace(msg.begin(), msg.end(), '\r', ' ');
    throw std::runtime_error(msg);
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail("is a directory, not a result file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail("read error");
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::exception& e) {
    fail(std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_object()) fail(std::string("top level must be an object, got ") + doc.type_name());
  const auto ver = doc.find("schema_version");
  if (ver == doc.end()) fail("missing 'schema_version'");
  if (!ver->is_number_integer() || ver->get<std::int64_t>() != kSchemaVersion)
    fail("unsupported schema_version " + ver->dump() + " (expected " + std::to_string(kSchemaVersion) + ")");
  const auto meta = doc.find("meta");
  if (meta == doc.end() || !meta->is_object()) fail("missing or non-object 'meta'");
  const auto study = meta->find("study");
  if (study == meta->end() || !study->is_string()) fail("missing or non-string 'meta.study'");
  const auto records = doc.find("records");
  if (records == doc.end()) fail("missing 'records'");
  if (!records->is_array()) fail(std::string("'records' must be an array, got ") + records->type_name());
  return doc;
}

void write_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  fs::path tmp = target;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + tmp.string());
    f << content;
    f.flush();
    if (!f) {
      f.close();
      fs::remove(tmp);
      throw std::runtime_error("cannot write " + tmp.string() + " (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp);
    throw std::runtime_error("cannot rename " + tmp.string() + " to " + target.string() + ": " + ec.message());
  }
}

void add_scaling(std::vector<Record>& records) {
  for (Record& r : records) {
    auto g = r.params.find("gpus");
    if (g == r.params.end() || !std::holds_alternative<std::int64_t>(g->second) || !r.time) continue;
    const std::int64_t gpus = std::get<std::int64_t>(g->second);
    if (gpus <= 1) continue;
    Params base_params = r.params;
    base_params["gpus"] = std::int64_t(1);
    for (const Record& b : records)
      if (b.variant == r.variant && b.time && b.time->median > 0 && b.params == base_params && r.time->median > 0) {
        const double speedup = b.time->median / r.time->median;
        r.metrics["speedup_vs_1_gpu"] = speedup;
        r.metrics["scaling_efficiency"] = speedup / double(gpus);
        break;
      }
  }
}

}  // namespace harness
