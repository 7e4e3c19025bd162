// The compiled part of {fmt}, built once for the whole program. Debian ships libfmt only as a shared
// library, and the static parlint binary used FMT_HEADER_ONLY instead, which compiles {fmt}'s whole
// implementation into every translation unit: about 5 s of a rule file's 8 s (GCC 12, -O2). Here the
// implementation is compiled once, with the instantiations that format.h declares `extern` and the
// floating-point conversions its inline code calls.
#include <fmt/format-inl.h>

#include <locale>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;

}  // namespace detail
FMT_END_NAMESPACE
