// The decimal study's sums (the decimal128 article, docs/references.md): the
// multireduce operators for sum(price × quantity) in decimal128, decimal64 and double, each with
// the row's product (Spark's CheckOverflow on the product type) and an atomic where CUDA has none,
// so the multireduce kernels (shared_privatized, cluster_privatized, global_atomics, sort_global)
// run them unchanged. Host and device share them: the CPU tests cover what kernels run.
//
// Why an exact 128-bit accumulator never wraps here: a product of a decimal(p <= 18) price and an
// int32 is below 10^18 · 2^31 < 2^92 and a point has at most 2^30 rows, so any partial sum stays
// below 2^122; CheckOverflow against the sum type's 10^P - 1 is then a compare on the exact total.
#pragma once
#include <cstdint>
#include <cstring>

#include "../common/hd.hpp"

namespace lp::decimal {

using int128 = __int128;

// 128-bit addition in four 32-bit words with the carry chained through PTX add.cc/addc (the
// article: the GPU computes on 32-bit words); unsigned on the host, where wrap-around is defined.
LP_HD int128 add128(int128 a, int128 b) {
#if defined(__CUDA_ARCH__)
  unsigned x[4], y[4], r[4];
  memcpy(x, &a, 16);
  memcpy(y, &b, 16);
  asm("add.cc.u32 %0, %4, %8;\n\t"
      "addc.cc.u32 %1, %5, %9;\n\t"
      "addc.cc.u32 %2, %6, %10;\n\t"
      "addc.u32 %3, %7, %11;"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]));
  int128 out;
  memcpy(&out, r, 16);
  return out;
#else
  return int128((unsigned __int128)a + (unsigned __int128)b);
#endif
}

LP_HD int128 abs128(int128 v) { return v < 0 ? -v : v; }

// The exact product of a decimal64 price and an int32 quantity (one 64 x 64 -> 128 multiply).
LP_HD int128 product128(std::int64_t price, std::int32_t qty) { return int128(price) * qty; }

// decimal128, 16-byte buckets: the value's low 64-bit word is added with a returning atomic, and
// the carry out of it (old + lo wrapped) goes into the high word with the high half: every wrap is
// counted once, by the thread that caused it, in any interleaving.
struct Sum128 {
  using value_type = int128;
  using price_type = std::int64_t;
  static constexpr bool commutative = true;
  static constexpr const char* name = "add";
  LP_HD static int128 identity() { return 0; }
  LP_HD static int128 apply(int128 a, int128 b) { return add128(a, b); }
  // The row's product, null (dropped from the sum) beyond the product type's limit.
  LP_HD static int128 row(std::int64_t price, std::int32_t qty, int128 limit, bool* null) {
    const int128 p = product128(price, qty);
    *null = abs128(p) > limit;
    return p;
  }
  LP_HD static int128 total(int128 b) { return b; }
  LP_HD static bool overflowed(int128) { return false; }
#if defined(__CUDACC__)
  __device__ static void atomic(int128* p, int128 v) {
    auto* w = reinterpret_cast<unsigned long long*>(p);
    const auto lo = static_cast<unsigned long long>(v), hi = static_cast<unsigned long long>(v >> 64);
    const unsigned long long old = atomicAdd(w, lo);
    const unsigned long long up = hi + (old + lo < old ? 1ull : 0ull);
    if (up) atomicAdd(w + 1, up);
  }
#endif
};

// decimal128 as the article's 32-bit words: a value is w0 + w1·2^32 + w2·2^64 + w3·2^96 with
// w0..w2 unsigned 32-bit and w3 signed, each word summed in its own 64-bit counter with no carry
// (2^32 rows cannot overflow one), the carries resolved once per group by total(). 32-byte
// buckets, but every atomic is a plain (non-returning) 64-bit add, and zero words are skipped.
struct alignas(16) Words128 {
  unsigned long long w[4];
  LP_HD bool operator==(const Words128& o) const { return w[0] == o.w[0] && w[1] == o.w[1] && w[2] == o.w[2] && w[3] == o.w[3]; }
};

struct Sum128Words {
  using value_type = Words128;
  using price_type = std::int64_t;
  static constexpr bool commutative = true;
  static constexpr const char* name = "add";
  LP_HD static Words128 identity() { return {{0, 0, 0, 0}}; }
  LP_HD static Words128 apply(Words128 a, Words128 b) {
    return {{a.w[0] + b.w[0], a.w[1] + b.w[1], a.w[2] + b.w[2], a.w[3] + b.w[3]}};
  }
  LP_HD static Words128 split(int128 v) {
    return {{static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v >> 32), static_cast<std::uint32_t>(v >> 64),
             static_cast<unsigned long long>(static_cast<long long>(v >> 96))}};
  }
  LP_HD static Words128 row(std::int64_t price, std::int32_t qty, int128 limit, bool* null) {
    return split(Sum128::row(price, qty, limit, null));
  }
  // The carry chain, once per group: each shifted word added with wrap-around (exact, since the
  // true total fits 128 bits).
  LP_HD static int128 total(Words128 b) {
    int128 t = int128(b.w[0]);
    t = add128(t, int128(b.w[1]) << 32);
    t = add128(t, int128((unsigned __int128)b.w[2] << 64));
    t = add128(t, int128((unsigned __int128)b.w[3] << 96));
    return t;
  }
  LP_HD static bool overflowed(Words128) { return false; }
#if defined(__CUDACC__)
  __device__ static void atomic(Words128* p, Words128 v) {
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (v.w[k]) atomicAdd(&p->w[k], v.w[k]);
  }
#endif
};

