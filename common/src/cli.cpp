#include "hip_lessons/cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <functional>
#include <iostream>
#include <limits>

#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/validation.hpp"

namespace hip_lessons {

namespace {

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
// the nearest real one when it is a likely typo; else the first stray word.
std::string describe_unexpected(const CLI::App& app, const std::vector<std::string>& extras) {
  for (const std::string& word : extras) {
    if (word.size() < 2 || word[0] != '-') continue;
    const std::string name = word.substr(0, word.find('='));
    std::string nearest;
    std::size_t best = 3;  // a typo is at most two edits away
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

}  // namespace

std::int64_t parse_count(const std::string& option, const std::string& text, std::int64_t min,
                         std::int64_t max, bool size_like) {
  const auto fail = [&](const std::string& why) {
    throw UsageError(option + " '" + text + "' " + why + "; expected an integer in " +
                     describe_range(min, max) +
                     (size_like ? " (forms: 4096, 64K, 16M, 1G, 2^28)" : ""));
  };
  if (text.empty()) fail("is empty");
  const bool power = text.size() > 2 && text[0] == '2' && text[1] == '^';
  const std::string digits = power ? text.substr(2) : text;
  if (digits.empty() || !(std::isdigit(static_cast<unsigned char>(digits[0])) || digits[0] == '-' ||
                          digits[0] == '+')) {
    fail("is not a number");
  }
  errno = 0;
  char* end = nullptr;
  const long long number = std::strtoll(digits.c_str(), &end, 10);
  if (end == digits.c_str()) fail("is not a number");
  if (errno == ERANGE) fail("is too large");
  const std::string suffix(end);
  long double value = static_cast<long double>(number);
  if (power) {
    if (!suffix.empty()) fail("is not a number");
    if (number < 0 || number > 62) fail("is out of range");
    value = std::ldexp(1.0L, static_cast<int>(number));
  } else if (!suffix.empty()) {
    const auto unit =
        suffix.size() == 1 ? std::string("KMG").find(std::toupper(suffix[0])) : std::string::npos;
    if (unit == std::string::npos) fail("has an unknown suffix '" + suffix + "'");
    value = std::ldexp(value, 10 * static_cast<int>(unit + 1));
  }
  if (value < static_cast<long double>(min) || value > static_cast<long double>(max)) {
    fail("is out of range");
  }
  return static_cast<std::int64_t>(value);
}

struct LessonCli::Impl {
  CLI::App app;
  std::string program;
  CommonOptions options;
  std::int64_t max_size;
  // Raw texts, converted after parsing so every lesson gets the same messages.
  std::string size_text, repeat_text, seed_text, device_text;
  bool check = false, speed_check = false;
  std::vector<std::function<void()>> conversions;
  std::deque<SpeedCheck> speed_checks;  // a deque: references handed out stay valid

  Impl(std::string name, std::string description)
      : app(std::move(description), name), program(std::move(name)) {}
};

LessonCli::LessonCli(std::string program, std::string description, std::int64_t default_size,
                     std::int64_t max_size)
    : impl_(std::make_unique<Impl>(std::move(program), std::move(description))) {
  Impl& s = *impl_;
  s.options.size = default_size;
  s.max_size = max_size;
  s.size_text = std::to_string(default_size);
  s.app
      .add_option("--size", s.size_text,
                  "Problem size in elements, up to " + describe_range(1, max_size) +
                      " (forms: 4096, 64K, 16M, 1G, 2^28)")
      ->type_name("N")
      ->default_str(s.size_text);
  s.app.add_option("--repeat", s.repeat_text, "Timed repetitions per measurement (1..100000)")
      ->type_name("N")
      ->default_str("20");
  s.app.add_option("--seed", s.seed_text, "Seed for the random inputs (default: drawn, printed)")
      ->type_name("N");
  s.app.add_option("--device", s.device_text, "GPU index (0..count-1)")
      ->type_name("N")
      ->default_str("0");
  s.app.add_option("--json", s.options.json_path, "Write the report as JSON to this file")
      ->type_name("FILE");
  s.app.add_flag("--check", s.check,
                 "Correctness run: small sizes, every result validated (ctest label gpu)");
  s.app.add_flag("--speed-check", s.speed_check,
                 "Timing-ratio checks against thresholds (ctest label speed)");
}

LessonCli::~LessonCli() = default;

void LessonCli::add_count(const std::string& flag, std::int64_t& value, const std::string& help,
                          std::int64_t min, std::int64_t max) {
  auto text = std::make_shared<std::string>();
  impl_->app.add_option(flag, *text, help + " (" + describe_range(min, max) + ")")
      ->type_name("N")
      ->default_str(std::to_string(value));
  impl_->conversions.push_back([flag, text, &value, min, max] {
    if (!text->empty()) value = parse_count(flag, *text, min, max);
  });
}

void LessonCli::add_number(const std::string& flag, double& value, const std::string& help,
                           double min, double max) {
  auto text = std::make_shared<std::string>();
  impl_->app.add_option(flag, *text, help)->type_name("X")->default_str(shortest(value));
  impl_->conversions.push_back([flag, text, &value, min, max] {
    if (text->empty()) return;
    char* end = nullptr;
    errno = 0;
    const double parsed = std::strtod(text->c_str(), &end);
    if (end == text->c_str() || *end != '\0' || errno == ERANGE || std::isnan(parsed) ||
        parsed < min || parsed > max) {
      throw UsageError(flag + " '" + *text + "' is not a number in [" + shortest(min) + ", " +
                       shortest(max) + "]");
    }
    value = parsed;
  });
}

void LessonCli::add_choice(const std::string& flag, std::string& value, const std::string& help,
                           std::vector<std::string> choices) {
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  auto text = std::make_shared<std::string>();
  impl_->app.add_option(flag, *text, help + " (" + list + ")")
      ->type_name("WORD")
      ->default_str(value);
  impl_->conversions.push_back([flag, text, &value, choices, list] {
    if (text->empty()) return;
    if (std::find(choices.begin(), choices.end(), *text) == choices.end()) {
      throw UsageError(flag + " '" + *text + "' is not one of: " + list);
    }
    value = *text;
  });
}

void LessonCli::add_text(const std::string& flag, std::string& value, const std::string& help,
                         std::function<void(const std::string&)> validate) {
  impl_->app.add_option(flag, value, help);
  impl_->conversions.push_back([&value, validate = std::move(validate)] {
    if (!value.empty()) validate(value);
  });
}

void LessonCli::add_flag(const std::string& flag, bool& value, const std::string& help) {
  impl_->app.add_flag(flag, value, help);
}

void LessonCli::add_trace_output() {
  impl_->app
      .add_option("--trace", impl_->options.trace_path,
                  "Write the block trace (Chrome Trace Event Format: Perfetto, chrome://tracing)")
      ->type_name("FILE");
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
  add_number(stored.flag, stored.threshold, "Speed check: " + stored.name + " " + word + " this",
             0.0, 1e6);
  return stored;
}

int LessonCli::parse(int argc, const char* const* argv) {
  Impl& s = *impl_;
  s.app.allow_extras();
  try {
    s.app.parse(argc, argv);
    if (!s.app.remaining().empty()) {
      std::cerr << "error: " << describe_unexpected(s.app, s.app.remaining()) << "\nRun '"
                << s.program << " --help' for the options.\n";
      return kExitUsage;
    }
  } catch (const CLI::CallForHelp& help) {
    return s.app.exit(help);
  } catch (const CLI::ParseError& error) {
    std::cerr << "error: " << error.what() << "\nRun '" << s.program
              << " --help' for the options.\n";
    return kExitUsage;
  }
  try {
    s.options.size = parse_count("--size", s.size_text, 1, s.max_size, true);
    if (!s.repeat_text.empty()) {
      s.options.repeat = static_cast<int>(parse_count("--repeat", s.repeat_text, 1, 100000));
    }
    if (!s.device_text.empty()) {
      s.options.device = static_cast<int>(parse_count("--device", s.device_text, 0, 1023));
    }
    if (s.seed_text.empty()) {
      s.options.seed = random_seed();
    } else {
      const auto max_seed = std::numeric_limits<std::int64_t>::max();
      s.options.seed = static_cast<std::uint64_t>(parse_count("--seed", s.seed_text, 0, max_seed));
    }
    for (const auto& convert : s.conversions) convert();
    if (s.check && s.speed_check) {
      throw UsageError("--check and --speed-check are separate runs; give one of them");
    }
    s.options.mode = s.check ? Mode::kCheck : s.speed_check ? Mode::kSpeedCheck : Mode::kTour;
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  }
  return -1;
}

const CommonOptions& LessonCli::options() const { return impl_->options; }
const std::string& LessonCli::program() const { return impl_->program; }

}  // namespace hip_lessons
