// HIP API test: device management, properties and attributes.
//
// Host part: HIP's numbering of device attributes and flags. GPU part: the property
// struct and hipDeviceGetAttribute agree, limits, priorities, flags and PCI ids are
// consistent, invalid devices are rejected with hipErrorInvalidDevice.
#include <cstdlib>
#include <cstring>

#include "check.h"

// HIP's numbers (the same in HIP 5.2 and 6.x, and in the hip_on_cuda layer).
static_assert(hipDeviceAttributeEccEnabled == 0, "EccEnabled");
static_assert(hipDeviceAttributeClockRate == 5, "ClockRate");
static_assert(hipDeviceAttributeConcurrentKernels == 8, "ConcurrentKernels");
static_assert(hipDeviceAttributeL2CacheSize == 19, "L2CacheSize");
static_assert(hipDeviceAttributeComputeCapabilityMajor == 23, "ComputeCapabilityMajor");
static_assert(hipDeviceAttributeMaxBlockDimX == 26, "MaxBlockDimX");
static_assert(hipDeviceAttributeMaxThreadsPerBlock == 56, "MaxThreadsPerBlock");
static_assert(hipDeviceAttributeMaxThreadsPerMultiProcessor == 57, "MaxThreadsPerMultiProcessor");
static_assert(hipDeviceAttributeMemoryClockRate == 60, "MemoryClockRate");
static_assert(hipDeviceAttributeComputeCapabilityMinor == 61, "ComputeCapabilityMinor");
static_assert(hipDeviceAttributeMultiprocessorCount == 63, "MultiprocessorCount");
static_assert(hipDeviceAttributePciBusId == 67, "PciBusId");
static_assert(hipDeviceAttributeMaxSharedMemoryPerBlock == 74, "MaxSharedMemoryPerBlock");
static_assert(hipDeviceAttributeWarpSize == 87, "WarpSize");
static_assert(hipDeviceAttributeMemoryPoolsSupported == 88, "MemoryPoolsSupported");
static_assert(hipDeviceAttributeCudaCompatibleEnd == 9999, "CudaCompatibleEnd");
static_assert(hipDeviceAttributeClockInstructionRate == 10000, "ClockInstructionRate");
static_assert(hipDeviceAttributeMaxSharedMemoryPerMultiprocessor == 10002,
              "MaxSharedMemoryPerMultiprocessor");
static_assert(hipDeviceScheduleAuto == 0 && hipDeviceScheduleSpin == 1 &&
                  hipDeviceScheduleYield == 2 && hipDeviceScheduleBlockingSync == 4 &&
                  hipDeviceScheduleMask == 7 && hipDeviceMapHost == 8,
              "hipDeviceSchedule* flags");
static_assert(hipComputeModeDefault == 0 && hipComputeModeProhibited == 2, "hipComputeMode");
static_assert(hipLimitPrintfFifoSize == 1 && hipLimitMallocHeapSize == 2, "hipLimit_t");
static_assert(hipFuncCachePreferNone == 0 && hipFuncCachePreferShared == 1 &&
                  hipFuncCachePreferL1 == 2 && hipFuncCachePreferEqual == 3,
              "hipFuncCache_t");
#if HIP_VERSION_MAJOR >= 6
static_assert(hipLimitStackSize == 0, "hipLimitStackSize");
static_assert(hipDeviceLmemResizeToMax == 0x10, "hipDeviceLmemResizeToMax (HIP 6)");
#endif

namespace {

/// hipDeviceGetAttribute must agree with the property struct.
void check_attribute(int device, hipDeviceAttribute_t attr, const char* name, long long expected) {
  int value = -1;
  const hipError_t e = hipDeviceGetAttribute(&value, attr, device);
  if (!CHECK_HIP(e, hip_api_test::fmt("hipDeviceGetAttribute(%s)", name))) return;
  CHECK_EQ(value, expected,
           hip_api_test::fmt("attribute %s = %d matches hipDeviceProp_t", name, value));
}

}  // namespace