// decimal64 (an engine whose precision stops at 18 digits): the product in 64-bit arithmetic with
// its overflow found by the high half of the multiply, the sum in 8-byte buckets with a sticky
// overflow marker (kOverflow) that any signed 64-bit overflow sets and no addition clears. The
// marker is order-independent when a group's products share a sign (the generator's sales are
// positive); with mixed signs a partial sum could overflow where the total would not.
struct Sum64 {
  using value_type = long long;
  using price_type = std::int64_t;
  static constexpr bool commutative = true;
  static constexpr const char* name = "add";
  static constexpr long long kOverflow = (-0x7fffffffffffffffll - 1);
  LP_HD static long long identity() { return 0; }
  LP_HD static long long apply(long long a, long long b) {
    if (a == kOverflow || b == kOverflow) return kOverflow;
    const long long s = static_cast<long long>(static_cast<unsigned long long>(a) + static_cast<unsigned long long>(b));
    return ((a ^ s) & (b ^ s)) < 0 ? kOverflow : s;
  }
  LP_HD static long long row(std::int64_t price, std::int32_t qty, int128 limit, bool* null) {
    const long long lo = static_cast<long long>(static_cast<unsigned long long>(price) * static_cast<unsigned long long>(std::int64_t(qty)));
#if defined(__CUDA_ARCH__)
    const long long hi = __mul64hi(price, static_cast<long long>(qty));
#else
    const long long hi = static_cast<long long>(int128(price) * qty >> 64);
#endif
    *null = hi != (lo >> 63) || abs128(lo) > limit;
    return lo;
  }
  LP_HD static int128 total(long long b) { return b; }
  LP_HD static bool overflowed(long long b) { return b == kOverflow; }
#if defined(__CUDACC__)
  __device__ static void atomic(long long* p, long long v) {
    auto* w = reinterpret_cast<unsigned long long*>(p);
    unsigned long long old = *reinterpret_cast<volatile unsigned long long*>(w), seen;
    do {
      seen = old;
      const long long next = apply(static_cast<long long>(seen), v);
      if (static_cast<unsigned long long>(next) == seen) return;
      old = atomicCAS(w, seen, static_cast<unsigned long long>(next));
    } while (old != seen);
  }
#endif
};

// decimal64 without a compare-and-swap: the 64-bit product (Sum64::row, nulls at 18 digits) as
// two 32-bit halves, the low one unsigned and the high one signed (|product| < 2^60, so below
// 2^28), each summed in its own 64-bit counter with plain atomics, so no update waits on another
// (2^31 rows cannot overflow either counter). The article's 32-bit words, with decimal64's two;
// total() is exact in 128 bits and CheckOverflow compares it with the sum type's limit, so the
// answer does not depend on the order of the adds even with mixed signs. The high word is zero for
// products below 2^32 and then skipped: most rows cost one 8-byte atomic. A sticky overflow from
// the 8-byte sort path (widen) is a high word no sum of halves reaches.
struct alignas(16) Words64 {
  unsigned long long w[2];
  LP_HD bool operator==(const Words64& o) const { return w[0] == o.w[0] && w[1] == o.w[1]; }
};

struct Sum64Words {
  using value_type = Words64;
  using price_type = std::int64_t;
  static constexpr bool commutative = true;
  static constexpr const char* name = "add";
  static constexpr unsigned long long kOverflowHi = 1ull << 62;  // |sum of high halves| < 2^59
  LP_HD static Words64 identity() { return {{0, 0}}; }
  LP_HD static Words64 apply(Words64 a, Words64 b) {
    if (a.w[1] == kOverflowHi || b.w[1] == kOverflowHi) return {{0, kOverflowHi}};
    return {{a.w[0] + b.w[0], a.w[1] + b.w[1]}};
  }
  LP_HD static Words64 split(long long v) {
    return {{static_cast<std::uint32_t>(v), static_cast<unsigned long long>(v >> 32)}};
  }
  LP_HD static Words64 row(std::int64_t price, std::int32_t qty, int128 limit, bool* null) {
    return split(Sum64::row(price, qty, limit, null));
  }
  // A decimal64 bucket summed in 8 bytes (Sum64, with its sticky marker) in this layout.
  LP_HD static Words64 widen(long long v) { return v == Sum64::kOverflow ? Words64{{0, kOverflowHi}} : split(v); }
  LP_HD static int128 total(Words64 b) { return int128(b.w[0]) + int128(static_cast<long long>(b.w[1])) * (int128(1) << 32); }
  LP_HD static bool overflowed(Words64 b) { return b.w[1] == kOverflowHi; }
#if defined(__CUDACC__)
  __device__ static void atomic(Words64* p, Words64 v) {
    if (v.w[0]) atomicAdd(&p->w[0], v.w[0]);
    if (v.w[1]) atomicAdd(&p->w[1], v.w[1]);
  }
#endif
};

// double: what a float engine computes (price as the nearest double to its decimal value). Never
// null; its totals are compared with the exact ones, and the groups they get wrong counted.
struct SumDouble {
  using value_type = double;
  using price_type = double;
  static constexpr bool commutative = true;
  static constexpr const char* name = "add";
  LP_HD static double identity() { return 0.0; }
  LP_HD static double apply(double a, double b) { return a + b; }
  LP_HD static double row(double price, std::int32_t qty, int128, bool* null) {
    *null = false;
    return price * qty;
  }
  LP_HD static bool overflowed(double) { return false; }
#if defined(__CUDACC__)
  __device__ static void atomic(double* p, double v) { atomicAdd(p, v); }
#endif
};

}  // namespace lp::decimal
