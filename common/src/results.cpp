#include "hip_lessons/results.hpp"

#include <algorithm>
#include <iomanip>
#include <numeric>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "hip_lessons/format.hpp"

namespace hip_lessons {

std::string Cell::text(const Column& column) const {
  struct Visitor {
    const Column& column;
    std::string operator()(std::nullptr_t) const { return "-"; }
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

void ResultTable::print(std::ostream& out, std::size_t max_width) const {
  const std::size_t n = columns_.size();
  std::vector<std::vector<std::string>> texts(rows_.size());
  std::vector<std::size_t> cells_width(n, 0), width(n), narrowest(n);
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    for (std::size_t c = 0; c < n; ++c) {
      texts[r].push_back(rows_[r][c].text(columns_[c]));
      cells_width[c] = std::max(cells_width[c], texts[r][c].size());
    }
  }
  for (std::size_t c = 0; c < n; ++c) width[c] = std::max(cells_width[c], columns_[c].key().size());
  const auto total = [&] { return std::accumulate(width.begin(), width.end(), 2 * n); };
  const auto longest_word = [](const std::string& text) {
    std::size_t longest = 0;
    for (const std::string& word : wrap_text(text, 1)) longest = std::max(longest, word.size());
    return longest;
  };
  // Too wide for the terminal: first let long headers wrap over their values...
  for (std::size_t c = 0; c < n && total() > max_width; ++c) {
    width[c] = std::max(cells_width[c], longest_word(columns_[c].key()));
  }
  // ...then narrow the text columns, always the widest first, one column at a time, so the
  // width is shared out evenly; no column goes below its longest word, header included,
  // which could not wrap. A column without text keeps its width.
  for (std::size_t c = 0; c < n; ++c) {
    bool text = false;
    narrowest[c] = std::max<std::size_t>(8, longest_word(columns_[c].key()));
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      text = text || std::holds_alternative<std::string>(rows_[r][c].value());
      narrowest[c] = std::max(narrowest[c], longest_word(texts[r][c]));
    }
    narrowest[c] = text ? std::min(narrowest[c], width[c]) : width[c];
  }
  while (total() > max_width) {
    std::size_t widest = n;
    for (std::size_t c = 0; c < n; ++c) {
      if (width[c] > narrowest[c] && (widest == n || width[c] > width[widest])) widest = c;
    }
    if (widest == n) break;  // every text column at its longest word: the table stays wider
    --width[widest];
  }

  // One printed row of cells, each wrapped to its column: the headers (no \p row) bottom-aligned,
  // a row's numbers and "-" right-aligned.
  const auto print_row = [&](const std::vector<std::string>& cells, const std::vector<Cell>* row) {
    std::vector<std::vector<std::string>> lines(n);
    std::size_t height = 1;
    for (std::size_t c = 0; c < n; ++c) {
      lines[c] = wrap_text(cells[c], width[c]);
      height = std::max(height, lines[c].size());
    }
    for (std::size_t line = 0; line < height; ++line) {
      std::ostringstream text;
      for (std::size_t c = 0; c < n; ++c) {
        const std::size_t skip = row ? 0 : height - lines[c].size();
        const bool shown = line >= skip && line - skip < lines[c].size();
        const bool right = row && !std::holds_alternative<std::string>((*row)[c].value()) &&
                           !std::holds_alternative<bool>((*row)[c].value());
        text << "  " << (right ? std::right : std::left) << std::setw(static_cast<int>(width[c]))
             << (shown ? lines[c][line - skip] : "");
      }
      std::string printed = text.str();
      printed.erase(printed.find_last_not_of(' ') + 1);  // no trailing spaces
      out << printed << '\n';
    }
  };
  out << '\n';
  for (const std::string& line : wrap_text(title_, max_width)) out << line << '\n';
  std::vector<std::string> headers;
  for (const Column& column : columns_) headers.push_back(column.key());
  print_row(headers, nullptr);
  for (std::size_t c = 0; c < n; ++c) out << "  " << std::string(width[c], '-');
  out << '\n';
  for (std::size_t r = 0; r < rows_.size(); ++r) print_row(texts[r], &rows_[r]);
}

}  // namespace hip_lessons
