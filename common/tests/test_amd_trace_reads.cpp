/// Unit tests of amd_trace_reads.hpp: which clock and which hardware-id fields a trace reads on
/// each AMD target, the s_getreg_b32 operands they encode to, and the packed unit id.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "hip_lessons/amd_trace_reads.hpp"

namespace amd = hip_lessons::amd;

namespace {

// The field of \p reads named \p name (the test fails when there is none).
amd::RegisterField field(const amd::TraceReads& reads, const std::string& name) {
  for (std::size_t i = 0; i < reads.field_count; ++i) {
    if (name == reads.fields[i].name) return reads.fields[i];
  }
  ADD_FAILURE() << "no field " << name;
  return {};
}

}  // namespace

TEST(AmdTraceReads, EveryProjectTargetHasARow) {
  for (const char* target :
       {"gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1201"}) {
    EXPECT_TRUE(amd::trace_reads(target).has_value()) << target;
  }
}

TEST(AmdTraceReads, UnknownTargetsHaveNone) {
  EXPECT_FALSE(amd::trace_reads("gfx803").has_value());  // GCN3: no row, a compile error
  EXPECT_FALSE(amd::trace_reads("gfx94").has_value());   // a prefix is not a target
  EXPECT_FALSE(amd::trace_reads("gfx9420").has_value());
  EXPECT_FALSE(amd::trace_reads("").has_value());
  EXPECT_FALSE(amd::trace_reads("sm_90").has_value());
}

TEST(AmdTraceReads, TargetIdFeaturesAreIgnored) {
  const auto reads = amd::trace_reads("gfx90a:sramecc+:xnack-");
  ASSERT_TRUE(reads.has_value());
  EXPECT_STREQ(reads->family, "gfx9 (CDNA1, CDNA2)");
}

// The clock: s_memrealtime where the ISA has it, the realtime message from gfx11 on.
TEST(AmdTraceReads, ClockInstructionPerGeneration) {
  for (const char* target : {"gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030"}) {
    EXPECT_EQ(amd::trace_reads(target)->clock, amd::ClockRead::kSMemRealtime) << target;
  }
  for (const char* target : {"gfx1100", "gfx1151", "gfx1200", "gfx1201"}) {
    EXPECT_EQ(amd::trace_reads(target)->clock, amd::ClockRead::kRealtimeMessage) << target;
  }
}

// The SE field is as wide as the ISA's: 2 bits on Vega, 3 where a die has 8 SEs (MI100, MI200)
// and on CDNA3, 2 on RDNA2, 3 on RDNA3/RDNA4.
TEST(AmdTraceReads, ShaderEngineWidths) {
  EXPECT_EQ(field(*amd::trace_reads("gfx906"), "SE").width, 2u);
  EXPECT_EQ(field(*amd::trace_reads("gfx908"), "SE").width, 3u);
  EXPECT_EQ(field(*amd::trace_reads("gfx90a"), "SE").width, 3u);
  EXPECT_EQ(field(*amd::trace_reads("gfx942"), "SE").width, 3u);
  EXPECT_EQ(field(*amd::trace_reads("gfx1030"), "SE").width, 2u);
  EXPECT_EQ(field(*amd::trace_reads("gfx1100"), "SE").width, 3u);
  EXPECT_EQ(field(*amd::trace_reads("gfx1201"), "SE").width, 3u);
}

TEST(AmdTraceReads, FieldsPerGeneration) {
  const auto names = [](const char* target, bool cu_mode = false) {
    const auto reads = amd::trace_reads(target, cu_mode);
    std::string list;
    for (std::size_t i = 0; i < reads->field_count; ++i)
      list += std::string(reads->fields[i].name) + ".";
    return list;
  };
  EXPECT_EQ(names("gfx906"), "SE.SH.CU.");
  EXPECT_EQ(names("gfx90a"), "SE.SH.CU.");
  EXPECT_EQ(names("gfx942"), "XCC.SE.SH.CU.");
  EXPECT_EQ(names("gfx950"), "XCC.SE.SH.CU.");
  EXPECT_EQ(names("gfx1030"), "SE.SA.WGP.");
  EXPECT_EQ(names("gfx1100"), "SE.SA.WGP.");
  EXPECT_EQ(names("gfx1201"), "SE.SA.WGP.");
  EXPECT_EQ(names("gfx1100", true), "SE.SA.WGP.CU.");  // CU mode: the CU within the WGP
  EXPECT_EQ(names("gfx90a", true), "SE.SH.CU.");       // gfx9 is always one CU per id
}

