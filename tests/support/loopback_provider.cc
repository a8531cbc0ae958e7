#include "tests/support/loopback_provider.h"

#include <chrono>
#include <cstring>
#include <deque>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace meshmp::testing_support {

using mesh::FrameHeader;
using mesh::FrameType;
using mesh::PutCompletion;
using mesh::PutStatus;

// One direction of one link: a ring of `slots` frames. The sender writes a
// slot it holds a token for, then publishes it under the fabric's lock.
struct LoopbackFabric::Pipe {
  struct Slot {
    FrameHeader h{};
    std::vector<char> payload;
  };
  std::vector<Slot> ring;
  std::uint64_t published = 0;  // frames sent so far (the next send's seq)
};

struct LoopbackFabric::Shared {
  int nranks;
  std::uint32_t slots;
  std::size_t payload;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::uint32_t> doorbell;
  std::map<std::tuple<int, int, int>, std::unique_ptr<Pipe>> pipes;  // (from, to, index)
  std::map<std::tuple<int, int, int>, int> joined;                    // sides that made their Link
  std::set<std::tuple<int, int, int>> made;                           // (rank, peer, index) of each Link made
  std::vector<std::vector<int>> connect_requests;                     // by rank: peers that connected
  std::vector<std::string> log;
  PutMode mode = PutMode::kImmediate;
  bool neighbours_only = false;
  std::vector<int> hosts;  // empty: a host per rank
  std::set<std::pair<int, int>> cut;       // (lower, higher) rank of each cut cable
  std::set<std::pair<int, int>> reported;  // (rank, peer): the rank's provider reported the cut
  bool is_cut(int a, int b) const { return cut.count({std::min(a, b), std::max(a, b)}) != 0; }
  int no_resource_left = 0;
  int put_calls = 0;
  struct Deferred {
    int from, to, index;
    std::vector<iovec> iov;
    std::uint64_t addr, cookie;
  };
  std::vector<Deferred> deferred;
  std::map<std::tuple<int, int, int>, std::deque<PutCompletion>> completions;  // (from, to, index)
  // Bootstrap.
  std::vector<std::map<std::string, std::string>> staged, visible;
  std::function<std::unique_ptr<mesh::Provider>(int)> make_provider;
  mesh::Torus torus;
  int fence_arrived = 0;
  std::uint64_t fence_generation = 0;

  Pipe& pipe(int from, int to, int index) {
    auto& p = pipes[{from, to, index}];
    if (!p) {
      p = std::make_unique<Pipe>();
      p->ring.resize(slots);
      for (auto& s : p->ring) s.payload.resize(payload);
    }
    return *p;
  }
  void wake(int rank) {  // with mu held
    ++doorbell[rank];
    cv.notify_all();
  }
};

namespace {

class LoopbackLink final : public mesh::Link {
 public:
  LoopbackLink(std::shared_ptr<LoopbackFabric::Shared> s, int me, int peer, int index)
      : s_(std::move(s)), me_(me), peer_(peer), index_(index) {
    std::lock_guard<std::mutex> g(s_->mu);
    send_ = &s_->pipe(me, peer, index);
    recv_ = &s_->pipe(peer, me, index);
    ++s_->joined[{std::min(me, peer), std::max(me, peer), index}];
    s_->made.insert({me, peer, index});
  }
  int peer() const override { return peer_; }
  int index() const override { return index_; }
  bool up() override {
    std::lock_guard<std::mutex> g(s_->mu);
    return s_->joined[{std::min(me_, peer_), std::max(me_, peer_), index_}] == 2;
  }
  std::uint32_t slots() const override { return s_->slots; }
  std::size_t max_payload() const override { return s_->payload; }
  FrameHeader* begin_send(char** payload, std::size_t) override {
    std::lock_guard<std::mutex> g(s_->mu);
    auto& slot = send_->ring[send_->published % s_->slots];
    *payload = slot.payload.data();
    return &slot.h;
  }
  void end_send(std::size_t) override {
    std::lock_guard<std::mutex> g(s_->mu);
    auto& slot = send_->ring[send_->published % s_->slots];
    slot.h.seq = send_->published++;
    s_->log.push_back(std::to_string(me_) + ">" + std::to_string(peer_) + " " +
                      mesh::frame_type_name(static_cast<FrameType>(slot.h.type)));
    s_->wake(peer_);
  }
  bool peek(FrameHeader* h, const char** payload) override {
    std::lock_guard<std::mutex> g(s_->mu);
    if (recv_->published <= recv_seq_ || s_->is_cut(me_, peer_)) return false;
    auto& slot = recv_->ring[recv_seq_ % s_->slots];
    *h = slot.h;
    *payload = slot.payload.data();
    return true;
  }
  void release() override { ++recv_seq_; }
  std::uint64_t recv_seq() const override { return recv_seq_; }

