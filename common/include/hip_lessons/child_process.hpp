/// \file child_process.hpp
/// \brief Running this program again as a child process with a changed environment.
///
/// Scheduling variables are read once, when the GPU runtime starts, and the waiting policy
/// can be chosen once per process. So each setting needs a fresh process: the lesson starts
/// itself again (/proc/self/exe) with posix_spawn, gives the child an environment
/// that differs from its own in one variable only (the parent's own environment is never
/// changed), reads what the child prints, and waits for it, with a time limit.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

// What a child reports: its "@result" line (below), and the block traces of its traced runs.
#include "hip_lessons/schedule_lines.hpp"

extern char** environ;

namespace hip_lessons {

/// One difference between the child's environment and the parent's: NAME=VALUE, or NAME
/// removed when \p value is empty (the runtime then uses its default).
struct EnvSetting {
  std::string name;
  std::optional<std::string> value;

  std::string describe() const { return value ? name + "=" + *value : name + " unset"; }
};

/// The path of the running program, from /proc/self/exe.
inline std::string self_executable() { return std::filesystem::read_symlink("/proc/self/exe"); }

/// This process's environment with \p changes applied: every variable named in \p changes is
/// dropped, then the ones with a value are added back with that value.
inline std::vector<std::string> child_environment(const std::vector<EnvSetting>& changes) {
  std::vector<std::string> result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const std::string name = text.substr(0, text.find('='));
    bool changed = false;
    for (const EnvSetting& change : changes) changed = changed || change.name == name;
    if (!changed) result.push_back(text);
  }
  for (const EnvSetting& change : changes) {
    if (change.value) result.push_back(change.name + "=" + *change.value);
  }
  return result;
}

/// How a child ended.
struct Outcome {
  int exit_code = -1;      ///< exit status when it exited normally, else -1
  int signal = 0;          ///< the signal that ended it, else 0
  bool timed_out = false;  ///< it ran past the time limit and was killed
  std::string output;      ///< everything it wrote to stdout and stderr

  /// "exit 0", "exit 77", "killed by signal 11", "timed out (killed)".
  std::string status() const {
    if (timed_out) return "timed out (killed)";
    if (signal != 0) return "killed by signal " + std::to_string(signal);
    return "exit " + std::to_string(exit_code);
  }
};

