#include "study.hpp"

#include <sstream>

namespace harness {

std::string to_string(const Value& v) {
  if (auto i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (auto s = std::get_if<std::string>(&v)) return *s;
  std::ostringstream os;
  os << std::get<double>(v);
  return os.str();
}

static const Value& get(const Params& p, const std::string& key) {
  auto it = p.find(key);
  if (it == p.end()) throw std::logic_error("point has no parameter '" + key + "'");
  return it->second;
}

std::int64_t as_int(const Params& p, const std::string& key) { return std::get<std::int64_t>(get(p, key)); }
double as_real(const Params& p, const std::string& key) {
  const Value& v = get(p, key);
  if (auto i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}
const std::string& as_str(const Params& p, const std::string& key) { return std::get<std::string>(get(p, key)); }

const char* to_string(VariantKind k) {
  switch (k) {
    case VariantKind::Ours: return "ours";
    case VariantKind::Peer: return "peer";
    case VariantKind::Cpu: return "cpu";
  }
  return "?";
}

}  // namespace harness
