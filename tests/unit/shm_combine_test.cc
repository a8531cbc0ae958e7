// The host-local combine of the shm provider (seed 002 §5.2's flat tree, with
// the last arrival releasing) within one process: three providers of one job
// stand for three ranks, each mapping the others' control blocks as between
// processes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mesh/host_identity.h"
#include "mesh/providers/shm/shm_provider.h"

namespace meshmp::mesh {
namespace {

using State = HostCombine::State;

class ShmCombine : public ::testing::Test {
 protected:
  void SetUp() override {
    job_ = "t" + std::to_string(::getpid()) + "x" + std::to_string(std::random_device{}());
    for (int r = 0; r < 3; ++r) {
      tokens_.push_back("c0ffee" + std::to_string(r));
      ShmProvider::Options o;
      o.job = job_;
      o.token = tokens_[r];
      o.arena_token = "deadbe" + std::to_string(r);
      o.rank = r;
      o.nranks = 3;
      o.host = host_identity();
      ranks_.push_back(std::make_unique<ShmProvider>(o));
    }
    // The provider seam's wire-up, with the bootstrap's card exchange done here.
    std::vector<std::string> cards;
    for (auto& p : ranks_) cards.push_back(p->address_card());
    for (auto& p : ranks_) p->attach(cards);
    for (auto& p : ranks_) p->wired();
  }
  void TearDown() override {
    ranks_.clear();
    struct stat st {};
    for (int r = 0; r < 3; ++r)
      EXPECT_NE(::stat(("/dev/shm/meshmp-" + job_ + "-" + tokens_[r] + "-c" + std::to_string(r)).c_str(), &st), 0)
          << "left behind";
  }
  ShmProvider& rank(int r) { return *ranks_[r]; }

