/// \file format.hpp
/// \brief Text from values: `format("{} blocks of {:.2f} us", n, t)`, fixed digits, byte counts.
///
/// Lessons print sentences with numbers in them (titles, summaries, error messages). One
/// small formatter keeps those sentences readable in the source and gives every lesson the
/// same number style: integers as integers, real numbers in their shortest form unless a
/// precision is asked for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace hip_lessons {

/// Formats \p value with \p digits digits after the decimal point.
std::string fixed(double value, int digits);

/// Formats a byte count as "512 B", "64.0 KiB", "1.50 GiB".
std::string format_bytes(double bytes);

/// The widest line the lessons print: output stays readable in a 100-column terminal and in
/// the README's code blocks.
inline constexpr std::size_t kTextWidth = 100;

/// Splits \p text at spaces into lines of at most \p width characters (a longer word stays
/// whole on its own line); text that fits is returned unchanged as one line.
std::vector<std::string> wrap_text(const std::string& text, std::size_t width);

/// A real number in its shortest exact-enough form: 0.75, 5, 1e-06 (15 significant digits).
std::string shortest(double value);

namespace detail {

/// One argument of format(): its text for `{}`, and its value when it is a number.
struct FormatArgument {
  std::string text;
  std::optional<double> number;
};

template <class T>
FormatArgument to_format_argument(const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return {value ? "yes" : "no", std::nullopt};
  } else if constexpr (std::is_enum_v<T>) {
    return to_format_argument(static_cast<std::int64_t>(value));
  } else if constexpr (std::is_integral_v<T>) {
    return {std::to_string(value), static_cast<double>(value)};
  } else if constexpr (std::is_floating_point_v<T>) {
    return {shortest(static_cast<double>(value)), static_cast<double>(value)};
  } else {
    return {std::string(std::string_view(value)), std::nullopt};
  }
}

std::string format_arguments(std::string_view pattern, const std::vector<FormatArgument>& args);

}  // namespace detail

/// Replaces each `{}` in \p pattern with the next argument: integers as digits, real numbers
/// in shortest form, text as it is. `{:.N}` shows a real number with N digits after the point
/// (`{:.2}` -> 4.36), `{:bytes}` a byte count (1.50 GiB). `{{` and `}}` are literal braces.
/// A pattern with more placeholders than arguments (or fewer) throws std::invalid_argument:
/// a wrong message is a bug, never a silent "{}".
template <class... Args>
std::string format(std::string_view pattern, const Args&... args) {
  return detail::format_arguments(pattern, {detail::to_format_argument(args)...});
}

}  // namespace hip_lessons
