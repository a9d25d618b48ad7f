// gemmtune: the command-line face of the library. Every command goes through the public API.
#include <cstdio>
#include <cstring>
#include <string>

#include "commands.h"

namespace {

constexpr const char* kHelp = R"(usage: gemmtune COMMAND [options]

gemmtune finds the fastest correct GEMM kernel for each shape on this machine, among its own
kernels and the vendor libraries, and dispatches to it.

commands:
  devices   what was detected: CPU features, cores, caches; backends compiled in
  tune      tune one problem and show every choice with its time
  tune-set  tune every shape of a set into the store, alone or sharded over MPI ranks
  bench     gemmtune against each peer library on a shape set, in the same run
  demo      a workload whose shapes change at run time, then the comparison with the peers
  hints-table  the multi-kernel table: kernels tuned per size hint vs the op that routes shapes
  cache     the tuning store: stats, list, export FILE, import FILE, clear
  sweep     measure every config of a search space on a shape set (cost-model data), resumable
  lut       the kernel lookup table: export FILE (from the tuning store), validate FILE, seal FILE
  bundle    the store's picks and their compiled GPU kernels, for a deployed program: create DIR, show DIR
  model     the learned cost model: train, eval (held-out quality and tuning time), info

`gemmtune COMMAND --help` describes each command's options.
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    std::fputs(kHelp, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "devices") return gemmtune::cli::run_devices(argc, argv);
  if (command == "tune") return gemmtune::cli::run_tune(argc, argv);
  if (command == "tune-set") return gemmtune::cli::run_tune_set(argc, argv);
  if (command == "bench") return gemmtune::cli::run_bench(argc, argv);
  if (command == "demo") return gemmtune::cli::run_demo(argc, argv);
  if (command == "hints-table") return gemmtune::cli::run_hints_table(argc, argv);
  if (command == "cache") return gemmtune::cli::run_cache(argc, argv);
  if (command == "sweep") return gemmtune::cli::run_sweep(argc, argv);
  if (command == "bundle") return gemmtune::cli::run_bundle(argc, argv);
  if (command == "lut") return gemmtune::cli::run_lut(argc, argv);
  if (command == "model") return gemmtune::cli::run_model(argc, argv);
  std::fprintf(stderr, "gemmtune: unknown command '%s' (see gemmtune --help)\n", command.c_str());
  return 2;
}
