// The rules for a user's output file: what each kind of path gets, and how failures look.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <system_error>

#include "../src/output_file.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/trace_file.hpp"

namespace hl = hip_lessons;

namespace {

class OutputFileTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "output_file_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code error;  // a leftover scratch folder is no test failure
    std::filesystem::remove_all(dir_, error);
  }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  static std::string read(const std::string& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // Every entry of the directory, so a test sees any leftover temporary file.
  std::string listing() const {
    std::string out;
    FILE* ls = ::popen(("ls -A '" + dir_ + "'").c_str(), "r");
    char line[512];
    while (ls != nullptr && std::fgets(line, sizeof line, ls) != nullptr) out += line;
    if (ls != nullptr) ::pclose(ls);
    return out;
  }

  std::string dir_;
};

}  // namespace

TEST_F(OutputFileTest, CreatesANewFile) {
  hl::write_output_file(path("new.json"), "{}\n");
  EXPECT_EQ(read(path("new.json")), "{}\n");
  EXPECT_EQ(listing(), "new.json\n");
}

// --trace FILE: every run kept, in the order traced, through the same output-file rules.
TEST_F(OutputFileTest, TraceFileWritesEveryKeptRun) {
  hl::TraceFile traces;
  traces.keep("1 stream", hl::Schedule({{"k", 0, 0, 0, 3, 10.0, 20.0}}));
  traces.keep("8 streams", hl::Schedule({{"k", 0, 5, 0, 4, 10.0, 12.0}}));
  traces.write(path("trace.json"));
  const std::string text = read(path("trace.json"));
  const std::size_t first = text.find("1 stream: streams");
  const std::size_t second = text.find("8 streams: compute units");
  EXPECT_NE(first, std::string::npos) << text;
  EXPECT_NE(second, std::string::npos) << text;
  EXPECT_LT(first, second);
  EXPECT_THROW(traces.write(path("missing/trace.json")), std::runtime_error);
}

TEST_F(OutputFileTest, ReplacesARegularFileKeepingItsMode) {
  std::ofstream(path("old.json")) << "old contents that are longer\n";
  ASSERT_EQ(::chmod(path("old.json").c_str(), 0640), 0);
  hl::write_output_file(path("old.json"), "new\n");
  EXPECT_EQ(read(path("old.json")), "new\n");
  struct stat st {};
  ASSERT_EQ(::stat(path("old.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(listing(), "old.json\n");
}

TEST_F(OutputFileTest, WritesASymlinksTargetAndKeepsTheLink) {
  std::ofstream(path("target.json")) << "old\n";
  ASSERT_EQ(::symlink("target.json", path("link.json").c_str()), 0);
  hl::write_output_file(path("link.json"), "through the link\n");
  struct stat st {};
  ASSERT_EQ(::lstat(path("link.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(read(path("target.json")), "through the link\n");
}

TEST_F(OutputFileTest, WritesIntoAFifoForItsReader) {
  ASSERT_EQ(::mkfifo(path("pipe").c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&] { return read(path("pipe")); });
  hl::write_output_file(path("pipe"), "streamed\n");
  EXPECT_EQ(reader.get(), "streamed\n");
  struct stat st {};
  ASSERT_EQ(::stat(path("pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
}

TEST_F(OutputFileTest, WritesACharacterDeviceInPlace) {
  hl::write_output_file("/dev/null", "discarded\n");
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(OutputFileTest, DashIsStandardOutput) {
  testing::internal::CaptureStdout();
  hl::write_output_file("-", "{\"to\": \"stdout\"}\n");
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "{\"to\": \"stdout\"}\n");
  EXPECT_EQ(listing(), "");
}

TEST_F(OutputFileTest, AFailedWriteNamesThePathAndTheReason) {
  try {
    hl::write_output_file("/dev/full", "no room\n");
    FAIL() << "writing /dev/full succeeded";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("'/dev/full': No space left on device"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(OutputFileTest, AFileSizeLimitFailsCleanlyAndLeavesNoPartialFile) {
  // In a child process, so the limit does not touch the test runner.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlimit limit{4, 4};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      hl::write_output_file(path("big.json"), std::string(4096, 'x'));
    } catch (const std::runtime_error& error) {
      _exit(std::string(error.what()).find("File too large") != std::string::npos ? 0 : 2);
    }
    _exit(3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed (SIGXFSZ not handled?)";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(listing(), "") << "a partial or temporary file was left behind";
}

TEST_F(OutputFileTest, ADirectoryIsBadInput) {
  EXPECT_THROW(hl::check_output_path("--json", dir_), hl::UsageError);
  EXPECT_THROW(hl::check_output_path("--json", "/tmp"), hl::UsageError);
}

TEST_F(OutputFileTest, AMissingOrNonDirectoryParentIsBadInput) {
  EXPECT_THROW(hl::check_output_path("--json", path("missing/x.json")), hl::UsageError);
  std::ofstream(path("plain")) << "x";
  EXPECT_THROW(hl::check_output_path("--json", path("plain/x.json")), hl::UsageError);
}

TEST_F(OutputFileTest, AcceptsWhatItCanWrite) {
  EXPECT_NO_THROW(hl::check_output_path("--json", "-"));
  EXPECT_NO_THROW(hl::check_output_path("--json", path("new.json")));
  EXPECT_NO_THROW(hl::check_output_path("--json", "/dev/null"));
  EXPECT_NO_THROW(hl::check_output_path("--json", "relative-name.json"));
}

TEST_F(OutputFileTest, ADirectoryThatTakesNoNewFileIsBadInput) {
  // /proc/version is a regular file, and /proc looks writable to root, yet no temporary file
  // can be made beside it: refused at parsing, not after the run.
  try {
    hl::check_output_path("--json", "/proc/version");
    FAIL() << "/proc/version was accepted";
  } catch (const hl::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("'/proc/version'"), std::string::npos) << error.what();
  }
  EXPECT_EQ(listing(), "");
}
