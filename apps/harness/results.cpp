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

TimeStats TimeStats::of(std::vector<double> samples) {
  TimeStats t;
  t.samples = samples;
  if (samples.empty()) return t;
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  t.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  t.min = samples.front();
  t.max = samples.back();
  double mean = 0;
  for (double s : samples) mean += s;
  mean /= n;
  double var = 0;
  for (double s : samples) var += (s - mean) * (s - mean);
  t.stddev = n > 1 ? std::sqrt(var / (n - 1)) : 0.0;
  return t;
}

static VariantKind kind_from(const std::string& s) {
  if (s == "ours") return VariantKind::Ours;
  if (s == "peer") return VariantKind::Peer;
  if (s == "cpu") return VariantKind::Cpu;
  throw std::runtime_error("kind: unknown value '" + s + "'");
}

json record_to_json(const Record& r) {
  json j;
  j["study"] = r.study;
  j["variant"] = r.variant;
  j["kind"] = to_string(r.kind);
  json p = json::object();
  for (const auto& [k, v] : r.params) std::visit([&](const auto& x) { p[k] = x; }, v);
  j["params"] = p;
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
  return j;
}

Record record_from_json(const json& j) {
  auto need = [&](const char* key) -> const json& {
    if (!j.contains(key)) throw std::runtime_error(std::string("missing key '") + key + "'");
    return j.at(key);
  };
  try {
    Record r;
    r.study = need("study").get<std::string>();
    r.variant = need("variant").get<std::string>();
    r.kind = kind_from(need("kind").get<std::string>());
    for (auto it = need("params").begin(); it != need("params").end(); ++it) {
      if (it.value().is_number_integer() || it.value().is_number_unsigned())
        r.params[it.key()] = it.value().get<std::int64_t>();
      else if (it.value().is_number())
        r.params[it.key()] = it.value().get<double>();
      else
        r.params[it.key()] = it.value().get<std::string>();
    }
    r.status = need("status").get<std::string>();
    const json& t = need("time_ms");
    if (!t.is_null()) {
      TimeStats s;
      s.median = t.at("median").get<double>();
      s.min = t.at("min").get<double>();
      s.max = t.at("max").get<double>();
      s.stddev = t.at("stddev").get<double>();
      s.samples = t.at("samples").get<std::vector<double>>();
      r.time = s;
      r.ns_per_input = need("ns_per_input").get<double>();
      r.gbps = need("GBps").get<double>();
      const json& f = need("fraction_of_copy_ceiling");
      r.fraction_of_copy = f.is_null() ? 0.0 : f.get<double>();
    }
    r.validation = need("validation").get<std::string>();
    r.note = need("note").get<std::string>();
    return r;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("wrong type: ") + e.what());
  }
}

static std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

static std::string num(double x) {
  std::ostringstream os;
  os.precision(9);
  os << x;
  return os.str();
}

std::string records_to_csv(const std::vector<Record>& records) {
  std::set<std::string> keys;
  for (const auto& r : records)
    for (const auto& [k, v] : r.params) keys.insert(k);
  std::ostringstream os;
  os << "study,variant,kind";
  for (const auto& k : keys) os << ",param." << k;
  os << ",status,median_ms,min_ms,max_ms,stddev_ms,count,ns_per_input,GBps,fraction_of_copy_ceiling,validation,note\n";
  for (const auto& r : records) {
    os << csv_field(r.study) << ',' << csv_field(r.variant) << ',' << to_string(r.kind);
    for (const auto& k : keys) {
      auto it = r.params.find(k);
      os << ',' << (it == r.params.end() ? "" : csv_field(to_string(it->second)));
    }
    os << ',' << r.status;
    if (r.time)
      os << ',' << num(r.time->median) << ',' << num(r.time->min) << ',' << num(r.time->max) << ','
         << num(r.time->stddev) << ',' << r.time->samples.size() << ',' << num(r.ns_per_input) << ','
         << num(r.gbps) << ',' << (r.fraction_of_copy > 0 ? num(r.fraction_of_copy) : "");
    else
      os << ",,,,,,,,";
    os << ',' << r.validation << ',' << csv_field(r.note) << '\n';
  }
  return os.str();
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

}  // namespace harness
