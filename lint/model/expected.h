#pragma once
// A value or the reason there is none: the shape of C++23's std::expected, defined here because the
// standard one is hidden from clang 14 with libstdc++ 12 (which builds the fuzz targets), so that every
// compiler sees the same type.
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace parlint {

template <class E>
struct Unexpected {
  explicit Unexpected(E e) : error(std::move(e)) {}
  E error;
};
template <class E>
Unexpected(E) -> Unexpected<E>;

template <class T, class E = std::string>
class Expected {
 public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit, as std::expected
  template <class G, class = std::enable_if_t<std::is_constructible_v<E, G>>>
  Expected(Unexpected<G> u) : v_(std::in_place_index<1>, E(std::move(u.error))) {}  // NOLINT

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  T&& operator*() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  const E& error() const { return std::get<1>(v_); }
  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? std::get<0>(v_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, E> v_;
};

}  // namespace parlint
