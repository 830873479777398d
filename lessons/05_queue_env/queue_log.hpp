/// \file lessons/05_queue_env/queue_log.hpp
/// \brief Which hardware queue each stream got, read from HIP's own log on AMD
/// (AMD_LOG_LEVEL=3). Host code only (test_queue_log.cpp).
///
/// At level 3 (LOG_INFO) HIP logs every API call it enters and leaves, and the queue pool logs
/// each queue it hands out. A log line looks like
/// `:3:rocdevice.cpp            :3197: 0123456789 us: [pid:2539  tid:0x7f00] <message>`
/// (older releases: `... us: 2539 : [tid:0x7f00] <message>`). The queue messages, by release:
/// - ROCm 5.6 to 6.1: `created hardware queue <hsa_queue_t*> with size ...`, then
///   `acquireQueue refCount: <hsa_queue_t*> (1)`; a reused queue: `selected queue refCount:
///   <hsa_queue_t*> (n)`.
/// - ROCm 6.2 and later: `Created SWq=<hsa_queue_t*> to map on HWq=<base address> with ...`,
///   then `acquireQueue refCount: <base address> (1)`; a reused queue: `Selected queue
///   refCount: <base address> (n)`. The 2026 development branch adds a tail to the first
///   (`(dedicated)`) and writes reuse as `Selected queue (mode=0): <base address> refCount: n,
///   ...` or `Reusing preferred queue: <base address> refCount: n`.
/// None of these names the stream. The stream is the HIP call the queue line sits in, on the
/// same thread: a hipStreamCreate* call names its stream when it returns (`hipStreamCreate...:
/// Returned hipSuccess : stream:0x...`); any other call that names a stream among its
/// arguments (`stream:0x...`) is taken to be that stream's.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace queue_env {

/// One stream and the hardware queue HIP gave it, as the log says.
struct StreamQueue {
  std::string stream;     ///< "0x7fc9cc0016d0", as HIP printed it
  std::string queue;      ///< the queue as the log names it (see how_named)
  bool reused = false;    ///< the pool handed out a queue it already had
  std::string how_named;  ///< "hsa_queue_t" (ROCm 5.6-6.1) or "base address" (6.2 and later)
};

/// What a log held: the streams in the order they got a queue, and what could not be read.
struct QueueLog {
  std::vector<StreamQueue> streams;
  int queue_lines = 0;   ///< queue hand-outs seen
  int unattributed = 0;  ///< hand-outs outside any HIP call that names a stream
  int malformed = 0;     ///< level-3 log lines whose prefix could not be read

  /// How many streams share \p queue.
  int users(const std::string& queue) const {
    int n = 0;
    for (const StreamQueue& s : streams) n += s.queue == queue ? 1 : 0;
    return n;
  }
};

namespace queue_log_detail {

inline std::string strip_colour(const std::string& text) {
  static const std::regex escape("\x1b\\[[0-9;]*m");
  return std::regex_replace(text, escape, "");
}

// A queue hand-out: the queue, whether it was reused, and how the release names it.
struct Handout {
  std::string queue;
  bool reused;
  const char* how_named;
};

inline std::optional<Handout> handout(const std::string& message) {
  static const std::regex created_old("^created hardware queue (0x[0-9a-fA-F]+) with size");
  static const std::regex created_new("^Created SWq=0x[0-9a-fA-F]+ to map on HWq=(0x[0-9a-fA-F]+)");
  static const std::regex selected_old("^selected queue refCount: (0x[0-9a-fA-F]+) \\(\\d+\\)");
  static const std::regex selected_new(
      "^(?:Selected queue refCount: |Selected queue \\(mode=\\d+\\): |Reusing preferred queue: )"
      "(0x[0-9a-fA-F]+)");
  std::smatch m;
  if (std::regex_search(message, m, created_old)) return Handout{m[1], false, "hsa_queue_t"};
  if (std::regex_search(message, m, created_new)) return Handout{m[1], false, "base address"};
  if (std::regex_search(message, m, selected_old)) return Handout{m[1], true, "hsa_queue_t"};
  if (std::regex_search(message, m, selected_new)) return Handout{m[1], true, "base address"};
  return std::nullopt;
}

// A HIP call still open on one thread: its name, the stream it names (if any), and the
// hand-outs logged inside it.
struct OpenCall {
  std::string name;
  std::string stream;
  std::vector<Handout> handouts;
};

}  // namespace queue_log_detail

