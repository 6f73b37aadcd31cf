// The patched study's CPU side (cpu_reference/patched/, kernels/patched/fastlanes.hpp): the builder
// and the seed's layout (its diagram's chunk 0: lane_offsets 0,0,2,2,3,5), FastLanes packing round
// trips for every type and every bit width, and the CPU apply (one thread and several) against the
// brute-force oracle on random sizes and seeds, partial last chunks, empty patch sets, a chunk with
// all 1024 positions patched and every position patched; the u8 decode's four-lanes-a-word rows.
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "check.hpp"
#include "cpu_reference/patched/apply.hpp"

namespace cp = lp::cpu::patched;
namespace pk = lp::patched;

namespace {

template <class T>
const char* type_name() {
  return sizeof(T) == 1 ? "u8" : sizeof(T) == 2 ? "u16" : sizeof(T) == 4 ? "u32" : "u64";
}

template <class T>
std::uint64_t mask_of(int w) { return std::uint64_t(pk::low_mask<std::uint64_t>(w)); }

// A column whose regular values fit w bits above a per-chunk base, and the exceptions at the
// flagged positions (values outside that range where w < W).
template <class T>
struct Column {
  std::vector<T> values;
  std::vector<std::uint8_t> flag;
  std::vector<cp::Exception<T>> ex;
};

template <class T>
Column<T> make_column(std::int64_t n, int w, std::vector<std::uint8_t> flag, std::uint64_t seed) {
  constexpr int W = pk::kBits<T>;
  harness::Rng r(seed);
  const std::uint64_t full = mask_of<T>(W), span = mask_of<T>(w);
  auto draw = [&](std::uint64_t limit) { return limit == ~std::uint64_t(0) ? r.next() : r.below(limit + 1); };
  Column<T> c;
  c.flag = std::move(flag);
  c.values.resize(std::size_t(n));
  for (std::int64_t ch = 0; ch < pk::chunks_of(n); ++ch) {
    const T base = T(draw(full - span));
    for (std::int64_t i = ch * 1024; i < std::min(n, (ch + 1) * 1024); ++i) {
      if (c.flag[std::size_t(i)]) {
        c.values[std::size_t(i)] = T(base + T(w < W ? span + 1 + draw(full - span - 1) : 1 + draw(full - 1)));
        c.ex.push_back({i, c.values[std::size_t(i)]});
      } else {
        c.values[std::size_t(i)] = T(base + T(draw(span)));
      }
    }
  }
  return c;
}

std::vector<std::uint8_t> random_flags(std::int64_t n, double rate, harness::Rng& r) {
  std::vector<std::uint8_t> f(static_cast<std::size_t>(n));
  for (auto& x : f) x = r.unit() < rate;
  return f;
}

// The layout's invariants: prefix offsets over chunks * lanes slots, every patch in its slot's lane
// and chunk, positions ascending within a lane, and the plain list back unchanged.
template <class T>
void check_layout(const cp::PatchLayout<T>& p, std::vector<cp::Exception<T>> ex, const std::string& what) {
  const int L = pk::kLanes<T>;
  CHECK_MSG(p.lanes == L, what);
  CHECK_MSG(p.chunks == pk::chunks_of(p.n), what);
  CHECK_MSG(p.lane_offsets.size() == std::size_t(p.chunks * L + 1), what);
  CHECK_MSG(p.lane_offsets.front() == 0 && p.lane_offsets.back() == ex.size(), what);
  CHECK_MSG(p.indices.size() == ex.size() && p.values.size() == ex.size(), what);
  bool ok = true;
  for (std::int64_t s = 0; s < p.chunks * L; ++s) {
    const std::uint32_t b = p.lane_offsets[std::size_t(s)], e = p.lane_offsets[std::size_t(s) + 1];
    ok = ok && b <= e;
    for (std::uint32_t k = b; k < e && ok; ++k) {
      ok = ok && pk::lane_of<T>(p.indices[k]) == int(s % L) && (s / L) * 1024 + p.indices[k] < p.n;
      if (k > b) ok = ok && p.indices[k] > p.indices[k - 1];
    }
  }
  CHECK_MSG(ok, what << ": slot contents");
  std::sort(ex.begin(), ex.end(), [](const auto& a, const auto& b) { return a.pos < b.pos; });
  const auto back = cp::to_exceptions(p);
  bool same = back.size() == ex.size();
  for (std::size_t k = 0; same && k < ex.size(); ++k) same = back[k].pos == ex[k].pos && back[k].value == ex[k].value;
  CHECK_MSG(same, what << ": to_exceptions round trip");
}

// The seed's diagram: chunk 0's lanes 0..5 start at 0, 0, 2, 2, 3, 5 (lane 0 none, lane 1 two
// patches, lane 2 none, lane 3 one, lane 4 two). Exceptions at rows 0 and 1 of lanes 1 and 4 and at
// row 0 of lane 3 give exactly that, given in scrambled order.
template <class T>
void check_seed_diagram() {
  const int L = pk::kLanes<T>;
  std::vector<cp::Exception<T>> ex = {{L + 4, T(40)}, {3, T(30)}, {L + 1, T(11)}, {4, T(41)}, {1, T(10)}};
  const auto p = cp::build_patches<T>(5000, ex);
  const std::vector<std::uint32_t> want = {0, 0, 2, 2, 3, 5};
  CHECK_MSG(std::equal(want.begin(), want.end(), p.lane_offsets.begin()), type_name<T>() << ": seed diagram lane_offsets");
  for (std::size_t s = 6; s < p.lane_offsets.size(); ++s) CHECK(p.lane_offsets[s] == 5);
  const std::vector<std::uint16_t> idx = {1, std::uint16_t(L + 1), 3, 4, std::uint16_t(L + 4)};
  const std::vector<T> val = {T(10), T(11), T(30), T(41), T(40)};
  CHECK_MSG(p.indices == idx && p.values == val, type_name<T>() << ": seed diagram indices/values");
  check_layout(p, ex, std::string(type_name<T>()) + " seed diagram");
}

template <class T>
void check_builder_errors() {
  bool threw = false;
  try {
    cp::build_patches<T>(100, {{5, T(1)}, {5, T(2)}});
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK_MSG(threw, "duplicate position refused");
  threw = false;
  try {
    cp::build_patches<T>(100, {{100, T(1)}});
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK_MSG(threw, "position n refused");
  const auto empty = cp::build_patches<T>(0, {});
  CHECK(empty.chunks == 0 && empty.lane_offsets.size() == 1 && empty.count() == 0);
}

// Every width 1..W, sizes around the chunk: decode (rows, vectorisable), unpack_one (random
// access) and the bit-by-bit oracle all give the column back.
template <class T>
void check_round_trips(harness::Rng& r) {
  for (int w = 1; w <= pk::kBits<T>; ++w)
    for (std::int64_t n : {std::int64_t(1), std::int64_t(1023), std::int64_t(1024), std::int64_t(1025), std::int64_t(3 * 1024 + 7)}) {
      const auto c = make_column<T>(n, w, std::vector<std::uint8_t>(std::size_t(n), 0), r.next());
      const auto p = cp::pack(c.values.data(), n, w, c.flag.data());
      const std::string what = std::string(type_name<T>()) + " w=" + std::to_string(w) + " n=" + std::to_string(n);
      CHECK_MSG(p.words.size() == std::size_t(pk::chunks_of(n) * w * pk::kLanes<T>), what);
      std::vector<T> out(std::size_t(n), T(0x5a));
      cp::decode(p, out.data());
      CHECK_MSG(out == c.values, what << ": decode");
      CHECK_MSG(cp::brute_force(p, {}) == c.values, what << ": brute force");
      bool ok = true;
      for (std::int64_t i = 0; i < n && ok; ++i) {
        const int q = int(i % 1024);
        const T got = T(p.bases[std::size_t(i / 1024)] +
                        pk::unpack_one<T>(p.words.data() + (i / 1024) * pk::words_per_chunk<T>(w), pk::lane_of<T>(q), pk::row_of<T>(q), w));
        ok = got == c.values[std::size_t(i)];
      }
      CHECK_MSG(ok, what << ": unpack_one");
    }
  // A regular value that does not fit w bits is refused.
  if (pk::kBits<T> > 1) {
    std::vector<T> v = {T(0), T(2)};
    std::vector<std::uint8_t> f = {0, 0};
    bool threw = false;
    try {
      cp::pack(v.data(), 2, 1, f.data());
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    CHECK_MSG(threw, type_name<T>() << ": value beyond w bits refused");
  }
}

// The CPU apply (one thread, several, all cores) equals the oracle and the column.
template <class T>
void check_apply(const Column<T>& c, std::int64_t n, int w, const std::string& what) {
  const auto p = cp::pack(c.values.data(), n, w, c.flag.data());
  const auto p_mt = cp::pack(c.values.data(), n, w, c.flag.data(), 3);  // chunks split over threads: the same words
  CHECK_MSG(p_mt.words == p.words && p_mt.bases == p.bases, what << ": pack on 3 threads");
  const auto patches = cp::build_patches<T>(n, c.ex);
  check_layout(patches, c.ex, what);
  const std::vector<T> oracle = cp::brute_force(p, c.ex);
  CHECK_MSG(oracle == c.values, what << ": oracle vs column");
  std::vector<T> out(std::size_t(n), T(~T(0)));
  cp::apply(p, patches, out.data());
  CHECK_MSG(out == oracle, what << ": apply");
  for (int threads : {0, 1, 3, 7}) {
    std::fill(out.begin(), out.end(), T(~T(0)));
    cp::apply_mt(p, patches, out.data(), threads);
    CHECK_MSG(out == oracle, what << ": apply_mt threads=" << threads);
  }
  // Without the patches the exceptions decode to their chunk's base (the filler 0).
  std::vector<T> unpatched(static_cast<std::size_t>(n));
  cp::decode(p, unpatched.data());
  bool filler = true;
  for (const auto& e : c.ex) filler = filler && unpatched[std::size_t(e.pos)] == p.bases[std::size_t(e.pos / 1024)];
  CHECK_MSG(filler, what << ": exceptions stored as filler 0");
}

template <class T>
void check_applies(harness::Rng& r) {
  const std::string t = type_name<T>();
  for (int k = 0; k < 24; ++k) {
    const std::int64_t n = 1 + std::int64_t(r.below(k < 12 ? 5000 : 70000));
    const int w = 1 + int(r.below(pk::kBits<T>));
    const double rate = std::vector<double>{0, 0.0001, 0.01, 0.1, 0.5, 1}[std::size_t(k % 6)];
    check_apply(make_column<T>(n, w, random_flags(n, rate, r), r.next()), n, w, t + " random n=" + std::to_string(n) + " w=" + std::to_string(w));
  }
  // Empty patch set; n not a multiple of 1024.
  check_apply(make_column<T>(5 * 1024 + 1, 3, std::vector<std::uint8_t>(5 * 1024 + 1, 0), r.next()), 5 * 1024 + 1, 3, t + " no patches");
  // Every position of chunk 1 patched, nothing elsewhere; then every lane of every chunk at row 0.
  std::vector<std::uint8_t> f(4 * 1024 + 100, 0);
  std::fill(f.begin() + 1024, f.begin() + 2048, 1);
  check_apply(make_column<T>(std::int64_t(f.size()), 2, f, r.next()), std::int64_t(f.size()), 2, t + " chunk 1 fully patched");
  std::fill(f.begin(), f.end(), 0);
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = (i % 1024) < std::size_t(pk::kLanes<T>);
  check_apply(make_column<T>(std::int64_t(f.size()), 5, f, r.next()), std::int64_t(f.size()), 5, t + " every lane patched");
  // Everything patched, including the partial last chunk (no regular value: base 0).
  check_apply(make_column<T>(2 * 1024 + 9, 1, std::vector<std::uint8_t>(2 * 1024 + 9, 1), r.next()), 2 * 1024 + 9, 1, t + " all patched");
}

template <class T>
void check_type(harness::Rng& r) {
  check_seed_diagram<T>();
  check_builder_errors<T>();
  check_round_trips<T>(r);
  check_applies<T>(r);
}

// The u8 decode's four lanes a word (unpack4_u8) against extract_bits lane by lane: every bit width,
// every shift, random words and bases, so the kernel's SWAR rows are the scalar rows.
void check_unpack4_u8(harness::Rng& r) {
  for (int w = 1; w <= 8; ++w)
    for (int shift = 0; shift < 8; ++shift)
      for (int k = 0; k < 200; ++k) {
        const std::uint32_t lo = std::uint32_t(r.next()), hi = std::uint32_t(r.next()), base = std::uint32_t(r.below(256));
        const std::uint32_t got = pk::unpack4_u8(lo, hi, shift, w, base * 0x01010101u);
        bool same = true;
        for (int b = 0; b < 4; ++b) {
          const auto want = std::uint8_t(base + pk::extract_bits<std::uint8_t>(std::uint8_t(lo >> (8 * b)), std::uint8_t(hi >> (8 * b)), shift, w));
          same = same && std::uint8_t(got >> (8 * b)) == want;
        }
        CHECK(same);
      }
}

}  // namespace

int main() {
  static_assert(pk::kLanes<std::uint8_t> == 128 && pk::kLanes<std::uint16_t> == 64 && pk::kLanes<std::uint32_t> == 32 &&
                    pk::kLanes<std::uint64_t> == 16,
                "FastLanes lanes: 1024 bits / value bits");
  harness::Rng r(20250601);
  check_unpack4_u8(r);
  check_type<std::uint8_t>(r);
  check_type<std::uint16_t>(r);
  check_type<std::uint32_t>(r);
  check_type<std::uint64_t>(r);
  return test_summary("test_cpu_patched");
}
