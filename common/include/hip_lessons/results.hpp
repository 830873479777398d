/// \file results.hpp
/// \brief Typed result tables: columns declared once, rows of values, numbers kept as numbers.
///
/// A lesson declares a table's columns (header, unit, digits) once and then adds rows of
/// plain values. The table decides how a value looks on the terminal (numbers right-aligned,
/// an empty optional as "-") and the JSON report keeps the value's type: integers stay
/// integers, real numbers stay real, a missing value is null. No lesson formats a cell.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "hip_lessons/format.hpp"

namespace hip_lessons {

/// One column: what it holds, its unit, and how many digits a real number shows.
struct Column {
  std::string header;  ///< "median"
  std::string unit;    ///< "ms"; shown after the header, and part of the JSON key
  int precision = 2;   ///< digits after the point for real numbers

  Column(std::string header_text, std::string unit_text = "", int digits = 2)  // NOLINT
      : header(std::move(header_text)), unit(std::move(unit_text)), precision(digits) {}
  Column(const char* header_text) : Column(std::string(header_text)) {}  // NOLINT
  /// The header as printed and as the JSON key: "median ms".
  std::string key() const { return unit.empty() ? header : header + " " + unit; }
};

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
  /// The value as the terminal shows it in \p column.
  std::string text(const Column& column) const;

 private:
  Value value_;
};

/// A table of results with declared columns. Rows must have one cell per column.
class ResultTable {
 public:
  /// \p name is the JSON key, \p title the line printed above the table.
  ResultTable(std::string name, std::string title, std::vector<Column> columns);

  /// Adds a row; throws std::invalid_argument when it has the wrong number of cells.
  ResultTable& row(std::vector<Cell> cells);

  /// Prints the title and aligned columns: numbers right-aligned, text left-aligned. A table
  /// wider than \p max_width first wraps long headers over their values, then narrows its
  /// text columns, the widest first, down to their longest word (which never breaks), so it
  /// stays readable in a terminal or a README code block.
  void print(std::ostream& out, std::size_t max_width = kTextWidth) const;

  const std::string& name() const { return name_; }
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }

 private:
  std::string name_;
  std::string title_;
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

/// One named value the JSON file keeps among its facts (device name, sizes, seeds).
struct Fact {
  std::string key;
  Cell value;
};

/// A picture drawn in text: a title and preformatted lines (a timeline).
struct Figure {
  std::string title;
  std::string text;
};

}  // namespace hip_lessons
