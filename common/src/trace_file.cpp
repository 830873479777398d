#include "hip_lessons/trace_file.hpp"

#include "output_file.hpp"

namespace hip_lessons {

void TraceFile::keep(std::string run, Schedule schedule) {
  runs_.emplace_back(std::move(run), std::move(schedule));
}

void TraceFile::write(const std::string& path) const {
  write_output_file(path, chrome_trace_json(runs_));
}

}  // namespace hip_lessons
