// Any fuzz target without libFuzzer: runs LLVMFuzzerTestOneInput on every file of the seed
// corpus, then on mutations of them (bytes changed, inserted, deleted, runs doubled,
// truncations, tokens of the formats read: JSON, CSV, lines) from a fixed seed for --seconds S,
// so CI exercises the parsers even where clang's fuzzer runtime is missing.
//   <target> [--seconds S] CORPUS_DIR_OR_FILE...
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

void run(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

std::string mutate(std::string text, std::mt19937_64& rng) {
  const int edits = 1 + int(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = text.empty() ? 0 : rng() % text.size();
    switch (rng() % 6) {
      case 0: if (!text.empty()) text[at] = char(rng()); break;
      case 1: text.insert(at, 1, char(rng())); break;
      case 2: if (!text.empty()) text.erase(at, 1 + rng() % 16); break;
      case 3: text.resize(at); break;
      case 4: if (!text.empty()) text.insert(at, text.substr(at, 1 + rng() % 32)); break;
      default: {
        static const char* tokens[] = {"{", "}", "[", "]", ",", ":", "\"", "null", "1e999", "-", "\\u0000",
                                       "\n", "# ", "9223372036854775808", "-1", "1.5", "\"checksum\""};
        text.insert(at, tokens[rng() % (sizeof tokens / sizeof *tokens)]);
      }
    }
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 2;
  std::vector<std::string> corpus;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
      continue;
    }
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(argv[i], ec)) {
      for (const auto& item : std::filesystem::directory_iterator(argv[i], ec)) files.push_back(item.path());
    } else {
      files.emplace_back(argv[i]);
    }
    for (const auto& file : files) {
      std::ifstream in(file, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      corpus.push_back(text.str());
    }
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "usage: %s [--seconds S] CORPUS_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  for (const std::string& input : corpus) run(input);
  std::mt19937_64 rng(20261122);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::size_t runs = corpus.size();
  while (std::chrono::steady_clock::now() < end) {
    run(mutate(corpus[rng() % corpus.size()], rng));
    ++runs;
  }
  std::printf("%s: %zu inputs (%zu seeds), no crash\n", argv[0], runs, corpus.size());
  return 0;
}
