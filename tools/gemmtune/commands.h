// The CLI's commands. Each returns the process exit code: 0 ok, 1 the work failed, 2 bad usage.
#pragma once

namespace gemmtune::cli {

int run_devices(int argc, char** argv);
int run_tune(int argc, char** argv);
int run_tune_set(int argc, char** argv);
int run_bench(int argc, char** argv);
int run_demo(int argc, char** argv);
int run_hints_table(int argc, char** argv);
int run_cache(int argc, char** argv);
int run_sweep(int argc, char** argv);
int run_lut(int argc, char** argv);
int run_bundle(int argc, char** argv);
int run_model(int argc, char** argv);


}  // namespace gemmtune::cli
