/// \file lessons/01_env_check/runtime_behaviour.hpp
/// \brief The runtime-behaviour table (docs/runtime_behaviour.tsv): reading it, and choosing
/// the rows that describe the runtime this process runs on.
///
/// The table lists each scheduling knob with its effect and default by runtime version, and
/// where that was read. Its AMD rows are keyed by HIP's own version, which is what
/// hipRuntimeGetVersion reports (ROCm 4.5.x ships HIP 4.4), and a row may split a release by
/// HIP's build number where a patch release changed a value. Lesson 01 asks which version it
/// runs on and prints that version's rows with the value in force. Host-only, so that unit tests
/// check the rules and the table itself without a GPU.
#pragma once

#include <cstdlib>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hip_lessons/environment.hpp"
#include "runtime_behaviour_table.hpp"  // generated from docs/runtime_behaviour.tsv

namespace lesson01 {

namespace hl = hip_lessons;

/// One row of the table; docs/pages/runtime_behaviour.md explains the columns.
struct BehaviourRow {
  std::string knob;           ///< "hardware queues"
  std::string platform;       ///< "AMD" or "NVIDIA"
  std::string setting;        ///< the variable or API: "GPU_MAX_HW_QUEUES"
  std::string versions;       ///< the releases the row describes: "5.5-"
  std::string default_value;  ///< what applies when the setting is left alone: "4"
  std::string effect;         ///< what it does in those releases
  std::string source;         ///< repository, path and tag or commit read
};

/// One end of a row's range: major.minor, and HIP's build number where the row splits a release
/// by it (ROCm 4.5.0 ships HIP 4.4.21401, ROCm 4.5.1 and 4.5.2 ship 4.4.21432).
struct VersionBound {
  int major = 0;
  int minor = 0;
  std::optional<int> build;  ///< absent: every build of major.minor
};

/// The releases a row describes. Rows of development sources ("current") match no release.
struct VersionRange {
  std::optional<VersionBound> lowest;   ///< absent: no lower end
  std::optional<VersionBound> highest;  ///< absent: no upper end
  bool development_only = false;

  /// Whether the range covers \p version with HIP build \p build. Without the build, whether
  /// it covers any build of \p version: both rows of a release split by builds then apply.
  bool contains(hl::RuntimeVersion version, std::optional<int> build = std::nullopt) const {
    if (development_only) return false;
    const auto first = std::make_tuple(version.major, version.minor, build.value_or(0));
    const auto last = std::make_tuple(version.major, version.minor, build.value_or(kEveryBuild));
    return !(lowest && last < from(*lowest)) && !(highest && to(*highest) < first);
  }
  /// Whether one end of the range falls inside \p version, between two of its builds.
  bool splits(hl::RuntimeVersion version) const {
    const auto inside = [&](const std::optional<VersionBound>& b) {
      return b && b->build && b->major == version.major && b->minor == version.minor;
    };
    return inside(lowest) || inside(highest);
  }
  /// The first and the last (major, minor, build) the range's ends stand for.
  static std::tuple<int, int, int> from(const VersionBound& b) {
    return {b.major, b.minor, b.build.value_or(0)};
  }
  static std::tuple<int, int, int> to(const VersionBound& b) {
    return {b.major, b.minor, b.build.value_or(kEveryBuild)};
  }
  static constexpr int kEveryBuild = 1000000000;  ///< above any build number HIP reports
};

/// Parses "A-B", "A-", "-B", "A", "all" or "current", where A and B are major.minor or
/// major.minor.build. Throws std::invalid_argument naming the text otherwise.
inline VersionRange parse_version_range(const std::string& text) {
  VersionRange range;
  if (text == "all") return range;
  if (text == "current") return {std::nullopt, std::nullopt, true};
  static const std::regex form(R"((?:(\d+)\.(\d+)(?:\.(\d+))?)?(-)?(?:(\d+)\.(\d+)(?:\.(\d+))?)?)");
  std::smatch m;
  if (!std::regex_match(text, m, form) || (!m[1].matched && !m[5].matched) ||
      (m[1].matched && m[5].matched && !m[4].matched)) {
    throw std::invalid_argument("'" + text + "' is not a version range (A-B, A-, -B, A, all, " +
                                "current; A and B major.minor or major.minor.build)");
  }
  const auto bound = [&](int at) {
    return VersionBound{std::stoi(m[at]), std::stoi(m[at + 1]),
                        m[at + 2].matched ? std::optional(std::stoi(m[at + 2])) : std::nullopt};
  };
  if (m[1].matched) range.lowest = bound(1);
  if (m[5].matched) range.highest = bound(5);
  if (!m[4].matched) range.highest = range.lowest;  // "A": that release (or build) only
  if (range.lowest && range.highest &&
      VersionRange::to(*range.highest) < VersionRange::from(*range.lowest)) {
    throw std::invalid_argument("'" + text + "' is a reversed version range");
  }
  return range;
}

/// Parses the table's text: '#' lines are comments, the first other line is the header, each
/// further line one row of seven tab-separated fields. Throws std::invalid_argument naming the
/// line for a row with another number of fields, an empty field, a platform other than AMD
/// and NVIDIA, or a version range parse_version_range() refuses.
inline std::vector<BehaviourRow> parse_behaviour_table(const std::string& text) {
  std::vector<BehaviourRow> rows;
  std::istringstream lines(text);
  std::string line;
  bool header = true;  // the first line that is not a comment
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.empty() || line[0] == '#' || std::exchange(header, false)) continue;
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) fields.push_back(cell);
    const auto fail = [&](const std::string& why) {
      return std::invalid_argument("runtime-behaviour table, line " + std::to_string(number) +
                                   ": " + why);
    };
    if (fields.size() != 7) throw fail(std::to_string(fields.size()) + " fields, not 7");
    for (const std::string& field : fields) {
      if (field.empty()) throw fail("an empty field");
    }
    BehaviourRow row{fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], fields[6]};
    if (row.platform != "AMD" && row.platform != "NVIDIA") {
      throw fail("platform '" + row.platform + "' is neither AMD nor NVIDIA");
    }
    try {
      parse_version_range(row.versions);
    } catch (const std::invalid_argument& error) {
      throw fail(error.what());
    }
    rows.push_back(row);
  }
  return rows;
}

