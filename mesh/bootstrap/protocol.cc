#include "mesh/bootstrap/protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace meshmp::mesh::bootstrap {
namespace {

// A launcher that has gone is an error the caller reports, not a SIGPIPE
// that kills the rank (MSG_NOSIGNAL).
bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool read_all(int fd, char* p, std::size_t n) {
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

}  // namespace

std::string encode_frame(Msg type, const std::string& body) {
  const std::uint32_t hdr[2] = {static_cast<std::uint32_t>(type), static_cast<std::uint32_t>(body.size())};
  std::string out(reinterpret_cast<const char*>(hdr), sizeof hdr);
  return out + body;
}

bool take_frame(std::string& in, Msg* type, std::string* body, bool* bad) {
  *bad = false;
  std::uint32_t hdr[2];
  if (in.size() < sizeof hdr) return false;
  std::memcpy(hdr, in.data(), sizeof hdr);
  if (hdr[1] > kMaxFrame) {
    *bad = true;
    return false;
  }
  if (in.size() - sizeof hdr < hdr[1]) return false;
  *type = static_cast<Msg>(hdr[0]);
  body->assign(in, sizeof hdr, hdr[1]);
  in.erase(0, sizeof hdr + hdr[1]);
  return true;
}

bool send_frame(int fd, Msg type, const std::string& body) {
  if (body.size() > kMaxFrame) return false;
  const std::string frame = encode_frame(type, body);
  return write_all(fd, frame.data(), frame.size());
}

bool recv_frame(int fd, Msg* type, std::string* body) {
  std::uint32_t hdr[2];
  if (!read_all(fd, reinterpret_cast<char*>(hdr), sizeof hdr)) return false;
  if (hdr[1] > kMaxFrame) return false;
  *type = static_cast<Msg>(hdr[0]);
  body->resize(hdr[1]);
  return read_all(fd, body->data(), hdr[1]);
}

std::string encode_hello(int rank, int pid, const std::string& secret) {
  const std::uint32_t hello[2] = {static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(pid)};
  std::string body(reinterpret_cast<const char*>(hello), sizeof hello);
  return body + secret;
}

bool decode_hello(const std::string& body, const std::string& secret, std::uint32_t* rank) {
  std::uint32_t hello[2];
  if (body.size() != sizeof hello + secret.size() || body.compare(sizeof hello, std::string::npos, secret) != 0)
    return false;
  std::memcpy(hello, body.data(), sizeof hello);
  *rank = hello[0];
  return true;
}

std::string encode_abort(int code, const std::string& message) {
  std::string body(reinterpret_cast<const char*>(&code), sizeof code);
  return body + message;
}

bool decode_abort(const std::string& body, int* code, std::string* message) {
  if (body.size() < sizeof *code) return false;
  std::memcpy(code, body.data(), sizeof *code);
  message->assign(body, sizeof *code);
  return true;
}

std::string encode_rank(int rank) {
  const std::uint32_t r = static_cast<std::uint32_t>(rank);
  return std::string(reinterpret_cast<const char*>(&r), sizeof r);
}

bool decode_rank(const std::string& body, std::uint32_t* rank) {
  if (body.size() != sizeof *rank) return false;
  std::memcpy(rank, body.data(), sizeof *rank);
  return true;
}

std::string encode_blobs(const std::vector<std::string>& blobs) {
  std::string out;
  for (const std::string& b : blobs) {
    std::uint32_t n = static_cast<std::uint32_t>(b.size());
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out += b;
  }
  return out;
}

bool decode_blobs(const std::string& body, std::size_t expected, std::vector<std::string>* blobs) {
  return decode_blobs(body, blobs) && blobs->size() == expected;
}

bool decode_blobs(const std::string& body, std::vector<std::string>* blobs) {
  blobs->clear();
  std::size_t pos = 0;
  while (pos < body.size()) {
    std::uint32_t n;
    if (body.size() - pos < sizeof n) return false;
    std::memcpy(&n, body.data() + pos, sizeof n);
    pos += sizeof n;
    if (n > body.size() - pos) return false;
    blobs->emplace_back(body, pos, n);
    pos += n;
  }
  return true;
}

}  // namespace meshmp::mesh::bootstrap
