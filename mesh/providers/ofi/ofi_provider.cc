#include "mesh/providers/ofi/ofi_provider.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <sodium.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "mesh/providers/ofi/ofi_fabric.h"
#include "mesh/providers/ofi/ofi_library.h"
#include "mesh/providers/ofi/ofi_link.h"
#include "mesh/providers/tcp/ip_paths.h"

namespace meshmp::mesh {

namespace {

constexpr std::size_t kPage = 4096;
// Registered bytes no transfer holds that a peer's cache keeps, where the
// provider does not pin memory (its registrations cannot go stale).
constexpr std::size_t kCachedBytes = std::size_t{64} << 20;

sockaddr_in ipv4(std::uint32_t host_order_addr, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(host_order_addr);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  return a;
}

std::string memlock_limit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_MEMLOCK, &r) != 0) return "unknown";
  if (r.rlim_cur == RLIM_INFINITY) return "unlimited";
  return std::to_string(r.rlim_cur / 1024) + " KiB";
}

}  // namespace

class OfiProvider::Registrar final : public RegistrationCache::Registrar {
 public:
  Registrar(OfiProvider* p, std::uint64_t access) : p_(p), access_(access) {}
  bool register_range(std::uintptr_t addr, std::size_t len, std::uint64_t* handle) override {
    std::string why;
    fid_mr* mr = p_->register_memory(reinterpret_cast<void*>(addr), len, access_, &why);
    *handle = reinterpret_cast<std::uint64_t>(mr);
    return mr != nullptr;
  }
  void deregister(std::uint64_t handle) override { fi_close(&reinterpret_cast<fid_mr*>(handle)->fid); }

 private:
  OfiProvider* p_;
  std::uint64_t access_;
};

