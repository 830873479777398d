/// \file tools/compiler_occupancy/compiler_occupancy_check.hip
/// \brief The compiler's occupancy model against the compiler: for every kernel of every lesson
/// (and the probes of compiler_occupancy_probes.hip) on one AMD target, the model fed the
/// resources the compiler reports must give the compiler's own answers.
///
///   tools_compiler_occupancy_check TARGET REMARKS ASM [REMARKS ASM ...]
///
/// REMARKS and ASM come from ctest/amd-kernel-resources.sh: clang's
/// -Rpass-analysis=kernel-resource-usage remarks and the assembly with its .amdgpu_metadata.
/// For each kernel it checks
///   - waves per SIMD: compiler_waves_per_simd() = the remark's "Occupancy [waves/SIMD]";
///   - blocks per CU at the kernel's largest block, for kernels without LDS: blocks_per_cu() at
///     LLVM 19's waves = SIMDs x that occupancy / waves per block (the compiler's per-SIMD
///     answer in the unit lesson 04 teaches);
///   - the VGPRs the runtime sees: unified_vgprs() = the metadata's .vgpr_count (AGPRs);
///   - the wavefront size: the architecture's = the metadata's .wavefront_size (wave32 on RDNA).
/// It prints the hardware's blocks at a 256-thread block (ROCm, trap handler on) and HIP 6.2's
/// answer beside them, without checking them (only a GPU can: lesson 04 checks HIP's). Exit 0
/// all agree, 1 a disagreement or nothing to check, 2 bad usage or an unreadable report.
#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "hip_lessons/format.hpp"
#include "hip_lessons/results.hpp"
#include "occupancy_models.hpp"

namespace {

namespace hl = hip_lessons;
namespace co = compiler_occupancy;

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One kernel as the compiler reported it.
struct Kernel {
  std::string source, symbol;
  co::KernelResources resources;
  int compiler_waves = -1;                   // "Occupancy [waves/SIMD]"
  int vgpr_count = -1, wavefront_size = -1;  // .amdgpu_metadata
  bool has_metadata = false;
};

std::string demangled(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !name) return symbol;
  std::string text = name.get();
  text = text.substr(0, text.find('('));
  if (text.rfind("void ", 0) == 0) text = text.substr(5);  // a template's return type
  return text;
}

int to_int(const std::string& text, const std::string& what) {
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw BadInput(hl::format("{}: '{}' is not an integer", what, text));
}

std::ifstream open(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw BadInput("cannot read " + path);
  return in;
}

// "f.hip:12:1: remark:     VGPRs: 24 [-Rpass-analysis=kernel-resource-usage]"
void read_remarks(const std::string& path, const std::string& source,
                  std::map<std::string, Kernel>& kernels) {
  static const std::regex line_form(R"(remark: +([^:]+): +(\S+) \[-Rpass-analysis)");
  std::ifstream in = open(path);
  Kernel* current = nullptr;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::smatch m;
    if (!std::regex_search(line, m, line_form)) continue;
    const std::string key = m[1], value = m[2], where = hl::format("{}:{}", path, number);
    if (key == "Function Name") {
      current = &kernels[value];
      current->source = source;
      current->symbol = value;
    } else if (current == nullptr) {
      throw BadInput(where + ": a resource remark before any 'Function Name'");
    } else if (key == "SGPRs") {
      current->resources.sgprs = to_int(value, where);
    } else if (key == "VGPRs") {
      current->resources.vgprs = to_int(value, where);
    } else if (key == "AGPRs") {
      current->resources.agprs = to_int(value, where);
    } else if (key == "LDS Size [bytes/block]") {
      current->resources.lds = static_cast<std::size_t>(to_int(value, where));
    } else if (key == "Occupancy [waves/SIMD]") {
      current->compiler_waves = to_int(value, where);
    }
  }
}

