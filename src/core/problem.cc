#include "gemmtune/problem.h"

#include <atomic>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "enum_codes.h"

namespace gemmtune {
namespace {

// Problem identities: each thread takes them from a block of its own, claimed from the shared
// counter once per 2^20, so creating a problem costs no contended atomic.
std::uint64_t next_problem_identity() {
  constexpr std::uint64_t kBlock = std::uint64_t(1) << 20;
  static std::atomic<std::uint64_t> blocks{0};
  thread_local std::uint64_t next = 0, end = 0;
  if (next == end) {
    next = (blocks.fetch_add(1, std::memory_order_relaxed) + 1) * kBlock;  // 0 stays unused
    end = next + kBlock;
  }
  return next++;
}

// Backends index with 32-bit integers (BLAS, oneDNN's dims, CUDA grids): larger dims are
// rejected up front instead of overflowing inside a library.
constexpr std::int64_t kMaxDim = std::numeric_limits<std::int32_t>::max();

std::string dims_text(const ProblemSpec& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

Status check_dim(const char* name, std::int64_t value) {
  if (value < 0) {
    return invalid_argument(std::string(name) + " must be >= 0 (got " + std::to_string(value) + ")");
  }
  if (value > kMaxDim) {
    return invalid_argument(std::string(name) + " must be <= " + std::to_string(kMaxDim) +
                            " (got " + std::to_string(value) + ")");
  }
  return Status::ok();
}

// Leading dimension: 0 means tight; otherwise at least the stored row length (and at least 1).
Status resolve_ld(const char* name, std::int64_t& ld, std::int64_t row_length) {
  const std::int64_t tight = std::max<std::int64_t>(1, row_length);
  if (ld == 0) {
    ld = tight;
    return Status::ok();
  }
  if (ld < tight) {
    return invalid_argument(std::string(name) + " must be >= " + std::to_string(tight) +
                            " for this layout (got " + std::to_string(ld) + ")");
  }
  if (ld > kMaxDim) {
    return invalid_argument(std::string(name) + " must be <= " + std::to_string(kMaxDim) +
                            " (got " + std::to_string(ld) + ")");
  }
  return Status::ok();
}

// A spec filled from numbers (DType(9)) can hold a value no enumerator names.
Status check_enums(const ProblemSpec& s) {
  for (const auto& [name, type] : {std::pair{"a_type", s.a_type}, std::pair{"b_type", s.b_type}, std::pair{"c_type", s.c_type}}) {
    if (auto checked = dtype_from_code(std::int64_t(type)); !checked.is_ok()) {
      return invalid_argument(std::string(name) + ": " + checked.status().message());
    }
  }
  for (const auto& [name, layout] : {std::pair{"a_layout", s.a_layout}, std::pair{"b_layout", s.b_layout}}) {
    if (auto checked = layout_from_code(std::int64_t(layout)); !checked.is_ok()) {
      return invalid_argument(std::string(name) + ": " + checked.status().message());
    }
  }
  return Status::ok();
}

Status check_types(const ProblemSpec& s) {
  if (s.a_type != s.b_type) {
    return unsupported("A and B must have the same dtype (got " + std::string(dtype_name(s.a_type)) +
                       " and " + std::string(dtype_name(s.b_type)) + ")");
  }
  switch (s.a_type) {
    case DType::f32:
      if (s.c_type == DType::f32) return Status::ok();
      break;
    case DType::f16:
    case DType::bf16:
      if (s.c_type == s.a_type || s.c_type == DType::f32) return Status::ok();
      break;
    case DType::s8:
      if (s.c_type == DType::s32) return Status::ok();
      break;
    case DType::s32:
      return unsupported("s32 is an output dtype; inputs must be f32, f16, bf16 or s8");
  }
  return unsupported("output dtype " + std::string(dtype_name(s.c_type)) + " is not supported for " +
                     std::string(dtype_name(s.a_type)) +
                     " inputs (f32→f32, f16→f16|f32, bf16→bf16|f32, s8→s32)");
}

Status check_scalars(const ProblemSpec& s) {
  if (!std::isfinite(s.alpha) || !std::isfinite(s.beta)) {
    return invalid_argument("alpha and beta must be finite");
  }
  if (s.a_type == DType::s8 && (s.alpha != 1.0 || (s.beta != 0.0 && s.beta != 1.0))) {
    // s8·s8→s32 is exact integer arithmetic; a fractional scale would need rounding rules
    // no peer agrees on.
    return unsupported("s8 GEMM supports alpha = 1 and beta in {0, 1} only");
  }
  return Status::ok();
}

Status check_tf32(const ProblemSpec& s) {
  // TF32 is a way to compute an f32 product; for other dtypes the flag would be silently
  // meaningless, and a key that differs for no reason splits the tuning store.
  if (s.allow_tf32 && s.a_type != DType::f32) {
    return invalid_argument("allow_tf32 applies to f32 inputs only (got " + std::string(dtype_name(s.a_type)) + ")");
  }
  return Status::ok();
}

}  // namespace

Problem::Problem(const ProblemSpec& spec) : spec_(spec), identity_(next_problem_identity()) {}

Result<Problem> Problem::create(const ProblemSpec& spec) {
  ProblemSpec s = spec;
  GEMMTUNE_RETURN_IF_ERROR(check_dim("m", s.m));
  GEMMTUNE_RETURN_IF_ERROR(check_dim("n", s.n));
  GEMMTUNE_RETURN_IF_ERROR(check_dim("k", s.k));
  GEMMTUNE_RETURN_IF_ERROR(check_enums(s));
  GEMMTUNE_RETURN_IF_ERROR(check_types(s));
  GEMMTUNE_RETURN_IF_ERROR(check_scalars(s));
  GEMMTUNE_RETURN_IF_ERROR(check_tf32(s));
  GEMMTUNE_RETURN_IF_ERROR(resolve_ld("lda", s.lda, s.a_layout == Layout::row_major ? s.k : s.m));
  GEMMTUNE_RETURN_IF_ERROR(resolve_ld("ldb", s.ldb, s.b_layout == Layout::row_major ? s.n : s.k));
  GEMMTUNE_RETURN_IF_ERROR(resolve_ld("ldc", s.ldc, s.n));
  Problem problem(s);
  // Buffers must be addressable: the largest offset must fit in int64 with room to spare.
  constexpr double kMaxElements = 9.0e18;
  for (double span : {double(s.lda) * double(std::max(s.m, s.k)),
                      double(s.ldb) * double(std::max(s.k, s.n)), double(s.ldc) * double(s.m)}) {
    if (span > kMaxElements) return invalid_argument("problem " + dims_text(s) + " is too large to address");
  }
  return problem;
}

Result<Problem> Problem::create(std::int64_t m, std::int64_t n, std::int64_t k, DType type,
                                std::string_view layout) {
  GEMMTUNE_ASSIGN_OR_RETURN(auto layouts, parse_layout_letters(layout));
  ProblemSpec spec;
  spec.m = m;
  spec.n = n;
  spec.k = k;
  spec.a_type = spec.b_type = type;
  spec.c_type = type == DType::s8 ? DType::s32 : type;
  spec.a_layout = layouts.first;
  spec.b_layout = layouts.second;
  return create(spec);
}

DType Problem::acc_type() const { return spec_.a_type == DType::s8 ? DType::s32 : DType::f32; }

std::int64_t Problem::a_elements() const {
  if (spec_.m == 0 || spec_.k == 0) return 0;
  return a_index(spec_.m - 1, spec_.k - 1) + 1;
}
std::int64_t Problem::b_elements() const {
  if (spec_.k == 0 || spec_.n == 0) return 0;
  return b_index(spec_.k - 1, spec_.n - 1) + 1;
}
std::int64_t Problem::c_elements() const {
  if (spec_.m == 0 || spec_.n == 0) return 0;
  return c_index(spec_.m - 1, spec_.n - 1) + 1;
}

double Problem::min_bytes() const {
  const double a = double(spec_.m) * double(spec_.k) * double(dtype_size(spec_.a_type));
  const double b = double(spec_.k) * double(spec_.n) * double(dtype_size(spec_.b_type));
  const double c = double(spec_.m) * double(spec_.n) * double(dtype_size(spec_.c_type));
  return a + b + c * (spec_.beta != 0.0 ? 2.0 : 1.0);
}

std::string Problem::layout_letters() const {
  std::string letters;
  letters += spec_.a_layout == Layout::row_major ? 'n' : 't';
  letters += spec_.b_layout == Layout::row_major ? 'n' : 't';
  return letters;
}

std::string Problem::describe() const {
  std::ostringstream out;
  out << "m=" << spec_.m << " n=" << spec_.n << " k=" << spec_.k << ' ' << dtype_name(spec_.a_type);
  const DType natural = spec_.a_type == DType::s8 ? DType::s32 : spec_.a_type;
  if (spec_.c_type != natural) out << "->" << dtype_name(spec_.c_type);
  out << ' ' << layout_letters();
  const std::int64_t tight_a = std::max<std::int64_t>(1, spec_.a_layout == Layout::row_major ? spec_.k : spec_.m);
  const std::int64_t tight_b = std::max<std::int64_t>(1, spec_.b_layout == Layout::row_major ? spec_.n : spec_.k);
  if (spec_.lda != tight_a) out << " lda=" << spec_.lda;
  if (spec_.ldb != tight_b) out << " ldb=" << spec_.ldb;
  if (spec_.ldc != std::max<std::int64_t>(1, spec_.n)) out << " ldc=" << spec_.ldc;
  if (spec_.alpha != 1.0) out << " alpha=" << spec_.alpha;
  if (spec_.beta != 0.0) out << " beta=" << spec_.beta;
  if (spec_.allow_tf32) out << " tf32";
  return out.str();
}

Result<Layout> layout_from_code(std::int64_t code) {
  if (code != std::int64_t(Layout::row_major) && code != std::int64_t(Layout::col_major)) {
    return invalid_argument("layout " + std::to_string(code) + " is not 0 (row-major) or 1 (column-major)");
  }
  return Layout(code);
}

Result<std::pair<Layout, Layout>> parse_layout_letters(std::string_view letters) {
  auto one = [](char c) -> int { return c == 'n' ? 0 : c == 't' ? 1 : -1; };
  if (letters.size() == 2 && one(letters[0]) >= 0 && one(letters[1]) >= 0) {
    return std::pair{one(letters[0]) ? Layout::col_major : Layout::row_major,
                     one(letters[1]) ? Layout::col_major : Layout::row_major};
  }
  return invalid_argument("unknown layout '" + std::string(letters) +
                          "' (expected nn, nt, tn or tt: n = row-major, t = column-major)");
}

ProblemKey ProblemKey::of(const Problem& p) {
  ProblemKey key;
  key.m = p.m();
  key.n = p.n();
  key.k = p.k();
  key.lda = p.lda();
  key.ldb = p.ldb();
  key.ldc = p.ldc();
  key.a_type = p.a_type();
  key.b_type = p.b_type();
  key.c_type = p.c_type();
  key.a_layout = p.a_layout();
  key.b_layout = p.b_layout();
  key.beta_zero = p.beta() == 0.0;
  key.allow_tf32 = p.allow_tf32();
  return key;
}

std::string ProblemKey::to_string() const {
  std::ostringstream out;
  out << dtype_name(a_type) << '.' << dtype_name(b_type) << '.' << dtype_name(c_type) << ':'
      << (a_layout == Layout::row_major ? 'n' : 't') << (b_layout == Layout::row_major ? 'n' : 't')
      << ':' << m << 'x' << n << 'x' << k << ":ld" << lda << '.' << ldb << '.' << ldc << ":b"
      << (beta_zero ? 0 : 1);
  if (allow_tf32) out << ":tf32";
  return out.str();
}

std::size_t ProblemKey::hash() const {
  // FNV-1a style mixing of the fields; cheap enough for the dispatch hot path.
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  };
  mix(std::uint64_t(m));
  mix(std::uint64_t(n));
  mix(std::uint64_t(k));
  mix(std::uint64_t(lda) ^ (std::uint64_t(ldb) << 21) ^ (std::uint64_t(ldc) << 42));
  mix(std::uint64_t(a_type) | std::uint64_t(b_type) << 8 | std::uint64_t(c_type) << 16 |
      std::uint64_t(a_layout) << 24 | std::uint64_t(b_layout) << 32 | std::uint64_t(beta_zero) << 40 |
      std::uint64_t(allow_tf32) << 41);
  return std::size_t(h);
}

namespace {

// Splits on `separator`; empty parts are kept so that "a::b" is seen as malformed.
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t next = text.find(separator, pos);
    parts.push_back(text.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    if (next == std::string_view::npos) return parts;
    pos = next + 1;
  }
}

bool parse_dim(std::string_view text, std::int64_t& out) {
  if (text.empty() || text.size() > 18 || (text.size() > 1 && text[0] == '0')) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && out >= 0;
}

}  // namespace

