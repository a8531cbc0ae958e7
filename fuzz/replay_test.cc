// Replays a fuzz target's corpus (seed inputs and every crash reproducer
// found so far) through its LLVMFuzzerTestOneInput, built with the normal
// toolchain: this is the regression test for each finding, and it runs in
// `bazel test //...` and under --config=asan without clang or libFuzzer.
//
// Usage: <target>_replay CORPUS_DIR (relative to the runfiles root).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::string g_corpus;

TEST(FuzzCorpus, EveryInputIsHandled) {
  ASSERT_FALSE(g_corpus.empty()) << "usage: replay CORPUS_DIR";
  std::vector<std::filesystem::path> inputs;
  for (const auto& e : std::filesystem::recursive_directory_iterator(g_corpus))
    if (e.is_regular_file()) inputs.push_back(e.path());
  ASSERT_FALSE(inputs.empty()) << "no inputs under " << g_corpus;
  for (const auto& p : inputs) {
    SCOPED_TRACE(p.string());
    std::ifstream f(p, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    // A finding aborts the process; the test then fails with the input named above it.
    std::fprintf(stderr, "replay %s (%zu bytes)\n", p.c_str(), bytes.size());
    EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), 0);
  }
  std::printf("replayed %zu inputs from %s\n", inputs.size(), g_corpus.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc > 1) g_corpus = argv[1];
  return RUN_ALL_TESTS();
}
