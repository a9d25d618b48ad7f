// A double as the text that reports and CSV files write: nine significant digits (%.9g), so a
// float reads back exactly and a timing keeps more digits than its noise.
#pragma once

#include <cstdio>
#include <string>

namespace gemmtune {

inline std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

}  // namespace gemmtune
