/// Unit tests of amd_disassembly.hpp, on listings cut from llvm-objdump 19.1.7 -d --demangle of
/// lesson 03's code objects: built with HIP 5.2's wall_clock64() and __smid() (what the check
/// must reject) and with the project's own reads (what it must accept).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "amd_disassembly.hpp"

namespace amd = hip_lessons::amd;

namespace {

// HIP 5.2's reads on gfx942: a real clock, but 2 SE bits and no XCC.
const char* const kHip52Gfx942 = R"(
build/amd/bin/lesson03.co:	file format elf64-amdgpu

Disassembly of section .text:

0000000000002e00 <void hip_lessons::read_constant_rate_clock<0>(long long*)>:
	s_memrealtime s[2:3]                                       // 000000002E00: C0940080 00000000
	s_endpgm                                                   // 000000002E28: BF810000
0000000000002f00 <void hip_lessons::spin_kernel<0>(double, double, long long*, hip_lessons::BlockTrace)>:
	s_memrealtime s[18:19]                                     // 000000002F5C: C0940480 00000000
	s_memrealtime s[0:1]                                       // 00000000304C: C0940000 00000000
	s_getreg_b32 s3, hwreg(HW_REG_HW_ID, 8, 4)                 // 000000003054: B8831A04
	s_getreg_b32 s4, hwreg(HW_REG_HW_ID, 13, 2)                // 000000003058: B8840B44
	s_endpgm                                                   // 0000000030A0: BF810000
)";

// HIP 5.2's reads on gfx1100: the clock folded to -1, the ids from register 4.
const char* const kHip52Gfx1100 = R"(
0000000000002c00 <void hip_lessons::read_constant_rate_clock<0>(long long*)>:
	v_mov_b32_e32 v0, -1                                       // 000000002C08: 7E0002C1
	s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)                       // 000000002C28: BFB60003
0000000000002d00 <void hip_lessons::spin_kernel<0>(double, double, long long*, hip_lessons::BlockTrace)>:
	s_getreg_b32 s0, hwreg(4, 8, 4)                            // 000000002DF8: B8801A04
	s_getreg_b32 s1, hwreg(4, 13, 2)                           // 000000002DFC: B8810B44
	s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)                       // 000000002E44: BFB60003
0000000000002900 <multi_stream::lcg_rounds(unsigned int const*, unsigned int*, unsigned long, unsigned int, unsigned int, unsigned int)>:
	s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)                       // 0000000029C0: BFB60003
)";

// The project's reads on gfx942 and gfx1100 (the clock and unit-id lines of the same kernel).
const char* const kOwnGfx942 = R"(
0000000000002f00 <void hip_lessons::spin_kernel<0>(double, double, long long*, hip_lessons::BlockTrace)>:
	s_memrealtime s[18:19]                                     // 000000002F5C: C0940480 00000000
	s_memrealtime s[0:1]                                       // 00000000304C: C0940000 00000000
	s_getreg_b32 s3, hwreg(HW_REG_XCC_ID, 0, 4)                // 000000003054: B8831814
	s_getreg_b32 s4, hwreg(HW_REG_HW_ID, 13, 3)                // 000000003058: B8841344
	s_getreg_b32 s5, hwreg(HW_REG_HW_ID, 12, 1)                // 000000003060: B8850304
	s_getreg_b32 s6, hwreg(HW_REG_HW_ID, 8, 4)                 // 000000003078: B8861A04
)";
const char* const kOwnGfx1100 = R"(
0000000000002e00 <void hip_lessons::spin_kernel<0>(double, double, long long*, hip_lessons::BlockTrace)>:
	s_sendmsg_rtn_b64 s[16:17], sendmsg(MSG_RTN_GET_REALTIME)  // 000000002E78: BE904D83
	s_sendmsg_rtn_b64 s[0:1], sendmsg(MSG_RTN_GET_REALTIME)    // 000000002F8C: BE804D83
	s_getreg_b32 s2, hwreg(HW_REG_HW_ID1, 18, 3)               // 000000002F90: B8821497
	s_getreg_b32 s3, hwreg(HW_REG_HW_ID1, 16, 1)               // 000000002F94: B8830417
	s_getreg_b32 s4, hwreg(HW_REG_HW_ID1, 10, 4)               // 000000002FA4: B8841A97
)";