  PutStatus put(const iovec* iov, int iovcnt, std::uint64_t addr, std::uint64_t, std::uint64_t cookie) override {
    std::lock_guard<std::mutex> g(s_->mu);
    ++s_->put_calls;
    switch (s_->mode) {
      case LoopbackFabric::PutMode::kUnsupported:
        return PutStatus::kUnsupported;
      case LoopbackFabric::PutMode::kDeferred:
        s_->deferred.push_back({me_, peer_, index_, std::vector<iovec>(iov, iov + iovcnt), addr, cookie});
        return PutStatus::kInProgress;
      case LoopbackFabric::PutMode::kNoResource:
        if (s_->no_resource_left > 0) {
          --s_->no_resource_left;
          return PutStatus::kNoResource;
        }
        [[fallthrough]];
      case LoopbackFabric::PutMode::kImmediate:
        for (int i = 0; i < iovcnt; addr += iov[i].iov_len, ++i)
          std::memcpy(reinterpret_cast<void*>(addr), iov[i].iov_base, iov[i].iov_len);
        return PutStatus::kDone;
    }
    return PutStatus::kUnsupported;
  }
  void ring() override {
    std::lock_guard<std::mutex> g(s_->mu);
    s_->wake(peer_);
  }
  bool poll_put(PutCompletion* c) override {
    std::lock_guard<std::mutex> g(s_->mu);
    auto& q = s_->completions[{me_, peer_, index_}];
    if (q.empty()) return false;
    *c = q.front();
    q.pop_front();
    return true;
  }
  std::string describe() const override {
    return "loopback " + std::to_string(me_) + "<->" + std::to_string(peer_) + " #" + std::to_string(index_);
  }

 private:
  std::shared_ptr<LoopbackFabric::Shared> s_;
  int me_, peer_, index_;
  LoopbackFabric::Pipe* send_;
  LoopbackFabric::Pipe* recv_;
  std::uint64_t recv_seq_ = 0;
};

class LoopbackProvider final : public mesh::Provider {
 public:
  LoopbackProvider(std::shared_ptr<LoopbackFabric::Shared> s, int me) : s_(std::move(s)), me_(me) {}
  const char* name() const override { return "loopback"; }
  mesh::ProviderCaps caps() const override {
    mesh::ProviderCaps c;
    c.rdma_write = true;
    return c;
  }
  std::unique_ptr<mesh::Link> offer_link(int peer, int index) override { return link(peer, index); }
  std::string address_card() const override { return "loopback " + std::to_string(me_); }
  void attach(const std::vector<std::string>& cards) override {
    for (std::size_t r = 0; r < cards.size(); ++r)
      if (cards[r] != "loopback " + std::to_string(r))
        throw std::runtime_error("loopback: malformed address card from rank " + std::to_string(r));
  }
  std::unique_ptr<mesh::Link> join_link(int peer, int index) override { return link(peer, index); }
  void wired() override {}
  bool reachable(int peer) const override {
    std::lock_guard<std::mutex> g(s_->mu);
    const int d = (peer - me_ + s_->nranks) % s_->nranks;
    return !s_->neighbours_only || d == 1 || d == s_->nranks - 1;
  }
  bool same_host(int peer) const override {
    std::lock_guard<std::mutex> g(s_->mu);
    return !s_->hosts.empty() && s_->hosts[peer] == s_->hosts[me_];
  }
  std::unique_ptr<mesh::Link> connect(int peer) override {
    {
      std::lock_guard<std::mutex> g(s_->mu);
      if (s_->joined.count({std::min(me_, peer), std::max(me_, peer), 0}) == 0) {
        s_->connect_requests[peer].push_back(me_);
        s_->wake(peer);
      }
    }
    return link(peer, 0);
  }
  void accept(std::vector<std::unique_ptr<mesh::Link>>* incoming) override {
    std::vector<int> from;
    {
      std::lock_guard<std::mutex> g(s_->mu);
      from.swap(s_->connect_requests[me_]);
      // Both connected at once: this rank's own connect() made its side of
      // the link, so the request needs no second one.
      std::erase_if(from, [&](int p) { return s_->made.count({me_, p, 0}) != 0; });
    }
    for (int p : from) incoming->push_back(link(p, 0));
  }
  std::string check_peer(int) override { return ""; }
  void report_closed(int) override {}
  void take_failures(std::vector<mesh::LinkFailure>* out) override {
    std::lock_guard<std::mutex> g(s_->mu);
    for (const auto& [a, b] : s_->cut) {
      const int p = a == me_ ? b : b == me_ ? a : -1;
      if (p >= 0 && s_->reported.insert({me_, p}).second)
        out->push_back({p, true, "loopback " + std::to_string(me_) + "<->" + std::to_string(p) + ": cut"});
    }
  }
  std::uint32_t arm() override {
    std::lock_guard<std::mutex> g(s_->mu);
    return s_->doorbell[me_];
  }
  void sleep(std::uint32_t seen, int timeout_ms) override {
    std::unique_lock<std::mutex> g(s_->mu);
    s_->cv.wait_for(g, std::chrono::milliseconds(timeout_ms), [&] { return s_->doorbell[me_] != seen; });
  }
  void disarm() override {}
  int wait_fd() override { return -1; }
  void drain_wait_fd() override {}
  mesh::MemoryDomain* memory_domain() override { return nullptr; }
  mesh::HostCombine* host_combine() override { return nullptr; }