// The .amdgpu_metadata block: "  - .<first key>" starts a kernel ("  - .agpr_count: 0" on CDNA,
// "  - .args:" on RDNA), "    .name: _Z..." etc. follow at four spaces (deeper lines are its
// arguments).
void read_metadata(const std::string& path, std::map<std::string, Kernel>& kernels) {
  static const std::regex key_form(R"(^(  - |    )\.([a-z_]+): +(\S+)\s*$)");
  std::ifstream in = open(path);
  bool inside = false;
  std::map<std::string, std::string> fields;
  const auto finish = [&] {
    if (fields.count("name") == 0) return;
    const auto found = kernels.find(fields["name"]);
    if (found == kernels.end()) {
      throw BadInput(path + ": kernel " + fields["name"] + " has metadata but no remarks");
    }
    Kernel& k = found->second;
    k.has_metadata = true;
    k.resources.max_flat_workgroup_size =
        to_int(fields["max_flat_workgroup_size"], path + " .max_flat_workgroup_size");
    k.vgpr_count = to_int(fields["vgpr_count"], path + " .vgpr_count");
    k.wavefront_size = to_int(fields["wavefront_size"], path + " .wavefront_size");
    fields.clear();
  };
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(".end_amdgpu_metadata") != std::string::npos) {
      finish();
      inside = false;
      continue;
    }
    if (line.find(".amdgpu_metadata") != std::string::npos) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("  - .", 0) == 0) finish();  // the next kernel (its first key may be a list)
    std::smatch m;
    if (std::regex_match(line, m, key_form)) fields[m[2]] = m[3];
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 4 || argc % 2 != 0) {
      throw BadInput(hl::format("usage: {} TARGET REMARKS ASM [REMARKS ASM ...]", argv[0]));
    }
    const std::string target = argv[1];
    const co::AmdArch* arch = co::amd_arch(target);
    if (arch == nullptr) throw BadInput("the model has no rules for " + target);

    std::map<std::string, Kernel> kernels;
    for (int i = 2; i + 1 < argc; i += 2) {
      std::string source = argv[i];
      source = source.substr(source.find_last_of('/') + 1);
      source = source.substr(0, source.rfind('.'));
      std::map<std::string, Kernel> found;
      read_remarks(argv[i], source, found);
      read_metadata(argv[i + 1], found);
      // The same kernel (a shared header) in several sources is one kernel here.
      for (auto& [symbol, k] : found) kernels.emplace(symbol, std::move(k));
    }

    // HIP 6.2's runtime model, for the column it prints (nothing when that release has no
    // rule for the target; it does not depend on the CU count).
    std::string why_not;
    const std::optional<occupancy::IsaVersion> isa = occupancy::isa_version(target);
    std::optional<occupancy::VgprFile> file;
    if (isa) file = occupancy::hip_vgpr_file({6, 2}, *isa, arch->wave_size, why_not);
    std::optional<occupancy::HipAmdModel> hip62;
    if (file) hip62 = occupancy::HipAmdModel{*isa, arch->wave_size, *file};

    hl::ResultTable table(
        "compiler_occupancy." + target,
        hl::format("{} ({}): the compiler's answers and the model's", target, arch->gpus),
        {"kernel", "source", "SGPRs", "VGPRs", "AGPRs", "LDS bytes", "largest block",
         "waves/SIMD compiler", "waves/SIMD model", "blocks at largest, compiler",
         "blocks at largest, model", "hardware at 256", "HIP 6.2 at 256", "agree"});
    int checks = 0, failures = 0;
    std::string first_failure;
    for (const auto& [symbol, k] : kernels) {
      const std::string name = demangled(symbol);
      if (!k.has_metadata || k.compiler_waves < 0) {
        throw BadInput(name + " in " + k.source + ": no occupancy remark or no metadata");
      }
      const co::KernelResources& r = k.resources;
      const int largest = r.max_flat_workgroup_size;
      const int waves_per_block = co::ceil_div(largest, arch->wave_size);
      const int waves = co::compiler_waves_per_simd(*arch, r);
      std::optional<int> blocks_compiler, blocks_model;
      std::vector<std::string> wrong;
      if (waves != k.compiler_waves) wrong.push_back("waves per SIMD");
      if (r.lds == 0) {  // with LDS, SIMDs x waves / waves per block rounds differently
        blocks_compiler = arch->simds_per_cu * k.compiler_waves / waves_per_block;
        const int register_waves = std::min(co::waves_by_vgprs(*arch, co::unified_vgprs(*arch, r)),
                                            co::llvm19_waves_by_sgprs(*arch, r.sgprs));
        blocks_model = co::blocks_per_cu(*arch, r, largest, register_waves);
        if (*blocks_compiler != *blocks_model) wrong.push_back("blocks per CU");
        ++checks;
      }
      if (co::unified_vgprs(*arch, r) != k.vgpr_count) wrong.push_back(".vgpr_count");
      if (arch->wave_size != k.wavefront_size) wrong.push_back(".wavefront_size");
      checks += 3;
      std::string detail;
      for (const std::string& w : wrong) detail += (detail.empty() ? "" : ", ") + w;
      if (!wrong.empty() && failures++ == 0) {
        first_failure = hl::format("{} ({}): {}", name, k.source, detail);
      }
      const int block = std::min(256, largest);
      std::optional<int> hip;
      if (hip62)
        hip = co::hip_blocks_per_cu(*hip62, *arch, r, block, co::HipSgprCharge::kGranuleOnly);
      table.row({name, k.source, r.sgprs, r.vgprs, r.agprs, static_cast<std::int64_t>(r.lds),
                 largest, k.compiler_waves, waves, blocks_compiler, blocks_model,
                 co::hardware_blocks_per_cu(*arch, r, block), hip,
                 wrong.empty() ? std::string("yes") : "NO: " + detail});
    }
    table.print(std::cout);
    std::printf("%s: %zu kernels, %d checks, %d disagreements%s%s\n", target.c_str(),
                kernels.size(), checks, failures, failures ? "; first: " : "",
                first_failure.c_str());
    if (kernels.empty()) {
      std::printf("FAIL  no kernel was reported: nothing was checked\n");
      return 1;
    }
    return failures == 0 ? 0 : 1;
  } catch (const BadInput& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 2;
  }
}
