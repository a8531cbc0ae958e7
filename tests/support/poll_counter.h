// Counts the non-blocking polls a program makes: epoll_wait, epoll_pwait and
// poll with a timeout of 0. A test program that links this library has its
// own definitions of those functions (the meshmp code in it is linked
// statically, so its calls bind here); each counts, then calls the C
// library's through dlsym(RTLD_NEXT). Blocking calls (an idle sleep) are
// not counted: they are how a rank waits, not what it does per message.
#pragma once

#include <cstdint>

namespace meshmp::testing_support {

/// Non-blocking polls (timeout 0) made so far by any thread of the process.
std::uint64_t nonblocking_polls();

}  // namespace meshmp::testing_support