std::vector<amd::DisassembledFunction> parse(const char* text) {
  std::istringstream stream(text);
  return amd::parse_disassembly(stream);
}

std::vector<std::string> missing(const amd::DisassembledFunction& function, const char* target) {
  return amd::missing_reads(function, *amd::trace_reads(target),
                            amd::expectation_for(function.name));
}

}  // namespace

TEST(AmdDisassembly, SplitsFunctionsAndCutsComments) {
  const auto functions = parse(kHip52Gfx942);
  ASSERT_EQ(functions.size(), 2u);
  EXPECT_EQ(functions[0].name, "void hip_lessons::read_constant_rate_clock<0>(long long*)");
  EXPECT_EQ(
      functions[1].name,
      "void hip_lessons::spin_kernel<0>(double, double, long long*, hip_lessons::BlockTrace)");
  ASSERT_EQ(functions[1].instructions.size(), 5u);
  EXPECT_EQ(functions[1].instructions[2], "s_getreg_b32 s3, hwreg(HW_REG_HW_ID, 8, 4)");
}

TEST(AmdDisassembly, GetregOperands) {
  const auto field = amd::getreg_operand("s_getreg_b32 s4, hwreg(HW_REG_HW_ID, 13, 2)");
  ASSERT_TRUE(field.has_value());
  EXPECT_EQ(field->reg, "HW_REG_HW_ID");
  EXPECT_EQ(field->offset, 13u);
  EXPECT_EQ(field->width, 2u);
  const auto whole = amd::getreg_operand("s_getreg_b32 s6, hwreg(HW_REG_HW_ID1)");
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->offset, 0u);
  EXPECT_EQ(whole->width, 32u);
  EXPECT_EQ(amd::getreg_operand("s_getreg_b32 s0, hwreg(4, 8, 4)")->reg, "4");
  EXPECT_FALSE(amd::getreg_operand("s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0").has_value());
  EXPECT_FALSE(amd::getreg_operand("s_getreg_b32 s0, hwreg(HW_REG_HW_ID, x, 4)").has_value());
}

TEST(AmdDisassembly, ReadCoversAFieldOnlyWithTheWholeRangeOfTheSameRegister) {
  const auto se = amd::trace_reads("gfx90a")->fields[0];  // HW_ID [15:13]
  EXPECT_TRUE(amd::covers({"HW_REG_HW_ID", 13, 3}, se));
  EXPECT_TRUE(amd::covers({"HW_REG_HW_ID", 0, 32}, se));
  EXPECT_TRUE(amd::covers({"4", 13, 3}, se));
  EXPECT_FALSE(amd::covers({"HW_REG_HW_ID", 13, 2}, se));  // HIP 5.2: SE 4-7 alias 0-3
  EXPECT_FALSE(amd::covers({"HW_REG_HW_ID", 14, 3}, se));
  EXPECT_FALSE(amd::covers({"HW_REG_HW_ID1", 13, 3}, se));
}

// gfx12's two spellings of HW_ID1 (LLVM 19: HW_REG_HW_ID1; later LLVM: HW_REG_WAVE_HW_ID1) and
// the raw simm16 both name the register the SE field lives in.
TEST(AmdDisassembly, Gfx12HwregSpellings) {
  const auto se = amd::trace_reads("gfx1201")->fields[0];  // HW_ID1 [20:18]
  EXPECT_TRUE(
      amd::covers(*amd::getreg_operand("s_getreg_b32 s3, hwreg(HW_REG_HW_ID1, 18, 3)"), se));
  EXPECT_TRUE(
      amd::covers(*amd::getreg_operand("s_getreg_b32 s3, hwreg(HW_REG_WAVE_HW_ID1, 18, 3)"), se));
  EXPECT_FALSE(
      amd::covers(*amd::getreg_operand("s_getreg_b32 s3, hwreg(HW_REG_WAVE_HW_ID2, 18, 3)"), se));
  const auto raw = amd::getreg_operand("s_getreg_b32 s3, 0x1497");
  ASSERT_TRUE(raw.has_value());
  EXPECT_EQ(raw->reg, "23");
  EXPECT_EQ(raw->offset, 18u);
  EXPECT_EQ(raw->width, 3u);
  EXPECT_TRUE(amd::covers(*raw, se));
  EXPECT_EQ(raw->reg, std::to_string(se.hwreg));
  EXPECT_FALSE(amd::covers(*amd::getreg_operand("s_getreg_b32 s3, 0x1097"), se));  // HW_ID1 2,3
  EXPECT_FALSE(amd::getreg_operand("s_getreg_b32 s3, s4").has_value());
}

