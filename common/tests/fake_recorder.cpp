// A stand-in for the CUPTI recorder in the host unit tests: a library that hands over one
// fixed kernel record the way common/profiler/cupti_recorder.cpp hands over CUPTI's
// (profiled_kernels.hpp), so the lesson's side of the hand-over is tested without a GPU.
extern "C" __attribute__((visibility("default"))) const char* hip_lessons_profiled_kernels_json(
    void) {
  return R"({"tool": "fake recorder", "host_clock": "steady_clock", "status": "ok",
             "realtime_minus_host_clock_ns": null, "dropped_records": 0,
             "incomplete_records": 0,
             "kernels": [{"name": "k", "start_ns": 6999700, "end_ns": 7020450, "stream": 7,
                          "device": 0, "context": 1, "correlation": 3, "grid": [1, 1, 1],
                          "block": [64, 1, 1], "graph": 0}]})";
}
