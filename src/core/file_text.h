// A whole file as text, for the readers of gemmtune's own formats (lookup tables, sweeps,
// cost models), each of which checks what it reads.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "gemmtune/status.h"

namespace gemmtune {

// io_error "cannot read <what> <path>" when the file cannot be opened.
inline Result<std::string> read_file_text(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(ErrorCode::io_error, "cannot read " + what + " " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace gemmtune