OfiProvider::OfiProvider(const ProviderSetup& s)
    : s_(s), key_(tcp::derive_key(s.secret)), listener_id_(ofi::make_listener_id()) {
  fi_info* hints = ofi::make_hints(s.ofi_provider);
  fi_info* list = nullptr;
  const int rc = ofi::lib().getinfo(ofi::kApiVersion, nullptr, nullptr, 0, hints, &list);
  ofi::lib().freeinfo(hints);
  if (rc != 0 || !list)
    throw ofi::error(s.ofi_provider.empty()
                         ? std::string("no libfabric provider offers connected endpoints with RDMA writes")
                         : "libfabric provider \"" + s.ofi_provider + "\" (MESHMP_OFI_PROVIDER) offers no connected "
                                                                      "endpoints with RDMA writes here",
                     rc ? rc : -FI_ENODATA);
  // A hardware provider first, else the first one (libfabric's order).
  fi_info* pick = list;
  for (fi_info* i = list; i; i = i->next)
    if (ofi::is_hardware(i->fabric_attr->prov_name)) {
      pick = i;
      break;
    }
  info_ = ofi::lib().dupinfo(pick);
  ofi::lib().freeinfo(list);
  const std::string prov = info_->fabric_attr->prov_name;
  int& mode = info_->domain_attr->mr_mode;
  // Remote addresses are this process's virtual addresses (what a CTS
  // announces). libfabric's tcp provider (its utility domain) takes that
  // mode when asked (tested: every put lands where announced); elsewhere
  // without it puts go as frames.
  if (!(mode & FI_MR_VIRT_ADDR)) {
    rma_ = prov == "tcp";
    mode |= FI_MR_VIRT_ADDR;
  }
  prov_key_ = (mode & FI_MR_PROV_KEY) != 0;
  local_mr_ = (mode & FI_MR_LOCAL) != 0;
  pins_ = ofi::is_hardware(prov);
  socket_wait_ = prov == "tcp";
  // Hardware RDMA writes a rendezvous without the CPU: eager to the
  // engine's limit. Over libfabric's tcp a write is bytes on a socket too,
  // and the rendezvous's round trip costs more than the copy it saves.
  payload_ = pins_ ? s.payload : std::max(s.payload, s.stream_payload);
  // Slots of that size are posted receives and send buffers (three per
  // slot): 32 of 4 MiB are already 384 MiB of address space per link.
  slots_ = payload_ > s.payload ? std::min(s.slots, kStreamSlots) : s.slots;
  inject_ = info_->tx_attr->inject_size;
  info_->rx_attr->size = std::max<std::size_t>(info_->rx_attr->size, slots_);

  if (int r = ofi::lib().fabric(info_->fabric_attr, &fabric_, nullptr)) throw ofi::error("fi_fabric (" + prov + ")", r);
  if (int r = fi_domain(fabric_, info_, &domain_, nullptr)) throw ofi::error("fi_domain (" + prov + ")", r);
  fi_eq_attr ea{};
  ea.size = 256;
  ea.wait_obj = FI_WAIT_FD;
  if (int r = fi_eq_open(fabric_, &ea, &eq_, nullptr)) throw ofi::error("fi_eq_open", r);
  if (int r = fi_control(&eq_->fid, FI_GETWAIT, &eq_fd_)) throw ofi::error("fi_control(FI_GETWAIT) on the EQ", r);
  if (int r = fi_passive_ep(fabric_, info_, &pep_, nullptr)) throw ofi::error("fi_passive_ep", r);
  if (int r = fi_pep_bind(pep_, &eq_->fid, 0)) throw ofi::error("fi_pep_bind", r);
  sockaddr_in any = ipv4(INADDR_ANY, 0);
  if (int r = fi_setname(&pep_->fid, &any, sizeof any)) throw ofi::error("fi_setname (listen on every address)", r);
  if (int r = fi_listen(pep_)) throw ofi::error("fi_listen", r);
  sockaddr_in bound{};
  std::size_t blen = sizeof bound;
  if (int r = fi_getname(&pep_->fid, &bound, &blen)) throw ofi::error("fi_getname", r);

  epfd_ = ::epoll_create1(EPOLL_CLOEXEC);
  kick_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epfd_ < 0 || kick_fd_ < 0) throw std::runtime_error(std::string("ofi: epoll/eventfd: ") + std::strerror(errno));
  for (int fd : {eq_fd_, kick_fd_}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr;
    ::epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
  }
  mine_.port = ntohs(bound.sin_port);
  mine_.host = s.host;
  mine_.addrs = tcp::local_addresses();
  cards_.resize(static_cast<std::size_t>(s.nranks));
  book_.on_demand.assign(static_cast<std::size_t>(s.nranks), nullptr);
  peer_registrars_.resize(static_cast<std::size_t>(s.nranks));
  peer_caches_.resize(static_cast<std::size_t>(s.nranks));
  std::string why;
  beat_mr_ = register_memory(&beat_word_, sizeof beat_word_, FI_REMOTE_WRITE, &why);
  beat_src_mr_ = register_memory(&beat_source_, sizeof beat_source_, FI_WRITE, &why);
  beats_ = s.ofi_heartbeat < 0 ? pins_ : s.ofi_heartbeat > 0;
  if (!beat_mr_ || !beat_src_mr_ || !rma_ || fi_mr_key(beat_mr_) >= kNoKey) beats_ = false;
  if (local_mr_) {
    local_registrar_ = std::make_unique<Registrar>(this, FI_WRITE | FI_SEND);
    local_cache_ = std::make_unique<RegistrationCache>(*local_registrar_, pins_ ? 0 : kCachedBytes, kPage);
  }
}

OfiProvider::~OfiProvider() {
  book_.accepted.clear();
  local_cache_.reset();
  peer_caches_.clear();
  for (auto& [p, a] : allocations_) {
    if (a.mr) fi_close(&a.mr->fid);
    std::free(reinterpret_cast<void*>(p));
  }
  if (beat_mr_) fi_close(&beat_mr_->fid);
  if (beat_src_mr_) fi_close(&beat_src_mr_->fid);
  if (pep_) fi_close(&pep_->fid);
  if (eq_) fi_close(&eq_->fid);
  if (domain_) fi_close(&domain_->fid);
  if (fabric_) fi_close(&fabric_->fid);
  ofi::lib().freeinfo(info_);
  if (kick_fd_ >= 0) ::close(kick_fd_);
  if (epfd_ >= 0) ::close(epfd_);
}

