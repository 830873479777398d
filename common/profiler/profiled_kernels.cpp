#include "profiled_kernels.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace hip_lessons {

std::uint64_t ProfiledKernel::blocks() const {
  return std::uint64_t{grid[0]} * std::uint64_t{grid[1]} * std::uint64_t{grid[2]};
}

namespace {

template <class T>
T required(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) {
    throw std::runtime_error(where + " has no \"" + key + "\"");
  }
  try {
    return object.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(where + ": \"" + key + "\" is " + object.at(key).dump() +
                             ", not the expected type");
  }
}

std::array<std::uint32_t, 3> dimensions(const nlohmann::json& kernel, const char* key,
                                        const std::string& where) {
  const auto values = required<std::vector<std::uint32_t>>(kernel, key, where);
  if (values.size() != 3) throw std::runtime_error(where + ": \"" + key + "\" needs 3 numbers");
  return {values[0], values[1], values[2]};
}

}  // namespace

ProfilerCapture profiler_capture_from_json(const std::string& text) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("profiler records are not JSON: ") + error.what());
  }
  const std::string where = "profiler records";
  ProfilerCapture capture;
  capture.tool = required<std::string>(document, "tool", where);
  capture.host_clock = required<std::string>(document, "host_clock", where);
  capture.status = required<std::string>(document, "status", where);
  if (document.contains("realtime_minus_host_clock_ns") &&
      !document["realtime_minus_host_clock_ns"].is_null()) {
    capture.realtime_minus_host_clock_ns =
        required<std::int64_t>(document, "realtime_minus_host_clock_ns", where);
  }
  capture.dropped_records = required<std::uint64_t>(document, "dropped_records", where);
  capture.incomplete_records = required<std::uint64_t>(document, "incomplete_records", where);
  const auto& kernels = document.contains("kernels") ? document["kernels"] : nlohmann::json();
  if (!kernels.is_array()) throw std::runtime_error(where + " has no \"kernels\" list");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::string at = where + " kernels[" + std::to_string(i) + "]";
    const nlohmann::json& k = kernels[i];
    ProfiledKernel kernel;
    kernel.name = required<std::string>(k, "name", at);
    kernel.start_ns = required<std::int64_t>(k, "start_ns", at);
    kernel.end_ns = required<std::int64_t>(k, "end_ns", at);
    kernel.stream = required<std::uint32_t>(k, "stream", at);
    kernel.device = required<std::uint32_t>(k, "device", at);
    kernel.context = required<std::uint32_t>(k, "context", at);
    kernel.correlation = required<std::uint32_t>(k, "correlation", at);
    kernel.grid = dimensions(k, "grid", at);
    kernel.block = dimensions(k, "block", at);
    kernel.graph = required<std::uint32_t>(k, "graph", at);
    if (k.contains("process")) kernel.process = required<std::uint32_t>(k, "process", at);
    if (kernel.end_ns < kernel.start_ns) throw std::runtime_error(at + " ends before it starts");
    capture.kernels.push_back(std::move(kernel));
  }
  const auto& processes =
      document.contains("processes") ? document["processes"] : nlohmann::json::array();
  if (!processes.is_array()) throw std::runtime_error(where + ": \"processes\" is not a list");
  for (std::size_t i = 0; i < processes.size(); ++i) {
    const std::string at = where + " processes[" + std::to_string(i) + "]";
    capture.processes.push_back({required<std::int64_t>(processes[i], "pid", at),
                                 required<std::string>(processes[i], "status", at),
                                 required<std::size_t>(processes[i], "kernels", at)});
  }
  for (const ProfiledKernel& k : capture.kernels) {
    if (k.process != 0 && k.process >= capture.processes.size()) {
      throw std::runtime_error(where + ": a kernel of process " + std::to_string(k.process) +
                               ", which \"processes\" does not list");
    }
  }
  return capture;
}

void add_child_capture(ProfilerCapture& into, std::int64_t own_pid, const ProfilerCapture& child,
                       std::int64_t pid) {
  if (into.processes.empty()) into.processes.push_back({own_pid, into.status, into.kernels.size()});
  ProfiledProcess process{pid, child.status, 0};
  if (child.ok() && child.host_clock != into.host_clock) {
    process.status = "its records are on " + child.host_clock + ", not " + into.host_clock;
  }
  const auto index = static_cast<std::uint32_t>(into.processes.size());
  if (process.status == "ok") {
    std::uint32_t above = 0;
    for (const ProfiledKernel& k : into.kernels) above = std::max(above, k.correlation);
    for (ProfiledKernel k : child.kernels) {
      k.process = index;
      k.correlation += above;
      into.kernels.push_back(std::move(k));
    }
    process.kernels = child.kernels.size();
    into.dropped_records += child.dropped_records;
    into.incomplete_records += child.incomplete_records;
  }
  into.processes.push_back(std::move(process));
}

