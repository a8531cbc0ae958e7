#include "mesh/bootstrap/client.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "mesh/bootstrap/protocol.h"

namespace meshmp::mesh {

LauncherBootstrap::LauncherBootstrap(const std::string& path, int rank, int size, const std::string& job,
                                     const std::string& secret, int appnum)
    : rank_(rank), size_(size), appnum_(appnum), job_(job), secret_(secret) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    throw std::runtime_error("bootstrap socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    if (fd_ >= 0) ::close(fd_);
    throw std::runtime_error("cannot connect to the launcher at " + path + ": " + std::strerror(err));
  }
  if (!bootstrap::send_frame(fd_, bootstrap::Msg::kHello, bootstrap::encode_hello(rank, ::getpid(), secret))) {
    ::close(fd_);
    throw std::runtime_error("launcher at " + path + " closed the connection");
  }
}

LauncherBootstrap::~LauncherBootstrap() {
  if (fd_ >= 0) ::close(fd_);
}

void LauncherBootstrap::put(const std::string& key, const std::string& value) { mine_[key] = value; }

void LauncherBootstrap::fence() {
  std::vector<std::string> kv;
  for (const auto& [k, v] : mine_) {
    kv.push_back(k);
    kv.push_back(v);
  }
  if (!bootstrap::send_frame(fd_, bootstrap::Msg::kFence, bootstrap::encode_blobs(kv)))
    throw std::runtime_error("fence: the launcher went away");
  bootstrap::Msg type;
  std::string body;
  next_frame(true, &type, &body);  // blocking: a frame, or it throws
  std::vector<std::string> blobs;
  if (type != bootstrap::Msg::kFenceResult || !bootstrap::decode_blobs(body, static_cast<std::size_t>(size_), &blobs))
    throw std::runtime_error("fence: malformed answer from the launcher");
  std::vector<std::map<std::string, std::string>> all(blobs.size());
  for (std::size_t r = 0; r < blobs.size(); ++r) {
    if (!bootstrap::decode_blobs(blobs[r], &kv) || kv.size() % 2 != 0)
      throw std::runtime_error("fence: malformed cards of rank " + std::to_string(r) + " from the launcher");
    for (std::size_t i = 0; i < kv.size(); i += 2) all[r][kv[i]] = std::move(kv[i + 1]);
  }
  all_ = std::move(all);
}

const std::string& LauncherBootstrap::get(int rank, const std::string& key) const {
  if (rank >= 0 && static_cast<std::size_t>(rank) < all_.size())
    if (auto it = all_[static_cast<std::size_t>(rank)].find(key); it != all_[static_cast<std::size_t>(rank)].end())
      return it->second;
  throw std::runtime_error("bootstrap: rank " + std::to_string(rank) + " published no \"" + key + "\"");
}

bool LauncherBootstrap::next_frame(bool block, bootstrap::Msg* type, std::string* body) {
  for (;;) {
    bool bad = false;
    while (bootstrap::take_frame(in_, type, body, &bad)) {
      if (*type != bootstrap::Msg::kPeerFinalizing) return true;
      std::uint32_t r;
      if (!bootstrap::decode_rank(*body, &r) || r >= static_cast<std::uint32_t>(size_))
        throw std::runtime_error("bootstrap: malformed finalize notice from the launcher");
      finalized_.push_back(static_cast<int>(r));
    }
    if (bad) throw std::runtime_error("bootstrap: the launcher announced an oversized frame");
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, block ? 0 : MSG_DONTWAIT);
    if (n > 0) {
      in_.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !block) return false;
    throw std::runtime_error("bootstrap: the launcher went away");
  }
}

// Polled by the engine every 100 ms while it waits: one recv that does not
// block. A launcher that has gone, or a frame out of place, is left to the
// next fence to report: this is called from inside waits, which do not
// throw.
std::vector<int> LauncherBootstrap::take_finalized() {
  bootstrap::Msg type;
  std::string body;
  try {
    if (fd_ >= 0) next_frame(false, &type, &body);
  } catch (const std::runtime_error&) {
  }
  return std::exchange(finalized_, {});
}

void LauncherBootstrap::finalizing() {
  if (!bootstrap::send_frame(fd_, bootstrap::Msg::kFinalizing, ""))
    throw std::runtime_error("finalize: the launcher went away");
}

void LauncherBootstrap::abort(int code, const std::string& message) {
  bootstrap::send_frame(fd_, bootstrap::Msg::kAbort, bootstrap::encode_abort(code, message));
}

}  // namespace meshmp::mesh
