// Host CPU detection: features from cpuid (through GCC's builtins), model and core counts from
// /proc/cpuinfo, cache sizes from /sys. GEMMTUNE_CPU_ISA caps the vector ISA so the AVX2 and
// generic kernels (and AVX-512 without its bf16 and int8 dot products) can be exercised on an
// AVX-512 machine.
#include <cpuid.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "usable_cpus.h"

namespace gemmtune {
namespace {

std::int64_t read_cache_size(int index) {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
  std::string text;
  if (!(in >> text) || text.empty()) return 0;
  std::int64_t value = std::atoll(text.c_str());
  if (text.back() == 'K') value <<= 10;
  if (text.back() == 'M') value <<= 20;
  return value;
}

std::string read_cache_type(int index, const char* file) {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/" + file);
  std::string text;
  in >> text;
  return text;
}

void read_caches(CpuInfo& cpu) {
  for (int index = 0; index < 8; ++index) {
    const std::string level = read_cache_type(index, "level");
    const std::string type = read_cache_type(index, "type");
    const std::int64_t size = read_cache_size(index);
    if (level.empty() || size == 0) continue;
    if (level == "1" && type == "Data") cpu.l1d_bytes = size;
    if (level == "2") cpu.l2_bytes = size;
    if (level == "3") cpu.l3_bytes = size;
  }
}

void read_proc_cpuinfo(CpuInfo& cpu) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::string physical_id;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && cpu.model.empty()) cpu.model = value;
    if (key == "physical id") physical_id = value;
    if (key == "core id") cores.insert({physical_id, value});
  }
  if (!cores.empty()) cpu.physical_cores = int(cores.size());
}

// The display family and model of cpuid leaf 1 (Intel's and AMD's manuals): the extended family
// adds to a base family of 15, and the extended model extends the model of families 6 and 15 up.
void read_family_and_model(CpuInfo& cpu) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return;
  const int base_family = int((eax >> 8) & 0xf);
  const int base_model = int((eax >> 4) & 0xf);
  cpu.family = base_family == 15 ? base_family + int((eax >> 20) & 0xff) : base_family;
  cpu.model_number = base_family == 6 || base_family == 15 ? base_model + (int((eax >> 16) & 0xf) << 4) : base_model;
}

CpuInfo detect() {
  CpuInfo cpu;
  __builtin_cpu_init();
  read_family_and_model(cpu);
  cpu.sse42 = __builtin_cpu_supports("sse4.2");
  cpu.avx2 = __builtin_cpu_supports("avx2");
  cpu.fma = __builtin_cpu_supports("fma");
  cpu.avx512f = __builtin_cpu_supports("avx512f");
  cpu.avx512bw = __builtin_cpu_supports("avx512bw");
  cpu.avx512vl = __builtin_cpu_supports("avx512vl");
  cpu.avx512_bf16 = __builtin_cpu_supports("avx512bf16");
  cpu.avx512_vnni = __builtin_cpu_supports("avx512vnni");
  cpu.avx512_fp16 = __builtin_cpu_supports("avx512fp16");
  // f16c has no builtin name in GCC 12; read it from /proc/cpuinfo's flags with the rest.
  {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("flags", 0) == 0) {
        cpu.f16c = line.find(" f16c") != std::string::npos;
        break;
      }
    }
  }
  cpu.logical_cores = usable_cpus();
  cpu.physical_cores = cpu.logical_cores;
  read_proc_cpuinfo(cpu);
  read_caches(cpu);
  if (cpu.model.empty()) cpu.model = "unknown";

  if (const char* cap = std::getenv("GEMMTUNE_CPU_ISA"); cap != nullptr && *cap != '\0') {
    cpu.isa_cap = cap;
    if (const int isa = cpu_isa_from_name(cpu.isa_cap); isa >= 0) cpu.cap_isa(isa);
  }
  return cpu;
}

}  // namespace

void CpuInfo::cap_isa(int isa) {
  if (isa < 2) {
    avx512f = avx512bw = avx512vl = false;
    avx512_bf16 = avx512_vnni = avx512_fp16 = false;
  }
  if (isa == 2) avx512_bf16 = avx512_vnni = avx512_fp16 = false;
  if (isa == 3) avx512_bf16 = avx512_fp16 = false;
  if (isa == 0) avx2 = fma = false;
}

int CpuInfo::best_isa() const {
  if (avx512f && avx512bw && avx512vl && fma) {
    if (avx512_vnni && avx512_bf16) return 4;
    return avx512_vnni ? 3 : 2;
  }
  if (avx2 && fma) return 1;
  return 0;
}

std::vector<std::string> CpuInfo::feature_names() const {
  std::vector<std::string> names;
  auto add = [&](bool present, const char* name) {
    if (present) names.emplace_back(name);
  };
  add(sse42, "sse4.2");
  add(avx2, "avx2");
  add(fma, "fma");
  add(f16c, "f16c");
  add(avx512f, "avx512f");
  add(avx512bw, "avx512bw");
  add(avx512vl, "avx512vl");
  add(avx512_bf16, "avx512_bf16");
  add(avx512_vnni, "avx512_vnni");
  add(avx512_fp16, "avx512_fp16");
  return names;
}

const CpuInfo& host_cpu() {
  static const CpuInfo cpu = detect();
  return cpu;
}

std::string CudaInfo::arch() const {
  const std::string base = "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
  return cc_major == 9 && cc_minor == 0 ? base + "a" : base;
}

std::string DeviceInfo::fingerprint() const {
  std::ostringstream out;
  if (kind == DeviceKind::cuda) {
    out << "cuda|" << cuda.name << "|sm" << cuda.cc_major << cuda.cc_minor << '|' << cuda.sm_count << "sms|drv"
        << cuda.driver_version << "|rt" << cuda.runtime_version << "|nvrtc" << cuda.nvrtc_major << '.'
        << cuda.nvrtc_minor;
    return out.str();
  }
  // Family and model after the name: two generations behind one name (Emerald and Granite Rapids
  // under KVM) must not share stored picks or a cost model.
  out << "cpu|" << cpu.model << "|family=" << cpu.family << ",model=" << cpu.model_number << '|';
  for (const std::string& feature : cpu.feature_names()) out << feature << ',';
  out << '|' << cpu.logical_cores << "t|l2=" << (cpu.l2_bytes >> 10) << "K";
  return out.str();
}

Result<DeviceInfo> find_device(const std::string& name) {
  if (name == "cpu") {
    // A cap that names no level would silently leave the kernels uncapped.
    if (const std::string& cap = host_cpu().isa_cap; !cap.empty()) {
      if (cpu_isa_from_name(cap) < 0) {
        return invalid_argument("GEMMTUNE_CPU_ISA='" + cap +
                                "' is not one of generic, avx2, avx512, avx512_vnni, avx512_bf16");
      }
    }
    DeviceInfo device;
    device.kind = DeviceKind::cpu;
    device.name = "cpu";
    device.cpu = host_cpu();
    return device;
  }
  if (name == "cuda" || name.rfind("cuda:", 0) == 0) {
    int index = 0;
    if (name.size() > 5) {
      const std::string digits = name.substr(5);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 4) {
        return not_found("unknown device '" + name + "' (expected cpu or cuda[:N])");
      }
      index = std::stoi(digits);
    }
    return detect_cuda_device(index);
  }
  return not_found("unknown device '" + name + "' (expected cpu or cuda[:N])");
}

}  // namespace gemmtune
