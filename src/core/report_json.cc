#include "gemmtune/report_json.h"

#include <nlohmann/json.hpp>

namespace gemmtune {
namespace {

nlohmann::json problem_object(const Problem& p) {
  return {{"m", p.m()},
          {"n", p.n()},
          {"k", p.k()},
          {"a_dtype", dtype_name(p.a_type())},
          {"b_dtype", dtype_name(p.b_type())},
          {"c_dtype", dtype_name(p.c_type())},
          {"layout", p.layout_letters()},
          {"lda", p.lda()},
          {"ldb", p.ldb()},
          {"ldc", p.ldc()},
          {"alpha", p.alpha()},
          {"beta", p.beta()},
          {"key", ProblemKey::of(p).to_string()}};
}

nlohmann::json choice_object(const ChoiceReport& c) {
  nlohmann::json choice = {{"backend", c.backend},
                           {"config", c.config.to_string()},
                           {"status", choice_status_name(c.status)},
                           {"time_us", c.time_us >= 0 ? nlohmann::json(c.time_us) : nlohmann::json(nullptr)}};
  if (c.error >= 0) choice["error"] = c.error;
  if (c.prepare_s >= 0) choice["prepare_s"] = c.prepare_s;
  if (c.compile_s >= 0) choice["compile_s"] = c.compile_s;
  if (c.check_s >= 0) choice["check_s"] = c.check_s;
  if (c.calls_per_sample > 0) choice["calls_per_sample"] = c.calls_per_sample;
  if (c.calibration_us >= 0) choice["calibration_us"] = c.calibration_us;
  if (c.final_ratio > 0) {
    choice["final_ratio"] = c.final_ratio;
    choice["final_rounds"] = c.final_rounds;
  }
  if (!c.reason.empty()) choice["reason"] = c.reason;
  return choice;
}


nlohmann::json report_object(const TuneReport& report) {
  nlohmann::json choices = nlohmann::json::array();
  for (const ChoiceReport& c : report.choices) choices.push_back(choice_object(c));
  nlohmann::json best = nullptr;
  if (const ChoiceReport* b = report.best_choice()) {
    best = {{"index", report.best}, {"backend", b->backend}, {"config", b->config.to_string()}, {"time_us", b->time_us}};
  }
  return {{"choices", choices},
          {"best", best},
          {"selection", report.selection},
          {"tuning_s", report.tuning_s},
          {"phases",
           {{"prepare_s", report.phases.prepare_s},
            {"operands_s", report.phases.operands_s},
            {"verify_s", report.phases.verify_s},
            {"timing_s", report.phases.timing_s},
            {"final_round_s", report.phases.final_round_s},
            {"prepare_cpu_s", report.phases.prepare_cpu_s}}},
          {"store_hit", report.store_hit},
          {"compilations", report.compilations}};
}

nlohmann::json device_object(const DeviceInfo& device) {
  const CpuInfo& cpu = device.cpu;
  return {{"name", device.name},
          {"fingerprint", device.fingerprint()},
          {"device_class", device.device_class()},
          {"cpu",
           {{"model", cpu.model},
            {"family", cpu.family},
            {"model_number", cpu.model_number},
            {"features", cpu.feature_names()},
            {"best_isa", cpu_isa_name(cpu.best_isa())},
            {"isa_cap", cpu.isa_cap},
            {"logical_cores", cpu.logical_cores},
            {"physical_cores", cpu.physical_cores},
            {"l1d_bytes", cpu.l1d_bytes},
            {"l2_bytes", cpu.l2_bytes},
            {"l3_bytes", cpu.l3_bytes}}}};
}

}  // namespace

std::string json_text(const TuneReport& report) { return report_object(report).dump(); }
std::string json_text(const ChoiceReport& choice) { return choice_object(choice).dump(); }
std::string json_text(const Problem& problem) { return problem_object(problem).dump(); }
std::string json_text(const DeviceInfo& device) { return device_object(device).dump(); }

}  // namespace gemmtune
