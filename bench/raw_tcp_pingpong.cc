// The baseline for the tcp provider (issue 17): the same ping-pong as
// bench/pingpong, but two processes on a plain TCP socket (TCP_NODELAY,
// non-blocking send/recv polled flat out, no framing) -- what the wire and the kernel cost by
// themselves. Output lines match bench/pingpong's:
//   pingpong bytes=N latency_us=HALF_RTT bandwidth_MBps=B
// Latency is half a round trip; bandwidth streams windows of 16 messages
// with one 4-byte ack each, as bench/pingpong does.
// Usage: raw_tcp_pingpong --listen PORT | --connect ADDR --port PORT [--iters N]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// Non-blocking calls retried at once: the socket polled flat out, as MPI
// libraries (and meshmp, before it sleeps) poll -- blocking calls would
// add the scheduler's wake-up to every message.
void io(int fd, char* p, std::size_t n, bool out) {
  while (n) {
    const ssize_t r = out ? ::send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) : ::recv(fd, p, n, MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (r <= 0) throw std::runtime_error("connection lost");
    p += r;
    n -= static_cast<std::size_t>(r);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"raw TCP ping-pong: the baseline for meshmp's tcp provider"};
  int listen_port = 0, port = 0, iters = 20000;
  std::string addr;
  auto* l = app.add_option("--listen", listen_port, "serve on this port (the echoing side)");
  auto* c = app.add_option("--connect", addr, "connect to this IPv4 address (the timing side)");
  app.add_option("--port", port, "with --connect: the port");
  app.add_option("--iters", iters, "round trips per size (fewer for large sizes)");
  l->excludes(c);
  CLI11_PARSE(app, argc, argv);
  if (!*l && !*c) {
    std::fprintf(stderr, "give --listen PORT or --connect ADDR --port PORT\n");
    return 2;
  }
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  if (*l) {
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    a.sin_port = htons(static_cast<std::uint16_t>(listen_port));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 1) != 0) return perror("bind"), 1;
    const int s = ::accept(fd, nullptr, nullptr);
    ::close(fd);
    fd = s;
  } else {
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    inet_pton(AF_INET, addr.c_str(), &a.sin_addr);
    for (int i = 0; ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0; ++i) {
      if (i > 200) return perror("connect"), 1;
      ::usleep(10000);
      ::close(fd);
      fd = ::socket(AF_INET, SOCK_STREAM, 0);
    }
  }
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::vector<char> buf(4 << 20);
  try {
    if (!*c) std::printf("# raw TCP ping-pong\n");
    for (std::size_t n = 8; n <= buf.size(); n *= 2) {
      const int k = n >= (1 << 20) ? std::max(20, iters / 200) : n >= 65536 ? std::max(100, iters / 20) : iters;
      auto t0 = std::chrono::steady_clock::now();
      for (int i = -10; i < k; ++i) {
        if (i == 0) t0 = std::chrono::steady_clock::now();
        if (*c) {
          io(fd, buf.data(), n, true);
          io(fd, buf.data(), n, false);
        } else {
          io(fd, buf.data(), n, false);
          io(fd, buf.data(), n, true);
        }
      }
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / k / 2;
      // Bandwidth as bench/pingpong measures it: windows of 16 messages, one 4-byte ack each.
      const int rounds = std::max(4, k / 16);
      char ack[4] = {};
      for (int r = -1; r < rounds; ++r) {
        if (r == 0) t0 = std::chrono::steady_clock::now();
        for (int w = 0; w < 16; ++w) io(fd, buf.data(), n, c->count() > 0);
        io(fd, ack, sizeof ack, c->count() == 0);
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (*c) std::printf("pingpong bytes=%zu latency_us=%.3f bandwidth_MBps=%.1f\n", n, us, n * 16.0 * rounds / s / 1e6);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "raw_tcp_pingpong: %s\n", e.what());
    return 1;
  }
  return 0;
}
