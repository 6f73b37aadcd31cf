// Memory regions whose page size is an experimental axis (thesis Fig 2.4: huge pages remove the
// TLB step), and the evidence of what the kernel actually did: transparent huge pages are a
// request, not a promise, so every region reports the bytes /proc/self/smaps shows backed by huge
// pages. Linux only; elsewhere every request falls back to ordinary memory and says so.
#pragma once
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace lp::cpu {

enum class PageKind { Small4k, Thp2m, HugeTlb };

inline PageKind page_kind(const std::string& s) {
  return s == "2m" ? PageKind::Thp2m : s == "hugetlb" ? PageKind::HugeTlb : PageKind::Small4k;
}

constexpr std::size_t kHugePage = std::size_t(2) << 20;

// One anonymous mapping, 2 MiB-aligned and a whole number of 2 MiB pages, so that THP can back
// all of it. Pages are touched (zeroed) at allocation: first touch decides the page size, and
// touching outside the timed region keeps page faults out of the measurements.
class Region {
 public:
  Region() = default;
  Region(std::size_t bytes, PageKind kind) { allocate(bytes, kind); }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  Region(Region&& o) noexcept { *this = std::move(o); }
  Region& operator=(Region&& o) noexcept {
    if (this != &o) {
      release();
      std::swap(base_, o.base_), std::swap(bytes_, o.bytes_), std::swap(mapped_, o.mapped_);
      std::swap(asked_, o.asked_), std::swap(got_, o.got_), std::swap(note_, o.note_);
    }
    return *this;
  }
  ~Region() { release(); }

  void allocate(std::size_t bytes, PageKind kind) {
    release();
    asked_ = got_ = kind;
    bytes_ = bytes;
    mapped_ = ((bytes ? bytes : 1) + kHugePage - 1) / kHugePage * kHugePage;
#if defined(__linux__)
    void* p = MAP_FAILED;
    if (kind == PageKind::HugeTlb) {
#ifdef MAP_HUGETLB
      p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
#endif
      if (p == MAP_FAILED) {
        // No reserved hugetlbfs pages (vm.nr_hugepages = 0 is the default): run on 4 KiB pages
        // and let the record say "refused" rather than fail the point.
        note_ = std::string("MAP_HUGETLB refused (") + std::strerror(errno) + "): fell back to 4 KiB pages";
        got_ = PageKind::Small4k;
      }
    }
    if (p == MAP_FAILED) {
      // Over-allocate by one huge page and trim, for a 2 MiB-aligned start.
      void* raw = mmap(nullptr, mapped_ + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (raw == MAP_FAILED) throw std::bad_alloc();
      const std::uintptr_t r = reinterpret_cast<std::uintptr_t>(raw);
      const std::uintptr_t a = (r + kHugePage - 1) & ~(std::uintptr_t(kHugePage) - 1);
      if (a > r) munmap(raw, a - r);
      if (a + mapped_ < r + mapped_ + kHugePage) munmap(reinterpret_cast<void*>(a + mapped_), r + mapped_ + kHugePage - (a + mapped_));
      p = reinterpret_cast<void*>(a);
      // 4k asks THP explicitly not to back the region, so "4k" means 4 KiB even where THP is
      // "always"; 2m asks for it (what "madvise" mode needs).
      const int advice = got_ == PageKind::Thp2m ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
      if (madvise(p, mapped_, advice) != 0 && got_ == PageKind::Thp2m)
        note_ = std::string("madvise(MADV_HUGEPAGE) failed (") + std::strerror(errno) + ")";
    }
    base_ = p;
#else
    base_ = ::operator new(mapped_, std::align_val_t(kHugePage));
    if (kind != PageKind::Small4k) note_ = "huge pages need Linux: fell back to ordinary memory", got_ = PageKind::Small4k;
#endif
    std::memset(base_, 0, mapped_);
  }

  void release() {
    if (!base_) return;
#if defined(__linux__)
    munmap(base_, mapped_);
#else
    ::operator delete(base_, std::align_val_t(kHugePage));
#endif
    base_ = nullptr;
    bytes_ = mapped_ = 0;
    note_.clear();
  }

  template <class T>
  T* as() const { return static_cast<T*>(base_); }
  void* data() const { return base_; }
  std::size_t bytes() const { return bytes_; }
  std::size_t mapped_bytes() const { return mapped_; }
  PageKind asked() const { return asked_; }
  PageKind got() const { return got_; }
  const std::string& note() const { return note_; }
  explicit operator bool() const { return base_ != nullptr; }

 private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0, mapped_ = 0;
  PageKind asked_ = PageKind::Small4k, got_ = PageKind::Small4k;
  std::string note_;
};

// Bytes of [begin, end) ranges that /proc/self/smaps shows backed by huge pages (AnonHugePages for
// THP, Private_/Shared_Hugetlb for hugetlbfs), or -1 where smaps cannot be read. smaps counts per
// mapping (VMA); a VMA the kernel merged with a neighbour outside our ranges is credited with at
// most the bytes it shares with them.
inline std::int64_t huge_page_bytes(const std::vector<std::pair<std::uintptr_t, std::uintptr_t>>& ranges) {
#if defined(__linux__)
  std::ifstream f("/proc/self/smaps");
  if (!f) return -1;
  std::string line;
  std::int64_t total = 0, overlap = 0, huge_kb = 0;
  bool in_vma = false;
  auto flush = [&] {
    if (in_vma) total += std::min<std::int64_t>(huge_kb * 1024, overlap);
    in_vma = false, huge_kb = 0, overlap = 0;
  };
  while (std::getline(f, line)) {
    unsigned long long lo, hi;
    char dash;
    std::istringstream is(line);
    // A VMA header is "lo-hi perms ..." in hex; field lines are "Name:   value kB".
    if (line.find(':') > line.find(' ') && (is >> std::hex >> lo >> dash >> hi) && dash == '-') {
      flush();
      for (const auto& r : ranges) {
        const unsigned long long a = std::max<unsigned long long>(lo, r.first), b = std::min<unsigned long long>(hi, r.second);
        if (a < b) overlap += std::int64_t(b - a), in_vma = true;
      }
      continue;
    }
    if (!in_vma) continue;
    for (const char* key : {"AnonHugePages:", "Private_Hugetlb:", "Shared_Hugetlb:"})
      if (line.rfind(key, 0) == 0) huge_kb += std::stoll(line.substr(std::strlen(key)));
  }
  flush();
  return total;
#else
  (void)ranges;
  return -1;
#endif
}

// "backed" (all), "partial", "refused" (none, or hugetlb fell back), "n/a" (4 KiB asked), or
// "unavailable" (smaps unreadable).
inline std::string huge_page_status(PageKind asked, bool fell_back, std::int64_t huge, std::int64_t region) {
  if (asked == PageKind::Small4k) return "n/a";
  if (fell_back) return "refused";
  if (huge < 0) return "unavailable";
  if (huge == 0) return "refused";
  return huge >= region ? "backed" : "partial";
}

}  // namespace lp::cpu
