/// \file cell.hpp
/// \brief One typed value (a table cell, a fact of the report): nothing, an integer, a real
/// number, a yes/no or text, kept as its type so that the JSON report keeps numbers as numbers.
///
/// Plain values only: code that describes what it found (a device's facts, say) builds them
/// without depending on the tables or the report that show them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace hip_lessons {

struct Column;

/// One value of a row: nothing (shown "-", JSON null), an integer, a real number, a yes/no,
/// or text. Converts implicitly from those types and from std::optional of them.
class Cell {
 public:
  using Value = std::variant<std::nullptr_t, std::int64_t, double, bool, std::string>;

  Cell() = default;
  Cell(std::nullopt_t) {}  // NOLINT: an absent value reads as "-"
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Cell(T value) : value_(static_cast<std::int64_t>(value)) {}  // NOLINT
  Cell(double value) : value_(value) {}                        // NOLINT
  Cell(float value) : value_(static_cast<double>(value)) {}    // NOLINT
  Cell(bool value) : value_(value) {}                          // NOLINT
  Cell(const char* text) : value_(std::string(text)) {}        // NOLINT
  Cell(std::string text) : value_(std::move(text)) {}          // NOLINT
  template <class T>
  Cell(const std::optional<T>& value) {  // NOLINT
    if (value) *this = Cell(*value);
  }

  const Value& value() const { return value_; }
  /// The value as the terminal shows it in \p column (results.hpp).
  std::string text(const Column& column) const;

 private:
  Value value_;
};

/// One named value the JSON file keeps among its facts (device name, sizes, seeds).
struct Fact {
  std::string key;
  Cell value;
};

}  // namespace hip_lessons
