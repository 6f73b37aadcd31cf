// The decimal study's query on the CPU: per product, the total of price × quantity,
// exact, with Spark's CheckOverflow: a row whose product exceeds the product type's limit is null
// and drops out of its group's sum (or fails the query), a group whose total exceeds the sum
// type's limit is null (or fails the query). The totals are summed in __int128, which cannot wrap
// here (kernels/decimal/sum_ops.hpp says why). The reference is the sequential loop; the
// multithreaded baseline is the CPU multireduce (cpu_memory/multithreaded.hpp) on the same rows.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "../../kernels/decimal/sum_ops.hpp"
#include "../cpu_memory/multithreaded.hpp"

namespace lp::cpu::decimal {

using lp::decimal::int128;

// |value| <= limit: 10^P - 1 for a decimal(P, s) (the unscaled integer of a value at scale s).
struct Limits {
  int128 product = 0;
  int128 sum = 0;
};

struct Rows {
  const std::uint32_t* labels = nullptr;
  const std::int64_t* price = nullptr;  // unscaled decimal64
  const double* price_f = nullptr;      // the nearest double to each price (the double query)
  const std::int32_t* qty = nullptr;
  std::int64_t n = 0;
  std::uint32_t m = 0;
};

struct Answer {
  std::vector<int128> total;       // per product, over its non-null rows (0 for a product without rows)
  std::vector<std::uint8_t> null;  // 1 where the total overflows the sum type
  std::vector<std::uint8_t> has_rows;  // 1 for a product with at least one row (what SQL's group-by outputs)
  std::int64_t null_rows = 0, null_groups = 0;
  std::int64_t groups = 0;  // products with at least one row
  bool failed() const { return null_rows > 0 || null_groups > 0; }  // the fail-on-overflow mode's verdict
};

// Marks the totals that overflow the sum type; returns how many do.
inline std::int64_t check_totals(const int128* total, std::uint32_t m, int128 sum_limit, std::uint8_t* null) {
  std::int64_t count = 0;
  for (std::uint32_t b = 0; b < m; ++b) {
    null[b] = lp::decimal::abs128(total[b]) > sum_limit;
    count += null[b];
  }
  return count;
}

// Scratch of the multithreaded baseline (the CPU multireduce's, for 16-byte values).
inline std::size_t group_sum_mt_scratch_bytes(std::int64_t n, std::uint32_t m, int threads) {
  return multireduce_mt_scratch_bytes<int128>(n, m, threads);
}

// The decimal query on every core: totals in __int128 (null rows contribute nothing), then the
// sum check. Returns whether any row or group overflowed (the fail-on-overflow verdict).
inline bool group_sum_mt(const Rows& r, const Limits& lim, int threads, void* scratch, int128* total, std::uint8_t* null) {
  using lp::decimal::Sum128;
  std::atomic<bool> null_row{false};
  multireduce_mt_by<Sum128>(
      r.labels,
      [&](std::int64_t i) {
        bool nr = false;
        const int128 p = Sum128::row(r.price[i], r.qty[i], lim.product, &nr);
        if (nr) null_row.store(true, std::memory_order_relaxed);
        return nr ? int128(0) : p;
      },
      r.n, r.m, threads, scratch, total);
  const bool null_group = check_totals(total, r.m, lim.sum, null) > 0;
  return null_row.load() || null_group;
}

// The same query in double, sequential (row order) and on every core.
inline void group_sum_double(const Rows& r, double* total) {
  for (std::uint32_t b = 0; b < r.m; ++b) total[b] = 0.0;
  for (std::int64_t i = 0; i < r.n; ++i) total[r.labels[i]] += r.price_f[i] * r.qty[i];
}

inline std::size_t group_sum_double_mt_scratch_bytes(std::int64_t n, std::uint32_t m, int threads) {
  return multireduce_mt_scratch_bytes<double>(n, m, threads);
}

inline void group_sum_double_mt(const Rows& r, int threads, void* scratch, double* total) {
  multireduce_mt_by<lp::decimal::SumDouble>(
      r.labels, [&](std::int64_t i) { return r.price_f[i] * r.qty[i]; }, r.n, r.m, threads, scratch, total);
}

// The sequential query in row order (the `cpu_sequential` variant and the reference's sums).
// Returns whether any row or group overflowed (the fail-on-overflow verdict).
inline bool group_sum_sequential(const Rows& r, const Limits& lim, int128* total, std::uint8_t* null) {
  using lp::decimal::Sum128;
  for (std::uint32_t b = 0; b < r.m; ++b) total[b] = 0;
  bool null_row = false;
  for (std::int64_t i = 0; i < r.n; ++i) {
    bool nr = false;
    const int128 p = Sum128::row(r.price[i], r.qty[i], lim.product, &nr);
    null_row |= nr;
    if (!nr) total[r.labels[i]] += p;
  }
  return check_totals(total, r.m, lim.sum, null) > 0 || null_row;
}

// The reference: the sums on every core (group_sum_mt, which the CPU tests hold against a brute
// force; the sequential loop would take seconds a point at m = 2^24, its table beyond the caches),
// and what the records report of the rows (null rows, products with rows).
inline Answer reference(const Rows& r, const Limits& lim) {
  Answer a;
  a.total.assign(r.m, 0);
  a.null.assign(r.m, 0);
  std::vector<unsigned char> scratch(group_sum_mt_scratch_bytes(r.n, r.m, 0));
  group_sum_mt(r, lim, 0, scratch.data(), a.total.data(), a.null.data());
  a.has_rows.assign(r.m, 0);
  for (std::int64_t i = 0; i < r.n; ++i) {
    bool null = false;
    lp::decimal::Sum128::row(r.price[i], r.qty[i], lim.product, &null);
    a.null_rows += null;
    a.has_rows[r.labels[i]] = 1;
  }
  for (std::uint32_t b = 0; b < r.m; ++b) a.groups += a.has_rows[b], a.null_groups += a.null[b];
  return a;
}

}  // namespace lp::cpu::decimal
