// The sweep file: "# " comment lines (the format, then the meta data as one JSON line), a
// header, one row per (shape, config), and "# done <problem>" after each shape's rows.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "../core/file_text.h"
#include "../core/json_reading.h"
#include "../core/number_text.h"
#include "gemmtune/sweep.h"

namespace gemmtune {
namespace {

using nlohmann::json;

constexpr const char* kColumns =
    "m,n,k,problem,backend,config,status,time_us,mad_us,full,quick_us,prepare_us,verify_us,quick_cost_us,"
    "full_cost_us,setup_us,reason";
constexpr std::size_t kColumnCount = 17;

// Reasons are free text: commas and line breaks would break the row, so they become ';' and ' '.
std::string field_text(std::string text) {
  for (char& c : text) {
    if (c == ',') c = ';';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = line.find(',', pos);
    fields.push_back(line.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) return fields;
    pos = comma + 1;
  }
}

Result<ChoiceStatus> status_named(const std::string& name) {
  for (ChoiceStatus s : {ChoiceStatus::ok, ChoiceStatus::skipped, ChoiceStatus::prepare_failed,
                         ChoiceStatus::run_failed, ChoiceStatus::wrong_result, ChoiceStatus::pruned}) {
    if (choice_status_name(s) == name) return s;
  }
  return invalid_argument("unknown status '" + name + "'");
}

bool parse_number(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(out);
}

json meta_json(const SweepMeta& meta) {
  json j = {{"device", meta.device},
          {"device_class", meta.device_class},
          {"backend_versions", meta.backend_versions},
          {"search", meta.search},
          {"samples", meta.timing.samples},
          {"min_sample_ms", meta.timing.min_sample_ms},
          {"warmup_runs", meta.timing.warmup_runs},
          {"prune_factor", meta.prune_factor},
          {"finalists", meta.finalists},
          {"close_band", meta.close_band},
          {"close_repeats", meta.close_repeats},
          {"full_within", meta.full_within},
          {"workers", meta.workers}};
  // Only where it samples: a sweep of every config reads as the files from before the option.
  if (meta.configs_per_backend > 0) j["configs_per_backend"] = meta.configs_per_backend;
  return j;
}

// An integer of the meta data: nlohmann's get<int>() of 1e300 is an undefined conversion.
Status int_field(const json& j, const char* name, int& out) {
  auto it = j.find(name);
  if (it == j.end()) return invalid_argument(std::string("meta data lacks '") + name + "'");
  const std::optional<int> value = json_integer<int>(*it);
  if (!value) return invalid_argument(std::string("meta data '") + name + "' is " + it->dump() + ", not an int");
  out = *value;
  return Status::ok();
}

Status meta_from_json(const json& j, SweepMeta& meta) {
  // Sweeps from before the final round: simulate today's autotuner.
  meta.finalists = SweepMeta{}.finalists;
  meta.close_repeats = SweepMeta{}.close_repeats;
  GEMMTUNE_RETURN_IF_ERROR(int_field(j, "samples", meta.timing.samples));
  GEMMTUNE_RETURN_IF_ERROR(int_field(j, "warmup_runs", meta.timing.warmup_runs));
  if (j.contains("finalists")) GEMMTUNE_RETURN_IF_ERROR(int_field(j, "finalists", meta.finalists));
  if (j.contains("close_repeats")) GEMMTUNE_RETURN_IF_ERROR(int_field(j, "close_repeats", meta.close_repeats));
  GEMMTUNE_RETURN_IF_ERROR(int_field(j, "workers", meta.workers));
  if (j.contains("configs_per_backend")) {
    GEMMTUNE_RETURN_IF_ERROR(int_field(j, "configs_per_backend", meta.configs_per_backend));
  }
  try {
    meta.device = j.at("device").get<std::string>();
    meta.device_class = j.at("device_class").get<std::string>();
    meta.backend_versions = j.at("backend_versions").get<std::map<std::string, std::string>>();
    meta.search = j.at("search").get<std::string>();
    meta.timing.min_sample_ms = j.at("min_sample_ms").get<double>();
    meta.prune_factor = j.at("prune_factor").get<double>();
    meta.close_band = j.value("close_band", SweepMeta{}.close_band);
    meta.full_within = j.at("full_within").get<double>();
  } catch (const json::exception& e) {
    return invalid_argument(std::string("meta data: ") + e.what());
  }
  if (meta.workers < 1 || meta.timing.samples < 1 || meta.prune_factor < 0 || meta.full_within < 1 ||
      meta.finalists < 0 || meta.close_band < 0 || meta.close_repeats < 0 || meta.configs_per_backend < 0) {
    return invalid_argument(
        "meta data out of range (workers, samples >= 1, prune_factor, finalists, close_band, close_repeats, "
        "configs_per_backend >= 0, full_within >= 1)");
  }
  return Status::ok();
}

}  // namespace

std::string sweep_csv_header(const SweepMeta& meta) {
  return std::string("# ") + kSweepFormat + "\n# meta: " + meta_json(meta).dump() + "\n" + kColumns + "\n";
}

std::string sweep_csv_rows(const ProblemKey& problem, const ShapeMeasurement& shape) {
  std::string out;
  const std::string key = problem.to_string();
  for (const ConfigMeasurement& m : shape.configs) {
    out += std::to_string(problem.m) + "," + std::to_string(problem.n) + "," + std::to_string(problem.k) + "," + key +
           "," + m.backend + "," + m.config.to_string() + "," + std::string(choice_status_name(m.status)) + "," +
           number(m.time_us) + "," + number(m.mad_us) + "," + (m.full ? "1" : "0") + "," + number(m.quick_us) + "," +
           number(m.prepare_us) + "," + number(m.verify_us) + "," + number(m.quick_cost_us) + "," +
           number(m.full_cost_us) + "," + number(shape.setup_us) + "," + field_text(m.reason) + "\n";
  }
  return out + "# done " + key + "\n";
}

Result<SweepData> parse_sweep_csv(const std::string& text, const std::string& name) {
  SweepData data;
  int line_number = 0;
  auto bad = [&](const std::string& why) {
    return Status(ErrorCode::corrupt_data, name + ":" + std::to_string(line_number) + ": " + why);
  };
  std::size_t pos = 0;
  bool have_format = false, have_meta = false, have_header = false;
  std::string open_shape;  // problem of the rows since the last "# done"
  std::size_t open_rows = 0;
  std::map<std::string, int> done_at;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    const bool terminated = end != std::string::npos;
    if (!terminated) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = terminated ? end + 1 : end;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("# ", 0) == 0) {
      const std::string comment = line.substr(2);
      if (!have_format) {
        if (comment != kSweepFormat) return bad("not a sweep file (expected '# " + std::string(kSweepFormat) + "')");
        have_format = true;
      } else if (!have_meta) {
        if (comment.rfind("meta: ", 0) != 0) return bad("expected '# meta: {...}'");
        json meta = json::parse(comment.substr(6), nullptr, /*allow_exceptions=*/false);
        if (meta.is_discarded() || !meta.is_object()) return bad("the meta line is not a JSON object");
        if (Status read = meta_from_json(meta, data.meta); !read.is_ok()) return bad(read.message());
        have_meta = true;
      } else if (comment.rfind("done ", 0) == 0) {
        // Only a whole line counts: a "# done" cut short is an interrupted shape.
        if (!terminated) break;
        const std::string shape = comment.substr(5);
        if (shape != open_shape || open_rows == 0) {
          return bad("'# done " + shape + "' does not close the rows above it" +
                     (open_shape.empty() ? "" : " (of " + open_shape + ")"));
        }
        if (auto [it, fresh] = done_at.emplace(shape, line_number); !fresh) {
          return bad("shape " + shape + " was already done at line " + std::to_string(it->second));
        }
        data.shapes.push_back(shape);
        data.complete_bytes = pos;
        open_shape.clear();
        open_rows = 0;
      }
      continue;
    }
    if (line.empty()) continue;
    if (!have_format) return bad("not a sweep file (expected '# " + std::string(kSweepFormat) + "' first)");
    if (!have_meta) return bad("expected the '# " + std::string(kSweepFormat) + "' and '# meta:' lines first");
    if (!have_header) {
      if (line != kColumns) return bad("expected the header '" + std::string(kColumns) + "'");
      have_header = true;
      data.complete_bytes = pos;
      continue;
    }
    // The last line of an interrupted sweep may be cut short: a row without its newline is
    // part of the shape in progress, which is dropped anyway.
    if (!terminated) break;
    const std::vector<std::string> f = split_row(line);
    if (f.size() != kColumnCount) {
      return bad("expected " + std::to_string(kColumnCount) + " fields, got " + std::to_string(f.size()));
    }
    SweepRow row;
    auto key = ProblemKey::parse(f[3]);
    if (!key.is_ok()) return bad(key.status().message());
    row.problem = *key;
    if (f[0] != std::to_string(key->m) || f[1] != std::to_string(key->n) || f[2] != std::to_string(key->k)) {
      return bad("m, n, k (" + f[0] + ", " + f[1] + ", " + f[2] + ") disagree with the problem " + f[3]);
    }
    if (!open_shape.empty() && open_shape != f[3]) {
      return bad("a row of " + f[3] + " among the rows of " + open_shape + " (no '# done' between them)");
    }
    if (done_at.count(f[3])) return bad("a row of " + f[3] + ", which was done at line " + std::to_string(done_at[f[3]]));
    open_shape = f[3];
    ++open_rows;
    ConfigMeasurement& m = row.measured;
    m.backend = f[4];
    if (m.backend.empty()) return bad("empty backend");
    auto config = KernelConfig::parse(upgrade_config_text(m.backend, f[5]));
    if (!config.is_ok()) return bad(config.status().message());
    m.config = *config;
    auto status = status_named(f[6]);
    if (!status.is_ok()) return bad(status.status().message());
    m.status = *status;
    double* numbers[] = {&m.time_us,   &m.mad_us,        nullptr,          &m.quick_us, &m.prepare_us,
                         &m.verify_us, &m.quick_cost_us, &m.full_cost_us, &row.setup_us};
    const char* names[] = {"time_us",   "mad_us",        "full",          "quick_us", "prepare_us",
                           "verify_us", "quick_cost_us", "full_cost_us", "setup_us"};
    for (std::size_t i = 0; i < 9; ++i) {
      const std::string& value = f[7 + i];
      if (numbers[i] == nullptr) {
        if (value != "0" && value != "1") return bad("'full' is '" + value + "', not 0 or 1");
        m.full = value == "1";
      } else if (!parse_number(value, *numbers[i])) {
        return bad(std::string("'") + names[i] + "' is '" + value + "', not a finite number");
      }
    }
    if (m.status == ChoiceStatus::ok && m.time_us <= 0) return bad("an ok row without a positive time_us");
    m.reason = f[16];
    data.rows.push_back(std::move(row));
  }
  if (!have_header) {
    ++line_number;
    return bad("no header: the file is empty or cut short before the first row");
  }
  // Rows of a shape whose "# done" never came (an interrupted sweep) are not data.
  std::size_t whole = data.rows.size();
  while (whole > 0 && !done_at.count(data.rows[whole - 1].problem.to_string())) --whole;
  data.rows.resize(whole);
  return data;
}

