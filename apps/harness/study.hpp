// The contract between the harness and a study. Plain C++ (no JSON, no CLI11, no fmt) so that a
// study's nvcc-compiled translation unit can implement it. The harness knows nothing of any
// particular algorithm: it sees axes, variants and points through this interface only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace harness {

// One parameter value of a point: sizes and counts are integers, categorical axes are strings,
// continuous ones (e.g. a zipf exponent) are reals.
using Value = std::variant<std::int64_t, double, std::string>;
using Params = std::map<std::string, Value>;

std::string to_string(const Value& v);
std::int64_t as_int(const Params& p, const std::string& key);
double as_real(const Params& p, const std::string& key);
const std::string& as_str(const Params& p, const std::string& key);

enum class AxisKind { Size, Int, Real, Choice };

struct AxisSpec {
  std::string name;
  AxisKind kind;
  std::string help;
  std::vector<Value> defaults;       // used when a config names neither the axis nor a value for it
  std::vector<std::string> choices;  // Choice axes: the allowed values (none: any string)
  std::int64_t min = 0;              // Size/Int axes: inclusive range
  std::int64_t max = INT64_MAX;
  // An axis added after results were committed: a record leaves it out while it has its default,
  // so that records made before it existed keep matching (bench compare) the same measurement.
  bool omit_at_default = false;
};

// Probe: a measurement of the hardware limit of the study's operation (e.g. random accesses), run and
// validated like a variant but not an algorithm: no "best variant" counts it.
enum class VariantKind { Ours, Peer, Cpu, Probe };
const char* to_string(VariantKind k);

struct VariantSpec {
  std::string name;
  VariantKind kind;
  std::string description;  // one line, shown by `bench list`
};

// Outcome of comparing one variant's output with the reference.
struct Validation {
  enum class Status { Pass, Fail, Skipped } status = Status::Skipped;
  std::string detail;  // first differing index, expected and actual, or why skipped
  static Validation pass() { return {Status::Pass, ""}; }
  static Validation fail(std::string d) { return {Status::Fail, std::move(d)}; }
  static Validation skipped(std::string d) { return {Status::Skipped, std::move(d)}; }
};

// Thrown by a study when a point or a variant does not fit in device memory: the record is
// marked skipped and the run goes on.
struct OutOfMemory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A variant that cannot run at a point (unsupported type, operator, size) returns a reason.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The inputs of one point, generated once from the seed, with its reference computed lazily.
class Point {
 public:
  virtual ~Point() = default;
  // Problem size in "inputs" (the unit of ns per input) and the minimal traffic in bytes of a
  // variant: each input read once, each output written once.
  virtual double inputs() const = 0;
  virtual double minimal_bytes(const std::string& variant) const = 0;
  // Called once before a variant's timings (outside the timed region): allocate its outputs and
  // scratch. Throws Unsupported or OutOfMemory.
  virtual void prepare(const std::string& variant) = 0;
  // The timed region. GPU variants enqueue on `stream` and must not synchronise; CPU variants run
  // synchronously on the host.
  virtual void run(const std::string& variant, void* stream) = 0;
  // Compare the variant's last output with the CPU reference (outside the timed region).
  virtual Validation validate(const std::string& variant) = 0;
  // Free what prepare() allocated.
  virtual void release(const std::string& variant) = 0;
  // What else the last timed runs of `variant` measured or found, beyond the time (hardware
  // counter rates, how much memory huge pages backed, a simulator's prediction): stored in the
  // record under "metrics". A value a machine cannot give is the string "unavailable", never 0.
  virtual Params metrics(const std::string& /*variant*/) { return {}; }
  // A checksum (checksum_hex) of the CPU reference output `variant` is validated against, stored in
  // the record as metric "reference_checksum" when the run validates: a CPU-only run then gates the
  // input generators and the references against a committed baseline (bench compare --exact).
  // "" where a study has none.
  virtual std::string reference_checksum(const std::string& /*variant*/) { return {}; }
  // `bench <study> --dump-inputs DIR`: write the point's inputs as files under `dir` (created) for a
  // tool outside the suite to time the same data (the join study's DuckDB anchor), and return what
  // that tool needs to know: file names, sizes, the reference's facts to validate against. A study
  // that cannot throws Unsupported.
  virtual Params dump_inputs(const std::string& /*dir*/) { throw Unsupported("this study does not dump its inputs"); }
};

// FNV-1a (64-bit) of a byte range, as 16 hex digits: a stable fingerprint of an output.
inline std::string checksum_hex(const void* data, std::size_t bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  static const char* hex = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) s[std::size_t(i)] = hex[h & 15];
  return s;
}
template <class T>
std::string checksum_hex(const std::vector<T>& v) {
  return checksum_hex(v.data(), v.size() * sizeof(T));
}

class Study {
 public:
  virtual ~Study() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<AxisSpec> axes() const = 0;
  virtual std::vector<VariantSpec> variants() const = 0;
  virtual std::string default_config() const = 0;  // JSON text, embedded from configs/<study>/
  // Reject a combination of parameters the study cannot express (before any GPU work). Returns
  // an empty string when fine, else the reason naming the offending key.
  virtual std::string check_params(const Params&) const { return {}; }
  // Build a point's inputs. `device_ok` is false when no GPU is present: only CPU variants run.
  virtual std::unique_ptr<Point> make_point(const Params& params, std::uint64_t seed,
                                            bool device_ok) const = 0;
  // Optional study-specific demonstration (`bench <study> --demo`); returns the exit code.
  virtual bool has_demo() const { return false; }
  virtual int demo(std::ostream&, bool /*device_ok*/) const { return 2; }
};

}  // namespace harness