Result<ProblemKey> ProblemKey::parse(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Status(ErrorCode::corrupt_data, "problem key '" + std::string(text) + "': " + why +
                                               " (expected like f32.f32.f32:nn:100x300x200:ld200.300.300:b0)");
  };
  const std::vector<std::string_view> parts = split(text, ':');
  if (parts.size() != 5 && parts.size() != 6) return bad("expected 5 or 6 parts separated by ':'");
  ProblemKey key;
  const std::vector<std::string_view> types = split(parts[0], '.');
  if (types.size() != 3) return bad("dtypes are not three names a.b.c");
  DType* slots[] = {&key.a_type, &key.b_type, &key.c_type};
  for (int i = 0; i < 3; ++i) {
    auto type = parse_dtype(types[std::size_t(i)]);
    if (!type.is_ok()) return bad("unknown dtype '" + std::string(types[std::size_t(i)]) + "'");
    *slots[i] = *type;
  }
  auto layouts = parse_layout_letters(parts[1]);
  if (!layouts.is_ok()) return bad("unknown layout '" + std::string(parts[1]) + "'");
  key.a_layout = layouts->first;
  key.b_layout = layouts->second;
  const std::vector<std::string_view> dims = split(parts[2], 'x');
  if (dims.size() != 3 || !parse_dim(dims[0], key.m) || !parse_dim(dims[1], key.n) || !parse_dim(dims[2], key.k)) {
    return bad("dims are not MxNxK");
  }
  const std::vector<std::string_view> lds = parts[3].substr(0, 2) == "ld" ? split(parts[3].substr(2), '.')
                                                                          : std::vector<std::string_view>{};
  if (lds.size() != 3 || !parse_dim(lds[0], key.lda) || !parse_dim(lds[1], key.ldb) || !parse_dim(lds[2], key.ldc)) {
    return bad("leading dimensions are not ldA.B.C");
  }
  if (parts[4] != "b0" && parts[4] != "b1") return bad("beta part is not b0 or b1");
  key.beta_zero = parts[4] == "b0";
  if (parts.size() == 6) {
    if (parts[5] != "tf32") return bad("unknown suffix '" + std::string(parts[5]) + "'");
    key.allow_tf32 = true;
  }
  if (key.to_string() != text) return bad("not in canonical form");
  return key;
}

Result<Problem> ProblemKey::problem() const {
  ProblemSpec spec;
  spec.m = m;
  spec.n = n;
  spec.k = k;
  spec.a_type = a_type;
  spec.b_type = b_type;
  spec.c_type = c_type;
  spec.a_layout = a_layout;
  spec.b_layout = b_layout;
  spec.lda = lda;
  spec.ldb = ldb;
  spec.ldc = ldc;
  spec.beta = beta_zero ? 0.0 : 1.0;
  spec.allow_tf32 = allow_tf32;
  return Problem::create(spec);
}

}  // namespace gemmtune
