// An in-process fabric for tests of the protocol engine at its seams
// (mesh/provider.h, mesh/bootstrap/bootstrap.h): N ranks, each an Engine driven by its
// own thread, whose links are rings of frames in ordinary memory and whose
// put copies bytes inside the process. Puts can be made to complete later,
// to find no resource, or to be unsupported, so the engine's handling of an
// asynchronous put (issue 16) is testable without a device; frames can be
// injected to test what the engine does with bad ones. Every frame a link
// carries and every put completion is logged in order.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mesh/bootstrap/bootstrap.h"
#include "mesh/engine.h"
#include "mesh/provider.h"

namespace meshmp::testing_support {

class LoopbackFabric {
 public:
  /// `slots` frames of `payload` bytes per link direction.
  LoopbackFabric(int nranks, std::uint32_t slots, std::size_t payload);
  ~LoopbackFabric();

  std::unique_ptr<mesh::Provider> provider(int rank);
  std::unique_ptr<mesh::Bootstrap> bootstrap(int rank);

  /// Runs body(engine, rank) on every rank, each in a thread, with an
  /// Engine::create'd engine over this fabric on a 1-D torus of nranks
  /// (eager limit = the slot payload, 8 credits), then shuts the engines
  /// down. Returns what each rank threw ("" if nothing).
  std::vector<std::string> run(const std::function<void(mesh::Engine&, int)>& body,
                               const std::string& mesh_fabric_config = "");

  /// For tests of a real provider: run() builds each rank's engine over
  /// make(rank) instead of this fabric's links (the bootstrap stays this
  /// fabric's, whose secret() is kSecret), on `torus` (default: a ring).
  static constexpr const char* kSecret = "loopback-job-secret";
  void use_providers(std::function<std::unique_ptr<mesh::Provider>(int rank)> make, mesh::Torus torus);
  /// What `rank` put under `key` before the last fence ("" if nothing).
  std::string published(int rank, const std::string& key);

  enum class PutMode {
    kImmediate,   ///< put copies at once: kDone
    kDeferred,    ///< put returns kInProgress; complete_deferred() copies and completes
    kNoResource,  ///< the next `count` puts return kNoResource, then kImmediate
    kUnsupported, ///< put returns kUnsupported (the engine streams DATA frames)
  };
  void set_put_mode(PutMode m, int count = 0);
  /// Puts accepted (kInProgress) and not yet completed.
  int deferred_puts();
  /// Copies the bytes of every deferred put and queues its completion.
  void complete_deferred();
  /// put() calls so far, whatever they returned.
  int put_calls();

  /// Like cables on a mesh: a provider reaches only ranks next to it on the
  /// ring 0..n-1 (and so cannot link to any other rank).
  void set_neighbours_only(bool on);
  /// Which simulated host each rank is on (same_host()); by default every
  /// rank is on a host of its own.
  void set_hosts(std::vector<int> host_of_rank);
  /// Cuts the cable(s) between ranks a and b, as a cable that dies: their
  /// links carry nothing more (frames written and not yet read are lost),
  /// and each side's provider reports its links failed (peer_gone) once.
  void cut(int a, int b);

  /// Writes a frame from `from` to `to` on link #0 with the next sequence
  /// number, as if `from`'s engine had sent it.
  void inject_frame(int from, int to, mesh::FrameHeader h);

  /// "R>P TYPE" for each frame rank R sent to P, "R>P put-complete" for each
  /// completion of a put rank R made, in order.
  std::vector<std::string> log();

  struct Pipe;
  struct Shared;

 private:
  std::shared_ptr<Shared> s_;
};

}  // namespace meshmp::testing_support
