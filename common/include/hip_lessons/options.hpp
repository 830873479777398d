/// \file options.hpp
/// \brief What a lesson run was asked for (mode, size, repeats, device, output files), as plain
/// values: what timing and device code read, without the command-line parser (cli.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hip_lessons {

/// What a run of a lesson is for. The same lesson functions run in every mode; the mode
/// chooses the sizes and whether timing runs.
enum class Mode {
  kTour,        ///< the default: the story at --size, checked and timed, thresholds shown
  kCheck,       ///< --check: correctness only, at the sizes that catch indexing bugs; no timing
  kSpeedCheck,  ///< --speed-check: checked and timed, every declared speed check enforced
};

/// What a lesson's --block accepts: any thread count, or whole warps (wavefronts) only.
enum class BlockRule { kAnySize, kWholeWarps };

/// The flags shared by every lesson.
struct CommonOptions {
  std::int64_t size = 0;    ///< --size: problem size in elements (each lesson says which)
  int repeat = 20;          ///< --repeat: timed repetitions per measurement
  std::uint64_t seed = 0;   ///< --seed: random-input seed (default: drawn, and printed)
  int device = 0;           ///< --device: GPU index
  std::string json_path;    ///< --json: write the report here
  std::string trace_path;   ///< --trace: write the block trace here (lessons that trace)
  Mode mode = Mode::kTour;  ///< which of the three runs this is: --check, --speed-check or not

  /// Whether this run measures time (the tour and --speed-check; not --check).
  bool timed() const { return mode != Mode::kCheck; }
};

/// The values a lesson runs a step at in \p options' mode: \p timed alone in the tour and
/// under --speed-check, \p checked under --check (the sizes or shapes that catch indexing
/// bugs). A lesson declares its --check sizes once, here:
///
///     for (std::size_t n : hl::per_mode<std::size_t>(options, options.size, {1, 255, 257}))
template <class T>
std::vector<T> per_mode(const CommonOptions& options, T timed, std::vector<T> checked) {
  if (options.mode == Mode::kCheck) return checked;
  return {std::move(timed)};
}

}  // namespace hip_lessons
