#include "hip_lessons/cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <iostream>

#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/validation.hpp"
#include "output_file.hpp"

namespace hip_lessons {

namespace {

// CLI11 prints an option's help from this column on (its default, set here to rely on it).
constexpr std::size_t kHelpColumn = 30;

// The forms of a size a message offers: only those the lesson's cap accepts, so that a reader
// is never offered a value the lesson then refuses.
std::string size_forms(std::int64_t max) {
  const std::pair<const char*, std::int64_t> forms[] = {
      {"4096", 4096}, {"64K", 1 << 16}, {"16M", 1 << 24}, {"1G", 1 << 30}, {"2^28", 1 << 28}};
  std::string list;
  for (const auto& [text, value] : forms) {
    if (value <= max) list += (list.empty() ? "" : ", ") + std::string(text);
  }
  if (max < (1 << 28)) {  // a power of two within the cap, in place of 2^28
    const int power = std::ilogb(static_cast<double>(max));
    list += (list.empty() ? "" : ", ") + ("2^" + std::to_string(power));
  }
  return "forms: " + list;
}

// \p text broken at spaces into lines of at most \p width columns, each paragraph on its own.
std::string wrapped(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    for (const std::string& line : wrap_text(text.substr(begin, end - begin), width)) {
      out += (out.empty() ? "" : "\n") + line;
    }
    begin = end + 1;
  }
  return out;
}

// An option's help, broken into lines that CLI11 indents to kHelpColumn: every line of --help
// fits kTextWidth columns.
std::string option_help(const std::string& text) { return wrapped(text, kTextWidth - kHelpColumn); }

std::string describe_range(std::int64_t min, std::int64_t max) {
  // Powers of two as 2^N: the limits are sizes, and 2^36 reads better than digits.
  auto pretty = [](std::int64_t v) {
    const bool power = v >= 65536 && (v & (v - 1)) == 0;
    return power ? "2^" + std::to_string(std::ilogb(static_cast<double>(v))) : std::to_string(v);
  };
  return pretty(min) + ".." + pretty(max);
}

// Edit distance between two option names, for "did you mean" (insert, delete, replace: 1).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The message for arguments the lesson does not take: the first unknown option by name, with
// the nearest real one when it is a likely typo (at most two edits away); else the first stray
// word.
std::string describe_unexpected(const CLI::App& app, const std::vector<std::string>& extras) {
  for (const std::string& word : extras) {
    if (word.size() < 2 || word[0] != '-') continue;
    const std::string name = word.substr(0, word.find('='));
    std::string nearest;
    std::size_t best = 3;
    for (const CLI::Option* option : app.get_options()) {
      for (const std::string& long_name : option->get_lnames()) {
        const std::size_t distance = edit_distance(name, "--" + long_name);
        if (distance < best) {
          best = distance;
          nearest = "--" + long_name;
        }
      }
    }
    return "unknown option '" + name + "'" +
           (nearest.empty() ? "" : "; did you mean '" + nearest + "'?");
  }
  return "unexpected argument '" + extras.front() + "' (every value belongs to an option)";
}

// "--size was given twice ('4096', then '8192'); give it once".
std::string given_more_than_once(const std::string& flag, const std::vector<std::string>& values) {
  std::string list;
  for (std::size_t i = 0; i < values.size(); ++i) {
    list += (i == 0 ? "" : values.size() == 2 ? ", then " : ", ") + ("'" + values[i] + "'");
  }
  const std::string times = values.size() == 2 ? "twice" : std::to_string(values.size()) + " times";
  return flag + " was given " + times + " (" + list + "); give it once";
}

}  // namespace

std::int64_t parse_count(const std::string& option, const std::string& text, std::int64_t min,
                         std::int64_t max, bool size_like) {
  const auto fail = [&](const std::string& why) {
    throw UsageError(option + " '" + text + "' " + why + "; expected an integer in " +
                     describe_range(min, max) + (size_like ? " (" + size_forms(max) + ")" : ""));
  };
  if (text.empty()) fail("is empty");
  const bool power = text.size() > 2 && text[0] == '2' && text[1] == '^';
  const char* digits = text.c_str() + (power ? 2 : 0);
  // A digit or a sign first: strtoll alone would also skip leading blanks.
  if (!std::isdigit(static_cast<unsigned char>(*digits)) && *digits != '-' && *digits != '+') {
    fail("is not a number");
  }
  errno = 0;
  char* end = nullptr;
  const long long number = std::strtoll(digits, &end, 10);
  if (end == digits) fail("is not a number");
  if (errno == ERANGE) fail("is too large");
  int shift = 0;  // 2^N, or N times 2^10, 2^20 or 2^30 for a K, M or G suffix
  if (power) {
    if (*end != '\0') fail("is not a number");
    if (number < 0 || number > 62) fail("is out of range");
    shift = static_cast<int>(number);
  } else if (*end != '\0') {
    const auto unit =
        end[1] == '\0' ? std::string("KMG").find(std::toupper(*end)) : std::string::npos;
    if (unit == std::string::npos) fail("has an unknown suffix '" + std::string(end) + "'");
    shift = 10 * static_cast<int>(unit + 1);
  }
  const long double value = std::ldexp(power ? 1.0L : static_cast<long double>(number), shift);
  if (value < static_cast<long double>(min) || value > static_cast<long double>(max)) {
    fail("is out of range");
  }
  return static_cast<std::int64_t>(value);
}

