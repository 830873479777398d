#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "hip_lessons/errors.hpp"

namespace hip_lessons {

namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
  throw std::runtime_error("cannot " + what + " '" + path + "': " + std::strerror(error));
}

// Writes everything or reports errno; a short write is retried, EINTR too.
int write_all(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// Over a file-size limit the kernel sends SIGXFSZ, which would end the process before it can
// say why; ignored, the write fails with EFBIG instead.
struct IgnoreFileSizeSignal {
  void (*previous)(int) = std::signal(SIGXFSZ, SIG_IGN);
  ~IgnoreFileSizeSignal() { std::signal(SIGXFSZ, previous); }
};

void write_in_place(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) fail("open", path, errno);
  const int error = write_all(fd, content);
  if (::close(fd) != 0 && error == 0) fail("write", path, errno);
  if (error != 0) fail("write", path, error);
}

void replace_atomically(const std::string& path, const std::string& content) {
  struct stat old {};
  const bool existed = ::stat(path.c_str(), &old) == 0;
  std::string temp = path + ".XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) fail("create a temporary file beside", path, errno);
  const mode_t mask = ::umask(0);  // mkstemp made it 0600: a new file gets what open() gives
  ::umask(mask);
  int error = ::fchmod(fd, existed ? old.st_mode & 07777 : 0666 & ~mask) == 0 ? 0 : errno;
  if (error == 0) error = write_all(fd, content);
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temp.c_str());
    fail("write", path, error);
  }
}

}  // namespace

void check_output_path(const std::string& flag, const std::string& path) {
  if (path == "-") return;
  const auto refuse = [&](const std::string& why) {
    throw UsageError(flag + " '" + path + "' cannot be written: " + why);
  };
  if (path.empty()) refuse("the path is empty");
  struct stat target {};
  if (::stat(path.c_str(), &target) == 0) {
    if (S_ISDIR(target.st_mode)) refuse("it is a directory; give a file name");
    if (::access(path.c_str(), W_OK) != 0) refuse("the file is not writable");
    if (!S_ISREG(target.st_mode)) return;  // a FIFO or a device: written in place
  }
  struct stat link {};
  if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) return;  // written through
  const std::string directory = directory_of(path);
  struct stat parent {};
  if (::stat(directory.c_str(), &parent) != 0 || !S_ISDIR(parent.st_mode)) {
    refuse("directory '" + directory + "' does not exist");
  }
  if (::access(directory.c_str(), W_OK) != 0)
    refuse("directory '" + directory + "' is not writable");
  // access() says yes to root on any directory; the write makes a temporary file beside the
  // path (replace_atomically), so make one now, and remove it.
  std::string probe = path + ".XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    refuse("no file can be created in directory '" + directory + "' (" + std::strerror(errno) +
           ")");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

bool same_output_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty() || a == "-" || b == "-") return false;
  if (a == b) return true;
  struct stat first {};
  struct stat second {};
  if (::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0) {
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
  }
  // A new name: the same name in the same directory (each directory resolved).
  const auto base = [](const std::string& path) { return path.substr(path.find_last_of('/') + 1); };
  const auto real_directory = [](const std::string& path) {
    const std::unique_ptr<char, decltype(&std::free)> real(
        ::realpath(directory_of(path).c_str(), nullptr), &std::free);
    return real ? std::string(real.get()) : directory_of(path);
  };
  return base(a) == base(b) && real_directory(a) == real_directory(b);
}

void write_output_file(const std::string& path, const std::string& content) {
  const IgnoreFileSizeSignal ignore;
  if (path == "-") {
    std::fflush(stdout);
    const int error = write_all(STDOUT_FILENO, content);
    if (error != 0) fail("write", "standard output", error);
    return;
  }
  struct stat link {};
  if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    // The target, by the same rules, and the link stays; a dangling link: created through it.
    const std::unique_ptr<char, decltype(&std::free)> target(::realpath(path.c_str(), nullptr),
                                                             &std::free);
    return target ? write_output_file(target.get(), content) : write_in_place(path, content);
  }
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    return write_in_place(path, content);  // FIFO, character device, /dev/stdout
  }
  replace_atomically(path, content);
}

}  // namespace hip_lessons
