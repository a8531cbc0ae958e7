// A rank's side of qmprun's address exchange (protocol.h), behind
// the Bootstrap seam (bootstrap.h). Every rank runs on the launcher's host.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mesh/bootstrap/bootstrap.h"
#include "mesh/bootstrap/protocol.h"

namespace meshmp::mesh {

class LauncherBootstrap final : public Bootstrap {
 public:
  /// Connects to the launcher's socket and says HELLO with the job's secret.
  /// Throws std::runtime_error naming the socket on failure. `appnum`: this
  /// rank's application context, as qmprun set it (MESHMP_APPNUM).
  LauncherBootstrap(const std::string& socket_path, int rank, int size, const std::string& job,
                    const std::string& secret, int appnum = 0);
  ~LauncherBootstrap() override;
  LauncherBootstrap(const LauncherBootstrap&) = delete;
  LauncherBootstrap& operator=(const LauncherBootstrap&) = delete;

  void put(const std::string& key, const std::string& value) override;
  /// One FENCE frame carries this rank's puts (key, value, key, value, ...
  /// as blobs); the launcher's all-gather brings back every rank's.
  void fence() override;
  void finalizing() override;
  std::vector<int> take_finalized() override;
  const std::string& get(int rank, const std::string& key) const override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int appnum() const override { return appnum_; }
  const std::string& job() const override { return job_; }
  const char* kind() const override { return "qmprun"; }
  int local_ranks() const override { return size_; }
  const std::string& secret() const override { return secret_; }
  void abort(int code, const std::string& message) override;

 private:
  /// Reads what the launcher sent into in_ (blocking for at least one
  /// byte if `block`), keeps the kPeerFinalizing notices it finds, and
  /// returns the first other frame in *type, *body: false if none is whole
  /// yet. Throws std::runtime_error if the launcher went away or sent
  /// something malformed.
  bool next_frame(bool block, bootstrap::Msg* type, std::string* body);

  int fd_ = -1;
  std::string in_;            // bytes from the launcher not yet taken
  std::vector<int> finalized_;  // notices not yet taken by take_finalized()
  int rank_, size_, appnum_;
  std::string job_, secret_;
  std::map<std::string, std::string> mine_;
  std::vector<std::map<std::string, std::string>> all_;  // by rank, as of the last fence
};

}  // namespace meshmp::mesh
