/// \file results.hpp
/// \brief Typed result tables: columns declared once, rows of values, numbers kept as numbers.
///
/// A lesson declares a table's columns (header, unit, digits) once and then adds rows of
/// plain values. The table decides how a value looks on the terminal (numbers right-aligned,
/// an empty optional as "-") and the JSON report keeps the value's type: integers stay
/// integers, real numbers stay real, a missing value is null. No lesson formats a cell.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "hip_lessons/cell.hpp"
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

/// A picture drawn in text: a title and preformatted lines (a timeline).
struct Figure {
  std::string title;
  std::string text;
};

}  // namespace hip_lessons
