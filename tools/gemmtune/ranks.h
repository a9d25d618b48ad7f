// The ranks of an MPI job this process is one of (mpirun started it), or one rank alone. The
// fleet commands (tune-set) split their work by rank and meet on rank 0 for the report; the
// results themselves travel through the shared tuning store, not through MPI.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "gemmtune/status.h"

namespace gemmtune::cli {

class Ranks {
 public:
  // Joins the job when the environment says a launcher started this process (Open MPI's
  // OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK, MPICH's PMI_SIZE); alone otherwise, without
  // touching MPI. A build without MPI started as one of several ranks is refused: each rank
  // would do all the work.
  static Result<std::unique_ptr<Ranks>> join();
  virtual ~Ranks() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This rank among the ranks on its host, and how many those are: a host's devices are
  // shared out by local rank.
  virtual int local_rank() const = 0;
  virtual int local_size() const = 0;
  virtual std::string host() const = 0;
  // Every rank's `text` in rank order, on rank 0; empty on the others. Every rank must call it.
  virtual std::vector<std::string> gather(const std::string& text) const = 0;
  // Whether any rank passed true, on every rank. Every rank must call it.
  virtual bool any(bool flag) const = 0;

  // Whether item i of a list shared out is this rank's: item i goes to rank i mod size().
  bool owns(std::size_t i) const { return i % std::size_t(size()) == std::size_t(rank()); }
};

// Whether this build can join an MPI job (GEMMTUNE_WITH_MPI and an MPI library found).
bool mpi_built_in();

// The device a rank measures on, from --device: a host's GPUs are shared out by local rank
// ("cuda" on a host's second rank is cuda:1). Several ranks of one host on one device (the CPU,
// or one named GPU) are refused unless `shared` (--shared-device): their timings would contend.
Result<std::string> device_for_rank(const std::string& asked, const Ranks& ranks, bool shared);
// --shared-device.
OptionSpec shared_device_option();

}  // namespace gemmtune::cli