int main() {
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;

  // Waiting policy of device 0: set before the device is initialised (HIP may refuse
  // with hipErrorSetOnActiveProcess afterwards), then read back.
  CHECK_HIP(hipSetDeviceFlags(hipDeviceScheduleBlockingSync), "hipSetDeviceFlags(BlockingSync)");
  unsigned int flags = 0;
  CHECK_HIP(hipGetDeviceFlags(&flags), "hipGetDeviceFlags");
  CHECK_EQ(flags & hipDeviceScheduleMask, hipDeviceScheduleBlockingSync,
           hip_api_test::fmt("schedule flags read back as BlockingSync (flags 0x%x)", flags));

  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count), "hipGetDeviceCount");
  CHECK(count > 0, hip_api_test::fmt("%d device(s)", count));
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0)");
  int current = -1;
  CHECK_HIP(hipGetDevice(&current), "hipGetDevice");
  CHECK_EQ(current, 0, "current device is 0");

  hipDeviceProp_t prop;
  std::memset(&prop, 0, sizeof prop);
  if (!CHECK_HIP(hipGetDeviceProperties(&prop, 0), "hipGetDeviceProperties(0)")) {
    return hip_api_test::finish();
  }
  std::printf("device 0: %s, %s, %d SMs/CUs, warp %d, %.1f GiB\n", prop.name, prop.gcnArchName,
              prop.multiProcessorCount, prop.warpSize,
              static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
  CHECK(prop.name[0] != '\0', "device name is set");
  CHECK(prop.gcnArchName[0] != '\0',
        hip_api_test::fmt("gcnArchName is set (%s)", prop.gcnArchName));
#if defined(__HIP_PLATFORM_NVIDIA__)
  CHECK(std::strncmp(prop.gcnArchName, "sm_", 3) == 0,
        "gcnArchName names the sm_ target on NVIDIA");
#endif
  CHECK(prop.warpSize == 32 || prop.warpSize == 64,
        hip_api_test::fmt("warpSize %d", prop.warpSize));
  CHECK(prop.multiProcessorCount > 0, "multiProcessorCount > 0");
  CHECK(prop.maxThreadsPerBlock >= 256, "maxThreadsPerBlock >= 256");
  CHECK(prop.maxThreadsPerMultiProcessor >= prop.maxThreadsPerBlock,
        "maxThreadsPerMultiProcessor >= maxThreadsPerBlock");
  CHECK(prop.maxThreadsDim[0] >= 256 && prop.maxGridSize[0] >= 65535, "block and grid limits");
  CHECK(prop.totalGlobalMem > (size_t{1} << 28), "totalGlobalMem > 256 MiB");
  CHECK(prop.sharedMemPerBlock >= 16 * 1024, "sharedMemPerBlock >= 16 KiB");
  CHECK(prop.maxSharedMemoryPerMultiProcessor >= prop.sharedMemPerBlock,
        "maxSharedMemoryPerMultiProcessor >= sharedMemPerBlock");
  CHECK(prop.regsPerBlock > 0, "regsPerBlock > 0");
  CHECK(prop.clockRate > 0, hip_api_test::fmt("clockRate %d kHz > 0", prop.clockRate));
  CHECK(prop.memoryClockRate > 0,
        hip_api_test::fmt("memoryClockRate %d kHz > 0", prop.memoryClockRate));
  CHECK(prop.memoryBusWidth > 0,
        hip_api_test::fmt("memoryBusWidth %d bits > 0", prop.memoryBusWidth));
  CHECK(prop.l2CacheSize > 0, "l2CacheSize > 0");
  CHECK(prop.major > 0, hip_api_test::fmt("compute capability %d.%d", prop.major, prop.minor));
  CHECK(prop.computeMode >= hipComputeModeDefault &&
            prop.computeMode <= hipComputeModeExclusiveProcess,
        "computeMode is a hipComputeMode");
#if HIP_VERSION_MAJOR >= 6
  // Fields that the R0600 struct added.
  CHECK(prop.regsPerMultiprocessor >= prop.regsPerBlock, "regsPerMultiprocessor >= regsPerBlock");
  CHECK(prop.sharedMemPerMultiprocessor == prop.maxSharedMemoryPerMultiProcessor,
        "sharedMemPerMultiprocessor == maxSharedMemoryPerMultiProcessor");
  CHECK(prop.asyncEngineCount >= 0, "asyncEngineCount >= 0");
#endif

  check_attribute(0, hipDeviceAttributeMaxThreadsPerBlock, "MaxThreadsPerBlock",
                  prop.maxThreadsPerBlock);
  check_attribute(0, hipDeviceAttributeWarpSize, "WarpSize", prop.warpSize);
  check_attribute(0, hipDeviceAttributeMultiprocessorCount, "MultiprocessorCount",
                  prop.multiProcessorCount);
  check_attribute(0, hipDeviceAttributeComputeCapabilityMajor, "ComputeCapabilityMajor",
                  prop.major);
  check_attribute(0, hipDeviceAttributeComputeCapabilityMinor, "ComputeCapabilityMinor",
                  prop.minor);
  check_attribute(0, hipDeviceAttributeMaxBlockDimX, "MaxBlockDimX", prop.maxThreadsDim[0]);
  check_attribute(0, hipDeviceAttributeMaxGridDimX, "MaxGridDimX", prop.maxGridSize[0]);
  check_attribute(0, hipDeviceAttributeMaxThreadsPerMultiProcessor, "MaxThreadsPerMultiProcessor",
                  prop.maxThreadsPerMultiProcessor);
  check_attribute(0, hipDeviceAttributeMaxSharedMemoryPerBlock, "MaxSharedMemoryPerBlock",
                  static_cast<long long>(prop.sharedMemPerBlock));
  check_attribute(0, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
                  "MaxSharedMemoryPerMultiprocessor",
                  static_cast<long long>(prop.maxSharedMemoryPerMultiProcessor));
  check_attribute(0, hipDeviceAttributeMaxRegistersPerBlock, "MaxRegistersPerBlock",
                  prop.regsPerBlock);
  check_attribute(0, hipDeviceAttributeL2CacheSize, "L2CacheSize", prop.l2CacheSize);
  check_attribute(0, hipDeviceAttributeClockRate, "ClockRate", prop.clockRate);
  check_attribute(0, hipDeviceAttributeMemoryClockRate, "MemoryClockRate", prop.memoryClockRate);
  check_attribute(0, hipDeviceAttributeMemoryBusWidth, "MemoryBusWidth", prop.memoryBusWidth);
  check_attribute(0, hipDeviceAttributeConcurrentKernels, "ConcurrentKernels",
                  prop.concurrentKernels);
  check_attribute(0, hipDeviceAttributeComputeMode, "ComputeMode", prop.computeMode);
  check_attribute(0, hipDeviceAttributePciBusId, "PciBusId", prop.pciBusID);
  check_attribute(0, hipDeviceAttributePciDeviceId, "PciDeviceId", prop.pciDeviceID);
  check_attribute(0, hipDeviceAttributeCooperativeLaunch, "CooperativeLaunch",
                  prop.cooperativeLaunch);
  check_attribute(0, hipDeviceAttributeManagedMemory, "ManagedMemory", prop.managedMemory);
  check_attribute(0, hipDeviceAttributeClockInstructionRate, "ClockInstructionRate",
                  prop.clockInstructionRate);

  int value = 0;
  CHECK_ERROR(hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, count),
              hipErrorInvalidDevice, "hipDeviceGetAttribute on device `count` is InvalidDevice");
  hip_api_test::ignore(hipGetLastError());

  char name[256] = {};
  CHECK_HIP(hipDeviceGetName(name, static_cast<int>(sizeof name), 0), "hipDeviceGetName");
  CHECK(std::strcmp(name, prop.name) == 0, "hipDeviceGetName matches prop.name");
  size_t total = 0;
  CHECK_HIP(hipDeviceTotalMem(&total, 0), "hipDeviceTotalMem");
  CHECK_EQ(total, prop.totalGlobalMem, "hipDeviceTotalMem matches prop.totalGlobalMem");
  int major = 0;
  int minor = 0;
  CHECK_HIP(hipDeviceComputeCapability(&major, &minor, 0), "hipDeviceComputeCapability");
  CHECK(major == prop.major && minor == prop.minor, "compute capability matches the properties");

  // PCI id string "dddd:bb:dd.f": its bus number is prop.pciBusID.
  char bus_id[64] = {};
  if (CHECK_HIP(hipDeviceGetPCIBusId(bus_id, static_cast<int>(sizeof bus_id), 0),
                "hipDeviceGetPCIBusId")) {
    const char* colon = std::strchr(bus_id, ':');
    const long bus = colon != nullptr ? std::strtol(colon + 1, nullptr, 16) : -1;
    CHECK_EQ(bus, prop.pciBusID, hip_api_test::fmt("PCI id %s has bus %d", bus_id, prop.pciBusID));
  }

  // Stream priorities: numerically lower is higher priority; "greatest" <= "least".
  int least = 0;
  int greatest = 0;
  CHECK_HIP(hipDeviceGetStreamPriorityRange(&least, &greatest), "hipDeviceGetStreamPriorityRange");
  CHECK(greatest <= least && least - greatest < 100,
        hip_api_test::fmt("priority range sane: least %d, greatest %d", least, greatest));

  size_t heap = 0;
  CHECK_HIP(hipDeviceGetLimit(&heap, hipLimitMallocHeapSize), "hipDeviceGetLimit(MallocHeapSize)");
  CHECK(heap > 0, hip_api_test::fmt("malloc heap %zu bytes > 0", heap));
#if HIP_VERSION_MAJOR >= 6
  const size_t bigger = heap * 2;
  if (CHECK_HIP(hipDeviceSetLimit(hipLimitMallocHeapSize, bigger),
                "hipDeviceSetLimit(MallocHeapSize)")) {
    size_t now = 0;
    CHECK_HIP(hipDeviceGetLimit(&now, hipLimitMallocHeapSize), "hipDeviceGetLimit after set");
    CHECK(now >= bigger, hip_api_test::fmt("heap limit raised to %zu (asked %zu)", now, bigger));
    CHECK_HIP(hipDeviceSetLimit(hipLimitMallocHeapSize, heap), "restore heap limit");
  }
#endif

  hipFuncCache_t cache = hipFuncCachePreferNone;
  CHECK_HIP(hipDeviceGetCacheConfig(&cache), "hipDeviceGetCacheConfig");
  CHECK_HIP(hipDeviceSynchronize(), "hipDeviceSynchronize");
  CHECK_HIP(hipDeviceReset(), "hipDeviceReset");
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