/// A child process whose stdout and stderr come back through one pipe and, optionally,
/// whose stdin is a pipe from this process. The destructor kills (SIGKILL, by pid) a child
/// that is still running and reaps it, so no child outlives an error in the parent.
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& args, const std::vector<std::string>& environment,
               bool with_stdin) {
    int out_pipe[2] = {-1, -1};
    int in_pipe[2] = {-1, -1};
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) fail("pipe2");
    if (with_stdin && ::pipe2(in_pipe, O_CLOEXEC) != 0) {
      ::close(out_pipe[0]);
      ::close(out_pipe[1]);
      fail("pipe2");
    }
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    // dup2 clears close-on-exec on the copies; the originals close in the child at exec.
    ::posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDERR_FILENO);
    if (with_stdin) ::posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);

    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (const std::string& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);

    const int spawned = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(out_pipe[1]);
    if (with_stdin) ::close(in_pipe[0]);
    if (spawned != 0) {
      ::close(out_pipe[0]);
      if (with_stdin) ::close(in_pipe[1]);
      pid_ = -1;
      throw std::runtime_error("posix_spawn " + args[0] + ": " + std::strerror(spawned));
    }
    out_fd_ = out_pipe[0];
    in_fd_ = with_stdin ? in_pipe[1] : -1;
  }

  ~ChildProcess() {
    if (in_fd_ >= 0) ::close(in_fd_);
    if (out_fd_ >= 0) ::close(out_fd_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// Writes \p line and a newline to the child's stdin. Throws when the child has gone
  /// (the caller must ignore SIGPIPE, as bench.hip does, to get the error instead of a signal).
  void write_line(const std::string& line) {
    const std::string text = line + "\n";
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = ::write(in_fd_, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("write to child");
      written += static_cast<std::size_t>(n);
    }
  }

  /// Next line of the child's output, or nothing at end of output or after \p timeout_s.
  std::optional<std::string> read_line(double timeout_s) {
    const auto deadline = deadline_in(timeout_s);
    for (;;) {
      const auto newline = pending_.find('\n');
      if (newline != std::string::npos) {
        std::string line = pending_.substr(0, newline);
        pending_.erase(0, newline + 1);
        return line;
      }
      if (!read_some(deadline)) return std::nullopt;
    }
  }

  /// Reads the rest of the output until the child closes it or \p timeout_s passes (then
  /// the child is killed), reaps the child and says how it ended.
  Outcome finish(double timeout_s) {
    const auto deadline = deadline_in(timeout_s);
    if (in_fd_ >= 0) ::close(in_fd_);  // a child that reads commands finishes at end of input
    in_fd_ = -1;
    Outcome outcome;
    while (read_some(deadline)) {
    }
    if (!eof_) {
      outcome.timed_out = true;
      ::kill(pid_, SIGKILL);
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status) && !outcome.timed_out) outcome.signal = WTERMSIG(status);
    outcome.output = std::move(pending_);
    return outcome;
  }

 private:
  [[noreturn]] static void fail(const char* what) {
    throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
  }
  static std::chrono::steady_clock::time_point deadline_in(double seconds) {
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(seconds));
  }

  // Appends what the child wrote; false at end of output or at the deadline.
  bool read_some(std::chrono::steady_clock::time_point deadline) {
    if (eof_) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd request{out_fd_, POLLIN, 0};
    const int ready = ::poll(&request, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) return true;
    if (ready <= 0) return false;
    char buffer[4096];
    const ssize_t n = ::read(out_fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    pending_.append(buffer, static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int in_fd_ = -1;
  bool eof_ = false;
  std::string pending_;
};

/// The prefix of the one machine-readable line a measuring child prints.
inline constexpr const char* kResultPrefix = "@result ";

/// The key=value pairs of the first "@result ..." line in \p output (empty when none).
inline std::map<std::string, std::string> parse_result(const std::string& output) {
  std::map<std::string, std::string> values;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(kResultPrefix, 0) != 0) continue;
    std::istringstream tokens(line.substr(std::strlen(kResultPrefix)));
    for (std::string token; tokens >> token;) {
      const auto equals = token.find('=');
      if (equals != std::string::npos) values[token.substr(0, equals)] = token.substr(equals + 1);
    }
    break;
  }
  return values;
}

/// A finished child run of this program: how it ended and what it measured.
struct ChildRun {
  Outcome outcome;
  std::map<std::string, std::string> values;

  /// The value of \p key as a number; NaN when the child did not report it.
  double number(const std::string& key) const {
    const std::string value = text(key, "");
    char* end = nullptr;
    const double parsed = std::strtod(value.c_str(), &end);
    return end == value.c_str() ? std::nan("") : parsed;
  }
  std::string text(const std::string& key, const std::string& missing = "-") const {
    const auto found = values.find(key);
    return found == values.end() ? missing : found->second;
  }
  /// The child ran, passed its own checks and reported a result.
  bool succeeded() const { return outcome.exit_code == 0 && text("correct") == "1"; }
  /// The child reported that the setting does not exist on this platform (exit 77).
  bool not_applicable() const { return outcome.exit_code == 77; }
  /// The last few lines the child printed, for a failure message.
  std::string tail(std::size_t lines = 4) const {
    std::vector<std::string> all;
    std::istringstream in(outcome.output);
    for (std::string line; std::getline(in, line);) all.push_back(line);
    std::string text_out;
    for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
      text_out += (text_out.empty() ? "" : " | ") + all[i];
    }
    return text_out;
  }
};

/// Runs this program again with \p args (after the program path) in an environment that
/// differs from this process's by \p changes; waits at most \p timeout_s.
inline ChildRun run_self(const std::vector<std::string>& args,
                         const std::vector<EnvSetting>& changes, double timeout_s) {
  std::vector<std::string> argv = {self_executable()};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess child(argv, child_environment(changes), false);
  ChildRun run;
  run.outcome = child.finish(timeout_s);
  run.values = parse_result(run.outcome.output);
  return run;
}

}  // namespace hip_lessons
