#include "cubin_cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gemmtune::cuda {
namespace {

// SHA-256 as FIPS 180-4 specifies it.
constexpr std::uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(std::uint32_t (&h)[8], const std::uint8_t* block) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i) {
    w[i] = std::uint32_t(block[4 * i]) << 24 | std::uint32_t(block[4 * i + 1]) << 16 |
           std::uint32_t(block[4 * i + 2]) << 8 | std::uint32_t(block[4 * i + 3]);
  }
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRoundConstants[i] + w[i];
    const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

// File layout: magic, payload length (8 bytes little endian), SHA-256 of the payload, payload.
constexpr char kMagic[8] = {'G', 'T', 'C', 'U', 'B', 'I', 'N', '1'};
constexpr std::size_t kHeaderBytes = sizeof(kMagic) + 8 + 32;

std::atomic<std::uint64_t> temp_counter{0};

std::string entry_path(const std::string& dir, const std::string& key) { return dir + "/" + key + ".cubin"; }

}  // namespace

Sha256Digest sha256(std::string_view data) {
  std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data.data());
  std::size_t full = data.size() / 64 * 64;
  for (std::size_t i = 0; i < full; i += 64) compress(h, bytes + i);
  // Padding: a 1 bit, zeros, then the message length in bits, big endian, to a 64-byte multiple.
  std::uint8_t tail[128] = {};
  const std::size_t rest = data.size() - full;
  std::memcpy(tail, bytes + full, rest);
  tail[rest] = 0x80;
  const std::size_t tail_size = rest + 1 + 8 <= 64 ? 64 : 128;
  const std::uint64_t bits = std::uint64_t(data.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_size - 1 - i] = std::uint8_t(bits >> (8 * i));
  for (std::size_t i = 0; i < tail_size; i += 64) compress(h, tail + i);
  Sha256Digest digest;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 4; ++j) digest[4 * i + j] = std::uint8_t(h[i] >> (24 - 8 * j));
  }
  return digest;
}

std::string to_hex(const Sha256Digest& digest) {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (std::uint8_t byte : digest) {
    hex += digits[byte >> 4];
    hex += digits[byte & 15];
  }
  return hex;
}

std::string default_cubin_cache_dir() {
  std::vector<std::string> dirs = kernel_cache_dirs();
  return dirs.empty() ? std::string() : std::move(dirs.front());
}

std::optional<CubinCache> CubinCache::from_environment() {
  std::vector<std::string> dirs = kernel_cache_dirs();
  if (dirs.empty()) return std::nullopt;
  std::string first = std::move(dirs.front());
  dirs.erase(dirs.begin());
  return CubinCache(std::move(first), std::move(dirs));
}

std::string CubinCache::path_of(const std::string& key) const { return entry_path(dir_, key); }

namespace {

// The payload of a cache file, or why the file is not a whole entry (`problem`); nullopt and no
// problem when there is no file.
std::optional<std::string> read_entry(const std::string& path, std::string& problem) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream contents;
  contents << in.rdbuf();
  const std::string file = contents.str();
  if (file.size() < kHeaderBytes || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0) {
    problem = "bad header";
    return std::nullopt;
  }
  std::uint64_t length = 0;
  for (int i = 0; i < 8; ++i) length |= std::uint64_t(std::uint8_t(file[sizeof(kMagic) + i])) << (8 * i);
  const std::string_view payload = std::string_view(file).substr(kHeaderBytes);
  if (payload.size() != length) {
    problem = "length " + std::to_string(payload.size()) + " where the header says " + std::to_string(length);
  } else if (std::memcmp(sha256(payload).data(), file.data() + sizeof(kMagic) + 8, 32) != 0) {
    problem = "payload hash mismatch";
  } else {
    return std::string(payload);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> CubinCache::load(const std::string& key, std::string* corrupt) const {
  std::string problem;
  if (auto payload = read_entry(path_of(key), problem)) return payload;
  if (!problem.empty()) {
    if (corrupt != nullptr) *corrupt = path_of(key) + ": " + problem + ", removed";
    remove(key);
  }
  for (const std::string& dir : read_only_) {
    std::string elsewhere;
    if (auto payload = read_entry(entry_path(dir, key), elsewhere)) {
      // Best effort: where dir() cannot be written the kernel is still used.
      (void)store(key, *payload);
      return payload;
    }
    if (!elsewhere.empty() && corrupt != nullptr && corrupt->empty()) {
      *corrupt = entry_path(dir, key) + ": " + elsewhere + ", left as it is (read-only)";
    }
  }
  return std::nullopt;
}

Status CubinCache::store(const std::string& key, std::string_view cubin) const {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) return Status(ErrorCode::io_error, "cubin cache: cannot create " + dir_ + ": " + error.message());
  std::string header(kMagic, sizeof(kMagic));
  for (int i = 0; i < 8; ++i) header += char(std::uint8_t(std::uint64_t(cubin.size()) >> (8 * i)));
  const Sha256Digest digest = sha256(cubin);
  header.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  const std::string temp = path_of(key) + ".tmp." + std::to_string(getpid()) + "." + std::to_string(temp_counter++);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(header.data(), std::streamsize(header.size()));
    out.write(cubin.data(), std::streamsize(cubin.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(temp, error);
      return Status(ErrorCode::io_error, "cubin cache: cannot write " + temp);
    }
  }
  std::filesystem::rename(temp, path_of(key), error);
  if (error) {
    std::filesystem::remove(temp, error);
    return Status(ErrorCode::io_error, "cubin cache: cannot rename into " + path_of(key));
  }
  return Status::ok();
}

void CubinCache::remove(const std::string& key) const {
  std::error_code ignored;
  std::filesystem::remove(path_of(key), ignored);
}

namespace {

std::string passed_path(const std::string& dir, const std::string& key, const std::string& check) {
  return dir + "/passed/" + to_hex(sha256(key + '\0' + check));
}

}  // namespace

bool CubinCache::passed(const std::string& key, const std::string& check) const {
  std::error_code ignored;
  if (std::filesystem::exists(passed_path(dir_, key, check), ignored)) return true;
  for (const std::string& dir : read_only_) {
    if (std::filesystem::exists(passed_path(dir, key, check), ignored)) {
      (void)mark_passed(key, check);  // best effort, as load's copy
      return true;
    }
  }
  return false;
}

Status CubinCache::mark_passed(const std::string& key, const std::string& check) const {
  std::error_code error;
  std::filesystem::create_directories(dir_ + "/passed", error);
  if (error) return Status(ErrorCode::io_error, "cubin cache: cannot create " + dir_ + "/passed: " + error.message());
  // An empty file has no partial state: open with O_CREAT either makes it or fails.
  std::ofstream mark(passed_path(dir_, key, check), std::ios::binary | std::ios::app);
  if (!mark) return Status(ErrorCode::io_error, "cubin cache: cannot write " + passed_path(dir_, key, check));
  return Status::ok();
}

}  // namespace gemmtune::cuda
