// Prints the table of docs/pages/amd_targets.md that says what a block trace reads on each AMD
// target, from amd_trace_reads.hpp (docs.amd_targets_tables.trace_reads compares the page with
// it; ctest/check_doc_tables.py --update writes it).
#include <cstdio>
#include <string>

#include "hip_lessons/amd_trace_reads.hpp"

namespace amd = hip_lessons::amd;

namespace {

// "SE HW_ID[15:13]": a field, its register as LLVM names it, and its bits.
std::string field_text(const amd::RegisterField& field) {
  std::string reg = field.hwreg_name;
  reg = reg.substr(reg.find("HW_REG_") == 0 ? 7 : 0);
  const unsigned high = field.offset + field.width - 1;
  return std::string(field.name) + " " + reg + "[" +
         (field.width == 1 ? std::to_string(high)
                           : std::to_string(high) + ":" + std::to_string(field.offset)) +
         "]";
}

}  // namespace

int main() {
  std::printf("<!-- generated: trace_reads -->\n");
  std::printf("| targets | clock | unit id, high to low: field register[bits] | one id per |\n");
  std::printf("|---|---|---|---|\n");
  for (const amd::TraceReadFamily& family : amd::kTraceReadFamilies) {
    std::string targets;
    for (const std::string_view name : family.processors) {
      if (name.empty()) continue;
      targets += (targets.empty() ? "" : ", ") + std::string(name);
    }
    const amd::TraceReads& reads = family.reads;
    std::string fields;
    for (std::size_t i = 0; i < reads.field_count; ++i) {
      fields += (i == 0 ? "" : " . ") + field_text(reads.fields[i]);
    }
    std::string unit = "CU";
    if (reads.unit == amd::TraceUnit::kWorkgroupProcessor) {
      const auto cu_mode = amd::trace_reads(family.processors[0], true);
      unit =
          "WGP; with -mcumode CU, adding " + field_text(cu_mode->fields[cu_mode->field_count - 1]);
    }
    std::printf("| %s | %s | %s | %s |\n", targets.c_str(),
                reads.clock == amd::ClockRead::kSMemRealtime
                    ? "`s_memrealtime`"
                    : "`s_sendmsg_rtn_b64` `MSG_RTN_GET_REALTIME`",
                fields.c_str(), unit.c_str());
  }
  std::printf("<!-- end: trace_reads -->\n");
  return 0;
}