std::string OfiProvider::detail() const {
  return std::string("ofi over libfabric's ") + info_->fabric_attr->prov_name + " (domain " +
         info_->domain_attr->name + (rma_ ? "" : "; no RDMA writes: rendezvous data goes in frames") + ")";
}

ProviderCaps OfiProvider::caps() const {
  ProviderCaps c;
  c.rdma_write = rma_;
  c.registered_memory = true;
  c.stripe = true;  // each link its own endpoint (cable)
  c.eager_limit = payload_;
  // A switched fabric routes (IP for libfabric's tcp, the subnet manager's
  // routes on InfiniBand); a mesh of cables between neighbours' HCAs does
  // not -- no HCA forwards -- so there meshmp's forwarding agent relays,
  // over libfabric's tcp too, which stands in for verbs (issue 31).
  c.routed = !s_.mesh_fabric;
  return c;
}

// ---- address cards and the address vector ---------------------------------

// "ofi <listener id> <heartbeat word address> <its key> tcp <port> ..."
std::string OfiProvider::address_card() const {
  const std::uint64_t addr = beats_ ? reinterpret_cast<std::uintptr_t>(&beat_word_) : 0;
  const std::uint64_t key = beats_ ? fi_mr_key(beat_mr_) : 0;
  return "ofi " + ofi::to_hex(listener_id_.bytes, sizeof listener_id_.bytes) + " " + std::to_string(addr) + " " +
         std::to_string(key) + " " + tcp::encode_card(mine_);
}

void OfiProvider::attach(const std::vector<std::string>& cards) {
  if (cards.size() != cards_.size())
    throw std::runtime_error("ofi: " + std::to_string(cards.size()) + " address cards for " +
                             std::to_string(cards_.size()) + " ranks");
  for (std::size_t r = 0; r < cards.size(); ++r) {
    const std::string& text = cards[r];
    std::istringstream in(text.substr(0, 128));
    std::string word, id, addr, key;
    auto number = [](const std::string& w, std::uint64_t* v) {
      if (w.empty() || w.size() > 20 || w.find_first_not_of("0123456789") != std::string::npos) return false;
      errno = 0;
      *v = std::strtoull(w.c_str(), nullptr, 10);
      return errno == 0;
    };
    if (!(in >> word >> id >> addr >> key) || word != "ofi" || !ofi::from_hex(id, cards_[r].listener.bytes, 16) ||
        !number(addr, &cards_[r].beat_addr) || !number(key, &cards_[r].beat_key))
      throw std::runtime_error("ofi: malformed address card from rank " + std::to_string(r) +
                               ": it does not start with \"ofi <32 hex digits> <address> <key>\"");
    try {
      cards_[r].card = tcp::parse_card(text.substr(4 + id.size() + 1 + addr.size() + 1 + key.size() + 1),
                                       static_cast<int>(r));
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("ofi: ") + e.what());
    }
  }
}

bool OfiProvider::reachable(int peer) const { return tcp::reachable(s_, mine_, cards_.at(peer).card, peer); }

// ---- links -----------------------------------------------------------------

std::unique_ptr<OfiLink> OfiProvider::dial(int peer, int index, bool on_demand) {
  auto link = std::make_unique<OfiLink>(this, peer, index, slots_, payload_);
  book_.live.push_back(link.get());
  settled_ = false;
  const tcp::TcpCard& pc = cards_.at(peer).card;
  const auto to = tcp::dial_for(s_, mine_, pc, peer, index, on_demand);
  const std::string where = to ? tcp::ip_string(to->dst) + ":" + std::to_string(pc.port) : "";
  try {
    if (!to) throw std::runtime_error("rank " + std::to_string(peer) + " has no address to connect to");
    fi_info* hints = ofi::lib().dupinfo(info_);
    sockaddr_in dst = ipv4(to->dst, pc.port);
    std::free(hints->src_addr);
    std::free(hints->dest_addr);
    hints->src_addr = nullptr;
    hints->src_addrlen = 0;
    if (to->src) {  // bind to the cable's address (mesh)
      auto* src = static_cast<sockaddr_in*>(std::calloc(1, sizeof(sockaddr_in)));
      *src = ipv4(to->src, 0);
      hints->src_addr = src;
      hints->src_addrlen = sizeof *src;
    }
    auto* d = static_cast<sockaddr_in*>(std::calloc(1, sizeof(sockaddr_in)));
    *d = dst;
    hints->dest_addr = d;
    hints->dest_addrlen = sizeof *d;
    const ofi::ConnReq req = ofi::make_conn_req(key_, cards_.at(peer).listener, s_.rank, peer, index,
                                                on_demand ? ofi::kOnDemand : 0);
    try {
      link->dial(hints, req, where);
    } catch (...) {
      ofi::lib().freeinfo(hints);
      throw;
    }
    ofi::lib().freeinfo(hints);
  } catch (const std::exception& e) {
    link->fail(true, std::string("cannot connect: ") + e.what());
  }
  return link;
}

