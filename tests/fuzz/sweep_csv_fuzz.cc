// libFuzzer target for sweep files (parse_sweep_csv): any bytes are a sweep or a corrupt_data
// error naming the line, never a crash; what parses keeps only rows of shapes that were done,
// and its whole-shape prefix reads back as the same sweep.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "gemmtune/sweep.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gemmtune;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto sweep = parse_sweep_csv(text, "fuzz.csv");
  if (!sweep.is_ok()) {
    fuzz::check_refusal(sweep.status(), ErrorCode::corrupt_data, size);
    if (sweep.status().message().rfind("fuzz.csv:", 0) != 0) fuzz::fail();  // names the file and line
    return 0;
  }
  if (sweep->complete_bytes > size) fuzz::fail();
  for (const SweepRow& row : sweep->rows) {
    bool done = false;
    for (const std::string& shape : sweep->shapes) done = done || shape == row.problem.to_string();
    if (!done) fuzz::fail();
  }
  // An interrupted sweep resumes after complete_bytes: that prefix is the same sweep.
  auto prefix = parse_sweep_csv(text.substr(0, sweep->complete_bytes), "fuzz.csv");
  if (!prefix.is_ok() || prefix->rows.size() != sweep->rows.size() || prefix->shapes != sweep->shapes) fuzz::fail();
  return 0;
}
