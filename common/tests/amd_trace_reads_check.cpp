// hip_lessons_amd_trace_reads_check TARGET DISASSEMBLY...
//
// Checks the llvm-objdump -d --demangle listings of one AMD target's code objects (one file per
// code object, written by ctest/check-amd-trace-reads.sh) against what amd_trace_reads.hpp says
// traces read on that target (amd_disassembly.hpp has the rules). Prints one line per function
// checked and a summary. Exit 0 when every traced kernel reads the clock and its unit id, 1 when
// one does not, when a listing cannot be read or when no function was checked at all (a check
// that saw nothing must not pass), 2 on bad usage or a target the table does not know.
#include <fstream>
#include <iostream>
#include <string>

#include "amd_disassembly.hpp"

namespace amd = hip_lessons::amd;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: hip_lessons_amd_trace_reads_check TARGET DISASSEMBLY...\n";
    return 2;
  }
  const std::string target = argv[1];
  const auto reads = amd::trace_reads(target);
  if (!reads) {
    std::cerr << "error: the AMD target '" << target << "' has no row in amd_trace_reads.hpp; "
              << "known: " << amd::known_processors() << "\n";
    return 2;
  }
  int checked = 0;
  int failed = 0;
  for (int i = 2; i < argc; ++i) {
    std::ifstream file(argv[i]);
    if (!file) {
      std::cerr << "error: cannot read " << argv[i] << "\n";
      return 1;
    }
    for (const amd::DisassembledFunction& function : amd::parse_disassembly(file)) {
      const amd::Expectation expectation = amd::expectation_for(function.name);
      if (expectation == amd::Expectation::kNothing) continue;
      ++checked;
      const auto missing = amd::missing_reads(function, *reads, expectation);
      if (missing.empty()) {
        std::cout << "ok    " << target << " " << argv[i] << ": " << function.name << "\n";
        continue;
      }
      ++failed;
      std::cout << "FAIL  " << target << " " << argv[i] << ": " << function.name << ":";
      for (const std::string& what : missing) std::cout << " " << what << ";";
      std::cout << "\n";
    }
  }
  std::cout << target << ": " << checked << " functions checked, " << failed
            << " lack a trace read; traces on " << reads->family << " read "
            << amd::describe(*reads) << "\n";
  if (checked == 0) {
    std::cerr << "error: no traced kernel (one taking a hip_lessons::BlockTrace) and no "
                 "read_constant_rate_clock in the listings: nothing was checked\n";
    return 1;
  }
  return failed == 0 ? 0 : 1;
}
