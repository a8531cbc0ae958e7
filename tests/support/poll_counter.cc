#include "tests/support/poll_counter.h"

#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>

#include <atomic>

namespace {

std::atomic<std::uint64_t> polls{0};

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

namespace meshmp::testing_support {
std::uint64_t nonblocking_polls() { return polls.load(); }
}  // namespace meshmp::testing_support

extern "C" {

int epoll_wait(int epfd, epoll_event* events, int maxevents, int timeout) {
  static auto real = next<int (*)(int, epoll_event*, int, int)>("epoll_wait");
  if (timeout == 0) polls.fetch_add(1, std::memory_order_relaxed);
  return real(epfd, events, maxevents, timeout);
}

int epoll_pwait(int epfd, epoll_event* events, int maxevents, int timeout, const sigset_t* mask) {
  static auto real = next<int (*)(int, epoll_event*, int, int, const sigset_t*)>("epoll_pwait");
  if (timeout == 0) polls.fetch_add(1, std::memory_order_relaxed);
  return real(epfd, events, maxevents, timeout, mask);
}

int poll(pollfd* fds, nfds_t nfds, int timeout) {
  static auto real = next<int (*)(pollfd*, nfds_t, int)>("poll");
  if (timeout == 0) polls.fetch_add(1, std::memory_order_relaxed);
  return real(fds, nfds, timeout);
}

}  // extern "C"
