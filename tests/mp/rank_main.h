// Shared main for multi-process GoogleTest programs: every rank runs the same
// tests in the same order under qmprun; a failed assertion on any rank makes
// that rank exit non-zero, which fails the job.
#pragma once

#include <gtest/gtest.h>

#include "mesh/engine.h"

namespace meshmp::testing {

/// A test environment that starts the engine before the first test and
/// finalizes it after the last.
class EngineEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { mesh::Engine::init(); }
  void TearDown() override { mesh::Engine::finalize(); }
};

inline mesh::Engine& engine() { return *mesh::Engine::get(); }

/// Deterministic test data: byte i of a message from `src` with `salt`.
inline unsigned char pattern(int src, std::size_t i, unsigned salt = 0) {
  return static_cast<unsigned char>((i * 131u) ^ (src * 29u) ^ (salt * 7u) ^ (i >> 8));
}

}  // namespace meshmp::testing

#define MESHMP_RANK_TEST_MAIN()                                              \
  int main(int argc, char** argv) {                                          \
    ::testing::InitGoogleTest(&argc, argv);                                  \
    ::testing::AddGlobalTestEnvironment(new meshmp::testing::EngineEnvironment); \
    return RUN_ALL_TESTS();                                                  \
  }