/// The table this build compiled in (docs/runtime_behaviour.tsv when it was configured).
inline const std::vector<BehaviourRow>& compiled_in_table() {
  static const std::vector<BehaviourRow> rows = parse_behaviour_table(kRuntimeBehaviourTable);
  return rows;
}

/// What one knob does in this process.
struct KnobInForce {
  std::string knob;
  std::string setting;
  std::string value;   ///< "4 (default)" or "'2' (set)"; "absent", "not established", or what an
                       ///< API offers, as the table says
  std::string effect;  ///< the row's effect
};

/// The rows of \p platform whose range contains \p runtime (HIP build \p build, or the one
/// \p runtime carries, when known), in
/// table order, with the value in force: a setting that is an environment variable (upper case)
/// shows its value when set in \p environment, else its default; an API shows what the release
/// offers. Without the build, a release that rows split by builds gets each such row, its value
/// followed by the row's range ("4096 (default) for HIP 4.4.21432-4.4").
inline std::vector<KnobInForce> knobs_in_force(
    const std::vector<BehaviourRow>& rows, hl::Platform platform, hl::RuntimeVersion runtime,
    const std::function<const char*(const char*)>& environment = std::getenv,
    std::optional<int> build = std::nullopt) {
  static const std::regex variable_name("[A-Z][A-Z0-9_]*");
  if (!build) build = runtime.build;
  std::vector<KnobInForce> in_force;
  for (const BehaviourRow& row : rows) {
    if (row.platform != hl::platform_name(platform)) continue;
    const VersionRange range = parse_version_range(row.versions);
    if (!range.contains(runtime, build)) continue;
    const bool variable = std::regex_match(row.setting, variable_name);
    const bool has_default =
        row.default_value != "absent" && row.default_value != "not established";
    const char* set = variable ? environment(row.setting.c_str()) : nullptr;
    std::string value =
        variable && has_default ? row.default_value + " (default)" : row.default_value;
    if (set != nullptr) {
      value = "'" + std::string(set) + "' (set" +
              (row.default_value == "absent" ? ", but this release does not read it)" : ")");
    }
    if (!build && range.splits(runtime)) value += " for HIP " + row.versions;
    in_force.push_back({row.knob, row.setting, value, row.effect});
  }
  return in_force;
}

}  // namespace lesson01
