/// \file amd_trace_reads.hpp
/// \brief What a block trace reads on each AMD target: the constant-rate clock instruction and
/// the hardware-register fields that name the unit a block ran on.
///
/// HIP's wall_clock64() and __smid() are only as good as the HIP headers a build finds. With
/// Debian's HIP 5.2 headers wall_clock64() compiles to the constant -1 on gfx11 and gfx12, and
/// __smid() reads a 2-bit shader-engine field and no XCC on every target (so CUs alias on
/// MI100/MI210/MI250 and MI300). The project therefore reads the hardware itself, per target,
/// from the table below; device_clock.hpp and block_trace.hpp issue the reads of the target
/// being compiled, the common.amd_trace_reads.* tests find them in every built code object, and
/// configure prints each target's row. A target missing from the table is a compile error that
/// names it (device_clock.hpp), never a silent constant. This header is plain C++ (host code, the
/// checks and the device passes all read the same table).
///
/// The unit id packs the fields of a row high to low, each at its width (for gfx942:
/// XCC(4).SE(3).SH(1).CU(4), 12 bits). It is one value per CU on gfx9 (XCC, shader engine,
/// shader array and CU), one per WGP on gfx10-gfx12 in the default WGP mode, and one per CU in
/// CU mode, which adds the CU within the WGP. Where the fields come from (reasoned from these
/// sources, not run on an AMD GPU):
///   - gfx9 HW_ID (hwreg 4): CU_ID [11:8], SH_ID [12], SE_ID [14:13] on Vega and [15:13] on
///     gfx908, gfx90a and gfx940-gfx942: ROCm/clr rocm-6.2.2
///     hipamd/include/hip/amd_detail/amd_device_functions.h (its HW_ID comment; its __smid()
///     reads 2 SE bits on gfx94x, "4 SEs/XCC", where this table reads the whole field).
///   - XCC_ID (hwreg 20) [3:0] on gfx940-gfx942 (the same file from rocm-6.0.0; 5.7 decodes
///     gfx940 only) and gfx950 (ROCm/rocm-systems 10f0c149, the same file under projects/clr).
///   - gfx10-gfx12.0 HW_ID1 (hwreg 23): WGP_ID [13:10], SA_ID [16], SE_ID [19:18] on gfx10 and
///     [20:18] on gfx11, SIMD_ID [9:8] (clr rocm-6.2.2, as above; in CU mode its __smid() takes
///     bit 8 as the CU within the WGP). gfx12.0 keeps the gfx11 layout: ROCm/rocm-systems
///     1b1610fc projects/rocr-runtime/libhsakmt/tests/kfdtest/src/KFDQMTest.hpp ("format same
///     for GFX11 and GFX12", used by its GFX12 CU-mask test) and
///     runtime/hsa-runtime/core/runtime/trap_handler/trap_handler_gfx12.s there, which takes the
///     SE from HW_ID1 on gfx12.0 and from MSG_RTN_GET_SE_AID_ID only on gfx12.5; rocm-systems
///     10f0c149's __smid() uses that message on every gfx12.
///   - Register numbers and their names in disassembly: llvm/llvm-project
///     llvm/lib/Target/AMDGPU/SIDefines.h and Utils/AMDGPUAsmUtils.cpp (HW_REG_HW_ID before
///     gfx10, HW_REG_HW_ID1 from gfx10, HW_REG_XCC_ID on gfx940 and later), as llvm-mc and
///     llvm-objdump 19.1.7 encode and print them.
///   - Clock: s_memrealtime on gfx9 and gfx10, the MSG_RTN_GET_REALTIME message (131) with
///     s_sendmsg_rtn_b64 from gfx11, which has no s_memrealtime: ROCm/ROCm-Device-Libs rocm-6.0.0
///     ockl/src/mtime.cl (__ockl_steadyctr_u64, what newer HIP's wall_clock64() calls). Its rate
///     is hipDeviceAttributeWallClockRate, read at run time (device_clock.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hip_lessons::amd {

/// The instruction that reads the constant-rate clock.
enum class ClockRead {
  kSMemRealtime,     ///< s_memrealtime (gfx9, gfx10)
  kRealtimeMessage,  ///< s_sendmsg_rtn_b64 with MSG_RTN_GET_REALTIME (gfx11, gfx12)
};