std::unique_ptr<Link> OfiProvider::offer_link(int peer, int index) {
  auto link = std::make_unique<OfiLink>(this, peer, index, slots_, payload_);
  book_.live.push_back(link.get());
  book_.offered[{peer, index}] = link.get();
  settled_ = false;
  return link;
}

std::unique_ptr<Link> OfiProvider::join_link(int peer, int index) { return dial(peer, index, false); }

std::unique_ptr<Link> OfiProvider::connect(int peer) {
  if (auto l = book_.take_accepted(peer)) return l;
  auto link = dial(peer, 0, true);
  book_.on_demand[peer] = link.get();
  return link;
}

void OfiProvider::accept(std::vector<std::unique_ptr<Link>>* incoming) {
  // Connection events are read every round while a link is being made,
  // else every 64th (a request from a rank that connects on first use).
  if (!settled_ || (++rounds_ & 63) == 0) {
    poll_eq();
    heartbeat();
  }
  book_.hand_over(incoming);
}

OfiLink* OfiProvider::link_of(fid_t fid) const {
  for (OfiLink* l : book_.live)
    if (l->endpoint() && &l->endpoint()->fid == fid) return l;
  return nullptr;
}

void OfiProvider::poll_eq() {
  alignas(fi_eq_cm_entry) char buf[sizeof(fi_eq_cm_entry) + 256];
  for (;;) {
    std::uint32_t event = 0;
    const ssize_t n = fi_eq_read(eq_, &event, buf, sizeof buf, 0);
    if (n == -FI_EAGAIN) break;
    if (n == -FI_EAVAIL) {
      fi_eq_err_entry err{};
      if (fi_eq_readerr(eq_, &err, 0) < 0) break;
      char text[256] = "";
      const char* said = fi_eq_strerror(eq_, err.prov_errno, err.err_data, text, sizeof text);
      if (OfiLink* l = link_of(err.fid))
        l->on_cm_error(std::string("connection: ") + ofi::lib().strerror(err.err) + (said && *said ? std::string(" (") + said + ")" : ""),
                       err.err == FI_ECONNREFUSED);
      continue;
    }
    if (n < 0) break;
    auto* e = reinterpret_cast<fi_eq_cm_entry*>(buf);
    const std::size_t data = static_cast<std::size_t>(n) > sizeof *e ? static_cast<std::size_t>(n) - sizeof *e : 0;
    if (event == FI_CONNREQ) {
      on_connreq(e->info, e->data, data);
    } else if (OfiLink* l = link_of(e->fid)) {
      if (event == FI_CONNECTED) l->on_connected(e->data, data);
      else if (event == FI_SHUTDOWN) l->on_shutdown();
    }
  }
  bool settled = true;
  for (OfiLink* l : book_.live)
    if (l->state() != OfiLink::State::kUp && l->state() != OfiLink::State::kFailed) settled = false;
  settled_ = settled;
}

