// The bootstrap seam (ARCHITECTURE.md §2 "The seams", §6): how a rank finds
// the rest of its job. Address cards are exchanged by put / fence / get, as
// PMIx does (Put, Commit + Fence, Get); a rank can end the whole job; and it
// learns how many ranks share its host. The engine knows only this
// interface: qmprun's socket (mesh/bootstrap_client.h) implements it today,
// PMIx next (issue 18).
#pragma once

#include <memory>
#include <string>

namespace meshmp::mesh {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;

  /// Publishes `value` (bytes, any content) under `key` for this rank; other
  /// ranks see it after the next fence(). A second put of a key replaces it.
  virtual void put(const std::string& key, const std::string& value) = 0;
  /// Collective over every rank of the job: returns when every rank has
  /// called it, and every put made before it is visible to get(). Throws
  /// std::runtime_error if the launcher goes away or answers malformed data.
  virtual void fence() = 0;
  /// What `rank` put under `key` before the last fence. Throws
  /// std::runtime_error naming the rank and key if it put nothing there.
  virtual const std::string& get(int rank, const std::string& key) const = 0;
  /// The job's secret (bytes; never empty for a job of several ranks under
  /// a launcher): providers that accept connections from the network (tcp)
  /// authenticate their peers with it. Never part of a name others can see.
  virtual const std::string& secret() const = 0;
  /// Ranks of this job on this host, this one included.
  virtual int local_ranks() const = 0;
  /// Asks the launcher to end the whole job with exit status `code`;
  /// returns once the request is sent.
  virtual void abort(int code, const std::string& message) = 0;
};

/// The bootstrap the launch environment provides: qmprun's socket
/// (MESHMP_BOOTSTRAP, authenticated with MESHMP_SECRET, which is removed
/// from the environment once used). Throws std::runtime_error if there is
/// none ("start the job with qmprun") or it cannot be reached.
std::unique_ptr<Bootstrap> connect_bootstrap(int rank, int size);

}  // namespace meshmp::mesh
