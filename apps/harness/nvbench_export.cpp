#include "nvbench_export.hpp"

#include <cmath>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace harness {

using nlohmann::json;

namespace {

const char* axis_type(const Value& v) {
  if (std::holds_alternative<std::int64_t>(v)) return "int64";
  if (std::holds_alternative<double>(v)) return "float64";
  return "string";
}

// NVBench writes every summary value as a string of the given type.
json summary(const std::string& tag, const std::string& name, const std::string& hint, const std::string& description, const char* type,
             const std::string& value) {
  return json{{"tag", tag},
              {"name", name},
              {"hint", hint},
              {"description", description},
              {"data", json::array({json{{"name", "value"}, {"type", type}, {"value", value}}})}};
}

std::string real(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

json device_of(const json& meta) {
  const json& g = meta.value("gpu", json::object());
  if (!g.value("present", false)) return json{{"id", 0}, {"name", "none (CPU only)"}};
  int sm = 0;
  const std::string cc = g.value("compute_capability", "0.0");
  const auto dot = cc.find('.');
  if (dot != std::string::npos) sm = std::stoi(cc.substr(0, dot)) * 100 + std::stoi(cc.substr(dot + 1)) * 10;
  return json{{"id", g.value("device", 0)},
              {"name", g.value("name", "")},
              {"sm_version", sm},
              {"number_of_sms", g.value("sms", 0)},
              {"l2_cache_size", g.value("l2_bytes", std::int64_t(0))},
              {"global_memory_size", g.value("memory_bytes", std::int64_t(0))},
              {"sm_default_clock_rate", std::int64_t(g.value("sm_clock_mhz", 0)) * 1000000}};
}

}  // namespace

json to_nvbench(const json& doc) {
  const json& meta = doc.at("meta");
  const json device = device_of(meta);
  const int dev = device.value("id", 0);
  std::vector<std::string> argv;
  {
    std::istringstream cmd(meta.value("command", ""));
    for (std::string w; cmd >> w;) argv.push_back(w);
  }
  json out;
  out["meta"] = {{"argv", argv},
                 {"version", {{"json", {{"major", 1}, {"minor", 0}, {"patch", 0}, {"string", "1.0.0"}}}}},
                 {"labelprims", {{"study", meta.at("study")}, {"git_commit", meta.value("git_commit", "")}, {"schema_version", doc.at("schema_version")}}}};
  out["devices"] = json::array({device});

  // Benchmarks in the order their variants first appear; axes list each parameter's values in
  // the order they first appear.
  std::vector<std::string> order;
  std::map<std::string, std::vector<Record>> by_bench;
  const json& recs = doc.at("records");
  for (size_t i = 0; i < recs.size(); ++i) {
    Record r = record_from_json(recs[i], "records[" + std::to_string(i) + "]");
    const std::string name = r.study + "/" + r.variant;
    if (!by_bench.count(name)) order.push_back(name);
    by_bench[name].push_back(std::move(r));
  }
  json benches = json::array();
  for (size_t b = 0; b < order.size(); ++b) {
    const auto& rs = by_bench[order[b]];
    std::vector<std::string> axis_names;
    std::map<std::string, std::vector<Value>> axis_values;
    for (const auto& r : rs)
      for (const auto& [k, v] : r.params) {
        auto& vals = axis_values[k];
        if (vals.empty()) axis_names.push_back(k);
        bool seen = false;
        for (const auto& x : vals) seen = seen || x == v;
        if (!seen) vals.push_back(v);
      }
    json axes = json::array();
    for (const auto& k : axis_names) {
      json values = json::array();
      for (const auto& v : axis_values[k]) {
        json value;
        std::visit([&](const auto& x) { value = x; }, v);
        values.push_back({{"input_string", to_string(v)}, {"description", ""}, {"value", value}});
      }
      axes.push_back({{"name", k}, {"type", axis_type(axis_values[k].front())}, {"flags", ""}, {"values", values}});
    }
    json states = json::array();
    for (const auto& r : rs) {
      std::string state_name = "Device=" + std::to_string(dev);
      json avs = json::array();
      for (const auto& [k, v] : r.params) {
        state_name += " " + k + "=" + to_string(v);
        avs.push_back({{"name", k}, {"type", axis_type(v)}, {"value", to_string(v)}});
      }
      json st = {{"name", state_name}, {"device", dev}, {"type_config_index", 0}, {"axis_values", avs}};
      json sums = json::array();
      const bool timed = r.time && r.status == "ok";
      if (timed) {
        const std::string where = r.kind == VariantKind::Cpu ? "cpu" : "gpu";
        const std::string how = r.kind == VariantKind::Cpu ? "the host's steady clock" : "CUDA events";
        const TimeStats& t = *r.time;
        sums.push_back(summary("nv/cold/sample_size", "Samples", "sample_size", "Number of timed repetitions", "int64",
                               std::to_string(t.samples.size())));
        sums.push_back(summary("nv/cold/time/" + where + "/mean", where == "gpu" ? "GPU Time" : "CPU Time", "duration",
                               "Median of the timed repetitions (labelprims reports medians), seconds, measured with " + how, "float64",
                               real(t.median * 1e-3)));
        sums.push_back(summary("nv/cold/time/" + where + "/min", "Min", "duration", "Fastest repetition, seconds", "float64", real(t.min * 1e-3)));
        sums.push_back(summary("nv/cold/time/" + where + "/max", "Max", "duration", "Slowest repetition, seconds", "float64", real(t.max * 1e-3)));
        sums.push_back(summary("nv/cold/time/" + where + "/stdev/absolute", "Noise", "duration", "Standard deviation of the repetitions, seconds",
                               "float64", real(t.stddev * 1e-3)));
        sums.push_back(summary("nv/cold/time/" + where + "/stdev/relative", "Noise", "percentage",
                               "Relative standard deviation of the repetitions", "float64", real(t.rsd())));
        if (r.gbps > 0)
          sums.push_back(summary("nv/cold/bw/global/bytes_per_second", "GlobalMem BW", "byte_rate",
                                 "Minimal traffic (each input read once, each output written once) per second", "float64", real(r.gbps * 1e9)));
        if (r.fraction_of_copy > 0)
          sums.push_back(summary("nv/cold/bw/global/utilization", "BWUtil", "percentage",
                                 "Fraction of the copy ceiling measured in the same run", "float64", real(r.fraction_of_copy)));
      }
      st["summaries"] = sums;
      st["is_skipped"] = !timed;
      if (!timed) st["skip_reason"] = r.status + ": " + r.note;
      st["labelprims"] = {{"status", r.status}, {"validation", r.validation}, {"note", r.note}};
      states.push_back(st);
    }
    const Record& first = rs.front();
    benches.push_back({{"name", order[b]},
                       {"index", b},
                       {"devices", json::array({dev})},
                       {"axes", axes},
                       {"states", states},
                       {"labelprims", {{"study", first.study}, {"variant", first.variant}, {"kind", to_string(first.kind)}}}});
  }
  out["benchmarks"] = benches;
  return out;
}

std::vector<Record> records_from_nvbench(const json& nv) {
  auto bad = [](const std::string& what) -> std::runtime_error { return std::runtime_error("nvbench JSON: " + what); };
  if (!nv.is_object() || !nv.contains("benchmarks") || !nv["benchmarks"].is_array()) throw bad("no 'benchmarks' array");
  std::vector<Record> out;
  for (const json& b : nv["benchmarks"]) {
    const std::string name = b.at("name").get<std::string>();
    const auto slash = name.find('/');
    Record proto;
    proto.study = slash == std::string::npos ? "nvbench" : name.substr(0, slash);
    proto.variant = slash == std::string::npos ? name : name.substr(slash + 1);
    const std::string kind = b.contains("labelprims") ? b["labelprims"].value("kind", "ours") : "ours";
    proto.kind = kind == "cpu" ? VariantKind::Cpu : kind == "peer" ? VariantKind::Peer : kind == "probe" ? VariantKind::Probe : VariantKind::Ours;
    for (const json& s : b.at("states")) {
      Record r = proto;
      if (s.contains("axis_values") && s["axis_values"].is_array())
        for (const json& av : s["axis_values"]) {
          const std::string type = av.at("type").get<std::string>(), text = av.at("value").get<std::string>();
          if (type == "int64") r.params[av.at("name").get<std::string>()] = std::int64_t(std::stoll(text));
          else if (type == "float64") r.params[av.at("name").get<std::string>()] = std::stod(text);
          else r.params[av.at("name").get<std::string>()] = text;
        }
      std::map<std::string, double> val;
      for (const json& sum : s.value("summaries", json::array())) {
        const std::string tag = sum.at("tag").get<std::string>();
        for (const json& d : sum.value("data", json::array()))
          if (d.value("name", "") == "value") val[tag] = std::stod(d.at("value").get<std::string>());
      }
      const std::string time = val.count("nv/cold/time/gpu/mean") ? "nv/cold/time/gpu/" : "nv/cold/time/cpu/";
      auto get = [&](const std::string& tag, double absent) {
        const auto it = val.find(tag);
        return it == val.end() ? absent : it->second;
      };
      if (s.value("is_skipped", false) || !val.count(time + "mean")) {
        r.status = "skipped";
        r.note = s.value("skip_reason", "");
      } else {
        TimeStats t;
        t.median = get(time + "mean", 0) * 1e3;
        t.min = get(time + "min", t.median * 1e-3) * 1e3;
        t.max = get(time + "max", t.median * 1e-3) * 1e3;
        t.stddev = get(time + "stdev/relative", 0) * t.median;
        r.time = t;
        r.gbps = get("nv/cold/bw/global/bytes_per_second", 0) / 1e9;
        r.fraction_of_copy = get("nv/cold/bw/global/utilization", 0);
      }
      if (s.contains("labelprims")) {
        r.status = s["labelprims"].value("status", r.status);
        r.validation = s["labelprims"].value("validation", r.validation);
        r.note = s["labelprims"].value("note", r.note);
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

int export_nvbench(const std::string& in_path, const std::string& out_path, std::ostream& err) {
  try {
    const json nv = to_nvbench(load_results_document(in_path));
    write_atomically(out_path, nv.dump(2) + "\n");
    return 0;
  } catch (const std::exception& e) {
    std::string msg = e.what();
    for (char& c : msg)
      if (c == '\n') c = ' ';
    err << "error: " << msg << '\n';
    return 2;
  }
}

}  // namespace harness