 private:
  std::unique_ptr<mesh::Link> link(int peer, int index) {
    return std::make_unique<LoopbackLink>(s_, me_, peer, index);
  }
  std::shared_ptr<LoopbackFabric::Shared> s_;
  int me_;
};

class LoopbackBootstrap final : public mesh::Bootstrap {
 public:
  LoopbackBootstrap(std::shared_ptr<LoopbackFabric::Shared> s, int me) : s_(std::move(s)), me_(me) {}
  int rank() const override { return me_; }
  int size() const override { return s_->nranks; }
  const std::string& job() const override { return job_; }
  const char* kind() const override { return "loopback"; }
  void put(const std::string& key, const std::string& value) override {
    std::lock_guard<std::mutex> g(s_->mu);
    s_->staged[me_][key] = value;
  }
  void fence() override {
    std::unique_lock<std::mutex> g(s_->mu);
    const std::uint64_t gen = s_->fence_generation;
    if (++s_->fence_arrived == s_->nranks) {
      s_->fence_arrived = 0;
      ++s_->fence_generation;
      s_->visible = s_->staged;
      s_->cv.notify_all();
      return;
    }
    if (!s_->cv.wait_for(g, std::chrono::seconds(30), [&] { return s_->fence_generation != gen; }))
      throw std::runtime_error("loopback bootstrap: fence timed out");
  }
  const std::string& get(int rank, const std::string& key) const override {
    std::lock_guard<std::mutex> g(s_->mu);
    auto it = s_->visible.at(rank).find(key);
    if (it == s_->visible.at(rank).end())
      throw std::runtime_error("loopback bootstrap: rank " + std::to_string(rank) + " put nothing under " + key);
    return it->second;
  }
  int local_ranks() const override { return s_->nranks; }
  const std::string& secret() const override { return secret_; }
  void abort(int code, const std::string& message) override {
    throw std::runtime_error("loopback bootstrap: abort " + std::to_string(code) + ": " + message);
  }

 private:
  std::shared_ptr<LoopbackFabric::Shared> s_;
  int me_;
  std::string secret_ = LoopbackFabric::kSecret;
  std::string job_ = "loopback";
};

}  // namespace

LoopbackFabric::LoopbackFabric(int nranks, std::uint32_t slots, std::size_t payload)
    : s_(std::make_shared<Shared>()) {
  s_->nranks = nranks;
  s_->slots = slots;
  s_->payload = payload;
  s_->doorbell.assign(nranks, 0);
  s_->connect_requests.resize(nranks);
  s_->staged.resize(nranks);
  s_->visible.resize(nranks);
}

LoopbackFabric::~LoopbackFabric() = default;

