// A CUPTI activity recorder for a lesson run: every kernel the GPU ran, with its start and end,
// stream, grid, block and name, handed to the lesson when it writes --trace.
//
// The CUDA driver loads this library into any CUDA program whose environment names it
// (ctest/expect-profiler-agreement.sh runs a lesson so):
//
//     export CUDA_INJECTION64_PATH=/path/to/libhip_lessons_cupti_recorder.so
//     lesson03_multi_stream --check --trace trace.json
//
// and calls InitializeInjection() while it initializes, before the program's first CUDA call
// returns. The recorder then
//   - makes CUPTI put every timestamp on std::chrono::steady_clock
//     (cuptiActivityRegisterTimestampCallback), the clock a Schedule notes when it reads its
//     block records, so that the comparison can tell a run from an untraced copy of it;
//   - enables CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: kernel records that leave concurrent
//     kernels concurrent (CUPTI_ACTIVITY_KIND_KERNEL would serialize every kernel, per
//     cupti_activity.h, and so could never show kernels side by side);
//   - keeps the kernel records of every buffer CUPTI completes.
// The lesson, when it writes --trace, finds this library through the same variable and calls
// hip_lessons_profiled_kernels_json() (profiled_kernels.hpp), which flushes CUPTI's buffers
// and returns everything recorded so far as JSON. When CUPTI refuses (a second profiler
// attached, a driver without CUPTI support), the lesson runs as usual and the JSON's "status"
// says what failed; the recorder prints one line to standard error either way.
//
// Child processes of the lesson inherit the variable and so run under a recorder of their own.
// The first recorder of a process tree makes a folder for them and names it in
// HIP_LESSONS_PROFILER_CHILDREN (which they inherit too); a child's recorder writes its records
// there as the child exits (<pid>.json), and the first one adds them to what it hands over
// (add_child_capture()), then removes the folder as its own process exits.
#include <cupti.h>
#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "profiled_kernels.hpp"

namespace hl = hip_lessons;

namespace {

// What the recorder keeps. Allocated once and never freed: CUPTI may deliver a last buffer
// from its own exit handling, after static objects would have been destroyed.
struct Recorder {
  std::mutex mutex;
  hl::ProfilerCapture capture;
  bool enabled = false;
  std::string handed_over;         // the text the last hand-over returned
  std::filesystem::path children;  // where child processes leave their records
  bool first = false;              // the first recorder of the tree: it made `children`
};

Recorder& recorder() {
  static Recorder* const instance = new Recorder();
  return *instance;
}

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::int64_t realtime_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint64_t CUPTIAPI steady_timestamp() { return static_cast<uint64_t>(steady_now_ns()); }

std::string demangled(const char* name) {
  if (name == nullptr) return "(unnamed kernel)";
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && text ? std::string(text.get()) : std::string(name);
}

constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kBufferAlignment = 8;  // CUPTI needs 8-byte aligned activity buffers

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t size,
                               size_t valid_size) {
  (void)size;
  std::vector<hl::ProfiledKernel> kernels;
  std::uint64_t incomplete = 0;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
        record->kind != CUPTI_ACTIVITY_KIND_KERNEL) {
      continue;
    }
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    if (k->start == CUPTI_TIMESTAMP_UNKNOWN || k->end == CUPTI_TIMESTAMP_UNKNOWN) {
      ++incomplete;
      continue;
    }
    hl::ProfiledKernel kernel;
    kernel.name = demangled(k->name);
    kernel.start_ns = static_cast<std::int64_t>(k->start);
    kernel.end_ns = static_cast<std::int64_t>(k->end);
    kernel.stream = k->streamId;
    kernel.device = k->deviceId;
    kernel.context = k->contextId;
    kernel.correlation = k->correlationId;
    kernel.grid = {static_cast<std::uint32_t>(k->gridX), static_cast<std::uint32_t>(k->gridY),
                   static_cast<std::uint32_t>(k->gridZ)};
    kernel.block = {static_cast<std::uint32_t>(k->blockX), static_cast<std::uint32_t>(k->blockY),
                    static_cast<std::uint32_t>(k->blockZ)};
    kernel.graph = k->graphId;
    kernels.push_back(std::move(kernel));
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) != CUPTI_SUCCESS) dropped = 0;
  std::free(buffer);
  Recorder& r = recorder();
  const std::lock_guard<std::mutex> lock(r.mutex);
  for (hl::ProfiledKernel& k : kernels) r.capture.kernels.push_back(std::move(k));
  r.capture.incomplete_records += incomplete;
  r.capture.dropped_records += dropped;
}

// "" when \p result is success, else "<call>: <CUPTI's text>".
std::string failure(const char* call, CUptiResult result) {
  if (result == CUPTI_SUCCESS) return "";
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown";
  return std::string(call) + ": " + text;
}

