// libFuzzer target for the lookup-table parser: any bytes must come back as a table or as a
// list of problems, never as a crash, a hang or undefined behaviour. Built with clang's
// -fsanitize=fuzzer where the toolchain has it, else as a plain program (lut_fuzz_driver.cc)
// that runs the same function over the seed corpus and mutations of it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gemmtune/lut.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto table = gemmtune::LookupTable::parse(text);
  const auto issues = gemmtune::LookupTable::validate(text);
  // The two views of one text agree, and what parses writes out and reads back equal.
  if (table.is_ok() != issues.empty()) __builtin_trap();
  if (table.is_ok()) {
    auto again = gemmtune::LookupTable::parse(table->to_json());
    if (!again.is_ok() || !(*again == *table)) __builtin_trap();
  }
  auto sealed = gemmtune::seal_lut_text(text);
  if (sealed.is_ok()) (void)gemmtune::LookupTable::validate(*sealed);
  return 0;
}
