// Starting and stopping the engine: the launcher's environment, the address
// vector (each peer's provider and locality), the neighbour links, finalize.
#include "mesh/engine/engine_impl.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "mesh/config/config.h"
#include "mesh/host_identity.h"
#include "mesh/bootstrap/launch_env.h"

namespace meshmp::mesh {

namespace {

using env::number;

// A config's node list against the hosts the launcher reports (PMIx), on
// every rank alike so that all of them stop with the same message.
void check_config_hosts(const MeshConfig& cfg, const Bootstrap& boot) {
  for (int r = 0; r < static_cast<int>(cfg.hosts.size()); ++r) {
    const std::string actual = boot.host_of(r);
    if (actual.empty() || cfg.hosts[r].empty()) continue;
    if (!same_host_name(cfg.hosts[r], actual))
      throw std::runtime_error(cfg.file + ": node " + std::to_string(r) + " is host \"" + cfg.hosts[r] + "\" but " +
                               boot.kind() + " started rank " + std::to_string(r) + " on \"" + actual +
                               "\" (the config's node list must follow the job's rank order)");
  }
}

}  // namespace

// The address vector (each peer's provider and locality), then one link
// per torus direction; on an axis of size 2 the two directions reach the
// same peer over links #0 and #1. The lower rank of a pair offers the
// link, the higher joins it once the address cards are exchanged.
void Engine::Impl::wire_up() {
  const Torus& t = e.torus_;
  struct Want { int dir, peer, index; };
  std::vector<Want> wants;
  for (int d = 0; d < 2 * t.ndims(); ++d) {
    Direction dir = Direction::from_index(d);
    int p = t.neighbour(e.rank_, dir);
    if (p < 0 || p == e.rank_) continue;
    wants.push_back({d, p, t.link_index(dir)});
  }
  std::vector<std::pair<Want, std::unique_ptr<Link>>> made;
  // Every rank's address cards, through the bootstrap (which only ranks
  // holding the job's secret can reach); from them each provider knows whom
  // it reaches and who shares this host.
  for (auto& pv : providers) boot->put(pv->name(), pv->address_card());
  boot->fence();
  for (auto& pv : providers) {
    std::vector<std::string> cards;
    for (int r = 0; r < e.size_; ++r) cards.push_back(boot->get(r, pv->name()));
    pv->attach(cards);
  }
  for (int p = 0; p < e.size_; ++p) {
    if (p == e.rank_) continue;
    for (auto& pv : providers)
      if (pv->reachable(p)) {
        peers[p].provider = pv.get();
        peers[p].same_host = pv->same_host(p);
        peers[p].eager_limit = std::max(e.opt_.eager_limit, pv->caps().eager_limit);
        break;
      }
    if (peers[p].provider) continue;
    // On a mesh fabric only neighbours are cabled: a rank no provider can
    // reach is routed through them (setup_routes, below); elsewhere, or for
    // a neighbour, the job cannot run.
    const bool neighbour = std::any_of(wants.begin(), wants.end(), [&](const Want& w) { return w.peer == p; });
    if (e.opt_.mesh_fabric_config.empty() || neighbour)
      throw std::runtime_error("no provider reaches rank " + std::to_string(p));
    peers[p].failed = Error::kUnreachable;
  }
  // The forwarding agent's routed peers (routed.cc), on a mesh fabric.
  bool routes_here = false;
  if (!e.opt_.mesh_fabric_config.empty()) {
    std::vector<int> neighbours;
    for (const Want& w : wants) neighbours.push_back(w.peer);
    routes_here = setup_routes(neighbours);
  }
  for (int p = 0; p < e.size_; ++p)
    if (p != e.rank_ && peers[p].provider &&
        std::find(in_use.begin(), in_use.end(), peers[p].provider) == in_use.end())
      in_use.push_back(peers[p].provider);
  // The first provider in use with registered memory (in their order: shm
  // before ofi); where none in use has any (tcp between hosts), the first
  // that has it, as before ofi (QMP_MEM_COMMS then still comes from shm's pool).
  for (bool used : {true, false})
    for (auto& pv : providers)
      if (!domain && pv->caps().registered_memory &&
          (!used || std::find(in_use.begin(), in_use.end(), pv.get()) != in_use.end())) {
        domain = pv->memory_domain();
        domain_name = pv->name();
      }
  if (const char* debug = std::getenv(env::kDebug); debug && std::strcmp(debug, "1") == 0)
    std::fprintf(stderr, "meshmp: %s\n", provider_summary().c_str());
  // Locality for everyone's collectives: a host is named by the lowest rank
  // on it, which each rank knows from its providers' same_host().
  int my_host = e.rank_;
  for (int p = 0; p < e.rank_; ++p)
    if (peers[p].same_host) {
      my_host = p;
      break;
    }
  boot->put("host", std::to_string(my_host));
  boot->put("routed", routes_here ? "1" : "0");
  for (const Want& w : wants)
    if (e.rank_ < w.peer) made.emplace_back(w, peers[w.peer].provider->offer_link(w.peer, w.index));
  boot->fence();
  // Every rank has attached every card: names only they needed can go now,
  // before any rank can leave the last fence below and end the job (an
  // MPI_Abort right after MPI_Init, its launcher killing the others).
  for (auto& pv : providers) pv->wired();
  for (int r = 0; r < e.size_; ++r) {
    const std::string& h = boot->get(r, "host");
    const int id = std::atoi(h.c_str());
    if (h != std::to_string(id) || id < 0 || id > r)
      throw std::runtime_error("bootstrap: malformed host card from rank " + std::to_string(r));
    host_ids[r] = id;
  }
  // Every rank forwards where any rank has a routed peer: a relay need not
  // have one of its own (the middle of an open line of three).
  bool routes_anywhere = false;
  for (int r = 0; r < e.size_; ++r) routes_anywhere |= boot->get(r, "routed") == "1";
  if (routes_anywhere) {
    max_hops = torus_diameter(e.torus_);
    relayed_pairs.assign(static_cast<std::size_t>(e.size_) * e.size_, false);
    if (max_hops > 255)  // (FrameHeader::hops is 8 bits)
      throw std::runtime_error("the torus " + e.torus_.to_string() + " is " + std::to_string(max_hops) +
                               " hops across; ranks relay frames across at most 255");
  }
  for (const Want& w : wants)
    if (e.rank_ > w.peer) made.emplace_back(w, peers[w.peer].provider->join_link(w.peer, w.index));
  // Links #0 first, so peers[p].links[0] is the envelope link.
  std::stable_sort(made.begin(), made.end(), [](auto& a, auto& b) { return a.first.index < b.first.index; });
  for (auto& [w, l] : made) by_direction[w.dir] = add_link(std::move(l));
  setup_idle_wait();
  // The neighbour links come up here, while every rank is in this loop to
  // serve the handshakes a provider may need (tcp); a link that cannot
  // come up fails its peer (the provider's deadline) instead of waiting.
  block_until([&] {
    for (auto& ls : links)
      if (!ls->up && peers[ls->peer].failed == Error::kOk) return false;
    return true;
  });
  // A neighbour this rank cannot reach fails the start (issue 29): the job
  // would only fail later, in its first exchange.
  for (auto& ls : links)
    if (!ls->up)
      throw std::runtime_error("the link to rank " + std::to_string(ls->peer) +
                               " did not come up at start-up: " + peers[ls->peer].why);
  boot->fence();
  // The host-local combine serves collectives over the whole job, so only
  // where every rank shares this host.
  bool one_host = true;
  for (int p = 0; p < e.size_; ++p) one_host &= p == e.rank_ || peers[p].same_host;
  if (one_host)
    for (int p = 0; p < e.size_ && !host; ++p)
      if (p != e.rank_ && peers[p].provider->caps().host_combine) host = peers[p].provider->host_combine();
}

// Idle waiting blocks in one place (ARCHITECTURE.md §3 "Progress"): the
// provider's own sleep where one provider serves every peer, else an epoll
// over the wait descriptors of those in use (shm's FIFO doorbell, tcp's
// epoll) -- no busy loop either way.
void Engine::Impl::setup_idle_wait() {
  if (in_use.size() == 1) {
    waiter = in_use[0];
    return;
  }
  wait_epoll = ::epoll_create1(EPOLL_CLOEXEC);
  if (wait_epoll < 0) throw std::runtime_error(std::string("epoll_create1: ") + std::strerror(errno));
  for (Provider* pv : in_use) {
    const int fd = pv->wait_fd();
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = pv;
    if (fd < 0 || ::epoll_ctl(wait_epoll, EPOLL_CTL_ADD, fd, &ev) != 0)
      throw std::runtime_error(std::string("provider ") + pv->name() + " offers no descriptor to wait on");
  }
}

// Which provider serves which peers: "rank 0: 3 peers on this host over
// shm; 4 on other hosts over ofi over libfabric's verbs (domain mlx5_0)".
std::string Engine::Impl::provider_summary() const {
  std::string s = "rank " + std::to_string(e.rank_) + ":";
  for (auto& owned : providers)  // in the order they are asked, whatever served first
    for (Provider* pv = owned.get(); bool local : {true, false}) {
      int n = 0;
      for (int p = 0; p < e.size_; ++p) n += p != e.rank_ && peers[p].provider == pv && peers[p].same_host == local;
      if (n)
        s += " " + std::to_string(n) + (n == 1 ? " peer" : " peers") + (local ? " on this host" : " on other hosts") +
             " over " + pv->detail() + ";";
    }
  if (s.back() == ';') s.pop_back();
  return s;
}

void Engine::Impl::print_stats() {
  std::fprintf(stderr, "meshmp stats: %s\n", provider_summary().c_str());
  if (domain) {
    const MemoryDomain::Usage u = domain->usage();
    std::fprintf(stderr,
                 "meshmp stats: rank %d registered memory (%s): %zu bytes in use, high-water %zu, pool %zu bytes in "
                 "%zu segments (limit %zu)\n",
                 e.rank_, domain_name, u.in_use, u.high_water, u.backing_bytes, u.pieces, e.opt_.registered_limit);
  }
  for (auto& ls : links) {
    const LinkStats& s = ls->stats;
    std::fprintf(stderr,
                 "meshmp stats: rank %d %s: frames sent %llu received %llu, eager %llu, "
                 "rendezvous %llu, bytes %llu, token stalls %llu, credit frames %llu, "
                 "rdma writes %llu (%llu on RECV_READY, %llu into registered memory), data frames %llu, "
                 "relayed %llu (dropped %llu, at most %llu queued), held for order %llu, credits withheld %llu\n",
                 e.rank_, ls->link->describe().c_str(), (unsigned long long)s.frames_sent,
                 (unsigned long long)s.frames_received, (unsigned long long)s.eager_sent,
                 (unsigned long long)s.rendezvous_sent, (unsigned long long)s.bytes_sent,
                 (unsigned long long)s.token_stalls, (unsigned long long)s.credit_frames,
                 (unsigned long long)s.rdma_writes, (unsigned long long)s.ready_writes,
                 (unsigned long long)s.registered_writes,
                 (unsigned long long)s.data_frames, (unsigned long long)s.relayed,
                 (unsigned long long)s.relay_dropped, (unsigned long long)s.relay_queued_max,
                 (unsigned long long)s.held_for_order, (unsigned long long)s.credits_withheld);
  }
}

namespace {
Engine* g_engine = nullptr;
int g_engine_users = 0;  // inits not yet finalized (QMP and MPI share the engine)
}

EngineSetup::EngineSetup() = default;
EngineSetup::~EngineSetup() = default;
EngineSetup::EngineSetup(EngineSetup&&) noexcept = default;
EngineSetup& EngineSetup::operator=(EngineSetup&&) noexcept = default;

Engine::Engine() = default;
Engine::~Engine() = default;

Engine* Engine::get() { return g_engine; }

Engine& Engine::init() {
  if (g_engine) {
    ++g_engine_users;
    return *g_engine;
  }
  // A rank's stdout is line-buffered, as on the pseudo-terminal Open MPI's
  // mpirun gives its ranks (MPICH's init makes it unbuffered): a job's log
  // shows each line as it is printed, and keeps the lines a rank printed
  // before the job was ended (MPI_Abort elsewhere, a time limit). glibc
  // keeps what is already buffered.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  EngineSetup setup;
  // Who started us: PMIx (srun, mpirun), qmprun's socket, or nobody.
  std::unique_ptr<Bootstrap> boot = connect_bootstrap();
  setup.rank = boot ? boot->rank() : 0;
  setup.size = boot ? boot->size() : 1;
  setup.appnum = boot ? boot->appnum() : 0;

  // Geometry, under any launcher: MESHMP_GEOMETRY (qmprun --geometry), else
  // the config's torus (MESHMP_CONFIG), else a balanced 3-D factorisation
  // (ARCHITECTURE.md §2). QMP's -qmp-geom then describes the machine on top.
  std::vector<int> dims;
  std::vector<bool> periodic;
  std::vector<std::string> interfaces;
  bool mesh_fabric = false;
  const char* cfg_path = std::getenv(env::kConfig);
  if (cfg_path && *cfg_path) {
    MeshConfig cfg = load_config(cfg_path);
    interfaces.assign(cfg.interfaces.begin(), cfg.interfaces.end());
    mesh_fabric = cfg.fabric == Fabric::kMesh;
    dims = cfg.torus.dims();
    periodic = cfg.torus.periodic();
    setup.options.eager_limit = cfg.eager_limit;
    setup.options.credits = static_cast<std::uint32_t>(cfg.credits);
    if (cfg.fabric == Fabric::kMesh) setup.options.mesh_fabric_config = cfg_path;
    if (cfg.torus.size() != setup.size)
      throw std::runtime_error(std::string(cfg_path) + ": the torus " + cfg.torus.to_string() + " has " +
                               std::to_string(cfg.torus.size()) + " nodes but " + (boot ? boot->kind() : "the launcher") +
                               " started " + std::to_string(setup.size) + " ranks");
    if (boot) check_config_hosts(cfg, *boot);
  }
  if (const char* g = std::getenv(env::kGeometry); g && *g) {
    dims = parse_dims(g);
    if (periodic.size() != dims.size()) periodic.clear();
  }
  if (dims.empty()) dims = balanced_dims(setup.size, 3);
  setup.torus = Torus(dims, periodic);
  if (setup.torus.size() != setup.size)  // create() checks again
    throw std::runtime_error("geometry " + setup.torus.to_string() + " has " + std::to_string(setup.torus.size()) +
                             " nodes but the job has " + std::to_string(setup.size) + " ranks");

  setup.options.eager_limit = static_cast<std::size_t>(number(env::kEagerLimit, static_cast<long>(setup.options.eager_limit), 64, 1 << 20));
  setup.options.credits = static_cast<std::uint32_t>(number(env::kCredits, setup.options.credits, 4, 1024));
  setup.options.cma = number(env::kShmCma, 1, 0, 1) != 0;
  setup.options.spin = static_cast<int>(number(env::kSpin, setup.options.spin, 0, 1 << 30));
  // More ranks on this host than CPUs means oversubscribed.
  const int here = boot ? boot->local_ranks() : 1;
  setup.options.yield = number(env::kYield, here > static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)), 0, 1) != 0;
  setup.options.unexpected_limit = static_cast<std::size_t>(number(env::kUnexpectedLimit, static_cast<long>(setup.options.unexpected_limit), 0, 1L << 40));
  if (const char* b = std::getenv(env::kBarrier); b && *b) {
    static const std::pair<const char*, BarrierChoice> kChoices[] = {
        {"auto", BarrierChoice::kAuto},         {"rdma", BarrierChoice::kRdma},
        {"flat", BarrierChoice::kFlat},         {"exchange", BarrierChoice::kExchange},
        {"combine", BarrierChoice::kCombine}};
    const auto* c = std::find_if(std::begin(kChoices), std::end(kChoices),
                                 [&](const auto& k) { return std::strcmp(k.first, b) == 0; });
    if (c == std::end(kChoices))
      throw std::runtime_error(std::string(env::kBarrier) + "=" + b +
                               ": expected auto, rdma, flat, exchange or combine");
    setup.options.barrier = c->second;
  }
  setup.options.registered_limit = static_cast<std::size_t>(number(env::kRegisteredLimit, static_cast<long>(setup.options.registered_limit), 0, 1L << 40));

  if (setup.size > 1) {
    ProviderSetup ps;
    ps.job = boot->job();
    ps.rank = setup.rank;
    ps.nranks = setup.size;
    ps.slots = setup.options.credits;
    ps.payload = setup.options.eager_limit;
    ps.stream_payload = static_cast<std::size_t>(number(env::kStreamEagerLimit, 131072, 64, 1 << 20));
    ps.cma = setup.options.cma;
    ps.shm_arena_names = number(env::kShmArenaNames, 0, 0, 1) != 0;
    ps.registered_limit = setup.options.registered_limit;
    ps.secret = boot->secret();
    ps.host = host_identity();
    const char* which = std::getenv(env::kProvider);
    ps.forced = which && *which && std::strcmp(which, "auto") != 0;
    ps.torus = setup.torus;
    ps.mesh_fabric = mesh_fabric;
    ps.interfaces = interfaces;
    ps.timeout_ms = static_cast<int>(number(env::kTcpTimeout, ps.timeout_ms, 1000, 3600 * 1000));
    ps.connect_timeout_ms =
        static_cast<int>(number(env::kConnectTimeout, ps.connect_timeout_ms, 1000, 3600 * 1000));
    if (const char* o = std::getenv(env::kOfiProvider)) ps.ofi_provider = o;
    if (std::getenv(env::kOfiHeartbeat)) ps.ofi_heartbeat = static_cast<int>(number(env::kOfiHeartbeat, 0, 0, 1));
    setup.providers = open_providers(which ? which : "", ps);
    setup.bootstrap = std::move(boot);
  }
  std::unique_ptr<Engine> eng = create(std::move(setup));
  g_engine = eng.release();
  g_engine_users = 1;
  return *g_engine;
}

