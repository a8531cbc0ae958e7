// A nonblocking collective's schedule (MPI-3.1 §5.12): rounds of transfers
// and local steps that run while the program does something else. Each
// round posts all its sends and receives at once; when every one has
// completed, the round's local steps (combines, copies, unpacking) run in
// order and the next round starts. Schedules started in a process are
// advanced by the engine's progress hook (mesh/engine.h,
// Engine::set_progress_hook) after every round of polling of any wait, test
// or probe, so one collective moves while the program waits for another
// request, receives, or probes -- the progress MPI-3.1 §5.12 asks for, as
// Open MPI's libnbc and MPICH's schedules give it.
//
// Transfers run in the context and tag start() is given: the caller picks a
// context no blocking collective uses (ContextIds::kNonblockingOffset) and a
// tag per collective call, which every member numbers alike because MPI
// members start their collectives in the same order (§5.12).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "collectives/forwarding.h"
#include "mesh/engine.h"

namespace meshmp::collectives {

class Schedule {
 public:
  Schedule() = default;
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;
  /// Leaves the set of advancing schedules; transfers still in flight (a
  /// schedule abandoned unfinished) are freed when they complete.
  ~Schedule();

  // ---- building (before start) ----
  /// A send of `bytes` at `buf` to world rank `dst` in the current round.
  void send(int dst, const void* buf, std::size_t bytes);
  /// A receive of at most `bytes` into `buf` from world rank `src` in the
  /// current round; a longer message fails the schedule with kTruncate.
  void recv(int src, void* buf, std::size_t bytes);
  /// A broadcast's receive, which must be exactly `bytes` long (every
  /// member's count is the root's, MPI-1.1 §4.4), recorded in *f (held by
  /// the caller, e.g. with hold()). A shorter or longer message makes
  /// error() kTruncate when the schedule ends, and the rounds after it still
  /// run, so the members it forwards to are not left waiting.
  void recv_exact(int src, void* buf, std::size_t bytes, Forwarding* f);
  /// A broadcast's send of the `bytes` at `buf` on to `dst`, as *f says
  /// (forwarding.h: after a mismatch, a length that tells `dst` too).
  void forward(int dst, const void* buf, std::size_t bytes, Forwarding* f);
  /// A local step after the current round's transfers; transfers added
  /// after it belong to the next round. A step may extend the schedule
  /// while it runs -- call next() first, then add rounds as before (a
  /// retry that depends on what the rounds so far found); every member
  /// must extend it alike.
  void then(std::function<void()> step);
  /// Ends the current round: what is added next waits for it.
  void next();
  /// `bytes` of memory that lives as long as the schedule.
  char* scratch(std::size_t bytes);
  /// Keeps `v` alive as long as the schedule; its address is stable.
  template <typename T>
  T* hold(T v) {
    auto p = std::make_shared<T>(std::move(v));
    T* raw = p.get();
    held_.push_back(std::move(p));
    return raw;
  }

  // ---- running ----
  /// Posts the first round in `context` with `tag` and joins the schedules
  /// the engine's progress hook advances (runs at once what needs no
  /// transfer: a schedule of one member is finished on return).
  void start(mesh::Engine& e, std::uint32_t context, int tag);
  /// Every round done, or a transfer failed (error() says which way).
  bool finished() const { return started_ && cur_ == rounds_.size(); }
  /// kOk, or the first failed transfer's error (kPeerDead, kTruncate, ...):
  /// the rounds after it do not run; kTruncate if an exact receive's length
  /// was not what was posted.
  mesh::Error error() const { return err_ != mesh::Error::kOk || !length_mismatch_ ? err_ : mesh::Error::kTruncate; }
  /// Completes what has completed and posts what can start; true if it
  /// moved anything.
  bool advance();

 private:
  struct Transfer {
    bool is_send;
    int peer;
    char* buf;
    std::size_t bytes;
    Forwarding* fwd;  ///< a broadcast's recv_exact or forward
  };
  struct Round {
    std::vector<Transfer> transfers;
    std::vector<std::function<void()>> steps;
    bool closed = false;
  };
  Round& open_round();
  void post(const Round& r);

  std::deque<Round> rounds_;  // a deque: a running step may append (references stay valid)
  std::vector<std::unique_ptr<char[]>> scratch_;
  std::vector<std::shared_ptr<void>> held_;
  mesh::Engine* e_ = nullptr;
  std::uint32_t context_ = 0;
  int tag_ = 0;
  bool started_ = false, posted_ = false;
  bool advancing_ = false;  ///< in the list the progress hook advances (schedule.cc)
  friend bool advance_started(void*);
  std::size_t cur_ = 0;
  std::vector<mesh::Request*> live_;
  std::size_t pending_ = 0;
  mesh::Error err_ = mesh::Error::kOk;
  bool length_mismatch_ = false;  ///< an exact receive was shorter or longer
};

}  // namespace meshmp::collectives
