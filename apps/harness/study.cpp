#include "study.hpp"

#include "framework.hpp"

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
    case VariantKind::Probe: return "probe";
  }
  return "?";
}

namespace {
class DeclaredStudy final : public Study {
 public:
  explicit DeclaredStudy(StudyDecl d) : d_(std::move(d)) {
    if (d_.name.empty() || !d_.make_point) throw std::logic_error("a study declaration needs a name and make_point");
  }
  std::string name() const override { return d_.name; }
  std::string description() const override { return d_.description; }
  std::vector<AxisSpec> axes() const override { return d_.axes; }
  std::vector<VariantSpec> variants() const override { return d_.variants; }
  std::string default_config() const override { return d_.default_config; }
  std::string check_params(const Params& p) const override { return d_.check_params ? d_.check_params(p) : std::string(); }
  std::unique_ptr<Point> make_point(const Params& p, std::uint64_t seed, bool device_ok) const override {
    return d_.make_point(p, seed, device_ok);
  }
  bool has_demo() const override { return bool(d_.demo); }
  int demo(std::ostream& os, bool device_ok) const override { return d_.demo ? d_.demo(os, device_ok) : 2; }

 private:
  StudyDecl d_;
};
}  // namespace

std::unique_ptr<Study> declare_study(StudyDecl decl) { return std::make_unique<DeclaredStudy>(std::move(decl)); }

}  // namespace harness
