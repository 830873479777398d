/// \file lessons/08_sharing_a_gpu/mps_daemon.hpp
/// \brief NVIDIA's MPS control daemon, started and stopped by this lesson, and only when asked.
///
/// MPS (Multi-Process Service) lets the kernels of several CUDA processes run side by side on
/// one GPU: the control daemon starts one MPS server, which owns the GPU's context and takes the
/// work of every client process (NVIDIA's "Multi-Process Service" guide). A process becomes a
/// client when CUDA finds the daemon through CUDA_MPS_PIPE_DIRECTORY (default /tmp/nvidia-mps).
/// This lesson gives its daemon private pipe and log folders, so only the children it points
/// there become clients, and stops it on every way out: at the end, after a failed check or an
/// exception (the destructor), and on SIGINT or SIGTERM (a handler sends "quit" itself). It never
/// touches a daemon it did not start: one that is already running makes the MPS settings a skip
/// that says where it is. Host code only; unit-tested with a stand-in control program.
#pragma once

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hip_lessons/child_process.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/platform.hpp"

namespace sharing {

namespace hl = hip_lessons;

/// A process of MPS (control daemon or server) found running, and the pipe folder it serves.
struct MpsProcess {
  int pid = 0;
  std::string command;         ///< its command line, e.g. "nvidia-cuda-mps-control -d"
  std::string pipe_directory;  ///< CUDA_MPS_PIPE_DIRECTORY in its environment, or the default
};

/// The MPS processes under \p proc_root (a /proc tree): every process whose name starts with
/// "nvidia-cuda-mps" (the kernel keeps 15 characters of a name) and that has not ended (zombies
/// are left out). A process whose environment cannot be read (another user's, without root)
/// gets the default pipe folder "/tmp/nvidia-mps".
inline std::vector<MpsProcess> running_mps_processes(const std::string& proc_root = "/proc") {
  std::vector<MpsProcess> found;
  DIR* dir = ::opendir(proc_root.c_str());
  if (dir == nullptr) return found;
  for (dirent* entry; (entry = ::readdir(dir)) != nullptr;) {
    const std::string pid = entry->d_name;
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto read = [&](const char* file) {
      std::ifstream in(proc_root + "/" + pid + "/" + file, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    };
    if (read("comm").rfind("nvidia-cuda-mps", 0) != 0) continue;
    // "<pid> (<name>) <state> ...": one that has ended but not been reaped (Z, X) runs nothing.
    const std::string stat = read("stat");
    const std::size_t end = stat.rfind(')');
    if (end != std::string::npos && stat.find_first_of("ZX", end + 2) == end + 2) continue;
    MpsProcess p{std::stoi(pid), read("cmdline"), "/tmp/nvidia-mps"};
    for (char& c : p.command) c = c == '\0' ? ' ' : c;
    while (!p.command.empty() && p.command.back() == ' ') p.command.pop_back();
    std::istringstream environment(read("environ"));
    for (std::string variable; std::getline(environment, variable, '\0');) {
      if (variable.rfind("CUDA_MPS_PIPE_DIRECTORY=", 0) == 0)
        p.pipe_directory = variable.substr(24);
    }
    found.push_back(p);
  }
  ::closedir(dir);
  return found;
}

/// The control program: nvidia-cuda-mps-control from PATH; empty when there is none.
inline std::string mps_control_program() {
  const char* path = std::getenv("PATH");
  std::istringstream folders(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string folder; std::getline(folders, folder, ':');) {
    const std::string candidate = folder + "/nvidia-cuda-mps-control";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

namespace detail {
// What the signal handler needs, prepared before it can run (async-signal-safe code cannot
// allocate): the control program, which a shell sends "quit", and its environment.
inline std::string g_control, g_pipe_variable, g_log_variable;
inline volatile sig_atomic_t g_running = 0;

// Pipes "quit" into g_control (the shell's $0, so no path needs quoting), with only
// async-signal-safe calls, then ends as \p signal would.
inline void on_signal(int signal) {
  const pid_t pid = g_running ? ::fork() : -1;
  if (pid == 0) {
    char sh[] = "/bin/sh", c[] = "-c", quit[] = "echo quit | \"$0\"";
    char* argv[] = {sh, c, quit, g_control.data(), nullptr};
    char* envp[] = {g_pipe_variable.data(), g_log_variable.data(), nullptr};
    ::execve(sh, argv, envp);
    ::_exit(127);
  }
  if (pid > 0) ::waitpid(pid, nullptr, 0);
  g_running = 0;
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}
}  // namespace detail

/// An MPS control daemon this process started, with private pipe and log folders. The
/// destructor (and SIGINT/SIGTERM) stops it.
class MpsDaemon {
 public:
  /// Starts the daemon, or says why MPS cannot be used here: no control program, not root
  /// (the daemon and its server run as root on a shared GPU, and the lesson's clients must
  /// match), or an MPS process already running that this lesson did not start.
  static std::optional<std::string> why_not(bool is_root, const std::string& control,
                                            const std::vector<MpsProcess>& running) {
    if (control.empty())
      return "nvidia-cuda-mps-control is not on PATH (install the driver's utilities)";
    if (!is_root) return "MPS needs root here (the control daemon runs as root)";
    if (!running.empty()) {
      return hl::format(
          "an MPS daemon this lesson did not start is running (pid {}: {}, pipe folder "
          "{}); it is left alone",
          running[0].pid, running[0].command, running[0].pipe_directory);
    }
    return std::nullopt;
  }

  /// Starts `control -d` with its pipe and log folders in a new folder under \p parent, waits
  /// until its control pipe exists, and arms the signal handlers. Throws std::runtime_error
  /// when the daemon does not come up (after trying to stop it).
  explicit MpsDaemon(const std::string& control, const std::string& parent = "/tmp")
      : control_(control) {
    std::string folder = parent + "/hip_lessons_mps_XXXXXX";
    if (::mkdtemp(folder.data()) == nullptr) {
      throw std::runtime_error("cannot make a folder for MPS under " + parent);
    }
    pipe_ = folder + "/pipe";
    log_ = folder + "/log";
    ::mkdir(pipe_.c_str(), 0700);
    ::mkdir(log_.c_str(), 0700);
    detail::g_control = control_;
    detail::g_pipe_variable = "CUDA_MPS_PIPE_DIRECTORY=" + pipe_;
    detail::g_log_variable = "CUDA_MPS_LOG_DIRECTORY=" + log_;
    detail::g_running = 1;
    ::signal(SIGINT, detail::on_signal);
    ::signal(SIGTERM, detail::on_signal);
    // The daemon keeps running after `control -d` returns: its standard streams go to
    // /dev/null, not to a pipe this process would wait on.
    const auto quoted = [](const std::string& text) {  // one word for /bin/sh, whatever it holds
      std::string word = "'";
      for (const char c : text) word += c == '\'' ? std::string("'\\''") : std::string(1, c);
      return word + "'";
    };
    const int started = std::system(
        hl::format("CUDA_MPS_PIPE_DIRECTORY={} CUDA_MPS_LOG_DIRECTORY={} {} -d </dev/null "
                   ">/dev/null 2>&1",
                   quoted(pipe_), quoted(log_), quoted(control_))
            .c_str());
    for (int tries = 0; tries < 100 && !up(); ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (started != 0 || !up()) {
      stop();
      throw std::runtime_error(
          hl::format("the MPS control daemon did not start (`{} -d` returned {}; its log: {})",
                     control_, started, log_));
    }
  }
  ~MpsDaemon() { stop(); }
  MpsDaemon(const MpsDaemon&) = delete;
  MpsDaemon& operator=(const MpsDaemon&) = delete;

  /// What a child needs in its environment to become a client of this daemon.
  std::vector<hl::EnvSetting> client_environment() const {
    return {{"CUDA_MPS_PIPE_DIRECTORY", pipe_}, {"CUDA_MPS_LOG_DIRECTORY", log_}};
  }
  const std::string& pipe_directory() const { return pipe_; }

  /// Whether an MPS server served this daemon's clients: the daemon's answer to
  /// get_server_list names one, or the server wrote its log (server.log) in the log folder,
  /// which stays when the server has already ended. \p seen says which.
  bool served_clients(std::string& seen) const {
    std::string servers = command("get_server_list").output;
    servers.erase(servers.find_last_not_of(" \t\r\n") + 1);  // all of it when only spaces
    std::ifstream log(log_ + "/server.log");
    const bool logged = log && log.peek() != std::ifstream::traits_type::eof();
    seen = hl::format("get_server_list: '{}'; {}/server.log {}", servers, log_,
                      logged ? "written" : "absent");
    return logged || servers.find_first_of("0123456789") != std::string::npos;
  }

  /// Sends quit and waits (at most 10 s) until the daemon and its servers have ended: no process
  /// serves this pipe folder, and no server the daemon listed (get_server_list) runs. On the
  /// H200 a server outlived its daemon by over a second, and its environment need not name the
  /// pipe folder.
  void stop() {
    if (!detail::g_running) return;
    std::istringstream listed(command("get_server_list").output);
    std::vector<int> servers;  // their pids
    for (int pid = 0; listed >> pid;) servers.push_back(pid);
    (void)command("quit");
    for (int tries = 0; tries < 200 && serving(servers); ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    detail::g_running = 0;
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
  }

 private:
  // The daemon made its control pipe in the pipe folder, or runs with it.
  bool up() const { return ::access((pipe_ + "/control").c_str(), F_OK) == 0 || serving(); }
  // Some MPS process still serves this pipe folder, or is one of the \p servers.
  bool serving(const std::vector<int>& servers = {}) const {
    for (const MpsProcess& p : running_mps_processes()) {
      if (p.pipe_directory == pipe_ || std::count(servers.begin(), servers.end(), p.pid)) {
        return true;
      }
    }
    return false;
  }
  // The control program's answer to \p line on its standard input.
  hl::Outcome command(const std::string& line) const {
    hl::ChildProcess child({control_}, hl::child_environment(client_environment()), true);
    child.write_line(line);
    return child.finish(30.0);
  }

  std::string control_, pipe_, log_;
};

/// Why the MPS settings cannot run here, or nothing: AMD has no MPS; on NVIDIA MPS runs only
/// when \p asked (--mps) and MpsDaemon::why_not() finds nothing in the way.
inline std::optional<std::string> why_no_mps(hl::Platform platform, bool asked) {
  if (platform != hl::Platform::kNvidia) {
    return "AMD has no MPS: several processes share the GPU's queues";
  }
  if (!asked) return "MPS was not asked for (--mps starts a daemon of the lesson's own)";
  return MpsDaemon::why_not(::geteuid() == 0, mps_control_program(), running_mps_processes());
}

}  // namespace sharing