std::unique_ptr<mesh::Provider> LoopbackFabric::provider(int rank) {
  return std::make_unique<LoopbackProvider>(s_, rank);
}
std::unique_ptr<mesh::Bootstrap> LoopbackFabric::bootstrap(int rank) {
  return std::make_unique<LoopbackBootstrap>(s_, rank);
}

void LoopbackFabric::cut(int a, int b) {
  std::lock_guard<std::mutex> g(s_->mu);
  s_->cut.insert({std::min(a, b), std::max(a, b)});
  s_->wake(a);
  s_->wake(b);
}

void LoopbackFabric::set_hosts(std::vector<int> host_of_rank) {
  std::lock_guard<std::mutex> g(s_->mu);
  s_->hosts = std::move(host_of_rank);
}

std::vector<std::string> LoopbackFabric::run(const std::function<void(mesh::Engine&, int)>& body,
                                             const std::string& mesh_fabric_config) {
  const int n = s_->nranks;
  std::vector<std::thread> threads;
  std::vector<std::string> errors(n);
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      try {
        mesh::EngineSetup s;
        s.rank = r;
        s.size = n;
        s.torus = s_->make_provider ? s_->torus : mesh::Torus({n});
        s.options.eager_limit = s_->payload;
        s.options.credits = 8;
        s.options.spin = 50;
        s.options.mesh_fabric_config = mesh_fabric_config;
        s.bootstrap = bootstrap(r);
        s.providers.push_back(s_->make_provider ? s_->make_provider(r) : provider(r));
        std::unique_ptr<mesh::Engine> e = mesh::Engine::create(std::move(s));
        body(*e, r);
        e->shutdown();
      } catch (const std::exception& ex) {
        errors[r] = ex.what();
      }
    });
  for (auto& t : threads) t.join();
  return errors;
}

void LoopbackFabric::use_providers(std::function<std::unique_ptr<mesh::Provider>(int)> make, mesh::Torus torus) {
  s_->make_provider = std::move(make);
  s_->torus = std::move(torus);
}

std::string LoopbackFabric::published(int rank, const std::string& key) {
  std::lock_guard<std::mutex> g(s_->mu);
  auto it = s_->visible.at(rank).find(key);
  return it == s_->visible.at(rank).end() ? "" : it->second;
}

void LoopbackFabric::set_neighbours_only(bool on) {
  std::lock_guard<std::mutex> g(s_->mu);
  s_->neighbours_only = on;
}

void LoopbackFabric::set_put_mode(PutMode m, int count) {
  std::lock_guard<std::mutex> g(s_->mu);
  s_->mode = m;
  s_->no_resource_left = count;
}

int LoopbackFabric::deferred_puts() {
  std::lock_guard<std::mutex> g(s_->mu);
  return static_cast<int>(s_->deferred.size());
}

int LoopbackFabric::put_calls() {
  std::lock_guard<std::mutex> g(s_->mu);
  return s_->put_calls;
}

void LoopbackFabric::complete_deferred() {
  std::lock_guard<std::mutex> g(s_->mu);
  for (auto& d : s_->deferred) {
    std::uint64_t addr = d.addr;
    for (const iovec& v : d.iov) {
      std::memcpy(reinterpret_cast<void*>(addr), v.iov_base, v.iov_len);
      addr += v.iov_len;
    }
    s_->completions[{d.from, d.to, d.index}].push_back(PutCompletion{d.cookie, PutStatus::kDone});
    s_->log.push_back(std::to_string(d.from) + ">" + std::to_string(d.to) + " put-complete");
    s_->wake(d.from);
    s_->wake(d.to);  // (the bytes' arrival wakes the target, as over a byte stream)
  }
  s_->deferred.clear();
}

void LoopbackFabric::inject_frame(int from, int to, FrameHeader h) {
  std::lock_guard<std::mutex> g(s_->mu);
  Pipe& p = s_->pipe(from, to, 0);
  auto& slot = p.ring[p.published % s_->slots];
  h.seq = p.published++;
  slot.h = h;
  s_->log.push_back(std::to_string(from) + ">" + std::to_string(to) + " injected");
  s_->wake(to);
}

std::vector<std::string> LoopbackFabric::log() {
  std::lock_guard<std::mutex> g(s_->mu);
  return s_->log;
}

}  // namespace meshmp::testing_support
