// ALP on the CPU (cpu_reference/patched/alp.hpp, alp_layout.hpp, float_columns.hpp): every generated
// column kind, float32 and float64, at sizes around the vector and the row group and several seeds,
// decodes bit-exactly under the scheme the sampling chooses and under both schemes forced, from the
// encoder's form and from the packed layout a GPU decoder reads; the special
// values (NaN with payloads, the infinities, -0.0, subnormals, the extremes) are exceptions and come
// back bit for bit; the decimal columns compress as ALP promises (few exceptions, the integer's
// width), uniform doubles take ALP-RD; the encoding is deterministic. Prints each kind's bits a value
// and exception rate at 100 row groups' worth of values.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "check.hpp"
#include "cpu_reference/patched/alp.hpp"
#include "cpu_reference/patched/alp_layout.hpp"
#include "cpu_reference/patched/float_columns.hpp"

namespace cp = lp::cpu::patched;
namespace alp = lp::cpu::patched::alp;

namespace {

constexpr cp::FloatColumn kKinds[] = {cp::FloatColumn::Prices,     cp::FloatColumn::Coordinates, cp::FloatColumn::Percentages,
                                      cp::FloatColumn::Integers,   cp::FloatColumn::RandomWalk,  cp::FloatColumn::Uniform,
                                      cp::FloatColumn::Specials};

template <class F>
const char* type_name() {
  return sizeof(F) == 8 ? "f64" : "f32";
}

template <class F>
bool same_bits(const std::vector<F>& a, const std::vector<F>& b, std::int64_t* first_bad) {
  if (a.size() != b.size()) return *first_bad = -1, false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (alp::bits_of(a[i]) != alp::bits_of(b[i])) return *first_bad = std::int64_t(i), false;
  return true;
}

template <class F>
void check_round_trip(const std::vector<F>& v, const std::string& what) {
  std::int64_t bad = 0;
  const auto chosen = alp::encode(v.data(), std::int64_t(v.size()));
  CHECK_MSG(same_bits(alp::decode(chosen), v, &bad), what << ": chosen scheme, first wrong value at " << bad);
  CHECK_MSG(chosen.exceptions() <= std::int64_t(v.size()), what);
  const auto a = alp::encode(v.data(), std::int64_t(v.size()), alp::Scheme::Alp);
  CHECK_MSG(same_bits(alp::decode(a), v, &bad), what << ": ALP, first wrong value at " << bad);
  const auto rd = alp::encode(v.data(), std::int64_t(v.size()), alp::Scheme::AlpRd);
  CHECK_MSG(same_bits(alp::decode(rd), v, &bad), what << ": ALP-RD, first wrong value at " << bad);
  for (const auto* e : {&a, &rd}) {
    const auto packed = cp::pack_alp(*e);
    CHECK_MSG(same_bits(cp::decode_alp(packed), v, &bad), what << ": packed " << (e == &a ? "ALP" : "ALP-RD") << ", first wrong value at " << bad);
    CHECK_MSG(packed.patches.count() == e->exceptions(), what << ": a patch an exception");
  }
  // Every vector's integers lie in its frame, and an exception's integer is the filler (in the frame too).
  for (const auto& vec : a.vectors)
    for (const auto n : vec.ints) CHECK_MSG(std::uint64_t(n - vec.base) < (vec.w >= 63 ? ~0ull : (1ull << vec.w)), what << ": outside the frame");
}

template <class F>
void test_round_trips() {
  for (const auto kind : kKinds)
    for (const std::int64_t n : {0, 1, 31, 1023, 1024, 1025, 5000, 150000})
      for (const std::uint64_t seed : {1u, 2u, 3u}) {
        if (n >= 150000 && seed > 1) continue;  // the second row group once a kind is enough
        const auto v = cp::make_float_column<F>(kind, n, seed);
        check_round_trip(v, std::string(type_name<F>()) + " " + cp::name(kind) + " n=" + std::to_string(n) + " seed=" + std::to_string(seed));
      }
}

template <class F>
void test_specials() {
  const auto s = cp::special_values<F>();
  for (const F v : s) {
    const bool plus_zero = alp::bits_of(v) == alp::bits_of(F(0));
    bool encodes = false;
    for (int e = 0; e <= alp::Traits<F>::kMaxExp; ++e)
      for (int f = 0; f <= e; ++f) {
        typename alp::Traits<F>::Int n;
        encodes = encodes || alp::encode_value(v, alp::Combination{e, f}, &n);
      }
    // +0.0 is the integer 0; every other special value is an exception under every combination,
    // but the largest finite values, which are integers only beyond the exact rounding's range.
    CHECK_MSG(encodes == plus_zero, type_name<F>() << " special value bits " << std::uint64_t(alp::bits_of(v)));
  }
  // A column of them alone, and mixed into a vector of prices at every position modulo a few.
  std::vector<F> col;
  for (int r = 0; r < 100; ++r) col.insert(col.end(), s.begin(), s.end());
  check_round_trip(col, std::string(type_name<F>()) + " specials alone");
  auto mixed = cp::make_float_column<F>(cp::FloatColumn::Prices, 4096, 9);
  for (std::size_t i = 0; i < mixed.size(); i += 37) mixed[i] = s[(i / 37) % s.size()];
  check_round_trip(mixed, std::string(type_name<F>()) + " prices with specials every 37th");
}

void test_known_values() {
  // 1.5 and 2.25 under (e, f) = (2, 0): the integers 150 and 225, decoded exactly.
  std::int64_t n = 0;
  CHECK(alp::encode_value(1.5, alp::Combination{2, 0}, &n) && n == 150);
  CHECK(alp::encode_value(2.25, alp::Combination{2, 0}, &n) && n == 225);
  CHECK(alp::decode_value<double>(225, alp::Combination{2, 0}) == 2.25);
  // One digit too many for e = 1: 2.25 is not 22 or 23 tenths.
  CHECK(!alp::encode_value(2.25, alp::Combination{1, 0}, &n));
  // The decode's order of operations: n to F, times 10^f, times 10^-e.
  const double x = double(123456) * 1e12;
  CHECK(alp::bits_of(alp::decode_value<double>(123456, alp::Combination{14, 12})) == alp::bits_of(x * 1e-14));
}

template <class F>
struct Stats {
  alp::Scheme scheme;
  double bits_per_value, exception_rate;
  double layout_bits_per_value;  // the packed layout's, its patches' lane offsets included
};

template <class F>
Stats<F> stats_of(cp::FloatColumn kind, std::int64_t n) {
  const auto v = cp::make_float_column<F>(kind, n, 42);
  const auto e = alp::encode(v.data(), n);
  return {e.scheme, e.bits_per_value(), double(e.exceptions()) / double(n), 8.0 * cp::pack_alp(e).bytes() / double(n)};
}

template <class F>
void test_compression() {
  constexpr std::int64_t n = std::int64_t(alp::kVector) * alp::kRowGroupVectors;
  std::printf("%s, %lld values a column: scheme, bits a value (encoded; packed layout), exception rate\n", type_name<F>(),
              static_cast<long long>(n));
  for (const auto kind : kKinds) {
    const auto s = stats_of<F>(kind, n);
    std::printf("  %-12s %-6s %6.2f %6.2f %8.4f%%\n", cp::name(kind), s.scheme == alp::Scheme::Alp ? "alp" : "alp_rd", s.bits_per_value,
                s.layout_bits_per_value, 100 * s.exception_rate);
  }
  // The decimal columns: at most 1% exceptions and about the integer's width (prices up to 10^6
  // cents: 20 bits; percentages 0..1000 tenths: 10; integers below 10^6: 20), plus the vectors'
  // headers and the exceptions. float's 24-bit significand holds about 7 digits: prices up to
  // 10 000.00 and the walk's cents sit at that edge, where the decode's two roundings miss a few
  // percent of the values (printed above), so only the shorter decimals are held to 1% there.
  const auto pct = stats_of<F>(cp::FloatColumn::Percentages, n);
  CHECK(pct.exception_rate <= 0.01 && pct.bits_per_value <= 12);
  const auto ints = stats_of<F>(cp::FloatColumn::Integers, n);
  CHECK(ints.exception_rate == 0 && ints.bits_per_value <= 21);
  if (sizeof(F) == 8) {
    const auto prices = stats_of<F>(cp::FloatColumn::Prices, n);
    CHECK(prices.scheme == alp::Scheme::Alp && prices.exception_rate <= 0.01 && prices.bits_per_value <= 22);
    const auto walk = stats_of<F>(cp::FloatColumn::RandomWalk, n);
    CHECK(walk.exception_rate <= 0.01 && walk.bits_per_value <= 16);
    const auto coords = stats_of<F>(cp::FloatColumn::Coordinates, n);
    CHECK(coords.exception_rate <= 0.01 && coords.bits_per_value <= 31);
  }
  // Full-precision values: ALP-RD, below the raw width.
  const auto uni = stats_of<F>(cp::FloatColumn::Uniform, n);
  CHECK(uni.scheme == alp::Scheme::AlpRd && uni.bits_per_value < alp::Traits<F>::kBits);
}

template <class F>
void test_deterministic() {
  const auto v = cp::make_float_column<F>(cp::FloatColumn::RandomWalk, 70000, 5);
  const auto a = alp::encode(v.data(), std::int64_t(v.size())), b = alp::encode(v.data(), std::int64_t(v.size()));
  CHECK(a.scheme == b.scheme && a.bits() == b.bits() && a.vectors.size() == b.vectors.size());
  for (std::size_t i = 0; i < a.vectors.size() && i < b.vectors.size(); ++i) CHECK(a.vectors[i].c == b.vectors[i].c);
  const auto w = cp::make_float_column<F>(cp::FloatColumn::RandomWalk, 70000, 5);
  CHECK(alp::bits_of(v[12345]) == alp::bits_of(w[12345]));
  // Any thread count gives the same encoding, both schemes, several row groups (odd n, a partial
  // last vector and row group).
  for (const cp::FloatColumn kind : {cp::FloatColumn::Prices, cp::FloatColumn::Uniform, cp::FloatColumn::Specials}) {
    const auto col = cp::make_float_column<F>(kind, 3 * alp::kRowGroupVectors * alp::kVector + 777, 9);
    const std::int64_t n = std::int64_t(col.size());
    for (const alp::Scheme s : {alp::Scheme::Alp, alp::Scheme::AlpRd}) {
      const auto one = alp::encode(col.data(), n, s, 1);
      for (int threads : {2, 3, 7, 0}) {
        const auto many = alp::encode(col.data(), n, s, threads);
        bool same = one.bits() == many.bits() && one.vectors.size() == many.vectors.size() && one.right == many.right &&
                    one.codes == many.codes && one.rd_exception_pos == many.rd_exception_pos && one.rd_exception_bits == many.rd_exception_bits;
        for (std::size_t i = 0; same && i < one.vectors.size(); ++i)
          same = one.vectors[i].c == many.vectors[i].c && one.vectors[i].ints == many.vectors[i].ints &&
                 one.vectors[i].exception_pos == many.vectors[i].exception_pos && one.vectors[i].exception_bits == many.vectors[i].exception_bits;
        CHECK_MSG(same, cp::name(kind) << " scheme " << int(s) << " threads " << threads);
      }
    }
  }
}

}  // namespace

int main() {
  test_known_values();
  test_specials<float>();
  test_specials<double>();
  test_round_trips<float>();
  test_round_trips<double>();
  test_compression<float>();
  test_compression<double>();
  test_deterministic<float>();
  test_deterministic<double>();
  return test_summary("test_cpu_alp");
}