TEST(AmdTraceReads, UnitIsACuOnGfx9AndAWgpOnRdnaInWgpMode) {
  EXPECT_EQ(amd::trace_reads("gfx906")->unit, amd::TraceUnit::kComputeUnit);
  EXPECT_EQ(amd::trace_reads("gfx942")->unit, amd::TraceUnit::kComputeUnit);
  EXPECT_EQ(amd::trace_reads("gfx1100")->unit, amd::TraceUnit::kWorkgroupProcessor);
  EXPECT_EQ(amd::trace_reads("gfx1100", true)->unit, amd::TraceUnit::kComputeUnit);
}

// The s_getreg_b32 operands, against the encodings llvm-mc 19.1.7 gives for
// "s_getreg_b32 s0, hwreg(...)": bytes 0-1 of the instruction word, little-endian.
TEST(AmdTraceReads, GetregOperandsMatchTheAssembler) {
  EXPECT_EQ(field(*amd::trace_reads("gfx90a"), "SE").getreg_operand(), 0x1344u);   // HW_ID 13,3
  EXPECT_EQ(field(*amd::trace_reads("gfx942"), "XCC").getreg_operand(), 0x1814u);  // XCC_ID 0,4
  EXPECT_EQ(field(*amd::trace_reads("gfx1100"), "SE").getreg_operand(), 0x1497u);  // HW_ID1 18,3
  EXPECT_EQ(field(*amd::trace_reads("gfx1030"), "SE").getreg_operand(), 0x0c97u);  // HW_ID1 18,2
  EXPECT_EQ(field(*amd::trace_reads("gfx906"), "CU").getreg_operand(), 0x1a04u);   // HW_ID 8,4
}

// Within one register the fields of a row do not overlap, and all fit in 32 bits.
TEST(AmdTraceReads, FieldsOfARegisterDoNotOverlap) {
  for (const char* target : {"gfx906", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201"}) {
    for (const bool cu_mode : {false, true}) {
      const auto reads = *amd::trace_reads(target, cu_mode);
      unsigned long long used[64] = {};
      unsigned packed_bits = 0;
      for (std::size_t i = 0; i < reads.field_count; ++i) {
        const auto& f = reads.fields[i];
        const unsigned long long bits = ((1ull << f.width) - 1) << f.offset;
        EXPECT_EQ(used[f.hwreg] & bits, 0u) << target << " " << f.name;
        EXPECT_LE(f.offset + f.width, 32u) << target << " " << f.name;
        used[f.hwreg] |= bits;
        packed_bits += f.width;
      }
      EXPECT_LE(packed_bits, 32u) << target;
    }
  }
}

// One id per unit across the whole device: every combination of field values packs to its own
// id (gfx942: 16 XCC x 8 SE x 2 SH x 16 CU values), and a value wider than its field is cut.
TEST(AmdTraceReads, PackedIdsAreUniqueAcrossXccsAndShaderEngines) {
  const auto reads = *amd::trace_reads("gfx942");
  std::set<unsigned> ids;
  for (unsigned xcc = 0; xcc < 16; ++xcc)
    for (unsigned se = 0; se < 8; ++se)
      for (unsigned sh = 0; sh < 2; ++sh)
        for (unsigned cu = 0; cu < 16; ++cu)
          ids.insert(amd::pack_unit_id(reads, {xcc, se, sh, cu}));
  EXPECT_EQ(ids.size(), 16u * 8 * 2 * 16);
  EXPECT_EQ(amd::pack_unit_id(reads, {3, 2, 0, 7}), (3u << 8) | (2u << 5) | (0u << 4) | 7u);
  EXPECT_EQ(amd::pack_unit_id(reads, {0, 0, 0, 0x1f}), 0xfu);
}

// SE 4-7 of an MI210 are their own units (HIP 5.2's __smid() folds them onto SE 0-3).
TEST(AmdTraceReads, EightShaderEnginesDoNotAlias) {
  const auto reads = *amd::trace_reads("gfx90a");
  EXPECT_NE(amd::pack_unit_id(reads, {4, 0, 3}), amd::pack_unit_id(reads, {0, 0, 3}));
  EXPECT_NE(amd::pack_unit_id(reads, {1, 1, 3}), amd::pack_unit_id(reads, {1, 0, 3}));
}

TEST(AmdTraceReads, Describe) {
  EXPECT_EQ(amd::describe(*amd::trace_reads("gfx942")),
            "clock s_memrealtime, unit XCC(4).SE(3).SH(1).CU(4), one id per CU");
  EXPECT_EQ(
      amd::describe(*amd::trace_reads("gfx1100")),
      "clock s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME, unit SE(3).SA(1).WGP(4), one id per WGP");
  EXPECT_NE(amd::known_processors().find("gfx906, "), std::string::npos);
  EXPECT_NE(amd::known_processors().find("gfx1201"), std::string::npos);
}
