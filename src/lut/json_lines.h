// Where each value of a JSON text stands: nlohmann's DOM keeps no positions, so a SAX pass over
// the same text records the line of every value by its JSON pointer. Lets a validator name
// the line of every problem it finds, and reports what the DOM hides: duplicate keys (the DOM
// keeps the last) and nesting too deep to walk safely.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gemmtune {

struct JsonLineIssue {
  int line = 0;
  std::string message;
};

struct JsonLines {
  // JSON pointer ("/entries/3/configs/0") → line of the value's first token (1-based).
  std::map<std::string, int> lines;
  // Syntax errors, duplicate keys, nesting deeper than the limit; empty for a good text.
  std::vector<JsonLineIssue> issues;
  // False when the text is not JSON (or nests too deep): then only `issues` is meaningful.
  bool parsed = false;

  // The line of the value at `pointer`, or of its nearest ancestor that has one; 1 if none.
  int line_of(const std::string& pointer) const;
};

// `max_depth`: objects and arrays nested deeper are refused before any DOM is built, since
// nlohmann's dump() recurses once per level.
JsonLines locate_json_lines(std::string_view text, int max_depth = 32);

// "/a~1b" for key "a/b" (RFC 6901).
std::string json_pointer_append(const std::string& parent, std::string_view key);

}  // namespace gemmtune
