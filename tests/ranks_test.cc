// The fleet commands' ranks, compiled here without MPI (as a build without libopenmpi-dev is):
// how a rank picks its device, and that such a build refuses to be one of several ranks.
#include "ranks.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace gemmtune::cli {
namespace {

// A rank of a job as mpirun would lay it out: `local_size` ranks on this host.
class FakeRanks final : public Ranks {
 public:
  FakeRanks(int local_rank, int local_size) : local_rank_(local_rank), local_size_(local_size) {}
  int rank() const override { return local_rank_; }
  int size() const override { return local_size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  std::string host() const override { return "node7"; }
  std::vector<std::string> gather(const std::string& text) const override { return {text}; }
  bool any(bool flag) const override { return flag; }

 private:
  int local_rank_, local_size_;
};

TEST(RankDevice, AHostsGpusGoOutByLocalRank) {
  int checked = 0;
  for (int local = 0; local < 4; ++local) {
    auto device = device_for_rank("cuda", FakeRanks(local, 4), false);
    ASSERT_TRUE(device.is_ok()) << device.status().message();
    EXPECT_EQ(*device, "cuda:" + std::to_string(local));
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

TEST(RankDevice, SeveralRanksOnOneDeviceAreRefusedUnlessShared) {
  for (const char* asked : {"cpu", "cuda:0"}) {
    auto crowded = device_for_rank(asked, FakeRanks(1, 2), false);
    ASSERT_FALSE(crowded.is_ok()) << asked;
    EXPECT_EQ(crowded.status().code(), ErrorCode::invalid_argument);
    EXPECT_NE(crowded.status().message().find("2 ranks run on host node7"), std::string::npos) << crowded.status().message();
    EXPECT_NE(crowded.status().message().find("--shared-device"), std::string::npos) << crowded.status().message();
    auto shared = device_for_rank(asked, FakeRanks(1, 2), true);
    ASSERT_TRUE(shared.is_ok()) << asked;
    EXPECT_EQ(*shared, asked);
    auto alone = device_for_rank(asked, FakeRanks(0, 1), false);
    ASSERT_TRUE(alone.is_ok()) << asked;
    EXPECT_EQ(*alone, asked);
  }
}

// Without MPI a process started as one of several ranks would tune every shape: refused.
// Started alone, or as a job of one, it runs.
TEST(RanksWithoutMpi, OneOfSeveralRanksIsRefusedAndAJobOfOneRunsAlone) {
  ASSERT_FALSE(mpi_built_in()) << "this test compiles ranks.cc without MPI";
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("PMI_SIZE");
  unsetenv("PMIX_SIZE");
  unsetenv("PMIX_RANK");
  auto alone = Ranks::join();
  ASSERT_TRUE(alone.is_ok()) << alone.status().message();
  EXPECT_EQ((*alone)->size(), 1);
  EXPECT_EQ((*alone)->gather("mine"), std::vector<std::string>{"mine"});
  int refused = 0;
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    setenv(variable, "3", 1);
    auto several = Ranks::join();
    unsetenv(variable);
    ASSERT_FALSE(several.is_ok()) << variable;
    EXPECT_NE(several.status().message().find("one of 3 MPI ranks, but this gemmtune was built without MPI"),
              std::string::npos)
        << several.status().message();
    ++refused;
  }
  EXPECT_EQ(refused, 3);
  setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
  auto job_of_one = Ranks::join();
  unsetenv("OMPI_COMM_WORLD_SIZE");
  ASSERT_TRUE(job_of_one.is_ok());
  EXPECT_EQ((*job_of_one)->size(), 1);
}

}  // namespace
}  // namespace gemmtune::cli
