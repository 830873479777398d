/// \file common/src/output_file.hpp
/// \brief Writing a user's output file (--json, --trace) without clobbering what the path is.
///
/// An output path is the user's data. A new path or a regular file is replaced atomically (a
/// temporary file beside it, renamed into place, keeping the old file's permissions); a path
/// that is something else (a symlink: its target; a FIFO or a device such as /dev/stdout) is
/// written in place, so the link stays a link and a reader of the FIFO gets the data; "-" is
/// standard output. A write that fails throws with the path and the reason and leaves no
/// partial file behind.
#pragma once

#include <string>

namespace hip_lessons {

/// Checks before any GPU work that \p path can take the output of \p flag. Throws UsageError
/// when it is a directory, when its directory does not exist or is not writable, when an
/// existing file is not writable, or when no temporary file can be made beside a regular file
/// or a new path (a directory such as /proc, which refuses new files even to root; the probe
/// file is removed at once). "-" (standard output) is always accepted.
void check_output_path(const std::string& flag, const std::string& path);

/// Whether \p a and \p b name one file: the same text, the same existing file (through a
/// link, "./", ".."), or a new name in the same directory. Empty and "-" name no file.
bool same_output_file(const std::string& a, const std::string& b);

/// Writes \p content to \p path under the rules above. Throws std::runtime_error naming the
/// path and the system's reason ("No space left on device", "File too large") on failure.
void write_output_file(const std::string& path, const std::string& content);

}  // namespace hip_lessons