std::unique_ptr<Engine> Engine::create(EngineSetup setup) {
  std::unique_ptr<Engine> eng(new Engine());
  Engine& e = *eng;
  e.rank_ = setup.rank;
  e.size_ = setup.size;
  e.appnum_ = setup.appnum;
  e.torus_ = setup.torus;
  e.opt_ = setup.options;
  if (e.torus_.size() != e.size_)
    throw std::runtime_error("geometry " + e.torus_.to_string() + " has " + std::to_string(e.torus_.size()) +
                             " nodes but the job has " + std::to_string(e.size_) + " ranks");
  e.impl_ = std::make_unique<Impl>(e);
  Impl& im = *e.impl_;
  im.peers.resize(e.size_);
  for (PeerState& ps : im.peers) ps.eager_limit = e.opt_.eager_limit;  // wire_up raises it per provider
  im.host_ids.assign(e.size_, 0);
  im.by_direction.assign(2 * e.torus_.ndims(), nullptr);
  if (e.size_ > 1) {
    if (!setup.bootstrap || setup.providers.empty())
      throw std::runtime_error("Engine::create: a job of " + std::to_string(e.size_) +
                               " ranks needs a bootstrap and a provider");
    im.boot = std::move(setup.bootstrap);
    im.providers = std::move(setup.providers);
    im.wire_up();
  }
  return eng;
}

