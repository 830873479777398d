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

  // Copies and moves are kept out of their callers (noinline): inlined there, GCC 12 to 14 at
  // -O2 and above follow std::variant's copy into the std::string alternative of a cell that
  // holds another one, and warn that it "may be used uninitialized" (a false positive; GCC
  // 13.3 gave two such warnings). Behind a call, the cell copied is a reference GCC does not
  // look into. The cost is one call per cell copied.
  [[gnu::noinline]] Cell(const Cell& other) : value_(other.value_) {}
  [[gnu::noinline]] Cell(Cell&& other) noexcept : value_(std::move(other.value_)) {}
  [[gnu::noinline]] Cell& operator=(const Cell& other) {
    value_ = other.value_;
    return *this;
  }
  [[gnu::noinline]] Cell& operator=(Cell&& other) noexcept {
    value_ = std::move(other.value_);
    return *this;
  }
  ~Cell() = default;

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