/// What one unit id names.
enum class TraceUnit {
  kComputeUnit,         ///< one CU
  kWorkgroupProcessor,  ///< one WGP (two CUs): gfx10 and later in WGP mode
};

/// The message number of MSG_RTN_GET_REALTIME (LLVM SIDefines.h, SendMsg::ID_RTN_GET_REALTIME).
inline constexpr unsigned kRealtimeMessage = 131;

/// One field of a hardware register, read with s_getreg_b32 hwreg(register, offset, width).
struct RegisterField {
  const char* name;        ///< what it numbers: XCC, SE, SH, SA, WGP or CU
  unsigned hwreg;          ///< the register's hwreg id
  const char* hwreg_name;  ///< how LLVM prints that id for the targets of the row
  unsigned offset;         ///< its first bit
  unsigned width;          ///< its bits

  /// The operand of s_getreg_b32 (and __builtin_amdgcn_s_getreg): id in bits [5:0], offset in
  /// [10:6], width - 1 in [15:11] (LLVM SIDefines.h, Hwreg).
  constexpr unsigned getreg_operand() const { return hwreg | offset << 6 | (width - 1) << 11; }
};

/// Most fields a unit id packs (CU mode on RDNA: SE, SA, WGP, CU; gfx94x: XCC, SE, SH, CU).
inline constexpr std::size_t kMaxUnitFields = 4;

/// What a block trace reads on one target: see the file comment.
struct TraceReads {
  const char* family;  ///< the generation, for messages
  ClockRead clock;
  TraceUnit unit;
  std::array<RegisterField, kMaxUnitFields> fields;  ///< high to low in the unit id
  std::size_t field_count;
};

namespace detail {

inline constexpr unsigned kHwId = 4;    // gfx9 HW_ID
inline constexpr unsigned kXccId = 20;  // gfx940 and later
inline constexpr unsigned kHwId1 = 23;  // gfx10 and later

inline constexpr RegisterField kGfx9Cu{"CU", kHwId, "HW_REG_HW_ID", 8, 4};
inline constexpr RegisterField kGfx9Sh{"SH", kHwId, "HW_REG_HW_ID", 12, 1};
inline constexpr RegisterField kVegaSe{"SE", kHwId, "HW_REG_HW_ID", 13, 2};
inline constexpr RegisterField kCdnaSe{"SE", kHwId, "HW_REG_HW_ID", 13, 3};
inline constexpr RegisterField kXcc{"XCC", kXccId, "HW_REG_XCC_ID", 0, 4};
inline constexpr RegisterField kRdna2Se{"SE", kHwId1, "HW_REG_HW_ID1", 18, 2};
inline constexpr RegisterField kRdna3Se{"SE", kHwId1, "HW_REG_HW_ID1", 18, 3};
inline constexpr RegisterField kRdnaSa{"SA", kHwId1, "HW_REG_HW_ID1", 16, 1};
inline constexpr RegisterField kRdnaWgp{"WGP", kHwId1, "HW_REG_HW_ID1", 10, 4};
/// CU mode only: HW_ID1 bit 8 (bit 0 of SIMD_ID) as the CU of the WGP the wave runs on. This
/// follows clr's __smid() (rocm-6.2.2 amd_device_functions.h:849-850, HW_ID_CU_ID_SIZE 1,
/// OFFSET 8, under __AMDGCN_CUMODE__); the same header's register comment (:814) says only
/// "SIMD_ID within the WGP: [0] = row, [1] = column", and no register manual read here says
/// which bit selects the CU. Used only by -mcumode builds.
inline constexpr RegisterField kRdnaCuOfWgp{"CU", kHwId1, "HW_REG_HW_ID1", 8, 1};

}  // namespace detail

/// A generation: its processors and what their traces read.
struct TraceReadFamily {
  std::array<std::string_view, 12> processors;  ///< the first ones; the rest are empty
  TraceReads reads;                             ///< in WGP mode (trace_reads() adds CU mode)
};