void Engine::shutdown() {
  Impl& im = *impl_;
  // Drain queued frames (DONE, SYNC_ACK, credits) before leaving, then the
  // BYEs that tell each linked peer nothing more will come (failure.cc).
  auto drained = [&] {
    for (auto& ls : im.links)
      if ((!ls->sendq.empty() || !ls->put_queue.empty() || ls->puts_in_flight) &&
          im.peers[ls->peer].failed == Error::kOk)
        return false;
    return true;
  };
  im.block_until(drained);
  if (im.max_hops) im.quiesce_routes();
  im.say_bye();
  im.block_until(drained);
  for (Provider* pv : im.in_use) pv->finalizing();
  if (im.boot) {
    if (!im.max_hops) im.boot->finalizing();  // (quiesce_routes said it)
    im.boot->fence();
  }
}

std::string Engine::finalize() {
  Engine* e = g_engine;
  if (!e || --g_engine_users > 0) return {};
  // The last fence fails if a rank has gone (PMIx: "a rank of the job is
  // gone"); this rank still releases everything and says so.
  std::string failure;
  try {
    e->shutdown();
  } catch (const std::exception& ex) {
    failure = ex.what();
    std::fprintf(stderr, "meshmp: rank %d: finalize: %s\n", e->rank(), failure.c_str());
  }
  Impl& im = *e->impl_;
  const char* stats = std::getenv(env::kStats);
  if (stats && std::strcmp(stats, "1") == 0) im.print_stats();
  g_engine = nullptr;
  delete e;
  return failure;
}

void Engine::abort(int code, const std::string& message) {
  std::fflush(nullptr);  // what the program printed, before the launcher ends the job
  std::fprintf(stderr, "meshmp: rank %d aborts the job (code %d): %s\n", rank_, code, message.c_str());
  std::fflush(stderr);
  if (impl_->boot) {
    impl_->boot->abort(code, message);
    // The launcher ends the whole job (this rank included) on receipt; exiting
    // first would race it and lose the message. Bounded: exit after 2 s.
    ::sleep(2);
  }
  std::_Exit(code ? code : 1);
}

}  // namespace meshmp::mesh
