// Prints, for each AMD target on the command line, what a block trace reads there
// (amd_trace_reads.hpp): HipLessonsAmdTargets.cmake runs it at configure time, so configure says
// per target what traces can show from the same table the device code reads.
#include <cstdio>

#include "hip_lessons/amd_trace_reads.hpp"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const auto reads = hip_lessons::amd::trace_reads(argv[i]);
    std::printf(
        "%s traces: %s\n", argv[i],
        reads ? hip_lessons::amd::describe(*reads).c_str() : "no row in amd_trace_reads.hpp");
  }
  return 0;
}
