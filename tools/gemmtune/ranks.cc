#include "ranks.h"

#include <unistd.h>

#include <cstdlib>

#ifdef GEMMTUNE_WITH_MPI
#include <mpi.h>
#endif

namespace gemmtune::cli {
namespace {

// The job's size as the launcher wrote it in the environment; 0 when no launcher did.
int launched_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return std::atoi(value);
  }
  // PMIx names the rank, not always the size: a job of unknown size, which MPI will tell.
  return std::getenv("PMIX_RANK") != nullptr ? -1 : 0;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

class Alone final : public Ranks {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 1; }
  std::string host() const override { return host_name(); }
  std::vector<std::string> gather(const std::string& text) const override { return {text}; }
  bool any(bool flag) const override { return flag; }
};

#ifdef GEMMTUNE_WITH_MPI
class MpiRanks final : public Ranks {
 public:
  MpiRanks() {
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // The ranks that share memory with this one: those on its host.
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local_);
    MPI_Comm_rank(local_, &local_rank_);
    MPI_Comm_size(local_, &local_size_);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    host_.assign(name, std::size_t(length));
  }
  ~MpiRanks() override {
    MPI_Comm_free(&local_);
    MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  std::string host() const override { return host_; }

  std::vector<std::string> gather(const std::string& text) const override {
    int length = int(text.size());
    std::vector<int> lengths(rank_ == 0 ? size_ : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(lengths.size());
    int total = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      offsets[i] = total;
      total += lengths[i];
    }
    std::string all(std::size_t(total), '\0');
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < lengths.size(); ++i) out.push_back(all.substr(std::size_t(offsets[i]), std::size_t(lengths[i])));
    return out;
  }
  bool any(bool flag) const override {
    int mine = flag ? 1 : 0, result = 0;
    MPI_Allreduce(&mine, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return result != 0;
  }

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  MPI_Comm local_ = MPI_COMM_NULL;
  std::string host_;
};
#endif

}  // namespace

bool mpi_built_in() {
#ifdef GEMMTUNE_WITH_MPI
  return true;
#else
  return false;
#endif
}

Result<std::string> device_for_rank(const std::string& asked, const Ranks& ranks, bool shared) {
  if (asked == "cuda") return "cuda:" + std::to_string(ranks.local_rank());
  if (ranks.local_size() > 1 && !shared) {
    return invalid_argument(std::to_string(ranks.local_size()) + " ranks run on host " + ranks.host() +
                            " and would all measure on --device " + asked +
                            ": their timings would contend. Start one rank per host for the CPU (one per GPU "
                            "with --device cuda), or pass --shared-device to accept contended timings");
  }
  return asked;
}

OptionSpec shared_device_option() {
  return {"shared-device", false,
          "--shared-device        under mpirun, let several ranks of one host measure on one device\n"
          "                       (the CPU, or one GPU): their timings contend, so what they measure\n"
          "                       is not to be trusted; for trying the set-up on one machine"};
}

Result<std::unique_ptr<Ranks>> Ranks::join() {
  const int size = launched_size();
  if (size == 0 || size == 1) return std::unique_ptr<Ranks>(std::make_unique<Alone>());
#ifdef GEMMTUNE_WITH_MPI
  return std::unique_ptr<Ranks>(std::make_unique<MpiRanks>());
#else
  return unsupported("started as one of " + (size > 0 ? std::to_string(size) : std::string("several")) +
                     " MPI ranks, but this gemmtune was built without MPI (install libopenmpi-dev and build "
                     "again, GEMMTUNE_WITH_MPI=ON): every rank would do all the work");
#endif
}

}  // namespace gemmtune::cli
