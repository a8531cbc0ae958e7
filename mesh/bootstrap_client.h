// A rank's side of the launcher's address exchange (bootstrap_protocol.h).
#pragma once

#include <string>
#include <vector>

namespace meshmp::mesh {

class BootstrapClient {
 public:
  /// Connects to the launcher's socket and says HELLO with the job's secret
  /// (MESHMP_SECRET). Throws std::runtime_error naming the socket on failure.
  BootstrapClient(const std::string& socket_path, int rank, const std::string& secret);
  ~BootstrapClient();
  BootstrapClient(const BootstrapClient&) = delete;
  BootstrapClient& operator=(const BootstrapClient&) = delete;

  /// All-gather: every rank contributes a blob; returns all of them, indexed
  /// by rank. Blocks until every rank has called it. Throws
  /// std::runtime_error if the launcher goes away or answers malformed data.
  std::vector<std::string> fence(const std::string& mine, int nranks);
  /// Asks the launcher to end the whole job with `code`; returns when sent.
  void abort(int code, const std::string& message);

 private:
  int fd_ = -1;
};

}  // namespace meshmp::mesh