// A request whose authenticator is wrong, or was seen before, is refused
// before any endpoint is made.
void OfiProvider::on_connreq(fi_info* info, const void* data, std::size_t len) {
  ofi::ConnReq r{};
  const std::string why = ofi::check_conn_req(key_, listener_id_, data, len, s_.rank, s_.nranks, &r);
  const std::string nonce(reinterpret_cast<const char*>(r.nonce), sizeof r.nonce);
  auto refuse = [&] {
    fi_reject(pep_, info->handle, nullptr, 0);
    ofi::lib().freeinfo(info);
  };
  if (!why.empty() || nonces_seen_.count(nonce)) return refuse();
  const int peer = static_cast<int>(r.from), index = r.index;
  OfiLink* target = nullptr;
  std::unique_ptr<OfiLink> made;
  if (r.flags & ofi::kOnDemand) {
    OfiLink* mine = book_.on_demand[peer];
    if (mine && (mine->state() == OfiLink::State::kUp || s_.rank < peer)) return refuse();  // ours wins
    if (mine) {
      target = mine;
    } else {
      made = std::make_unique<OfiLink>(this, peer, 0, slots_, payload_);
      book_.live.push_back(made.get());
      target = made.get();
      book_.on_demand[peer] = target;
    }
  } else {
    auto it = book_.offered.find({peer, index});
    if (it == book_.offered.end() || it->second->state() != OfiLink::State::kAwaiting) return refuse();
    target = it->second;
    book_.offered.erase(it);
  }
  nonces_seen_.insert(nonce);
  std::string where;
  if (info->dest_addr && info->dest_addrlen >= sizeof(sockaddr_in) &&
      static_cast<sockaddr_in*>(info->dest_addr)->sin_family == AF_INET)
    where = "from " + tcp::ip_string(ntohl(static_cast<sockaddr_in*>(info->dest_addr)->sin_addr.s_addr));
  try {
    target->accept(info, ofi::make_welcome(key_, r), where);
  } catch (const std::exception& e) {
    fi_reject(pep_, info->handle, nullptr, 0);
    target->fail(true, std::string("cannot accept: ") + e.what());
  }
  ofi::lib().freeinfo(info);
  settled_ = false;
  if (made) book_.accepted.push_back(std::move(made));
}

void OfiProvider::link_opened(OfiLink* l) {
  if (armed_) watch(l);
}

void OfiProvider::link_closing(OfiLink* l) {
  std::vector<pollfd> fds;
  l->wait_fds(&fds);
  for (const pollfd& p : fds) {
    auto it = std::find(armed_fds_.begin(), armed_fds_.end(), p.fd);
    if (it == armed_fds_.end()) continue;
    ::epoll_ctl(epfd_, EPOLL_CTL_DEL, p.fd, nullptr);
    armed_fds_.erase(it);
  }
}

void OfiProvider::watch(const OfiLink* l) {
  std::vector<pollfd> fds;
  l->wait_fds(&fds);
  for (const pollfd& p : fds) {
    epoll_event ev{};
    ev.events = ((p.events & POLLIN) ? EPOLLIN : 0u) | ((p.events & POLLOUT) ? EPOLLOUT : 0u);
    if (p.fd >= 0 && ::epoll_ctl(epfd_, EPOLL_CTL_ADD, p.fd, &ev) == 0) armed_fds_.push_back(p.fd);
  }
}

void OfiProvider::link_gone(OfiLink* l) { book_.gone(l); }

void OfiProvider::report_closed(int peer) { book_.report_closed(peer); }

void OfiProvider::take_failures(std::vector<LinkFailure>* failures) { book_.take_failures(failures); }

// ---- heartbeats ---------------------------------------------------------------

bool OfiProvider::beat_target(int peer, std::uint64_t* addr, std::uint64_t* key) const {
  const PeerCard& c = cards_.at(peer);
  *addr = c.beat_addr;
  *key = c.beat_key;
  return beats_ && c.beat_addr != 0;
}

void* OfiProvider::beat_desc() const { return fi_mr_desc(beat_src_mr_); }

void OfiProvider::beats_unsupported(const std::string& why) {
  if (!beats_) return;
  beats_ = false;
  std::fprintf(stderr, "meshmp: rank %d: ofi: no heartbeats (%s): a cut cable or vanished host is noticed only "
               "when the fabric reports it\n", s_.rank, why.c_str());
}

void OfiProvider::heartbeat() {
  if (!beats_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_beat_check_ < std::chrono::milliseconds(50)) return;
  last_beat_check_ = now;
  for (std::size_t i = 0; i < book_.live.size(); ++i) book_.live[i]->beat(now);  // (a failure does not remove a link)
}

