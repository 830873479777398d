#include "hip_lessons/results.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>
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

void ResultTable::print(std::ostream& out, std::size_t max_width) const {
  const std::size_t n = columns_.size();
  std::vector<std::vector<std::string>> texts;
  std::vector<std::vector<bool>> right;  // numbers and "-" are right-aligned
  std::vector<std::size_t> cells_width(n, 0);
  std::vector<bool> has_text(n, false);
  for (const auto& row : rows_) {
    texts.emplace_back();
    right.emplace_back();
    for (std::size_t c = 0; c < n; ++c) {
      texts.back().push_back(row[c].text(columns_[c]));
      cells_width[c] = std::max(cells_width[c], texts.back().back().size());
      const bool text = std::holds_alternative<std::string>(row[c].value());
      has_text[c] = has_text[c] || text;
      right.back().push_back(!text && !std::holds_alternative<bool>(row[c].value()));
    }
  }
  std::vector<std::size_t> width(n);
  for (std::size_t c = 0; c < n; ++c) width[c] = std::max(cells_width[c], columns_[c].key().size());
  const auto total = [&] {
    std::size_t sum = 2 + 2 * (n - 1);
    for (const std::size_t w : width) sum += w;
    return sum;
  };
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
  // which could not wrap.
  std::vector<std::size_t> narrowest(n, 0);
  for (std::size_t c = 0; c < n; ++c) {
    if (!has_text[c]) continue;
    narrowest[c] = std::max<std::size_t>(8, longest_word(columns_[c].key()));
    for (const auto& row : texts) narrowest[c] = std::max(narrowest[c], longest_word(row[c]));
    narrowest[c] = std::min(narrowest[c], width[c]);
  }
  while (total() > max_width) {
    std::size_t widest = n;
    for (std::size_t c = 0; c < n; ++c) {
      if (has_text[c] && width[c] > narrowest[c] && (widest == n || width[c] > width[widest])) {
        widest = c;
      }
    }
    if (widest == n) break;  // every text column at its longest word: the table stays wider
    --width[widest];
  }

  // One printed row of cells, each wrapped to its column; numbers right-aligned.
  const auto print_row = [&](const std::vector<std::string>& cells,
                             const std::vector<bool>& right_aligned, bool bottom_align) {
    std::vector<std::vector<std::string>> lines(n);
    std::size_t height = 1;
    for (std::size_t c = 0; c < n; ++c) {
      lines[c] = wrap_text(cells[c], width[c]);
      height = std::max(height, lines[c].size());
    }
    for (std::size_t line = 0; line < height; ++line) {
      std::ostringstream text;
      text << "  ";
      for (std::size_t c = 0; c < n; ++c) {
        const std::size_t skip = bottom_align ? height - lines[c].size() : 0;  // headers: bottom
        const bool shown = line >= skip && line - skip < lines[c].size();
        const std::string& cell = shown ? lines[c][line - skip] : std::string();
        text << (right_aligned[c] ? std::right : std::left) << std::setw(static_cast<int>(width[c]))
             << cell << (c + 1 < n ? "  " : "");
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
  print_row(headers, std::vector<bool>(n, false), true);
  out << "  ";
  for (std::size_t c = 0; c < n; ++c) out << std::string(width[c], '-') << (c + 1 < n ? "  " : "");
  out << '\n';
  for (std::size_t r = 0; r < rows_.size(); ++r) print_row(texts[r], right[r], false);
}

}  // namespace hip_lessons
