#include "json_lines.h"

#include <algorithm>
#include <iterator>
#include <set>

#include <nlohmann/json.hpp>

namespace gemmtune {
namespace {

// A char iterator that counts how far the parser has read, so the SAX callbacks below know
// the position of the token just read (nlohmann 3.11 passes none to them).
class CountingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* at, std::size_t* consumed) : at_(at), consumed_(consumed) {}
  reference operator*() const { return *at_; }
  CountingIterator& operator++() {
    ++at_;
    ++*consumed_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return at_ == other.at_; }
  bool operator!=(const CountingIterator& other) const { return at_ != other.at_; }

 private:
  const char* at_;
  std::size_t* consumed_;
};

class LineRecorder final : public nlohmann::json_sax<nlohmann::json> {
 public:
  LineRecorder(std::string_view text, const std::size_t* consumed, int max_depth, JsonLines& out)
      : consumed_(consumed), max_depth_(max_depth), out_(out) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') newlines_.push_back(i);
    }
  }

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& name) override {
    Frame& frame = stack_.back();
    frame.key = name;
    if (!frame.keys.insert(name).second) {
      out_.issues.push_back({line(), "duplicate key '" + name + "' in " + shown(frame.pointer)});
    }
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    out_.issues.push_back({line_at(position), std::string("not valid JSON: ") + e.what()});
    return false;
  }

 private:
  struct Frame {
    std::string pointer;
    bool object = false;
    std::size_t index = 0;
    std::string key;
    std::set<std::string> keys;
  };

  // The line of the last character the parser consumed. After a number the lexer has read one
  // character past it, maybe a newline; that newline still belongs to the number's line.
  int line() const { return line_at(*consumed_); }
  int line_at(std::size_t consumed) const {
    const std::size_t last = consumed == 0 ? 0 : consumed - 1;
    return 1 + int(std::lower_bound(newlines_.begin(), newlines_.end(), last) - newlines_.begin());
  }

  std::string child_pointer() {
    if (stack_.empty()) return "";
    Frame& parent = stack_.back();
    if (parent.object) return json_pointer_append(parent.pointer, parent.key);
    return parent.pointer + "/" + std::to_string(parent.index++);
  }

  bool value() {
    out_.lines.emplace(child_pointer(), line());
    return true;
  }

  bool open(bool object) {
    if (int(stack_.size()) >= max_depth_) {
      out_.issues.push_back({line(), "nesting deeper than " + std::to_string(max_depth_) + " levels"});
      return false;
    }
    Frame frame;
    frame.pointer = child_pointer();
    frame.object = object;
    out_.lines.emplace(frame.pointer, line());
    stack_.push_back(std::move(frame));
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  static std::string shown(const std::string& pointer) { return pointer.empty() ? "the top level" : pointer; }

  const std::size_t* consumed_;
  const int max_depth_;
  JsonLines& out_;
  std::vector<std::size_t> newlines_;
  std::vector<Frame> stack_;
};

}  // namespace

std::string json_pointer_append(const std::string& parent, std::string_view key) {
  std::string out = parent + "/";
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

int JsonLines::line_of(const std::string& pointer) const {
  std::string at = pointer;
  while (true) {
    if (auto it = lines.find(at); it != lines.end()) return it->second;
    if (at.empty()) return 1;
    at.resize(at.rfind('/'));
  }
}

JsonLines locate_json_lines(std::string_view text, int max_depth) {
  JsonLines out;
  std::size_t consumed = 0;
  LineRecorder recorder(text, &consumed, max_depth, out);
  const char* begin = text.data();
  try {
    out.parsed = nlohmann::json::sax_parse(CountingIterator(begin, &consumed),
                                           CountingIterator(begin + text.size(), &consumed), &recorder);
  } catch (const std::exception& e) {
    // sax_parse reports errors through parse_error; anything thrown is a bug in the input
    // adapter path, still not a reason to take the process down.
    out.issues.push_back({0, std::string("not valid JSON: ") + e.what()});
    out.parsed = false;
  }
  // Duplicate keys are issues, yet the text still parses: the caller reports them with the rest.
  if (!out.parsed && out.issues.empty()) out.issues.push_back({0, "not valid JSON"});
  return out;
}

}  // namespace gemmtune