namespace {
// --size's help: what it counts, its range and the forms it accepts.
std::string size_help(const std::string& meaning, std::int64_t max_size) {
  return meaning + " (" + describe_range(1, max_size) + "; " + size_forms(max_size) + ")";
}
}  // namespace

struct LessonCli::Impl {
  CLI::App app;
  std::string program;
  CommonOptions options;
  bool check = false, speed_check = false;
  std::vector<std::function<void()>> conversions;
  std::deque<SpeedCheck> speed_checks;   // a deque: references handed out stay valid
  std::optional<std::string> no_repeat;  // refuse_repeat()'s reason
  std::int64_t max_size = 0;             // --size's upper bound, for describe_size()

  Impl(std::string name, const std::string& description)
      : app(wrapped(description, kTextWidth), name), program(std::move(name)) {
    app.get_formatter()->column_width(kHelpColumn);
  }

  // An option taken as text and, when given, converted by \p convert after parsing: every
  // lesson gets the same messages, and a bad value exits 2 before any GPU work.
  void add(const std::string& flag, const std::string& help, const char* type,
           const std::string& shown_default, std::function<void(const std::string&)> convert) {
    auto text = std::make_shared<std::string>();
    CLI::Option* option = app.add_option(flag, *text, option_help(help))->type_name(type);
    option->default_str(shown_default);
    // Every value is kept, so that an option given twice is named as such (CLI11's default
    // policy reports "--size: 1 required N missing", read as a missing value).
    option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    conversions.push_back([flag, option, text, convert = std::move(convert)] {
      if (option->count() > 1) throw UsageError(given_more_than_once(flag, option->results()));
      if (option->count() > 0) convert(*text);
    });
  }
  // A count (parse_count()) into \p target, whose value is the default shown.
  template <class T>
  void count(const std::string& flag, const std::string& help, T& target, std::int64_t min,
             std::int64_t max, bool size_like = false) {
    add(flag, help, "N", std::to_string(target), [=, &target](const std::string& text) {
      target = static_cast<T>(parse_count(flag, text, min, max, size_like));
    });
  }
};

LessonCli::LessonCli(std::string program, std::string description, std::int64_t default_size,
                     std::int64_t max_size)
    : impl_(std::make_unique<Impl>(std::move(program), std::move(description))) {
  Impl& s = *impl_;
  CommonOptions& o = s.options;
  o.size = default_size;
  s.max_size = max_size;
  s.count("--size", size_help("Problem size in elements", max_size), o.size, 1, max_size, true);
  s.count("--repeat", "Timed repetitions per measurement (1..100000)", o.repeat, 1, 100000);
  s.add("--seed", "Seed for the random inputs (default: drawn, printed)", "N", "",
        [&o](const std::string& text) {
          o.seed = static_cast<std::uint64_t>(parse_count("--seed", text, 0, INT64_MAX));
        });
  s.count("--device", "GPU index (0..count-1)", o.device, 0, 1023);
  s.add("--json", "Write the report as JSON to this file", "FILE", "", [&o](const std::string& p) {
    check_output_path("--json", p);
    o.json_path = p;
  });
  s.app.add_flag("--check", s.check,
                 option_help("Correctness run: small sizes, every result validated (ctest label "
                             "gpu)"));
  s.app.add_flag("--speed-check", s.speed_check,
                 option_help("Timing-ratio checks against thresholds (ctest label speed)"));
  s.app.allow_extras();
}

LessonCli::~LessonCli() = default;

void LessonCli::describe_size(const std::string& meaning) {
  impl_->app.get_option("--size")->description(option_help(size_help(meaning, impl_->max_size)));
}

void LessonCli::refuse_repeat(const std::string& why) {
  impl_->no_repeat = why;
  impl_->app.get_option("--repeat")->group("");  // an empty group hides it from --help
}

void LessonCli::add_count(const std::string& flag, std::int64_t& value, const std::string& help,
                          std::int64_t min, std::int64_t max) {
  impl_->count(flag, help + " (" + describe_range(min, max) + ")", value, min, max);
}