/// The table (see the file comment for the sources of each field).
inline constexpr std::array<TraceReadFamily, 6> kTraceReadFamilies{{
    {{"gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"},
     {"gfx9 (Vega)",
      ClockRead::kSMemRealtime,
      TraceUnit::kComputeUnit,
      {detail::kVegaSe, detail::kGfx9Sh, detail::kGfx9Cu},
      3}},
    {{"gfx908", "gfx90a"},
     {"gfx9 (CDNA1, CDNA2)",
      ClockRead::kSMemRealtime,
      TraceUnit::kComputeUnit,
      {detail::kCdnaSe, detail::kGfx9Sh, detail::kGfx9Cu},
      3}},
    {{"gfx940", "gfx941", "gfx942", "gfx950"},
     {"gfx9 (CDNA3, CDNA4)",
      ClockRead::kSMemRealtime,
      TraceUnit::kComputeUnit,
      {detail::kXcc, detail::kCdnaSe, detail::kGfx9Sh, detail::kGfx9Cu},
      4}},
    {{"gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033",
      "gfx1034", "gfx1035", "gfx1036"},
     {"gfx10 (RDNA1, RDNA2)",
      ClockRead::kSMemRealtime,
      TraceUnit::kWorkgroupProcessor,
      {detail::kRdna2Se, detail::kRdnaSa, detail::kRdnaWgp},
      3}},
    {{"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"},
     {"gfx11 (RDNA3)",
      ClockRead::kRealtimeMessage,
      TraceUnit::kWorkgroupProcessor,
      {detail::kRdna3Se, detail::kRdnaSa, detail::kRdnaWgp},
      3}},
    {{"gfx1200", "gfx1201"},
     {"gfx12 (RDNA4)",
      ClockRead::kRealtimeMessage,
      TraceUnit::kWorkgroupProcessor,
      {detail::kRdna3Se, detail::kRdnaSa, detail::kRdnaWgp},
      3}},
}};

/// What traces read on \p target ("gfx942", or a target id such as "gfx90a:sramecc+:xnack-",
/// as hipDeviceProp_t::gcnArchName gives it); nothing for a target the table does not know.
/// \p cu_mode: the code was compiled with -mcumode (gfx10 and later; gfx9 is always CU mode).
constexpr std::optional<TraceReads> trace_reads(std::string_view target, bool cu_mode = false) {
  const std::string_view processor = target.substr(0, target.find(':'));
  for (const TraceReadFamily& family : kTraceReadFamilies) {
    for (const std::string_view name : family.processors) {
      if (name.empty() || name != processor) continue;
      TraceReads reads = family.reads;
      if (cu_mode && reads.unit == TraceUnit::kWorkgroupProcessor) {
        reads.fields[reads.field_count++] = detail::kRdnaCuOfWgp;
        reads.unit = TraceUnit::kComputeUnit;
      }
      return reads;
    }
  }
  return std::nullopt;
}

/// The unit id of a wave whose fields read \p values (in the order of \p reads.fields): each
/// value cut to its field's width, packed high to low.
constexpr unsigned pack_unit_id(const TraceReads& reads,
                                const std::array<unsigned, kMaxUnitFields>& values) {
  unsigned id = 0;
  for (std::size_t i = 0; i < reads.field_count; ++i) {
    const unsigned width = reads.fields[i].width;
    id = id << width | (values[i] & ((1u << width) - 1));
  }
  return id;
}

/// The known processors, for messages: "gfx900, gfx902, ...".
inline std::string known_processors() {
  std::string list;
  for (const TraceReadFamily& family : kTraceReadFamilies) {
    for (const std::string_view name : family.processors) {
      if (name.empty()) continue;
      if (!list.empty()) list += ", ";
      list += name;
    }
  }
  return list;
}

/// One line for configure and the code-object check: "clock s_memrealtime, unit
/// XCC(4).SE(3).SH(1).CU(4), one id per CU".
inline std::string describe(const TraceReads& reads) {
  std::string text = reads.clock == ClockRead::kSMemRealtime
                         ? "clock s_memrealtime"
                         : "clock s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME";
  text += ", unit ";
  for (std::size_t i = 0; i < reads.field_count; ++i) {
    if (i > 0) text += '.';
    text += std::string(reads.fields[i].name) + "(" + std::to_string(reads.fields[i].width) + ")";
  }
  text += reads.unit == TraceUnit::kComputeUnit ? ", one id per CU" : ", one id per WGP";
  return text;
}

}  // namespace hip_lessons::amd
