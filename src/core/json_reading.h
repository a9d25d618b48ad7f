// Reading JSON that comes from outside (files, store entries, worker messages) without
// undefined behaviour. nlohmann's get<int>() of 1e300 is a float-to-integer conversion out of
// range (undefined) and of 2^40 a silent truncation; and although its parser keeps a stack of
// its own, dump(), copies and comparisons of a parsed value recurse once per level of nesting,
// so a megabyte of '[' would overflow the stack of whoever dumps it.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace gemmtune {

// Deeper than any of gemmtune's formats nests (an exported store, the deepest, nests 5 levels)
// and far shallower than what overflows a stack.
inline constexpr int kMaxJsonNesting = 32;

// Whether the arrays and objects of a JSON text nest at most `max_depth` deep, counted without
// parsing it (brackets inside strings do not count). Meant for the text before it is parsed.
inline bool json_nests_within(std::string_view text, int max_depth = kMaxJsonNesting) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

// nlohmann's message for a parse error, cut to a line: it quotes what it last read with each
// control character spelled out (<U+000A>, eight bytes for one), so a message could grow to
// many times its input.
inline std::string json_error_excerpt(const nlohmann::json::exception& e) {
  std::string text = e.what();
  if (text.size() > 200) text = text.substr(0, 200) + "...";
  return text;
}

// The value of a JSON integer that T can hold; nullopt for any other value (a float, 1e300,
// a string, an integer out of T's range).
template <class T>
std::optional<T> json_integer(const nlohmann::json& value) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  if (value.is_number_unsigned()) {
    const std::uint64_t v = value.get<std::uint64_t>();
    if (v > std::uint64_t(std::numeric_limits<T>::max())) return std::nullopt;
    return T(v);
  }
  if (value.is_number_integer()) {
    const std::int64_t v = value.get<std::int64_t>();
    if constexpr (std::is_unsigned_v<T>) {
      if (v < 0 || std::uint64_t(v) > std::uint64_t(std::numeric_limits<T>::max())) return std::nullopt;
    } else {
      if (v < std::int64_t(std::numeric_limits<T>::min()) || v > std::int64_t(std::numeric_limits<T>::max())) {
        return std::nullopt;
      }
    }
    return T(v);
  }
  return std::nullopt;
}

}  // namespace gemmtune