void LessonCli::add_choice(const std::string& flag, std::string& value, const std::string& help,
                           std::vector<std::string> choices) {
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  impl_->add(flag, help + " (" + list + ")", "WORD", value,
             [flag, &value, choices, list](const std::string& text) {
               if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
                 throw UsageError(flag + " '" + text + "' is not one of: " + list);
               }
               value = text;
             });
}

void LessonCli::add_text(const std::string& flag, std::string& value, const std::string& help,
                         std::function<void(const std::string&)> validate) {
  impl_->add(flag, help, "TEXT", "", [&value, validate](const std::string& text) {
    validate(text);
    value = text;
  });
}

void LessonCli::add_flag(const std::string& flag, bool& value, const std::string& help) {
  impl_->app.add_flag(flag, value, option_help(help));
}

void LessonCli::add_trace_output() {
  CommonOptions& o = impl_->options;
  const char* help =
      "Write the block trace (Chrome Trace Event Format: Perfetto, chrome://tracing)";
  impl_->add("--trace", help, "FILE", "", [&o](const std::string& path) {
    check_output_path("--trace", path);
    o.trace_path = path;
  });
}

void LessonCli::add_block_size(std::int64_t& value, BlockRule rule) {
  const bool warps = rule == BlockRule::kWholeWarps;
  add_count("--block", value, warps ? "Threads per block, a multiple of 32" : "Threads per block",
            warps ? 32 : 1, 1024);
  if (warps) {
    impl_->conversions.push_back([&value] {
      if (value % 32 != 0) {
        throw UsageError("--block " + std::to_string(value) +
                         " is not a multiple of 32; block sizes must be whole warps (32 threads "
                         "on NVIDIA and RDNA, 64 on GCN and CDNA)");
      }
    });
  }
}

const SpeedCheck& LessonCli::add_speed_check(SpeedCheck check) {
  SpeedCheck& stored = impl_->speed_checks.emplace_back(std::move(check));
  const char* word = stored.bound == Bound::kAtLeast ? "must reach" : "must stay at or under";
  impl_->add(stored.flag, "Speed check: " + stored.name + " " + word + " this", "X",
             shortest(stored.threshold), [&stored](const std::string& text) {
               char* end = nullptr;
               errno = 0;
               const double parsed = std::strtod(text.c_str(), &end);
               if (end == text.c_str() || *end != '\0' || errno == ERANGE || !(parsed >= 0.0) ||
                   parsed > 1e6) {
                 throw UsageError(stored.flag + " '" + text + "' is not a number in [0, 1000000]");
               }
               stored.threshold = parsed;
             });
  return stored;
}

int LessonCli::parse(int argc, const char* const* argv) {
  Impl& s = *impl_;
  const auto usage = [](const std::string& message) {
    std::cerr << "error: " << message << '\n';
    return static_cast<int>(kExitUsage);
  };
  const std::string hint = "\nRun '" + s.program + " --help' for the options.";
  try {
    s.app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return s.app.exit(help);
  } catch (const CLI::ArgumentMismatch& error) {
    // CLI11 says "--size: 1 required N missing"; the reader needs the option and what to do.
    const std::string what = error.what();
    const std::string option = what.substr(0, what.find(':'));
    if (option.rfind("--", 0) == 0) return usage(option + " needs a value" + hint);
    return usage(what + hint);
  } catch (const CLI::ParseError& error) {
    return usage(error.what() + hint);
  }
  if (!s.app.remaining().empty())
    return usage(describe_unexpected(s.app, s.app.remaining()) + hint);
  try {
    s.options.seed = random_seed();  // unless --seed gives one
    if (s.no_repeat && s.app.count("--repeat") > 0) throw UsageError("--repeat: " + *s.no_repeat);
    for (const auto& convert : s.conversions) convert();
    if (s.check && s.speed_check) {
      throw UsageError("--check and --speed-check are separate runs; give one of them");
    }
    if (s.options.json_path == "-" && s.options.trace_path == "-") {
      throw UsageError(
          "--json - and --trace - would both write to standard output; give one a file");
    }
    if (s.options.json_path != "-" && !s.options.json_path.empty() &&
        same_output_file(s.options.json_path, s.options.trace_path)) {
      throw UsageError("--trace '" + s.options.trace_path + "' and --json '" + s.options.json_path +
                       "' are the same file: one output would replace the other; give each its "
                       "own file");
    }
  } catch (const UsageError& error) {
    return usage(error.what());
  }
  s.options.mode = s.check ? Mode::kCheck : s.speed_check ? Mode::kSpeedCheck : Mode::kTour;
  return -1;
}

const CommonOptions& LessonCli::options() const { return impl_->options; }
const std::string& LessonCli::program() const { return impl_->program; }

}  // namespace hip_lessons
