/// \file schedule_lines.hpp
/// \brief Sending traced runs from a child process to its parent as lines of text.
///
/// A lesson that measures in child processes (each with its own environment, or each a tenant
/// of the GPU) traces its kernels there, but draws and checks the schedule in the parent. The
/// child prints schedule_lines() for each traced run among its other output; the parent hands
/// everything the child printed to read_schedule_lines(), which picks those lines out:
///
///     @schedule <run> <device clock at time 0, ns> <host_read_ns> <blocks>
///     @block <run> <launch> <stream> <block> <unit> <start_ns> <end_ns> <kernel>
///
/// A block's start and end are whole nanoseconds of the device clock (block_trace.hpp), the
/// clock every process on the GPU reads, so runs from two processes can be set side by side;
/// the run's origin and the moment the child read its records back travel with it, so the
/// parent rebuilds the Schedule the child had (and a profiler's records of the child's kernels
/// can still be laid beside it). A run with no known origin sends "-" and times from its time
/// 0. The kernel's name is the rest of the line.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hip_lessons/schedule.hpp"

namespace hip_lessons {

/// The lines that carry \p schedule as the run named \p run: one "@schedule" line, then one
/// "@block" line per block. Throws std::invalid_argument for a run name that is empty or holds
/// a blank, or a kernel name that starts with a blank or holds a line break (neither would
/// come back as it was sent).
std::vector<std::string> schedule_lines(const std::string& run, const Schedule& schedule);

/// The runs sent in \p text by schedule_lines(), by run name; other lines are ignored. Throws
/// std::runtime_error quoting the first malformed "@schedule" or "@block" line, naming a run
/// sent twice, a block of a run whose "@schedule" line is missing, or a run whose block count
/// is not the one announced (a child that died while printing).
std::map<std::string, Schedule> read_schedule_lines(const std::string& text);

}  // namespace hip_lessons
