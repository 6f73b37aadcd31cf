// One scratch allocation handed out as 256-byte aligned pieces, in order. With a null base it only
// adds the sizes up (used()), so one sequence of take() calls states a layout for both the size
// query and the launcher. Shared by every kernel family that carves its scratch.
#pragma once
#include <cstddef>

namespace lp {

inline std::size_t align256(std::size_t x) { return (x + 255) & ~std::size_t(255); }

class Carve {
 public:
  explicit Carve(void* base) : p_(static_cast<char*>(base)) {}
  template <class T>
  T* take(std::size_t count) {
    T* at = p_ ? reinterpret_cast<T*>(p_ + used_) : nullptr;
    used_ += align256(count * sizeof(T));
    return at;
  }
  // The last piece, a library's temporary storage: with a base, the rest of a region of `bytes` (the
  // size computed before, so that a timed launcher asks the library nothing); without, ask() bytes
  // (at least 1). Its size goes to `piece_bytes`.
  template <class Ask>
  void* take_rest(std::size_t bytes, Ask&& ask, std::size_t& piece_bytes) {
    if (p_) {
      piece_bytes = bytes - used_;
      void* at = rest();
      used_ = bytes;
      return at;
    }
    const std::size_t asked = ask();
    piece_bytes = asked > 0 ? asked : 1;
    return take<char>(piece_bytes);
  }
  std::size_t used() const { return used_; }            // bytes taken so far
  char* rest() const { return p_ ? p_ + used_ : nullptr; }  // where the next piece starts

 private:
  char* p_;
  std::size_t used_ = 0;
};

}  // namespace lp
