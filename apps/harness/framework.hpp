// The study framework: a study declares its axes, input generator, reference and
// variants once; the harness owns the variant table, the dispatch of a variant name to its
// launcher, the skip reasons and everything `bench list` and --help show. Plain C++ like
// study.hpp: a study's nvcc-compiled translation unit instantiates it with its own context type.
//
// A study in ten lines (README, "Add a variant, add a study"):
//   struct Ctx { ...inputs, sizes, knobs, outputs...; cudaStream_t stream; };
//   using V = harness::Variant<Ctx>;
//   const harness::VariantTable<V>& table() { static const harness::VariantTable<V> t("mine", {add_my_variants}); return t; }
//   class MyPoint : public harness::TablePoint<V> { ...generator, reference, allocate, check... };
//   std::unique_ptr<harness::Study> make_study() {
//     harness::StudyDecl s{"mine", "what it measures", kDefaultConfig};
//     s.axes = {...};
//     s.variants = table().specs();
//     s.make_point = [](const Params& p, std::uint64_t seed, bool gpu) { return std::make_unique<MyPoint>(p, seed, gpu); };
//     return harness::declare_study(std::move(s));
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "study.hpp"

namespace harness {

struct NoProps {};

// One variant as its family file declares it. `Ctx` is what a launcher sees at a point (device and
// host inputs, sizes, knobs, outputs, scratch, the stream); the predicates read the same context,
// so "supported when" is stated in the terms the launcher uses. `Props` holds the study's own
// per-variant facts (the output it writes, whether it needs a commutative operator).
template <class Ctx, class Props = NoProps>
struct Variant {
  using Context = Ctx;
  std::string name;
  VariantKind kind = VariantKind::Ours;
  std::string description;  // one line, shown by `bench list` and --help
  Props props{};
  std::function<std::string(const Ctx&)> unsupported;  // "" where it can run, else the skip reason
  std::function<std::size_t(const Ctx&)> scratch;       // device scratch bytes it needs there
  std::function<void(Ctx&)> run;                        // the launcher; empty: not defined for this instantiation
};

// The variants of a study (of one instantiation of it, for studies templated on an operator or a
// type), in `bench list` order. Families append to it; a repeated name is a programming error.
template <class V>
class VariantTable {
 public:
  using Family = void (*)(VariantTable&);
  VariantTable(std::string study, std::initializer_list<Family> families) : study_(std::move(study)) {
    for (Family f : families) f(*this);
  }
  VariantTable& add(V v) {
    for (const V& have : list_)
      if (have.name == v.name) throw std::logic_error(study_ + ": variant '" + v.name + "' declared twice");
    list_.push_back(std::move(v));
    return *this;
  }
  // The config layer has checked every name against specs(), so a miss is a programming error.
  const V& at(const std::string& name) const {
    for (const V& v : list_)
      if (v.name == name) return v;
    throw std::logic_error(study_ + ": no variant '" + name + "'");
  }
  const std::vector<V>& all() const { return list_; }
  std::vector<VariantSpec> specs() const {
    std::vector<VariantSpec> out;
    for (const V& v : list_) out.push_back({v.name, v.kind, v.description});
    return out;
  }

 private:
  std::string study_;
  std::vector<V> list_;
};

namespace detail {
template <class C, class = void>
struct has_stream : std::false_type {};
template <class C>
struct has_stream<C, std::void_t<decltype(std::declval<C&>().stream)>> : std::true_type {};
}  // namespace detail

// A point whose variants come from a table: the harness resolves the name, asks the variant (and
// the study, through skip_reason) whether it can run, and calls its launcher on the point's
// context. The study writes the generator (constructor), the reference and check(), bytes(),
// allocate() and deallocate(): no name lookups, no dispatch.
template <class V>
class TablePoint : public Point {
 public:
  using Ctx = typename V::Context;
  explicit TablePoint(const VariantTable<V>& table) : table_(table) {}

  double minimal_bytes(const std::string& name) const final { return bytes(table_.at(name)); }
  void prepare(const std::string& name) final {
    const V& v = table_.at(name);
    const std::string why = skip_reason(v);
    if (!why.empty()) throw Unsupported(why);
    allocate(v);
  }
  void run(const std::string& name, void* stream) final {
    if constexpr (detail::has_stream<Ctx>::value) ctx_.stream = static_cast<decltype(ctx_.stream)>(stream);
    table_.at(name).run(ctx_);
  }
  Validation validate(const std::string& name) final { return check(table_.at(name)); }
  void release(const std::string& name) final { deallocate(table_.at(name)); }
  std::string reference_checksum(const std::string& name) final { return checksum(table_.at(name)); }
  Params metrics(const std::string& name) final { return measured(table_.at(name)); }

 protected:
  // Why `v` cannot run at this point, or "". The default asks the variant's own predicate (and
  // refuses a variant with no launcher for this instantiation); a study adds its point-level
  // conditions first and then calls this one.
  virtual std::string skip_reason(const V& v) const {
    if (!v.run) return "not defined for this point's " + instantiation();
    return v.unsupported ? v.unsupported(ctx_) : std::string();
  }
  // What "not defined for ..." names: the operator or type the point was instantiated for.
  virtual std::string instantiation() const { return "inputs"; }
  virtual double bytes(const V& v) const = 0;   // Point::minimal_bytes
  virtual void allocate(const V& v) = 0;         // outputs and scratch, outside the timed region
  virtual Validation check(const V& v) = 0;      // Point::validate
  virtual void deallocate(const V& v) = 0;       // Point::release
  virtual std::string checksum(const V&) { return {}; }  // Point::reference_checksum
  virtual Params measured(const V&) { return {}; }       // Point::metrics

  const VariantTable<V>& table_;
  Ctx ctx_{};  // the study fills the inputs in its constructor, outputs and scratch in allocate()
};

// A study as a declaration: the harness's Study built from its parts.
struct StudyDecl {
  StudyDecl(std::string name_, std::string description_, const char* default_config_)
      : name(std::move(name_)), description(std::move(description_)), default_config(default_config_) {}
  std::string name;
  std::string description;
  const char* default_config;  // JSON text, embedded from configs/<study>/default.json
  std::vector<AxisSpec> axes;
  std::vector<VariantSpec> variants;
  // Reject a combination of parameters before any work: "" or the reason naming the key.
  std::function<std::string(const Params&)> check_params;
  // The input generator: a point's inputs from its parameters and the seed.
  std::function<std::unique_ptr<Point>(const Params&, std::uint64_t seed, bool device_ok)> make_point;
  std::function<int(std::ostream&, bool device_ok)> demo;  // optional: `bench <study> --demo`
};

std::unique_ptr<Study> declare_study(StudyDecl decl);

}  // namespace harness