// ---- idle waiting ----------------------------------------------------------

// fi_trywait on the EQ and every CQ: FI_SUCCESS means their descriptors
// will signal what comes next; -FI_EAGAIN that something is there already,
// so the wait descriptor is kicked and the sleep ends at once. The CQs'
// descriptors (OfiLink::wait_fds) join epfd_ only now: while one sits in
// epfd_ (and epfd_ in the engine's epoll) every arrival and every
// completion signal wakes the epolls in the sender's softirq, on the
// critical path of a spinning rank's messages. (Adding after fi_trywait
// loses nothing: epoll_ctl reports a descriptor already readable.)
std::uint32_t OfiProvider::arm() {
  armed_ = true;
  heartbeat();  // an idle rank wakes at least every 100 ms: its links still beat
  fid* fids[65];
  std::size_t n = 0;
  fids[n++] = &eq_->fid;
  bool pending = false;
  for (OfiLink* l : book_.live) {
    if (!l->cq()) continue;
    fids[n++] = &l->cq()->fid;
    if (n == 65) {
      pending |= fi_trywait(fabric_, fids, static_cast<int>(n)) != FI_SUCCESS;
      n = 0;
    }
  }
  if (n) pending |= fi_trywait(fabric_, fids, static_cast<int>(n)) != FI_SUCCESS;
  for (OfiLink* l : book_.live) watch(l);
  if (pending) {
    const std::uint64_t one = 1;
    (void)!::write(kick_fd_, &one, sizeof one);
  }
  return 0;
}

void OfiProvider::sleep(std::uint32_t, int timeout_ms) {
  epoll_event ev[8];
  ::epoll_wait(epfd_, ev, 8, timeout_ms);
  drain_wait_fd();
}

void OfiProvider::disarm() {
  armed_ = false;
  for (int fd : armed_fds_) ::epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
  armed_fds_.clear();
}

void OfiProvider::drain_wait_fd() {
  std::uint64_t v;
  (void)!::read(kick_fd_, &v, sizeof v);
}

// ---- memory ------------------------------------------------------------------

fid_mr* OfiProvider::register_memory(const void* p, std::size_t len, std::uint64_t access, std::string* why) {
  iovec iov{const_cast<void*>(p), len};
  fi_mr_attr attr{};
  attr.mr_iov = &iov;
  attr.iov_count = 1;
  attr.access = access;
  // Keys this rank chooses are random: a peer cannot guess the key of a
  // buffer announced to another peer (registrations are per peer).
  fid_mr* mr = nullptr;
  int rc = -FI_ENOKEY;
  for (int attempt = 0; attempt < 8 && rc == -FI_ENOKEY; ++attempt) {
    if (!prov_key_) attr.requested_key = 1 + randombytes_uniform(kNoKey - 1);
    rc = fi_mr_regattr(domain_, &attr, 0, &mr);
  }
  if (rc == 0) return mr;
  *why = "fi_mr_reg of " + std::to_string(len) + " bytes: " + ofi::lib().strerror(-rc);
  if (pins_) *why += " (the locked-memory limit, ulimit -l, is " + memlock_limit() + ")";
  return nullptr;
}

const OfiProvider::Allocation* OfiProvider::allocation_of(const void* p, std::size_t len) const {
  const auto b = reinterpret_cast<std::uintptr_t>(p);
  auto it = allocations_.upper_bound(b);
  if (it == allocations_.begin()) return nullptr;
  --it;
  return b - it->first < it->second.bytes && len <= it->second.bytes - (b - it->first) ? &it->second : nullptr;
}

bool OfiProvider::readable(const void* p, std::size_t len) const {
  if (pins_) return true;  // registration checks it
  // Memory this provider allocated (QMP_MEM_COMMS, MPI_Alloc_mem, flag
  // windows) is mapped while it is allocated: no mincore, a system call,
  // on each of its writes (a flag write of the rdma barrier).
  if (allocation_of(p, len)) return true;
  const auto start = reinterpret_cast<std::uintptr_t>(p) & ~(kPage - 1);
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(p) + len;
  unsigned char vec[1024];
  for (std::uintptr_t a = start; a < end; a += sizeof vec * kPage) {
    const std::size_t n = std::min<std::uintptr_t>(end - a, sizeof vec * kPage);
    if (::mincore(reinterpret_cast<void*>(a), n, vec) != 0) return false;
  }
  return true;
}

