#include "mesh/bootstrap_client.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "mesh/bootstrap_protocol.h"

namespace meshmp::mesh {

BootstrapClient::BootstrapClient(const std::string& path, int rank, const std::string& secret) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    throw std::runtime_error("bootstrap socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw std::runtime_error("cannot connect to the launcher at " + path + ": " + std::strerror(errno));
  if (!bootstrap::send_frame(fd_, bootstrap::Msg::kHello, bootstrap::encode_hello(rank, ::getpid(), secret)))
    throw std::runtime_error("launcher at " + path + " closed the connection");
}

BootstrapClient::~BootstrapClient() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<std::string> BootstrapClient::fence(const std::string& mine, int nranks) {
  if (!bootstrap::send_frame(fd_, bootstrap::Msg::kFence, mine))
    throw std::runtime_error("fence: the launcher went away");
  bootstrap::Msg type;
  std::string body;
  if (!bootstrap::recv_frame(fd_, &type, &body)) throw std::runtime_error("fence: the launcher went away");
  std::vector<std::string> blobs;
  if (type != bootstrap::Msg::kFenceResult || !bootstrap::decode_blobs(body, nranks, &blobs))
    throw std::runtime_error("fence: malformed answer from the launcher");
  return blobs;
}

void BootstrapClient::abort(int code, const std::string& message) {
  bootstrap::send_frame(fd_, bootstrap::Msg::kAbort, bootstrap::encode_abort(code, message));
}

}  // namespace meshmp::mesh
