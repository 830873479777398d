#include "hip_lessons/format.hpp"

#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace hip_lessons {

std::string fixed(double value, int digits) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  return unit == 0 ? fixed(bytes, 0) + " B" : fixed(bytes, bytes < 10 ? 2 : 1) + " " + units[unit];
}

std::string shortest(double value) {
  std::ostringstream text;
  text << std::setprecision(15) << value;
  return text.str();
}

std::vector<std::string> wrap_text(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string rest = text;
  while (rest.size() > width) {
    std::size_t cut = rest.rfind(' ', width);
    if (cut == std::string::npos || cut == 0) cut = rest.find(' ', width);  // a long word
    if (cut == std::string::npos) break;
    lines.push_back(rest.substr(0, rest.find_last_not_of(' ', cut) + 1));
    const std::size_t next = rest.find_first_not_of(' ', cut);
    rest = next == std::string::npos ? std::string() : rest.substr(next);
  }
  if (!rest.empty() || lines.empty()) lines.push_back(rest);
  return lines;
}

namespace detail {

namespace {

std::string render(const FormatArgument& a, std::string_view spec) {
  if (spec.empty()) return a.text;
  if (!a.number) {
    throw std::invalid_argument("format: '{:" + std::string(spec) + "}' needs a number, got '" +
                                a.text + "'");
  }
  if (spec == "bytes") return format_bytes(*a.number);
  if (spec.size() >= 2 && spec[0] == '.' && spec.find_first_not_of("0123456789", 1) == spec.npos) {
    return fixed(*a.number, std::stoi(std::string(spec.substr(1))));
  }
  throw std::invalid_argument("format: unknown placeholder '{:" + std::string(spec) + "}'");
}

}  // namespace

std::string format_arguments(std::string_view pattern, const std::vector<FormatArgument>& args) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if ((c == '{' || c == '}') && i + 1 < pattern.size() && pattern[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    const std::size_t close = pattern.find('}', i);
    if (close == pattern.npos) throw std::invalid_argument("format: unclosed '{' in a pattern");
    std::string_view spec = pattern.substr(i + 1, close - i - 1);
    if (!spec.empty()) {
      if (spec[0] != ':') throw std::invalid_argument("format: placeholders are {} or {:spec}");
      spec.remove_prefix(1);
    }
    if (next >= args.size()) {
      throw std::invalid_argument("format: more placeholders than arguments in '" +
                                  std::string(pattern) + "'");
    }
    out += render(args[next++], spec);
    i = close;
  }
  if (next != args.size()) {
    throw std::invalid_argument("format: more arguments than placeholders in '" +
                                std::string(pattern) + "'");
  }
  return out;
}

}  // namespace detail

}  // namespace hip_lessons
