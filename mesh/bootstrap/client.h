// A rank's side of qmprun's address exchange (protocol.h), behind
// the Bootstrap seam (bootstrap.h). Every rank runs on the launcher's host.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mesh/bootstrap/bootstrap.h"

namespace meshmp::mesh {

class LauncherBootstrap final : public Bootstrap {
 public:
  /// Connects to the launcher's socket and says HELLO with the job's secret.
  /// Throws std::runtime_error naming the socket on failure.
  LauncherBootstrap(const std::string& socket_path, int rank, int size, const std::string& job,
                    const std::string& secret);
  ~LauncherBootstrap() override;
  LauncherBootstrap(const LauncherBootstrap&) = delete;
  LauncherBootstrap& operator=(const LauncherBootstrap&) = delete;

  void put(const std::string& key, const std::string& value) override;
  /// One FENCE frame carries this rank's puts (key, value, key, value, ...
  /// as blobs); the launcher's all-gather brings back every rank's.
  void fence() override;
  void finalizing() override;
  const std::string& get(int rank, const std::string& key) const override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::string& job() const override { return job_; }
  const char* kind() const override { return "qmprun"; }
  int local_ranks() const override { return size_; }
  const std::string& secret() const override { return secret_; }
  void abort(int code, const std::string& message) override;

 private:
  int fd_ = -1;
  int rank_, size_;
  std::string job_, secret_;
  std::map<std::string, std::string> mine_;
  std::vector<std::map<std::string, std::string>> all_;  // by rank, as of the last fence
};

}  // namespace meshmp::mesh