TEST(AmdDisassembly, ClockInstructions) {
  EXPECT_TRUE(amd::reads_clock("s_memrealtime s[2:3]", amd::ClockRead::kSMemRealtime));
  EXPECT_FALSE(amd::reads_clock("s_memtime s[2:3]", amd::ClockRead::kSMemRealtime));
  EXPECT_TRUE(amd::reads_clock("s_sendmsg_rtn_b64 s[4:5], sendmsg(MSG_RTN_GET_REALTIME)",
                               amd::ClockRead::kRealtimeMessage));
  EXPECT_TRUE(
      amd::reads_clock("s_sendmsg_rtn_b64 s[4:5], sendmsg(131)", amd::ClockRead::kRealtimeMessage));
  EXPECT_FALSE(amd::reads_clock("s_sendmsg_rtn_b64 s[4:5], sendmsg(MSG_RTN_GET_DOORBELL)",
                                amd::ClockRead::kRealtimeMessage));
  EXPECT_FALSE(amd::reads_clock("s_memrealtime s[2:3]", amd::ClockRead::kRealtimeMessage));
}

TEST(AmdDisassembly, WhatIsChecked) {
  EXPECT_EQ(amd::expectation_for("void hip_lessons::spin_kernel<0>(double, double, long long*, "
                                 "hip_lessons::BlockTrace)"),
            amd::Expectation::kClockAndUnit);
  EXPECT_EQ(amd::expectation_for("void hip_lessons::read_constant_rate_clock<0>(long long*)"),
            amd::Expectation::kClock);
  EXPECT_EQ(amd::expectation_for("multi_stream::lcg_rounds(unsigned int const*, unsigned int*)"),
            amd::Expectation::kNothing);
}

TEST(AmdDisassembly, Hip52UnitIdOnGfx942LacksTheXccAnSeBitAndTheShaderArray) {
  const auto functions = parse(kHip52Gfx942);
  EXPECT_TRUE(missing(functions[0], "gfx942").empty());
  const auto lacks = missing(functions[1], "gfx942");
  ASSERT_EQ(lacks.size(), 3u);
  EXPECT_EQ(lacks[0], "XCC not read: needs hwreg(HW_REG_XCC_ID, 0, 4)");
  EXPECT_EQ(lacks[1], "SE not read: needs hwreg(HW_REG_HW_ID, 13, 3)");
  EXPECT_EQ(lacks[2], "SH not read: needs hwreg(HW_REG_HW_ID, 12, 1)");
}

TEST(AmdDisassembly, Hip52OnGfx1100HasNoClockAndReadsRegister4) {
  const auto functions = parse(kHip52Gfx1100);
  ASSERT_EQ(functions.size(), 3u);
  const auto clock = missing(functions[0], "gfx1100");
  ASSERT_EQ(clock.size(), 1u);
  EXPECT_EQ(clock[0], "no clock read (s_sendmsg_rtn_b64 ... sendmsg(MSG_RTN_GET_REALTIME))");
  const auto traced = missing(functions[1], "gfx1100");
  ASSERT_EQ(traced.size(), 4u);  // the clock, SE, SA and WGP
  EXPECT_EQ(traced[3], "WGP not read: needs hwreg(HW_REG_HW_ID1, 10, 4)");
  EXPECT_TRUE(missing(functions[2], "gfx1100").empty());  // not traced: nothing asked
}

TEST(AmdDisassembly, OwnReadsPass) {
  EXPECT_TRUE(missing(parse(kOwnGfx942)[0], "gfx942").empty());
  EXPECT_TRUE(missing(parse(kOwnGfx1100)[0], "gfx1100").empty());
}

// A listing is checked against its own target's row: gfx1030 reads the clock with
// s_memrealtime, so gfx1100's code (the realtime message) lacks it there.
TEST(AmdDisassembly, AListingIsCheckedAgainstItsTargetsRow) {
  const auto lacks = missing(parse(kOwnGfx1100)[0], "gfx1030");
  ASSERT_EQ(lacks.size(), 1u);
  EXPECT_EQ(lacks[0], "no clock read (s_memrealtime)");
}
