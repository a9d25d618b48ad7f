// The device fingerprint keys every stored pick and chooses a cost model, so two CPUs that a
// hypervisor names alike must still differ in it where their microarchitectures do.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "gemmtune/device.h"

namespace gemmtune {
namespace {

DeviceInfo emerald_rapids_vm() {
  DeviceInfo device;
  device.kind = DeviceKind::cpu;
  device.name = "cpu";
  device.cpu.model = "Intel(R) Xeon(R) Processor";
  device.cpu.family = 6;
  device.cpu.model_number = 207;
  device.cpu.sse42 = device.cpu.avx2 = device.cpu.fma = device.cpu.f16c = true;
  device.cpu.logical_cores = device.cpu.physical_cores = 2;
  device.cpu.l2_bytes = 2 << 20;
  return device;
}

// Emerald Rapids (6/207) and Granite Rapids (6/173, 6/167 under KVM) have one name, features,
// thread count and L2 on the development VMs: only cpuid's model sets them apart.
TEST(DeviceFingerprint, TwoCpuModelsOfOneNameAndClassDiffer) {
  const DeviceInfo emerald = emerald_rapids_vm();
  DeviceInfo granite = emerald;
  granite.cpu.model_number = 167;
  EXPECT_EQ(emerald.device_class(), granite.device_class()) << "one class: their configs and ranks carry over";
  EXPECT_NE(emerald.fingerprint(), granite.fingerprint());
  EXPECT_NE(emerald.fingerprint().find("|family=6,model=207|"), std::string::npos) << emerald.fingerprint();
  DeviceInfo other_family = emerald;
  other_family.cpu.family = 25;
  EXPECT_NE(emerald.fingerprint(), other_family.fingerprint());
}

// The fields the rest of gemmtune reads from a fingerprint keep their places: the name second
// and the L2 last (device_features reads "|l2=").
TEST(DeviceFingerprint, KeepsTheNameFirstAndTheL2Last) {
  const std::string fingerprint = emerald_rapids_vm().fingerprint();
  EXPECT_EQ(fingerprint.rfind("cpu|Intel(R) Xeon(R) Processor|", 0), 0u) << fingerprint;
  EXPECT_TRUE(fingerprint.ends_with("|2t|l2=2048K")) << fingerprint;
  EXPECT_EQ(fingerprint, emerald_rapids_vm().fingerprint()) << "the same machine, the same fingerprint";
}

// The host's family and model are the ones Linux reports (/proc/cpuinfo's "cpu family" and
// "model", decoded by the kernel from the same cpuid leaf): an independent reading.
TEST(DeviceFingerprint, TheHostsFamilyAndModelAreTheOnesLinuxReports) {
  std::ifstream in("/proc/cpuinfo");
  int family = -1, model = -1;
  for (std::string line; std::getline(in, line) && (family < 0 || model < 0);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    if (key == "cpu family") family = std::stoi(line.substr(colon + 1));
    if (key == "model") model = std::stoi(line.substr(colon + 1));
  }
  ASSERT_GT(family, 0) << "/proc/cpuinfo names no cpu family";
  ASSERT_GE(model, 0) << "/proc/cpuinfo names no model";
  const CpuInfo& host = host_cpu();
  EXPECT_EQ(host.family, family);
  EXPECT_EQ(host.model_number, model);
  const std::string fingerprint = (*find_device("cpu")).fingerprint();
  const std::string expected = "|family=" + std::to_string(family) + ",model=" + std::to_string(model) + "|";
  EXPECT_NE(fingerprint.find(expected), std::string::npos) << fingerprint;
}

}  // namespace
}  // namespace gemmtune
