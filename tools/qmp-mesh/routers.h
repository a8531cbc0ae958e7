// The testbed's routing daemons (issue 19): one meshrouted per node
// namespace of a mesh testbed, started by `qmp-mesh net up` and stopped by
// `net down`. Their state lives in /run/meshmp-net/<name>/ (0700): the
// routing key (32 random bytes, 0600), a copy of the config, and per node
// n<i>.pid and n<i>.log.
#pragma once

#include <string>

#include "kernel_forwarder/address_plan.h"

namespace meshmp::tools {

/// The directory of testbed `name`'s daemons.
std::string routers_dir(const std::string& name);

/// Starts meshrouted (the program at `meshrouted`) in every node namespace
/// of `plan`, each in its own session, its output in n<i>.log. Throws
/// std::runtime_error naming what failed; the caller removes the testbed.
void start_routers(const kernel_forwarder::NetPlan& plan, const std::string& config, const std::string& meshrouted);

/// Stops the daemons of testbed `name` by their PIDs (SIGTERM, SIGKILL after
/// 2 s) and removes their directory. Returns how many could not be stopped.
int stop_routers(const std::string& name);

/// Whether `stat_fd`, an open /proc/<pid>/stat, is that of a running (not a
/// zombie) meshrouted. False, not an exception, when it cannot be read: a
/// process that exited after the file was opened reads as ESRCH, which
/// `net down` meets whenever a daemon ends while it looks (std::ifstream
/// threw "basic_filebuf::underflow error reading the file").
bool stat_is_running_meshrouted(int stat_fd);

/// The meshrouted next to this program (/proc/self/exe), or "" if none.
std::string default_meshrouted();

}  // namespace meshmp::tools
