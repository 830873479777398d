#include "hip_lessons/results.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <stdexcept>

#include "hip_lessons/format.hpp"

namespace hip_lessons {

std::string Cell::text(const Column& column) const {
  struct Visitor {
    const Column& column;
    std::string operator()(std::monostate) const { return "-"; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return fixed(v, column.precision); }
    std::string operator()(bool v) const { return v ? "yes" : "no"; }
    std::string operator()(const std::string& v) const { return v; }
  };
  return std::visit(Visitor{column}, value_);
}

ResultTable::ResultTable(std::string name, std::string title, std::vector<Column> columns)
    : name_(std::move(name)), title_(std::move(title)), columns_(std::move(columns)) {}

ResultTable& ResultTable::row(std::vector<Cell> cells) {
  if (cells.size() != columns_.size()) {
    throw std::invalid_argument("table '" + name_ + "': a row of " + std::to_string(cells.size()) +
                                " cells for " + std::to_string(columns_.size()) + " columns");
  }
  rows_.push_back(std::move(cells));
  return *this;
}

void ResultTable::print(std::ostream& out) const {
  const std::size_t n = columns_.size();
  std::vector<std::vector<std::string>> texts;
  std::vector<std::size_t> width(n);
  for (std::size_t c = 0; c < n; ++c) width[c] = columns_[c].key().size();
  for (const auto& row : rows_) {
    texts.emplace_back();
    for (std::size_t c = 0; c < n; ++c) {
      texts.back().push_back(row[c].text(columns_[c]));
      width[c] = std::max(width[c], texts.back().back().size());
    }
  }
  const auto print_cells = [&](const std::vector<std::string>& cells, const auto& right) {
    out << "  ";
    for (std::size_t c = 0; c < n; ++c) {
      const bool last = c + 1 == n;
      // The last column is not padded on the left-aligned side: no trailing spaces.
      const int w = (last && !right(c)) ? 0 : static_cast<int>(width[c]);
      out << (right(c) ? std::right : std::left) << std::setw(w) << cells[c] << (last ? "" : "  ");
    }
    out << std::left << '\n';
  };
  out << '\n' << title_ << '\n';
  std::vector<std::string> headers;
  for (const Column& column : columns_) headers.push_back(column.key());
  print_cells(headers, [](std::size_t) { return false; });
  out << "  ";
  for (std::size_t c = 0; c < n; ++c) out << std::string(width[c], '-') << (c + 1 < n ? "  " : "");
  out << '\n';
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    print_cells(texts[r], [&](std::size_t c) {
      return rows_[r][c].is_number() || std::holds_alternative<std::monostate>(rows_[r][c].value());
    });
  }
}

}  // namespace hip_lessons
