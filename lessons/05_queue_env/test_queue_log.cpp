/// \file lessons/05_queue_env/test_queue_log.cpp
/// \brief Unit tests of the reader of HIP's queue log (queue_log.hpp), on log lines written in
/// each format HIP printed, each test naming its release and the source of its format. No GPU.
#include <gtest/gtest.h>

#include <string>

#include "queue_log.hpp"

namespace qe = queue_env;

namespace {

// The line prefix of ROCm 6.2 (ROCm/clr rocm-6.2.2 rocclr/utils/debug.cpp:88):
// ":%d:%-25s:%-4d: %010lld us: [pid:%-5d tid:0x%s] %s".
std::string at62(const std::string& file, int line, const std::string& tid,
                 const std::string& message) {
  std::string padded = file;
  padded.resize(25, ' ');
  return ":3:" + padded + ":" + std::to_string(line) + ": 0003326522300 us: [pid:2539  tid:" + tid +
         "] " + message + "\n";
}

// The line prefix of ROCm 5.6 (ROCm/clr rocm-5.6.0 rocclr/utils/debug.cpp:97):
// ":%d:%-25s:%-4d: %010lld us: %-5d: [tid:0x%s] %s".
std::string at56(const std::string& file, int line, const std::string& tid,
                 const std::string& message) {
  std::string padded = file;
  padded.resize(25, ' ');
  return ":3:" + padded + ":" + std::to_string(line) + ": 221750545610 us: 1255284: [tid:" + tid +
         "] " + message + "\n";
}

// HIP's API lines (ROCm/clr rocm-6.2.2 hipamd/src/hip_internal.hpp:126 and :130): the entry in
// green, "%s %s ( %s ) %s" with KGRN and KNRM, and "%s: Returned %s : %s".
std::string enter(const std::string& call, const std::string& args) {
  return "\x1b[32m " + call + " ( " + args + " ) \x1b[0m";
}
std::string returned(const std::string& call, const std::string& value) {
  return call + ": Returned hipSuccess : " + value;
}

TEST(QueueLog, Rocm62NamesTheHardwareQueueByItsBaseAddress) {
  // rocm-6.2.2 rocclr/device/rocm/rocdevice.cpp:3104 (Created SWq=...), :3197 (acquireQueue
  // refCount), :3011 (Selected queue refCount, a full pool); hip_stream.cpp:257 returns *stream.
  const std::string t = "0x7f01";
  const std::string log =
      at62("hip_stream.cpp", 255, t, enter("hipStreamCreateWithFlags", "0x7ffd10, 1")) +
      at62("rocdevice.cpp", 3026, t,
           "Number of allocated hardware queues with low priority: 0, with normal priority: 0, "
           "with high priority: 0, maximum per priority is: 1") +
      at62("rocdevice.cpp", 3104, t,
           "Created SWq=0x7fffe01ac000 to map on HWq=0x7fffd1400000 with size 16384 with "
           "priority 1, cooperative: 0") +
      at62("rocdevice.cpp", 3197, t, "acquireQueue refCount: 0x7fffd1400000 (1)") +
      at62("hip_stream.cpp", 257, t,
           returned("hipStreamCreateWithFlags", "stream:0x5555a0001000")) +
      at62("hip_stream.cpp", 255, t, enter("hipStreamCreateWithFlags", "0x7ffd18, 1")) +
      at62("rocdevice.cpp", 3011, t, "Selected queue refCount: 0x7fffd1400000 (2)") +
      at62("hip_stream.cpp", 257, t, returned("hipStreamCreateWithFlags", "stream:0x5555a0002000"));
  const qe::QueueLog got = qe::read_queue_log(log);
  ASSERT_EQ(got.streams.size(), 2u);
  EXPECT_EQ(got.streams[0].stream, "0x5555a0001000");
  EXPECT_EQ(got.streams[0].queue, "0x7fffd1400000");
  EXPECT_FALSE(got.streams[0].reused);
  EXPECT_EQ(got.streams[0].how_named, "base address");
  EXPECT_EQ(got.streams[1].stream, "0x5555a0002000");
  EXPECT_EQ(got.streams[1].queue, "0x7fffd1400000");
  EXPECT_TRUE(got.streams[1].reused);
  EXPECT_EQ(got.users("0x7fffd1400000"), 2);
  EXPECT_EQ(got.queue_lines, 2);  // acquireQueue refCount repeats the created queue
  EXPECT_EQ(got.unattributed, 0);
  EXPECT_EQ(got.malformed, 0);
}

TEST(QueueLog, Rocm56To61NamesTheHsaQueueObject) {
  // rocm-5.7.0 to rocm-6.1.0 rocclr/device/rocm/rocdevice.cpp ("created hardware queue %p",
  // rocm-6.1.0:2999; "acquireQueue refCount: %p (%d)", :3091; "selected queue refCount", :2906),
  // all printing the hsa_queue_t pointer; the 5.6 prefix (pid before [tid:...]).
  const std::string t = "0x7fc9d2dfe640";
  const std::string log =
      at56("hip_stream.cpp", 353, t, enter("hipStreamCreateWithFlags", "0x151fdd0, 1")) +
      at56("rocdevice.cpp", 2896, t,
           "created hardware queue 0x7fcc33b06000 with size 16384 with priority 1, "
           "cooperative: 0") +
      at56("rocdevice.cpp", 2963, t, "acquireQueue refCount: 0x7fcc33b06000 (1)") +
      at56("hip_stream.cpp", 359, t,
           returned("hipStreamCreateWithFlags", "stream:0x7fc9cc0016d0")) +
      at56("hip_stream.cpp", 353, t, enter("hipStreamCreateWithFlags", "0x151fdd8, 1")) +
      at56("rocdevice.cpp", 2906, t, "selected queue refCount: 0x7fcc33b06000 (2)") +
      at56("hip_stream.cpp", 359, t, returned("hipStreamCreateWithFlags", "stream:0x7fc9cc0017d0"));
  const qe::QueueLog got = qe::read_queue_log(log);
  ASSERT_EQ(got.streams.size(), 2u);
  EXPECT_EQ(got.streams[0].stream, "0x7fc9cc0016d0");
  EXPECT_EQ(got.streams[0].queue, "0x7fcc33b06000");
  EXPECT_EQ(got.streams[0].how_named, "hsa_queue_t");
  EXPECT_EQ(got.streams[1].queue, "0x7fcc33b06000");
  EXPECT_TRUE(got.streams[1].reused);
  EXPECT_EQ(got.malformed, 0);
}

TEST(QueueLog, DevelopBranchReuseLinesAndACallThatNamesItsStream) {
  // ROCm/rocm-systems 01280b9d projects/clr/rocclr/device/rocm/rocdevice.cpp, getQueueFromPool
  // ("Selected queue (mode=%u): %p refCount: %d, ...", "Reusing preferred queue: %p
  // refCount: %d") and acquireQueue ("acquireQueue refCount: %p (%d) %s"). The prefix is the
  // 6.2 one (the develop debug.cpp was not read).
  const std::string t = "0x7f02";
  const std::string log =
      at62("hip_module.cpp", 660, t,
           enter("hipLaunchKernel", "0x4011a0, {1,1,1}, {64,1,1}, 0x7ffd20, 0, stream:0xa1")) +
      at62("rocdevice.cpp", 3000, t,
           "Created SWq=0x7e0000 to map on HWq=0x7d0000 with size 16384 with priority 1, "
           "cooperative: 0") +
      at62("rocdevice.cpp", 3000, t, "acquireQueue refCount: 0x7d0000 (1) ") +
      at62("hip_module.cpp", 700, t, returned("hipLaunchKernel", "")) +
      at62("hip_module.cpp", 660, t,
           enter("hipLaunchKernel", "0x4011a0, {1,1,1}, {64,1,1}, 0x7ffd20, 0, stream:0xa2")) +
      at62("rocdevice.cpp", 3000, t,
           "Selected queue (mode=1): 0x7d0000 refCount: 2, depth: 0, metric: 2, pipe: -1") +
      at62("hip_module.cpp", 700, t, returned("hipLaunchKernel", "")) +
      at62("hip_module.cpp", 660, t,
           enter("hipLaunchKernel", "0x4011a0, {1,1,1}, {64,1,1}, 0x7ffd20, 0, stream:0xa3")) +
      at62("rocdevice.cpp", 3000, t, "Reusing preferred queue: 0x7d0000 refCount: 3") +
      at62("hip_module.cpp", 700, t, returned("hipLaunchKernel", ""));
  const qe::QueueLog got = qe::read_queue_log(log);
  ASSERT_EQ(got.streams.size(), 3u);
  EXPECT_EQ(got.streams[0].stream, "0xa1");
  EXPECT_EQ(got.streams[2].stream, "0xa3");
  EXPECT_EQ(got.users("0x7d0000"), 3);
  EXPECT_TRUE(got.streams[1].reused);
  EXPECT_TRUE(got.streams[2].reused);
}

TEST(QueueLog, IssueQuoteWithoutThreadIdsIsReadFromTheOnlyOpenCall) {
  // The prefix quoted in ROCm/hip issue 3769 ("1917470247183d us:  Created SWq=...", no pid or
  // tid), ROCm 6.2-style messages (rocdevice.cpp:3140 and :3232 of that build).
  const std::string log =
      ":3:hip_stream.cpp           :300 : 1917470247100d us:  " +
      enter("hipStreamCreate", "0x7ffd30") + "\n" +
      ":3:rocdevice.cpp            :3140: 1917470247183d us:  Created SWq=0x7fd9ee22c000 to map "
      "on HWq=0x7fd9c2800000 with size 16384 with priority 1, cooperative: 0\n"
      ":3:rocdevice.cpp            :3232: 1917470247195d us:  acquireQueue refCount: "
      "0x7fd9c2800000 (1)\n"
      ":3:hip_stream.cpp           :302 : 1917470247200d us:  " +
      returned("hipStreamCreate", "stream:0x55e0") + "\n";
  const qe::QueueLog got = qe::read_queue_log(log);
  ASSERT_EQ(got.streams.size(), 1u);
  EXPECT_EQ(got.streams[0].stream, "0x55e0");
  EXPECT_EQ(got.streams[0].queue, "0x7fd9c2800000");
}

TEST(QueueLog, InterleavedThreadsAndLessonOutputKeepEachStreamItsQueue) {
  // Two threads create streams at the same time; the lesson's own lines and a level-4 line
  // come in between (stdout and stderr share one pipe). ROCm 6.2 formats.
  const std::string a = "0x7f0a", b = "0x7f0b";
  const std::string log =
      at62("hip_stream.cpp", 255, a, enter("hipStreamCreateWithFlags", "0x10, 1")) +
      at62("hip_stream.cpp", 255, b, enter("hipStreamCreateWithFlags", "0x20, 1")) +
      "1. Hardware queues: one chain of dependent kernels per stream\n" +
      at62("rocdevice.cpp", 3104, b,
           "Created SWq=0xb0 to map on HWq=0xbb00 with size 16384 with priority 1, "
           "cooperative: 0") +
      ":4:rocdevice.cpp            :2221: 0003326522532 us: [pid:2539  tid:0x7f0a] Allocate "
      "hsa host memory 0x7fffd1200000, size 0x100000\n" +
      at62("rocdevice.cpp", 3104, a,
           "Created SWq=0xa0 to map on HWq=0xaa00 with size 16384 with priority 1, "
           "cooperative: 0") +
      "@result depth_first_ms=1.6 correct=1\n" +
      at62("hip_stream.cpp", 257, a, returned("hipStreamCreateWithFlags", "stream:0x1a")) +
      at62("hip_stream.cpp", 257, b, returned("hipStreamCreateWithFlags", "stream:0x1b"));
  const qe::QueueLog got = qe::read_queue_log(log);
  ASSERT_EQ(got.streams.size(), 2u);
  EXPECT_EQ(got.streams[0].stream, "0x1a");
  EXPECT_EQ(got.streams[0].queue, "0xaa00");
  EXPECT_EQ(got.streams[1].stream, "0x1b");
  EXPECT_EQ(got.streams[1].queue, "0xbb00");
  EXPECT_EQ(got.unattributed, 0);
}

TEST(QueueLog, MalformedAndUnattributedLinesAreCountedNotGuessed) {
  const std::string t = "0x7f03";
  const std::string log =
      ":3:rocdevice.cpp :notaline\n"  // a log line whose prefix cannot be read
      ":3:rocdevice.cpp            :3104: 0003326522300 us: [pid:2539  tid:0x7f03] Created "
      "SWq=0x1 to map on HWq=0x2 with size 64 with priority 1, cooperative: 0\n" +  // no call
      at62("hip_stream.cpp", 257, t, returned("hipStreamCreate", "stream:0x9")) +   // no entry
      at62("hip_device.cpp", 100, t, enter("hipDeviceSynchronize", "")) +
      at62("rocdevice.cpp", 3197, t, "Selected queue refCount: 0x2 (2)") +  // no stream named
      at62("hip_device.cpp", 101, t, returned("hipDeviceSynchronize", "")) +
      at62("rocdevice.cpp", 3104, t, "Created SWq=0x1 to map on HWq= with size 64");  // no queue
  const qe::QueueLog got = qe::read_queue_log(log);
  EXPECT_TRUE(got.streams.empty());
  EXPECT_EQ(got.malformed, 1);
  EXPECT_EQ(got.queue_lines, 2);
  EXPECT_EQ(got.unattributed, 2);
  EXPECT_EQ(qe::read_queue_log("").streams.size(), 0u);
}

}  // namespace