/// Reads HIP's level-3 log out of \p text (other output may be interleaved with it: the
/// lesson's own lines, other threads' log lines) and returns the stream of each queue
/// hand-out. A hand-out goes to the stream of the HIP call open on its thread; when a line
/// carries no thread id or its thread has no open call (a worker thread), to the call open on
/// the only thread with one. The first hand-out
/// inside a call is the stream's (a call that makes several keeps the first).
inline QueueLog read_queue_log(const std::string& text) {
  namespace d = queue_log_detail;
  // :LEVEL:FILE :LINE: TIME us: then "[pid:P tid:0xT]" (6.2+) or "P : [tid:0xT]" (older).
  static const std::regex prefix(
      "^:(\\d):([^:]+):\\s*(\\d+)\\s*:\\s*\\d+d? us:\\s*"
      "(?:\\[pid:\\s*\\d+\\s+tid:(0x[0-9a-fA-F]+)\\]|\\d+\\s*:\\s*\\[tid:(0x[0-9a-fA-F]+)\\])?"
      "\\s*(.*)$");
  static const std::regex enter("^(hip[A-Za-z0-9_]+) \\((.*)\\)\\s*$");
  static const std::regex leave("^(hip[A-Za-z0-9_]+): Returned \\w+ : ?(.*)$");
  static const std::regex stream_arg("stream:(0x[0-9a-fA-F]+)");
  QueueLog log;
  std::map<std::string, std::vector<d::OpenCall>> open;  // by thread id ("" when none)
  const auto record = [&log](const std::string& stream, const d::Handout& h) {
    log.streams.push_back({stream, h.queue, h.reused, h.how_named});
  };
  std::istringstream lines(text);
  std::string raw;
  while (std::getline(lines, raw)) {
    const std::string line = d::strip_colour(raw);
    if (line.size() < 3 || line[0] != ':' || line[2] != ':') continue;  // not a log line
    std::smatch m;
    if (!std::regex_match(line, m, prefix)) {
      ++log.malformed;
      continue;
    }
    const std::string tid = m[4].matched ? m[4].str() : m[5].str();
    std::string message = m[6];
    while (!message.empty() && (message.back() == ' ' || message.back() == '\r'))
      message.pop_back();
    std::smatch call;
    if (std::regex_match(message, call, enter)) {
      std::smatch s;
      const std::string args = call[2];
      open[tid].push_back({call[1], std::regex_search(args, s, stream_arg) ? s[1].str() : "", {}});
      continue;
    }
    if (std::regex_match(message, call, leave)) {
      std::vector<d::OpenCall>& calls = open[tid];
      if (calls.empty() || calls.back().name != call[1]) continue;  // its entry was not seen
      d::OpenCall done = calls.back();
      calls.pop_back();
      std::smatch s;
      const std::string value = call[2];
      if (done.stream.empty() && std::regex_search(value, s, stream_arg)) done.stream = s[1];
      if (!done.handouts.empty()) {
        if (done.stream.empty()) {
          log.unattributed += static_cast<int>(done.handouts.size());
        } else {
          record(done.stream, done.handouts.front());
          log.unattributed += static_cast<int>(done.handouts.size()) - 1;
        }
      }
      continue;
    }
    const std::optional<d::Handout> h = d::handout(message);
    if (!h) continue;
    ++log.queue_lines;
    std::vector<d::OpenCall>* calls = nullptr;
    if (!tid.empty() && !open[tid].empty()) {
      calls = &open[tid];
    } else {  // no thread id, or a worker thread's line: the only thread with an open call
      for (auto& [thread, list] : open) {
        if (list.empty()) continue;
        if (calls != nullptr) {  // calls open on two threads: which one is not known
          calls = nullptr;
          break;
        }
        calls = &list;
      }
    }
    if (calls == nullptr || calls->empty()) {
      ++log.unattributed;
    } else {
      calls->back().handouts.push_back(*h);
    }
  }
  for (const auto& [thread, calls] : open) {  // calls that never returned: the stream, if named
    for (const d::OpenCall& c : calls) {
      if (c.handouts.empty()) continue;
      if (c.stream.empty()) {
        log.unattributed += static_cast<int>(c.handouts.size());
      } else {
        record(c.stream, c.handouts.front());
        log.unattributed += static_cast<int>(c.handouts.size()) - 1;
      }
    }
  }
  return log;
}

}  // namespace queue_env