RegistrationCache::Entry* OfiProvider::acquire_local(const void* p, std::size_t len, bool* ok) {
  *ok = true;
  if (!local_cache_) return nullptr;
  RegistrationCache::Entry* e = local_cache_->acquire(p, len);
  *ok = e != nullptr;
  return e;
}

void OfiProvider::release_local(RegistrationCache::Entry* e) {
  if (local_cache_) local_cache_->release(e);
}

void* OfiProvider::desc_of(RegistrationCache::Entry* e) const {
  return e ? fi_mr_desc(reinterpret_cast<fid_mr*>(e->handle)) : nullptr;
}

RegistrationCache& OfiProvider::peer_cache(int peer) {
  auto& c = peer_caches_.at(peer);
  if (!c) {
    peer_registrars_[peer] = std::make_unique<Registrar>(this, FI_REMOTE_WRITE);
    c = std::make_unique<RegistrationCache>(*peer_registrars_[peer], pins_ ? 0 : kCachedBytes, kPage);
  }
  return *c;
}

std::uint64_t OfiProvider::remote_key(const void* buf, std::size_t len, std::uint32_t nonce, int peer) {
  const std::uint64_t none = (std::uint64_t{nonce} << 32) | kNoKey;
  if (!rma_ || len == 0 || peer < 0 || peer >= s_.nranks) return none;
  if (const Allocation* a = allocation_of(buf, len)) {
    const std::uint64_t k = fi_mr_key(a->mr);
    return k < kNoKey ? (std::uint64_t{nonce} << 32) | k : none;
  }
  if (!readable(buf, len)) return none;
  RegistrationCache& cache = peer_cache(peer);
  RegistrationCache::Entry* e = cache.acquire(buf, len);
  if (!e) return none;
  const std::uint64_t k = fi_mr_key(reinterpret_cast<fid_mr*>(e->handle));
  if (k >= kNoKey) {  // a provider key wider than 32 bits: no room beside the nonce
    cache.release(e);
    return none;
  }
  const std::uint64_t rkey = (std::uint64_t{nonce} << 32) | k;
  announced_.emplace(rkey, std::make_pair(peer, e));
  return rkey;
}

void OfiProvider::forget(std::uint64_t rkey) {
  auto it = announced_.find(rkey);
  if (it == announced_.end()) return;
  peer_caches_.at(it->second.first)->release(it->second.second);
  announced_.erase(it);
}

void* OfiProvider::allocate(std::size_t bytes, std::size_t alignment) {
  const std::size_t len = (std::max<std::size_t>(bytes, 1) + kPage - 1) / kPage * kPage;
  if (s_.registered_limit && usage_.in_use + len > s_.registered_limit) {
    errno = ENOMEM;
    return nullptr;
  }
  void* p = nullptr;
  if (::posix_memalign(&p, std::max(alignment, kPage), len) != 0) {
    errno = ENOMEM;
    return nullptr;
  }
  std::string why;
  fid_mr* mr = register_memory(p, len, FI_SEND | FI_RECV | FI_WRITE | FI_REMOTE_WRITE, &why);
  if (!mr) {
    std::free(p);
    errno = ENOMEM;
    return nullptr;
  }
  allocations_[reinterpret_cast<std::uintptr_t>(p)] = {len, mr};
  usage_.in_use += len;
  usage_.backing_bytes += len;
  ++usage_.pieces;
  usage_.high_water = std::max(usage_.high_water, usage_.in_use);
  return p;
}

bool OfiProvider::release(void* p) {
  auto it = allocations_.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == allocations_.end()) return false;
  fi_close(&it->second.mr->fid);
  usage_.in_use -= it->second.bytes;
  usage_.backing_bytes -= it->second.bytes;
  --usage_.pieces;
  std::free(p);
  allocations_.erase(it);
  return true;
}

}  // namespace meshmp::mesh
