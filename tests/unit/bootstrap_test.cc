// The bootstrap seam over qmprun's protocol (mesh/bootstrap/bootstrap.h,
// mesh/bootstrap/client.h), against a launcher played by a thread of the
// test: put/fence/get of address cards, what a missing card or a malformed
// answer does, and that the HELLO carries the secret.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mesh/bootstrap/client.h"
#include "mesh/bootstrap/protocol.h"

namespace {

namespace bs = meshmp::mesh::bootstrap;
using meshmp::mesh::LauncherBootstrap;

// A one-connection launcher on a socket in a fresh directory. `serve` gets
// the accepted connection; the test joins it in the destructor.
class FakeLauncher {
 public:
  explicit FakeLauncher(std::function<void(int)> serve) {
    char tmpl[] = "/tmp/meshmp-bootstrap-test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    path_ = dir_ + "/sock";
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, path_.c_str());
    listen_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (::bind(listen_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_, 1) != 0)
      throw std::runtime_error("cannot listen on " + path_);
    thread_ = std::thread([this, serve] {
      const int fd = ::accept(listen_, nullptr, nullptr);
      if (fd >= 0) {
        serve(fd);
        ::close(fd);
      }
    });
  }
  ~FakeLauncher() {
    thread_.join();
    ::close(listen_);
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
  int listen_ = -1;
  std::thread thread_;
};

const std::string kSecret = "00112233445566778899aabbccddeeff";

// Reads the HELLO and one FENCE; answers with the rank's own blob for rank 0
// and `other` for rank 1.
std::function<void(int)> two_rank_fence(const std::string& other, std::string* hello_seen) {
  return [other, hello_seen](int fd) {
    bs::Msg type;
    std::string body;
    if (!bs::recv_frame(fd, &type, &body) || type != bs::Msg::kHello) return;
    *hello_seen = body;
    if (!bs::recv_frame(fd, &type, &body) || type != bs::Msg::kFence) return;
    bs::send_frame(fd, bs::Msg::kFenceResult, bs::encode_blobs({body, other}));
  };
}

TEST(LauncherBootstrap, PutFenceGetExchangesCards) {
  std::string hello;
  FakeLauncher launcher(two_rank_fence(bs::encode_blobs({"shm", "4242 ab cd", "tcp", "198.18.0.2:7000"}), &hello));
  LauncherBootstrap boot(launcher.path(), 0, 2, "testjob", kSecret);
  boot.put("shm", "17 ef 01");
  boot.put("empty", "");
  boot.fence();
  EXPECT_EQ(boot.get(0, "shm"), "17 ef 01");
  EXPECT_EQ(boot.get(0, "empty"), "");
  EXPECT_EQ(boot.get(1, "shm"), "4242 ab cd");
  EXPECT_EQ(boot.get(1, "tcp"), "198.18.0.2:7000");
  EXPECT_EQ(boot.local_ranks(), 2);
  std::uint32_t rank = 99;
  EXPECT_TRUE(bs::decode_hello(hello, kSecret, &rank));
  EXPECT_EQ(rank, 0u);
  try {
    boot.get(1, "verbs");
    ADD_FAILURE() << "a card nobody put was returned";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "bootstrap: rank 1 published no \"verbs\"");
  }
  EXPECT_THROW(boot.get(2, "shm"), std::runtime_error);
  EXPECT_THROW(boot.get(-1, "shm"), std::runtime_error);
}

// PEER_FINALIZING notices come whenever a rank enters finalize, also while
// another rank waits for a fence result: the fence still completes, and
// take_finalized() hands each rank over once, without blocking (issue 29).
TEST(LauncherBootstrap, FinalizeNoticesBesideAFenceAreTakenOnce) {
  std::atomic<bool> done{false};
  FakeLauncher launcher([&done](int fd) {
    bs::Msg type;
    std::string body;
    if (!bs::recv_frame(fd, &type, &body) || type != bs::Msg::kHello) return;
    if (!bs::recv_frame(fd, &type, &body) || type != bs::Msg::kFence) return;
    bs::send_frame(fd, bs::Msg::kPeerFinalizing, bs::encode_rank(2));
    bs::send_frame(fd, bs::Msg::kFenceResult, bs::encode_blobs({body, "", ""}));
    bs::send_frame(fd, bs::Msg::kPeerFinalizing, bs::encode_rank(1));
    bs::send_frame(fd, bs::Msg::kPeerFinalizing, bs::encode_rank(7));  // no such rank: ignored
    while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  LauncherBootstrap boot(launcher.path(), 0, 3, "testjob", kSecret);
  boot.put("card", "x");
  boot.fence();
  EXPECT_EQ(boot.get(0, "card"), "x");
  std::vector<int> seen;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (seen.size() < 2 && std::chrono::steady_clock::now() < until) {
    for (int r : boot.take_finalized()) seen.push_back(r);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(seen, (std::vector<int>{2, 1}));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(boot.take_finalized().empty());
  done = true;
}

TEST(LauncherBootstrap, MalformedCardsFromTheLauncherAreAnError) {
  std::string hello;
  // Rank 1's blob is three strings: a key without its value.
  FakeLauncher launcher(two_rank_fence(bs::encode_blobs({"shm", "1 2 3", "dangling"}), &hello));
  LauncherBootstrap boot(launcher.path(), 0, 2, "testjob", kSecret);
  try {
    boot.fence();
    ADD_FAILURE() << "malformed cards were accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "fence: malformed cards of rank 1 from the launcher");
  }
}

TEST(LauncherBootstrap, ALauncherThatGoesAwayIsAnError) {
  FakeLauncher launcher([](int fd) {
    bs::Msg type;
    std::string body;
    bs::recv_frame(fd, &type, &body);  // the HELLO; then close
  });
  LauncherBootstrap boot(launcher.path(), 1, 2, "testjob", kSecret);
  EXPECT_THROW(boot.fence(), std::runtime_error);
}

// A write to a launcher that has closed the connection is an error the rank
// reports, not a SIGPIPE that kills it (this test process, without it).
TEST(LauncherBootstrap, ALauncherGoneBeforeFinalizeIsAnErrorNotASignal) {
  std::atomic<bool> closed{false};
  {
    FakeLauncher launcher([&](int fd) {
      bs::Msg type;
      std::string body;
      bs::recv_frame(fd, &type, &body);  // the HELLO
      ::shutdown(fd, SHUT_RDWR);
      closed = true;
    });
    LauncherBootstrap boot(launcher.path(), 1, 2, "testjob", kSecret);
    while (!closed) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_THROW(boot.finalizing(), std::runtime_error);
  }
}

TEST(LauncherBootstrap, NoLauncherNamesTheSocket) {
  try {
    LauncherBootstrap boot("/tmp/meshmp-no-such-dir/sock", 0, 2, "testjob", kSecret);
    ADD_FAILURE() << "connected to nothing";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot connect to the launcher at /tmp/meshmp-no-such-dir/sock"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
