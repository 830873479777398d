#include "hip_lessons/schedule_lines.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "hip_lessons/format.hpp"

namespace hip_lessons {

namespace {

const std::string kRunTag = "@schedule";
const std::string kBlockTag = "@block";

// What the "@schedule" line announced, and the blocks that followed it.
struct SentRun {
  std::optional<std::int64_t> origin_ns;
  std::int64_t host_read_ns = 0;
  std::size_t announced = 0;
  std::vector<TracedBlock> blocks;
};

bool one_word(const std::string& text) {
  return !text.empty() && text.find_first_of(" \t\r\n") == std::string::npos;
}

}  // namespace

std::vector<std::string> schedule_lines(const std::string& run, const Schedule& schedule) {
  if (!one_word(run)) {
    throw std::invalid_argument("a run sent as lines needs a one-word name, not '" + run + "'");
  }
  const std::optional<std::int64_t> origin = schedule.device_clock_origin_ns();
  const auto device_ns = [&](double us) { return origin.value_or(0) + std::llround(us * 1000.0); };
  std::vector<std::string> lines = {format("{} {} {} {} {}", kRunTag, run,
                                           origin ? std::to_string(*origin) : "-",
                                           schedule.host_read_ns(), schedule.blocks().size())};
  for (const TracedBlock& b : schedule.blocks()) {
    if (b.kernel.find_first_of("\r\n") != std::string::npos ||
        (!b.kernel.empty() && std::isspace(static_cast<unsigned char>(b.kernel.front())))) {
      throw std::invalid_argument("the kernel name '" + b.kernel + "' of run '" + run +
                                  "' would not come back as sent");
    }
    lines.push_back(format("{} {} {} {} {} {} {} {}", kBlockTag, run, b.launch, b.stream, b.block,
                           b.unit, device_ns(b.start_us), device_ns(b.end_us)) +
                    (b.kernel.empty() ? "" : " " + b.kernel));
  }
  return lines;
}

std::map<std::string, Schedule> read_schedule_lines(const std::string& text) {
  std::map<std::string, SentRun> runs;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string tag, run;
    fields >> tag;
    if (tag != kRunTag && tag != kBlockTag) continue;
    const std::runtime_error malformed("malformed trace line from a child: " + line);
    if (!(fields >> run)) throw malformed;
    if (tag == kRunTag) {
      SentRun sent;
      std::string origin;
      if (!(fields >> origin >> sent.host_read_ns >> sent.announced) ||
          !(fields >> std::ws).eof()) {
        throw malformed;
      }
      if (origin != "-") {
        std::istringstream number(origin);
        std::int64_t ns = 0;
        if (!(number >> ns) || !number.eof()) throw malformed;
        sent.origin_ns = ns;
      }
      if (!runs.emplace(run, std::move(sent)).second) {
        throw std::runtime_error("a child sent the run '" + run + "' twice");
      }
      continue;
    }
    const auto sent = runs.find(run);
    if (sent == runs.end()) {
      throw std::runtime_error("a child sent a block of the run '" + run +
                               "' before its @schedule line: " + line);
    }
    TracedBlock b;
    std::int64_t start_ns = 0, end_ns = 0;
    if (!(fields >> b.launch >> b.stream >> b.block >> b.unit >> start_ns >> end_ns) ||
        end_ns < start_ns) {
      throw malformed;
    }
    std::getline(fields >> std::ws, b.kernel);  // the rest of the line; none for an unnamed one
    const std::int64_t origin = sent->second.origin_ns.value_or(0);
    b.start_us = static_cast<double>(start_ns - origin) / 1000.0;
    b.end_us = static_cast<double>(end_ns - origin) / 1000.0;
    sent->second.blocks.push_back(std::move(b));
  }
  std::map<std::string, Schedule> schedules;
  for (auto& [run, sent] : runs) {
    if (sent.blocks.size() != sent.announced) {
      throw std::runtime_error(format("a child sent {} of the {} blocks of the run '{}'",
                                      sent.blocks.size(), sent.announced, run));
    }
    schedules.emplace(
        run, sent.origin_ns ? Schedule(std::move(sent.blocks), *sent.origin_ns, sent.host_read_ns)
                            : Schedule(std::move(sent.blocks)));
  }
  return schedules;
}

}  // namespace hip_lessons
