// The MPS daemon's handling, with a stand-in control program (no GPU, no NVIDIA driver): the
// lesson starts its own daemon with private folders, stops it at the end and on SIGTERM, and
// leaves a daemon it did not start alone.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "mps_daemon.hpp"

namespace {

// A stand-in for nvidia-cuda-mps-control: `-d` starts a "daemon" and a "server" (copies of
// sleep named like MPS's processes, so /proc shows them as nvidia-cuda-mps; the server without
// the pipe folder in its environment) and makes the control pipe; "get_server_list" answers the
// server's pid; "quit" stops the daemon at once and the server a second later, as the H200's
// did.
class StandInControl : public testing::Test {
 protected:
  void SetUp() override {
    // A quote and a blank in the path: the signal handler must pass it to its shell whole.
    std::string pattern = testing::TempDir() + "mps test's_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    control_ = dir_ + "/control";
    std::ofstream script(control_);
    // Each background process is waited for until it has become the copy of sleep (until its
    // exec, /proc names it after the shell), as the real daemon and server have by the time a
    // client can ask for them.
    script
        << "#!/bin/sh\n"
           "pipe=$CUDA_MPS_PIPE_DIRECTORY\n"
           "started() {\n"
           "  for _ in $(seq 500); do\n"
           "    [ \"$(cat /proc/$1/comm 2>/dev/null)\" = nvidia-cuda-mps ] && return; sleep 0.01\n"
           "  done\n"
           "}\n"
           "if [ \"$1\" = -d ]; then\n"
           "  cp /bin/sleep \"$pipe/nvidia-cuda-mps-control\"\n"
           "  \"$pipe/nvidia-cuda-mps-control\" 120 </dev/null >/dev/null 2>&1 &\n"
           "  echo $! > \"$pipe/pid\"; started $!\n"
           "  cp /bin/sleep \"$pipe/nvidia-cuda-mps-server\"\n"
           "  env -u CUDA_MPS_PIPE_DIRECTORY \"$pipe/nvidia-cuda-mps-server\" 120 \\\n"
           "    </dev/null >/dev/null 2>&1 &\n"
           "  echo $! > \"$pipe/server\"; started $!; touch \"$pipe/control\"; exit 0\n"
           "fi\n"
           "read command\n"
           "case $command in\n"
           "  quit) kill \"$(cat \"$pipe/pid\")\"; rm -f \"$pipe/control\"\n"
           "        (sleep 1; kill \"$(cat \"$pipe/server\")\") </dev/null >/dev/null 2>&1 & ;;\n"
           "  get_server_list) cat \"$pipe/server\" ;;\n"
           "esac\n";
    script.close();
    ::chmod(control_.c_str(), 0755);
  }
  void TearDown() override {
    std::error_code failed;
    std::filesystem::remove_all(dir_, failed);
    EXPECT_FALSE(failed) << "removing " << dir_ << ": " << failed.message();
  }

  static bool serving(const std::string& pipe) {
    for (const sharing::MpsProcess& p : sharing::running_mps_processes()) {
      if (p.pipe_directory == pipe) return true;
    }
    return false;
  }

  static bool running(int pid) {
    for (const sharing::MpsProcess& p : sharing::running_mps_processes()) {
      if (p.pid == pid) return true;
    }
    return false;
  }

  std::string dir_, control_;
};

}  // namespace

TEST_F(StandInControl, StartsWithPrivateFoldersAndStopsAtTheEnd) {
  std::string pipe;
  int server = 0;
  {
    sharing::MpsDaemon daemon(control_, dir_);
    pipe = daemon.pipe_directory();
    EXPECT_EQ(pipe.rfind(dir_ + "/hip_lessons_mps_", 0), 0u) << pipe;
    EXPECT_TRUE(serving(pipe));
    std::ifstream(pipe + "/server") >> server;
    ASSERT_TRUE(running(server)) << "the stand-in's server did not start";
    std::string seen;
    EXPECT_TRUE(daemon.served_clients(seen));
    EXPECT_NE(seen.find(std::to_string(server)), std::string::npos) << seen;
    const auto env = daemon.client_environment();
    ASSERT_EQ(env.size(), 2u);
    EXPECT_EQ(env[0].name, "CUDA_MPS_PIPE_DIRECTORY");
    EXPECT_EQ(*env[0].value, pipe);
  }
  EXPECT_FALSE(serving(pipe));
  EXPECT_FALSE(running(server)) << "the daemon's server outlived the lesson's stop()";
}