// Flushes CUPTI's buffers (also those of kernels still being recorded) and returns this
// process's records. buffer_completed() takes the lock, so it is not held while flushing.
hl::ProfilerCapture own_records() {
  Recorder& r = recorder();
  bool enabled = false;
  {
    const std::lock_guard<std::mutex> lock(r.mutex);
    enabled = r.enabled;
  }
  std::string flush_error;
  if (enabled) {
    flush_error =
        failure("cuptiActivityFlushAll", cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  }
  const std::lock_guard<std::mutex> lock(r.mutex);
  if (r.capture.status.empty()) r.capture.status = "InitializeInjection was never called";
  if (!flush_error.empty() && r.capture.ok()) r.capture.status = flush_error;
  // CUPTI's own clock (when it refused steady_clock) is CLOCK_REALTIME: no difference.
  r.capture.realtime_minus_host_clock_ns =
      r.capture.host_clock == hl::kSteadyHostClock ? realtime_now_ns() - steady_now_ns() : 0;
  return r.capture;
}

// The folder for child processes' records: the inherited one, or (the first recorder of the
// tree) a new one, named in the environment the children will inherit.
void find_or_make_children_folder(Recorder& r) {
  const char* inherited = std::getenv(hl::kProfilerChildrenVariable);
  if (inherited != nullptr && *inherited != '\0') {
    r.children = inherited;
    return;
  }
  std::error_code error;
  std::string folder =
      (std::filesystem::temp_directory_path(error) / "hip_lessons_cupti.XXXXXX").string();
  if (error || ::mkdtemp(folder.data()) == nullptr) {
    std::fprintf(stderr, "hip_lessons CUPTI recorder: no folder for child processes' records\n");
    return;
  }
  r.children = folder;
  r.first = true;
  ::setenv(hl::kProfilerChildrenVariable, folder.c_str(), 1);
}

// As the process exits: a child leaves its records for the first recorder (written under
// another name, then renamed, so a reader never sees half a file); the first one removes the
// folder.
void at_exit() {
  Recorder& r = recorder();
  if (r.children.empty()) return;
  std::error_code error;
  if (r.first) {
    std::filesystem::remove_all(r.children, error);
    return;
  }
  const std::string text = hl::profiler_capture_to_json(own_records());
  const auto file = r.children / (std::to_string(::getpid()) + ".json");
  const auto partial = r.children / (std::to_string(::getpid()) + ".partial");
  std::ofstream(partial) << text;
  std::filesystem::rename(partial, file, error);
  if (error) {
    std::fprintf(stderr, "hip_lessons CUPTI recorder: could not leave records in %s: %s\n",
                 r.children.c_str(), error.message().c_str());
  }
}

// \p capture with the records the children left in r.children added (in pid order).
hl::ProfilerCapture with_children(const Recorder& r, hl::ProfilerCapture capture) {
  std::vector<std::pair<std::int64_t, std::filesystem::path>> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(r.children, error)) {
    if (entry.path().extension() != ".json") continue;
    try {
      files.emplace_back(std::stoll(entry.path().stem().string()), entry.path());
    } catch (const std::exception&) {
      continue;  // not a child's file
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& [pid, file] : files) {
    std::ostringstream text;
    text << std::ifstream(file).rdbuf();
    hl::ProfilerCapture child;
    try {
      child = hl::profiler_capture_from_json(text.str());
    } catch (const std::exception& unreadable) {
      child.status = std::string("its records could not be read: ") + unreadable.what();
    }
    hl::add_child_capture(capture, ::getpid(), child, pid);
  }
  return capture;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::once_flag once;  // the driver calls it once per process; be sure
  std::call_once(once, [] {
    uint32_t version = 0;
    if (cuptiGetVersion(&version) != CUPTI_SUCCESS) version = 0;
    const std::string tool = "CUPTI " + std::to_string(version / 10000) + "." +
                             std::to_string(version / 100 % 100) + " (API " +
                             std::to_string(version) + ")";
    // The timestamp source first: CUPTI uses it for records of kinds enabled after it. Where
    // CUPTI refuses it, its own clock stays (CLOCK_REALTIME on Linux, per cupti_activity.h):
    // the comparison still works, only without telling a run from an untraced copy by time.
    const std::string clock_refused =
        failure("cuptiActivityRegisterTimestampCallback",
                cuptiActivityRegisterTimestampCallback(steady_timestamp));
    const std::string clock =
        clock_refused.empty() ? hl::kSteadyHostClock : "CUPTI's default (CLOCK_REALTIME)";
    std::string error = failure("cuptiActivityRegisterCallbacks",
                                cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    if (error.empty()) {
      error = failure("cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)",
                      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    }
    Recorder& r = recorder();
    {
      const std::lock_guard<std::mutex> lock(r.mutex);
      r.capture.tool = tool;
      r.capture.host_clock = clock;
      r.enabled = error.empty();
      r.capture.status = r.enabled ? "ok" : error;
      find_or_make_children_folder(r);
    }
    std::atexit(at_exit);
    const std::string line = error.empty()
                                 ? "recording kernels with " + tool + " on " + clock +
                                       (clock_refused.empty() ? "" : " (" + clock_refused + ")")
                                 : "records nothing: " + error;
    std::fprintf(stderr, "hip_lessons CUPTI recorder: %s\n", line.c_str());
  });
  return 1;  // the lesson runs either way; a failure is in the hand-over's status
}

extern "C" __attribute__((visibility("default"))) const char* hip_lessons_profiled_kernels_json(
    void) {
  // The lesson calls this after its traced runs were synchronized (and its children have
  // exited), so their records are complete.
  hl::ProfilerCapture capture = own_records();
  Recorder& r = recorder();
  const std::lock_guard<std::mutex> lock(r.mutex);
  if (r.first) {
    try {
      // By copy: when adding the children's records fails, this process's are handed over.
      capture = with_children(r, capture);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "hip_lessons CUPTI recorder: child processes' records left out: %s\n",
                   error.what());
    }
  }
  r.handed_over = hl::profiler_capture_to_json(capture);
  return r.handed_over.c_str();
}