Result<SweepData> read_sweep_csv(const std::string& path) {
  GEMMTUNE_ASSIGN_OR_RETURN(std::string text, read_file_text(path, "sweep"));
  return parse_sweep_csv(text, path);
}

Result<SweepData> read_sweep_csvs(const std::vector<std::string>& paths) {
  if (paths.empty()) return invalid_argument("no sweep file given");
  GEMMTUNE_ASSIGN_OR_RETURN(SweepData all, read_sweep_csv(paths.front()));
  for (std::size_t i = 1; i < paths.size(); ++i) {
    GEMMTUNE_ASSIGN_OR_RETURN(SweepData more, read_sweep_csv(paths[i]));
    if (!(more.meta == all.meta)) {
      return invalid_argument(paths[i] + " was measured on another device or with other settings than " +
                              paths.front() + " (compare their '# meta:' lines)");
    }
    for (const std::string& shape : more.shapes) {
      if (std::find(all.shapes.begin(), all.shapes.end(), shape) != all.shapes.end()) {
        return invalid_argument("shape " + shape + " of " + paths[i] + " is in an earlier file too");
      }
    }
    all.rows.insert(all.rows.end(), more.rows.begin(), more.rows.end());
    all.shapes.insert(all.shapes.end(), more.shapes.begin(), more.shapes.end());
  }
  all.complete_bytes = 0;  // of no one file
  return all;
}

}  // namespace gemmtune