  std::string job_;
  std::vector<std::string> tokens_;
  std::vector<std::unique_ptr<ShmProvider>> ranks_;
};

int value(int r, std::uint64_t seq) { return 100 * r + static_cast<int>(seq); }

TEST_F(ShmCombine, OnlyTheLastArrivalFoldsAndEveryRankGetsItsResult) {
  // Arrival orders vary, so each rank is the last at some seq; seq parity
  // alternates the buffers.
  const int orders[][3] = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {0, 2, 1}, {2, 0, 1}, {1, 0, 2}};
  for (std::uint64_t seq = 0; seq < 6; ++seq) {
    const int* order = orders[seq];
    for (int k = 0; k < 3; ++k) {
      const int r = order[k];
      const int mine = value(r, seq);
      EXPECT_EQ(rank(r).arrive(seq, &mine, sizeof mine), k == 2) << "seq " << seq << " rank " << r;
      if (k < 2) {
        int out = -1;
        EXPECT_EQ(rank(r).result(seq, &out, sizeof out), State::kPending);
      }
    }
    ShmProvider& last = rank(order[2]);
    int sum = 0;
    for (int r = 0; r < 3; ++r) {
      std::size_t bytes = 0;
      const char* c = last.contribution(r, seq, &bytes);
      ASSERT_NE(c, nullptr) << "rank " << r;
      EXPECT_EQ(bytes, sizeof(int));
      int v;
      std::memcpy(&v, c, sizeof v);
      EXPECT_EQ(v, value(r, seq));
      sum += v;
    }
    std::size_t bytes = 0;
    EXPECT_EQ(last.contribution(0, seq + 1, &bytes), nullptr);  // not arrived there yet
    last.publish(seq, &sum, sizeof sum, sizeof sum);
    for (int r = 0; r < 3; ++r) {
      if (r == order[2]) continue;
      int out = -1;
      EXPECT_EQ(rank(r).result(seq, &out, sizeof out), State::kReleased);
      EXPECT_EQ(out, sum);
    }
  }
}

// post(): a contribution every rank can read (two-rank combines), with its
// size, and no arrival counted -- arrive()s that follow count from zero.
TEST_F(ShmCombine, APostIsReadableAndCountsNoArrival) {
  for (std::uint64_t seq = 0; seq < 4; ++seq) {
    std::size_t bytes = 0;
    EXPECT_EQ(rank(1).contribution(0, seq, &bytes), nullptr) << seq;
    const int mine = value(0, seq);
    rank(0).post(seq, &mine, sizeof mine);
    for (int reader : {1, 2}) {
      const char* c = rank(reader).contribution(0, seq, &bytes);
      ASSERT_NE(c, nullptr) << seq;
      EXPECT_EQ(bytes, sizeof mine);
      int v;
      std::memcpy(&v, c, sizeof v);
      EXPECT_EQ(v, mine);
    }
  }
  // The first arrivals of the job: the third is the last of three.
  const int zero = 0;
  EXPECT_FALSE(rank(0).arrive(0, &zero, 0));
  EXPECT_FALSE(rank(1).arrive(0, &zero, 0));
  EXPECT_TRUE(rank(2).arrive(0, &zero, 0)) << "the posts counted as arrivals";
}

// The two-rank combine waits for the other's post, and a rank that waited
// past its spin sleeps on its doorbell: the post must ring it (it did not,
// and the sleeper woke from its 100 ms timeout -- 0.2 s per 8 MiB QMP sum).
TEST_F(ShmCombine, APostRingsTheDoorbellOfASleepingRank) {
  const std::uint32_t seen = rank(1).arm();
  const int mine = value(0, 0);
  rank(0).post(0, &mine, sizeof mine);
  EXPECT_NE(rank(1).arm(), seen) << "the post did not ring the sleeper's doorbell";
  rank(1).disarm();
}

TEST_F(ShmCombine, AFailedReleaseReachesEveryWaiter) {
  const int zero = 0;
  EXPECT_FALSE(rank(0).arrive(0, &zero, 0));
  EXPECT_FALSE(rank(1).arrive(0, &zero, 0));
  EXPECT_TRUE(rank(2).arrive(0, &zero, 0));
  rank(2).publish_failure(0);
  int out = 0;
  EXPECT_EQ(rank(0).result(0, &out, 0), State::kFailed);
  EXPECT_EQ(rank(1).result(0, &out, 0), State::kFailed);
}

// A combine of no bytes -- MPI_Allreduce or QMP_sum_double_array of 0
// elements, whose buffer may be NULL -- is released like any other: before,
// a null result meant "failed", and every rank but the last to arrive got
// MPI_ERR_INTERN.
TEST_F(ShmCombine, AReleaseOfNoBytesFromANullBufferIsNotAFailure) {
  EXPECT_FALSE(rank(0).arrive(0, nullptr, 0));
  EXPECT_FALSE(rank(1).arrive(0, nullptr, 0));
  EXPECT_TRUE(rank(2).arrive(0, nullptr, 0));
  rank(2).publish(0, nullptr, 0, 0);
  EXPECT_EQ(rank(0).result(0, nullptr, 0), State::kReleased);
  EXPECT_EQ(rank(1).result(0, nullptr, 0), State::kReleased);
}

// Ranks whose counts differ: a rank that gave fewer bytes than the largest
// contribution is told kTruncated, the others kReleased (issue 15, item 9).
TEST_F(ShmCombine, ARankThatGaveLessThanAnotherIsToldTruncated) {
  const long long big = 7;
  const int small = 3;
  EXPECT_FALSE(rank(0).arrive(0, &small, sizeof small));
  EXPECT_FALSE(rank(1).arrive(0, &big, sizeof big));
  EXPECT_TRUE(rank(2).arrive(0, &small, sizeof small));
  std::size_t bytes = 0;
  ASSERT_NE(rank(2).contribution(1, 0, &bytes), nullptr);
  EXPECT_EQ(bytes, sizeof big);
  rank(2).publish(0, &small, sizeof small, sizeof big);
  int out = 0;
  long long out_big = 0;
  EXPECT_EQ(rank(0).result(0, &out, sizeof out), State::kTruncated);
  EXPECT_EQ(rank(1).result(0, &out_big, sizeof out_big), State::kReleased);
}

}  // namespace
}  // namespace meshmp::mesh