TEST_F(StandInControl, SigtermStopsTheDaemonBeforeTheProcessEnds) {
  const std::string marker = dir_ + "/pipe_of_child";
  // The death test waits until every copy of its pipe has closed, the stand-in's sleeps too.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EXIT(
      {
        sharing::MpsDaemon daemon(control_, dir_);
        std::ofstream(marker) << daemon.pipe_directory();
        ::raise(SIGTERM);
        std::exit(0);  // not reached: the handler stops the daemon, then the signal ends us
      },
      testing::KilledBySignal(SIGTERM), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30))
      << "the daemon ran on after SIGTERM until the stand-in's sleep (120 s) ended";
  std::ifstream in(marker);
  std::string pipe;
  std::getline(in, pipe);
  ASSERT_FALSE(pipe.empty());
  EXPECT_FALSE(serving(pipe)) << "the daemon of a SIGTERM-ed lesson is still running";
}

TEST_F(StandInControl, ADaemonItDidNotStartIsReportedAndLeftAlone) {
  sharing::MpsDaemon other(control_, dir_);  // started by someone else, as far as a run knows
  std::vector<sharing::MpsProcess> running;  // ctest may run other tests' stand-ins beside it
  for (const sharing::MpsProcess& p : sharing::running_mps_processes()) {
    if (p.pipe_directory == other.pipe_directory()) running.push_back(p);
  }
  ASSERT_FALSE(running.empty());
  const auto why = sharing::MpsDaemon::why_not(true, control_, running);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("did not start"), std::string::npos) << *why;
  EXPECT_NE(why->find(other.pipe_directory()), std::string::npos) << *why;
  EXPECT_TRUE(serving(other.pipe_directory()));
}

TEST(MpsAvailability, NoControlProgramOrNotRootIsAReason) {
  EXPECT_TRUE(sharing::MpsDaemon::why_not(true, "", {}).has_value());
  EXPECT_TRUE(sharing::MpsDaemon::why_not(false, "/usr/bin/nvidia-cuda-mps-control", {}));
  EXPECT_FALSE(sharing::MpsDaemon::why_not(true, "/usr/bin/nvidia-cuda-mps-control", {}));
}

TEST(MpsProcesses, FindsMpsByNameAndReadsItsPipeFolder) {
  const std::string root = testing::TempDir() + "fake_proc";
  std::filesystem::remove_all(root);  // throws where it cannot
  for (const char* pid : {"100", "200", "300", "400", "self"}) {
    std::filesystem::create_directories(root + "/" + pid);
  }
  std::ofstream(root + "/100/comm") << "nvidia-cuda-mps\n";
  std::ofstream(root + "/100/cmdline") << std::string("nvidia-cuda-mps-control\0-d\0", 27);
  std::ofstream(root + "/100/environ")
      << std::string("HOME=/root\0CUDA_MPS_PIPE_DIRECTORY=/tmp/mine\0", 45);
  std::ofstream(root + "/200/comm") << "bash\n";
  std::ofstream(root + "/300/comm") << "nvidia-cuda-mps\n";  // environment unreadable
  std::ofstream(root + "/300/stat") << "300 (nvidia-cuda-mps) S 1 300";
  std::ofstream(root + "/400/comm") << "nvidia-cuda-mps\n";
  std::ofstream(root + "/400/stat") << "400 (nvidia-cuda-mps) Z 1 400";  // ended, not reaped
  const auto found = sharing::running_mps_processes(root);
  ASSERT_EQ(found.size(), 2u);
  const auto& mine = found[0].pid == 100 ? found[0] : found[1];
  const auto& other = found[0].pid == 100 ? found[1] : found[0];
  EXPECT_EQ(mine.pipe_directory, "/tmp/mine");
  EXPECT_EQ(mine.command, "nvidia-cuda-mps-control -d");
  EXPECT_EQ(other.pipe_directory, "/tmp/nvidia-mps");
  std::filesystem::remove_all(root);
}