std::string profiler_capture_to_json(const ProfilerCapture& capture) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const ProfiledKernel& k : capture.kernels) {
    kernels.push_back({{"name", k.name},
                       {"start_ns", k.start_ns},
                       {"end_ns", k.end_ns},
                       {"stream", k.stream},
                       {"device", k.device},
                       {"context", k.context},
                       {"correlation", k.correlation},
                       {"grid", k.grid},
                       {"block", k.block},
                       {"graph", k.graph},
                       {"process", k.process}});
  }
  nlohmann::ordered_json document = {{"tool", capture.tool},
                                     {"host_clock", capture.host_clock},
                                     {"status", capture.status},
                                     {"realtime_minus_host_clock_ns", nullptr},
                                     {"dropped_records", capture.dropped_records},
                                     {"incomplete_records", capture.incomplete_records},
                                     {"kernels", std::move(kernels)}};
  if (capture.realtime_minus_host_clock_ns) {
    document["realtime_minus_host_clock_ns"] = *capture.realtime_minus_host_clock_ns;
  }
  if (!capture.processes.empty()) {
    nlohmann::ordered_json processes = nlohmann::ordered_json::array();
    for (const ProfiledProcess& p : capture.processes) {
      processes.push_back({{"pid", p.pid}, {"status", p.status}, {"kernels", p.kernels}});
    }
    document["processes"] = std::move(processes);
  }
  // Kernel names come from the program's symbols: replace bytes that are not UTF-8 rather
  // than fail the whole hand-over.
  return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// The fields of one CSV line: commas separate, double quotes enclose a field that may hold
// commas, and a doubled quote inside one is a quote (RFC 4180; rocprofv3 quotes its text).
std::vector<std::string> csv_fields(const std::string& line, const std::string& where) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  if (quoted) throw std::runtime_error(where + ": a quoted field is not closed");
  return fields;
}

std::int64_t csv_integer(const std::string& text, const std::string& where) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) {
    throw std::runtime_error(where + ": '" + text + "' is not an integer");
  }
  return value;
}

}  // namespace

ProfilerCapture profiler_capture_from_rocprofv3_csv(const std::string& csv) {
  std::istringstream lines(csv);
  std::string line;
  if (!std::getline(lines, line)) throw std::runtime_error("the kernel trace CSV is empty");
  const std::vector<std::string> header = csv_fields(line, "the CSV header");
  const auto column = [&](const char* name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    return std::nullopt;
  };
  const auto required_column = [&](const char* name) {
    const auto index = column(name);
    if (!index) {
      throw std::runtime_error(std::string("the kernel trace CSV has no column ") + name +
                               " (rocprofv3 --kernel-trace --output-format csv writes it)");
    }
    return *index;
  };
  const std::size_t start = required_column("Start_Timestamp");
  const std::size_t end = required_column("End_Timestamp");
  const std::size_t correlation = required_column("Correlation_Id");
  const std::size_t name = required_column("Kernel_Name");
  const std::size_t queue = required_column("Queue_Id");
  const std::optional<std::size_t> stream = column("Stream_Id");
  const std::size_t grid[3] = {required_column("Grid_Size_X"), required_column("Grid_Size_Y"),
                               required_column("Grid_Size_Z")};
  const std::size_t group[3] = {required_column("Workgroup_Size_X"),
                                required_column("Workgroup_Size_Y"),
                                required_column("Workgroup_Size_Z")};
  ProfilerCapture capture;
  capture.tool = "rocprofv3 kernel trace (kernel_trace.csv)";
  capture.host_clock = "CLOCK_BOOTTIME";
  capture.status = "ok";
  for (int row = 2; std::getline(lines, line); ++row) {
    if (line.empty() || line == "\r") continue;
    const std::string where = "kernel trace CSV line " + std::to_string(row);
    const std::vector<std::string> fields = csv_fields(line, where);
    if (fields.size() != header.size()) {
      throw std::runtime_error(where + ": " + std::to_string(fields.size()) + " fields for " +
                               std::to_string(header.size()) + " columns");
    }
    ProfiledKernel k;
    k.name = fields[name];
    k.start_ns = csv_integer(fields[start], where);
    k.end_ns = csv_integer(fields[end], where);
    if (k.end_ns < k.start_ns) throw std::runtime_error(where + ": ends before it starts");
    k.correlation = static_cast<std::uint32_t>(csv_integer(fields[correlation], where));
    const std::int64_t stream_id = stream ? csv_integer(fields[*stream], where) : 0;
    k.stream =
        static_cast<std::uint32_t>(stream_id != 0 ? stream_id : csv_integer(fields[queue], where));
    for (int d = 0; d < 3; ++d) {
      const std::int64_t items = csv_integer(fields[grid[d]], where);
      const std::int64_t size = csv_integer(fields[group[d]], where);
      if (items < 0 || size <= 0) throw std::runtime_error(where + ": a grid or workgroup of 0");
      k.block[d] = static_cast<std::uint32_t>(size);
      k.grid[d] = static_cast<std::uint32_t>((items + size - 1) / size);
    }
    capture.kernels.push_back(std::move(k));
  }
  return capture;
}

std::optional<ProfilerCapture> profiler_capture_in_this_process() {
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (path == nullptr || *path == '\0') return std::nullopt;
  // RTLD_NOLOAD: only a library the driver already loaded; never load one here.
  void* library = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr) return std::nullopt;
  using Handoff = const char* (*)();
  const auto handoff = reinterpret_cast<Handoff>(dlsym(library, kProfilerHandoffSymbol));
  std::optional<ProfilerCapture> capture;
  if (handoff != nullptr) {
    const char* text = handoff();
    try {
      capture = profiler_capture_from_json(text != nullptr ? text : "");
    } catch (const std::exception& error) {
      capture = ProfilerCapture{};
      capture->tool = path;
      capture->status = std::string("the recorder's records could not be read: ") + error.what();
    }
  }
  dlclose(library);  // balances the reference RTLD_NOLOAD took; the driver's stays
  return capture;
}

}  // namespace hip_lessons
