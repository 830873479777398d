/// \file amd_disassembly.hpp
/// \brief Reads an AMD code object's disassembly and says which trace reads a kernel lacks.
///
/// The common.amd_trace_reads.<target> tests (ctest/check-amd-trace-reads.sh) disassemble every
/// built lesson's code object for one target with llvm-objdump -d --demangle, and this code
/// checks each function the project's traces depend on against amd_trace_reads.hpp's row for
/// that target:
///   - a traced kernel (one that takes a hip_lessons::BlockTrace) must read the constant-rate
///     clock with the row's instruction and every unit-id field with an s_getreg_b32 whose
///     hwreg(register, offset, width) covers the field;
///   - hip_lessons::read_constant_rate_clock (the clock calibration) must read the clock.
/// A clock folded to a constant (HIP 5.2's wall_clock64() on gfx11) has no clock instruction,
/// and a unit id from HIP 5.2's __smid() reads too few SE bits, no XCC, or register 4 where
/// gfx10 and later keep the ids in HW_ID1: each is reported by name.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "hip_lessons/amd_trace_reads.hpp"

namespace hip_lessons::amd {

/// One function of a disassembly: its (demangled) name and its instruction lines, comments cut.
struct DisassembledFunction {
  std::string name;
  std::vector<std::string> instructions;
};

/// Splits llvm-objdump -d output into functions: a line "<address> <name>:" opens one, and the
/// indented lines after it are its instructions ("s_memrealtime s[2:3]").
inline std::vector<DisassembledFunction> parse_disassembly(std::istream& text) {
  std::vector<DisassembledFunction> functions;
  std::string line;
  while (std::getline(text, line)) {
    const std::size_t open = line.find(" <");
    if (!line.empty() && line.back() == ':' && open != std::string::npos &&
        line.find_first_not_of("0123456789abcdef") == open && line[line.size() - 2] == '>') {
      functions.push_back({line.substr(open + 2, line.size() - open - 4), {}});
      continue;
    }
    if (functions.empty() || line.empty() || (line[0] != '\t' && line[0] != ' ')) continue;
    std::string instruction = line.substr(0, line.find("//"));
    const std::size_t first = instruction.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    instruction = instruction.substr(first, instruction.find_last_not_of(" \t") - first + 1);
    functions.back().instructions.push_back(instruction);
  }
  return functions;
}

/// The hwreg operand of an s_getreg_b32 line, as llvm-objdump prints it: hwreg(NAME) for the
/// whole register, hwreg(NAME, offset, width) for a field; NAME is a number where LLVM has no
/// name for that register on the target.
struct HwregOperand {
  std::string reg;
  unsigned offset = 0;
  unsigned width = 32;
};

/// The hwreg operand of \p instruction when it is an s_getreg_b32; nothing otherwise.
inline std::optional<HwregOperand> getreg_operand(const std::string& instruction) {
  if (instruction.rfind("s_getreg_b32 ", 0) != 0) return std::nullopt;
  const std::size_t open = instruction.find("hwreg(");
  if (open == std::string::npos) {
    // The raw simm16 (a disassembler that prints no hwreg()): id [5:0], offset [10:6],
    // width - 1 [15:11].
    const std::size_t comma = instruction.rfind(',');
    if (comma == std::string::npos) return std::nullopt;
    const std::string text = instruction.substr(instruction.find_first_not_of(' ', comma + 1));
    std::size_t used = 0;
    unsigned long value = 0;
    try {
      value = std::stoul(text, &used, 0);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (used != text.size() || value > 0xffff) return std::nullopt;
    return HwregOperand{std::to_string(value & 63), static_cast<unsigned>(value >> 6 & 31),
                        static_cast<unsigned>((value >> 11 & 31) + 1)};
  }
  const std::size_t close = instruction.find(')', open);
  if (close == std::string::npos) return std::nullopt;
  std::vector<std::string> arguments(1);
  for (const char c : instruction.substr(open + 6, close - open - 6)) {
    if (c == ',') {
      arguments.emplace_back();
    } else if (c != ' ') {
      arguments.back() += c;
    }
  }
  HwregOperand operand{arguments[0]};
  if (arguments.size() == 3) {
    try {
      operand.offset = static_cast<unsigned>(std::stoul(arguments[1]));
      operand.width = static_cast<unsigned>(std::stoul(arguments[2]));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  } else if (arguments.size() != 1) {
    return std::nullopt;
  }
  return operand;
}

/// Whether \p operand reads all of \p field (the same register, by name or number, and a bit
/// range that contains the field's). A name may carry gfx12's WAVE_ prefix: LLVM 19 prints
/// HW_REG_HW_ID1 on gfx1201, later LLVM HW_REG_WAVE_HW_ID1 (its gfx1200 MC tests print
/// HW_REG_MODE as HW_REG_WAVE_MODE), both the encoding 23.
inline bool covers(const HwregOperand& operand, const RegisterField& field) {
  const std::string name = field.hwreg_name;
  const std::string prefix = "HW_REG_";
  const std::string wave_name =
      name.rfind(prefix, 0) == 0 ? prefix + "WAVE_" + name.substr(prefix.size()) : name;
  const bool same_register =
      operand.reg == name || operand.reg == wave_name || operand.reg == std::to_string(field.hwreg);
  return same_register && operand.offset <= field.offset &&
         operand.offset + operand.width >= field.offset + field.width;
}

/// Whether \p instruction reads the constant-rate clock the way \p clock says.
inline bool reads_clock(const std::string& instruction, ClockRead clock) {
  if (clock == ClockRead::kSMemRealtime) return instruction.rfind("s_memrealtime ", 0) == 0;
  return instruction.rfind("s_sendmsg_rtn_b64 ", 0) == 0 &&
         (instruction.find("sendmsg(MSG_RTN_GET_REALTIME)") != std::string::npos ||
          instruction.find("sendmsg(" + std::to_string(kRealtimeMessage) + ")") !=
              std::string::npos);
}

/// What a function must read (see the file comment).
enum class Expectation { kNothing, kClock, kClockAndUnit };

/// What the function named \p demangled_name must read.
inline Expectation expectation_for(const std::string& demangled_name) {
  if (demangled_name.find("hip_lessons::BlockTrace") != std::string::npos)
    return Expectation::kClockAndUnit;
  if (demangled_name.find("hip_lessons::read_constant_rate_clock<") != std::string::npos)
    return Expectation::kClock;
  return Expectation::kNothing;
}

/// What \p function lacks of what \p expectation asks on a target whose row is \p reads, one
/// entry per missing read ("no clock read (s_memrealtime)", "SE not read: needs
/// hwreg(HW_REG_HW_ID, 13, 3)"); empty when nothing is missing.
inline std::vector<std::string> missing_reads(const DisassembledFunction& function,
                                              const TraceReads& reads, Expectation expectation) {
  std::vector<std::string> missing;
  if (expectation == Expectation::kNothing) return missing;
  bool clock = false;
  std::vector<HwregOperand> getregs;
  for (const std::string& instruction : function.instructions) {
    clock = clock || reads_clock(instruction, reads.clock);
    if (const auto operand = getreg_operand(instruction)) getregs.push_back(*operand);
  }
  if (!clock) {
    missing.push_back(reads.clock == ClockRead::kSMemRealtime
                          ? "no clock read (s_memrealtime)"
                          : "no clock read (s_sendmsg_rtn_b64 ... sendmsg(MSG_RTN_GET_REALTIME))");
  }
  if (expectation != Expectation::kClockAndUnit) return missing;
  for (std::size_t i = 0; i < reads.field_count; ++i) {
    const RegisterField& field = reads.fields[i];
    bool read = false;
    for (const HwregOperand& operand : getregs) read = read || covers(operand, field);
    if (!read) {
      missing.push_back(std::string(field.name) + " not read: needs hwreg(" + field.hwreg_name +
                        ", " + std::to_string(field.offset) + ", " + std::to_string(field.width) +
                        ")");
    }
  }
  return missing;
}

}  // namespace hip_lessons::amd
