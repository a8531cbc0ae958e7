#include "mesh/providers/shm/shm_provider.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "mesh/host_identity.h"
#include "mesh/providers/shm/shm_names.h"
#include "mesh/providers/shm/shm_segment.h"
#include "mesh/providers/shm/slot_ring.h"

namespace meshmp::mesh {

namespace {
// A readable reason for a segment that cannot be used; EPERM and EEXIST
// mean someone else holds a name of this job, and the job refuses to talk
// through it.
std::string segment_error(const char* what, const std::string& name) {
  const int e = errno;
  if (e == EPERM)
    return "shm: refusing " + name + ": it is owned by another user or open to others (a squatted name?)";
  if (e == EEXIST) return "shm: refusing " + name + ": the name already exists (a squatted name?)";
  return std::string("shm: cannot ") + what + " " + name + ": " + std::strerror(e);
}

constexpr std::uint32_t kControlMagic = 0x6d73'6843;  // "Chsm"
constexpr std::uint32_t kLinkMagic = 0x6d73'684c;     // "Lhsm"
constexpr std::uint32_t kLinkVersion = 2;  // 2: cell rings and short records
// ShmControl::sleeping: awake, asleep on the futex, asleep in an epoll
// beside other providers (wake through the FIFO, wait_fd()).
constexpr std::uint32_t kSleepsOnFutex = 1;
constexpr std::uint32_t kSleepsInEpoll = 2;

long membarrier(int cmd) { return ::syscall(SYS_membarrier, cmd, 0u, 0); }

// Registers this process for membarrier GLOBAL_EXPEDITED, so that a sleeping
// peer's barrier reaches it; false where the kernel lacks the command.
bool register_asymmetric_fence() {
  const long cmds = membarrier(MEMBARRIER_CMD_QUERY);
  const long need = MEMBARRIER_CMD_GLOBAL_EXPEDITED | MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED;
  return cmds >= 0 && (cmds & need) == need && membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
}
}  // namespace

// One per rank, mapped by every rank of the job.
struct ShmControl {
  std::atomic<std::uint32_t> magic;
  std::int32_t rank;
  std::int32_t pid;
  std::uint32_t nranks;
  alignas(64) std::atomic<std::uint32_t> doorbell;  // futex word
  std::atomic<std::uint32_t> sleeping;
  alignas(64) std::atomic<std::uint32_t> connect_pending;
  std::atomic<std::uint32_t> closed_pending;
  std::atomic<std::uint32_t> finalized;  // set by the owner once it has sent its last frame to ranks it has no link to
  // Host-local broadcasts the owner is done with (read, or published as
  // root): the last one's number + 1. Written by the owner alone, so a
  // reader's count costs it a plain store, not a shared atomic add.
  alignas(64) std::atomic<std::uint64_t> bcast_done;
  struct SmpSlot {
    alignas(64) std::atomic<std::uint64_t> seq;  // contribution number + 1, stored last
    std::uint64_t bytes;
    char data[ShmProvider::kSmpSlotBytes];
  } smp[2];
  // Host-local combines, in rank 0's block only: arrivals so far, and the
  // results the last rank to arrive releases (seq = combine number + 1).
  alignas(64) std::atomic<std::uint64_t> smp_arrivals;
  SmpSlot smp_result[2];
  // Host-local broadcasts, in rank 0's block only (ShmProvider::
  // broadcast_publish says how a slot is used and reused).
  struct BcastSlot {
    static constexpr std::size_t kHead = 48;     // bytes of data in seq's cache line
    alignas(64) std::atomic<std::uint64_t> seq;  // broadcast number + 1, stored last by the root
    std::uint64_t bytes;
    char head[kHead];  // a short broadcast is read with the line its reader polls
    alignas(64) std::atomic<std::int32_t> waiter;  // rank + 1 of a root waiting for the slot, or 0
    alignas(64) char tail[ShmProvider::kBcastSlotBytes - kHead];
  } bcast[ShmProvider::kBcastSlots];
  // Followed by nranks std::atomic<std::uint8_t> connect requests, then
  // nranks reasons why a peer closed its link to us (0: it did not).
  std::atomic<std::uint8_t>* requests() {
    return reinterpret_cast<std::atomic<std::uint8_t>*>(reinterpret_cast<char*>(this) + sizeof(ShmControl));
  }
  std::atomic<std::uint8_t>* closed(std::uint32_t n) { return requests() + n; }
};

// Header of a link segment; the rings follow (lower rank -> higher first).
struct ShmLinkHeader {
  std::atomic<std::uint32_t> magic;  // stored last by the creator
  std::uint32_t version;
  std::uint32_t nslots;
  std::uint32_t slot_size;
  std::int32_t lo_rank;
  std::int32_t hi_rank;
  std::int32_t index;
  std::atomic<std::uint32_t> opened;  // set by the opener
};
constexpr std::size_t kLinkHeaderBytes = 64;
static_assert(sizeof(ShmLinkHeader) <= kLinkHeaderBytes);
// The whole segment: the header, the two directions' slot rings, their
// cell rings (SlotRing::kCellBytes), then their short records.
static std::size_t link_segment_bytes(std::uint32_t nslots, std::size_t slot_size) {
  return kLinkHeaderBytes + 2 * (SlotRing::bytes(nslots, slot_size) + SlotRing::bytes(nslots, SlotRing::kCellBytes) +
                                 SlotRing::bytes(nslots, sizeof(SlotRing::ShortRecord)));
}

class ShmLink final : public Link {
 public:
  ShmLink(ShmProvider* prov, int peer, int index, void* base, std::size_t bytes, bool creator)
      : prov_(prov), peer_(peer), index_(index), base_(base), bytes_(bytes) {
    hdr_ = static_cast<ShmLinkHeader*>(base);
    const std::uint32_t n = hdr_->nslots;
    const std::size_t slots = SlotRing::bytes(n, hdr_->slot_size);
    const std::size_t cells = SlotRing::bytes(n, SlotRing::kCellBytes);
    char* rings = static_cast<char*>(base) + kLinkHeaderBytes;
    const bool i_am_lo = prov->rank() < peer;
    char* mine = rings + (i_am_lo ? 0 : slots);
    char* theirs = rings + (i_am_lo ? slots : 0);
    send_ = SlotRing(mine, n, hdr_->slot_size);
    recv_ = SlotRing(theirs, n, hdr_->slot_size);
    char* cell_rings = rings + 2 * slots;
    send_cells_ = SlotRing(cell_rings + (i_am_lo ? 0 : cells), n, SlotRing::kCellBytes);
    recv_cells_ = SlotRing(cell_rings + (i_am_lo ? cells : 0), n, SlotRing::kCellBytes);
    const std::size_t shorts = SlotRing::bytes(n, sizeof(SlotRing::ShortRecord));
    char* short_rings = cell_rings + 2 * cells;
    send_shorts_ = SlotRing(short_rings + (i_am_lo ? 0 : shorts), n, sizeof(SlotRing::ShortRecord));
    recv_shorts_ = SlotRing(short_rings + (i_am_lo ? shorts : 0), n, sizeof(SlotRing::ShortRecord));
    send_short_ = send_shorts_.slot(0);
    recv_short_ = recv_shorts_.slot(0);
    send_at_ = send_.slot(0);
    recv_at_ = recv_.slot(0);
    send_cell_ = send_cells_.slot(0);
    recv_cell_ = recv_cells_.slot(0);
    up_ = !creator;  // the opener knows the creator is there
  }
  ~ShmLink() override { ::munmap(base_, bytes_); }

  int peer() const override { return peer_; }
  int index() const override { return index_; }
  bool up() override {
    if (!up_ && hdr_->opened.load(std::memory_order_acquire)) up_ = true;
    return up_;
  }
  std::uint32_t slots() const override { return send_.nslots(); }
  std::size_t max_payload() const override { return send_.payload_capacity(); }

  // A frame of up to kCellPayloadBytes goes in the next cell, any other in
  // the next slot, header and payload written in place -- but for one of
  // up to kInlineBytes, written here first and copied into the next short
  // record (SlotRing::ShortRecord) or, if it is not one, into the cell's
  // first line alone when it rides inline: written in place, the header's
  // last fields and the payload took the cell's second line from the
  // receiver as well, which kept the 2-rank 8-byte message rate where it
  // was with slots alone.
  FrameHeader* begin_send(char** payload, std::size_t payload_bytes) override {
    if (payload_bytes <= SlotRing::kInlineBytes) {
      send_to_ = SendTo::kStaged;
      *payload = staged_payload_;
      return &staged_;
    }
    send_to_ = payload_bytes <= SlotRing::kCellPayloadBytes ? SendTo::kCell : SendTo::kSlot;
    char* at = send_to_ == SendTo::kCell ? send_cell_ : send_at_;
    *payload = SlotRing::payload(at);
    return SlotRing::header(at);
  }
  void end_send(std::size_t payload_bytes) override {
    if (send_to_ == SendTo::kStaged) {
      staged_.seq = send_seq_;
      if (SlotRing::fits_short(staged_, prov_->rank(), peer_)) {
        SlotRing::write_short(send_short_, staged_, staged_payload_);
        publish(send_short_, send_shorts_);
      } else {
        SlotRing::write_cell(send_cell_, staged_, staged_payload_, std::min(payload_bytes, SlotRing::kInlineBytes));
        publish(send_cell_, send_cells_);
      }
    } else if (send_to_ == SendTo::kCell) {
      SlotRing::header(send_cell_)->seq = send_seq_;
      publish(send_cell_, send_cells_);
    } else {
      SlotRing::header(send_at_)->seq = send_seq_;
      publish(send_at_, send_);
    }
    prov_->wake(peer_);
  }

  bool peek(FrameHeader* h, const char** payload) override {
    if (SlotRing::ready(recv_short_, recv_seq_)) {
      *payload = SlotRing::read_short(recv_short_, recv_seq_, peer_, prov_->rank(), h);
      if (!*payload) [[unlikely]] return reject_frame(*h, "a short record", SlotRing::kInlineBytes);
      peeked_ = Ring::kShort;
      return true;
    }
    if (SlotRing::ready(recv_cell_, recv_seq_)) {
      *payload = SlotRing::read_cell(recv_cell_, h);
      if (!*payload) [[unlikely]] return reject_frame(*h, "a cell", SlotRing::kCellPayloadBytes);
      peeked_ = Ring::kCell;
      return true;
    }
    if (!SlotRing::ready(recv_at_, recv_seq_)) return false;
    *payload = SlotRing::read_slot(recv_at_, h);
    peeked_ = Ring::kSlot;
    return true;
  }
  bool has_frame() override {
    return SlotRing::ready(recv_short_, recv_seq_) || SlotRing::ready(recv_cell_, recv_seq_) ||
           SlotRing::ready(recv_at_, recv_seq_);
  }
  void release() override {
    ++recv_seq_;
    if (peeked_ == Ring::kShort) recv_short_ = recv_shorts_.next(recv_short_);
    else if (peeked_ == Ring::kCell) recv_cell_ = recv_cells_.next(recv_cell_);
    else recv_at_ = recv_.next(recv_at_);
  }
  std::uint64_t recv_seq() const override { return recv_seq_; }

  // Registered memory takes a memcpy into our mapping of it; where it cannot
  // be mapped now (out of descriptors or address space), or for ordinary
  // memory, process_vm_writev (CMA): one copy, done when it returns.
  PutStatus put(const iovec* iov, int iovcnt, std::uint64_t remote_addr, std::uint64_t rkey,
                std::uint64_t) override {
    if (std::uint32_t region = registered_region_of(rkey)) {
      int err = 0;
      std::uint64_t at = remote_addr;
      for (int i = 0; i < iovcnt && err == 0; at += iov[i].iov_len, ++i)
        err = prov_->registry().write(peer_, region, at, iov[i].iov_base, iov[i].iov_len);
      if (err == 0) return PutStatus::kDone;
      if (err == EFAULT) return PutStatus::kBadRemote;
    }
    if (!prov_->cma_enabled()) return PutStatus::kUnsupported;
    for (int i = 0; i < iovcnt; ++i) {
      const char* p = static_cast<const char*>(iov[i].iov_base);
      std::size_t len = iov[i].iov_len;
      while (len > 0) {
        iovec local{const_cast<char*>(p), len};
        iovec remote{reinterpret_cast<void*>(remote_addr), len};
        ssize_t n = ::process_vm_writev(prov_->pid_of(peer_), &local, 1, &remote, 1, 0);
        if (n < 0) {
          if (errno == EINTR) continue;
          if (errno == EPERM || errno == ENOSYS) return PutStatus::kUnsupported;
          if (errno == ESRCH) return PutStatus::kPeerGone;
          return PutStatus::kBadLocal;  // EFAULT: either side's address; this transfer fails
        }
        if (n == 0) return PutStatus::kBadLocal;
        p += n;
        remote_addr += static_cast<std::uint64_t>(n);
        len -= static_cast<std::size_t>(n);
      }
    }
    return PutStatus::kDone;
  }
  bool poll_put(PutCompletion*) override { return false; }  // every put completes at once
  // The store of a put is silent: the futex (or FIFO) doorbell, as end_send rings it.
  void ring() override { prov_->wake(peer_); }

  std::string describe() const override {
    return "shm " + std::to_string(prov_->rank()) + "<->" + std::to_string(peer_) + " #" +
           std::to_string(index_);
  }

 private:
  ShmProvider* prov_;
  int peer_;
  int index_;
  void* base_;
  std::size_t bytes_;
  bool up_ = false;
  ShmLinkHeader* hdr_;
  // The frame publishes in `at` of `ring`, and `at` moves on.
  void publish(char*& at, const SlotRing& ring) {
    SlotRing::publish(at, send_seq_++);
    at = ring.next(at);
  }
  // A short record or a cell whose header claims more payload than it
  // holds (the peer's fault): the link fails on both ends, reported once,
  // and the frame is never shown.
  [[gnu::noinline]] bool reject_frame(const FrameHeader& h, const char* in, std::size_t most) {
    if (!rejected_) {
      rejected_ = true;
      prov_->reject_link(peer_, describe() + ": rejected frame: " +
                                    frame_type_name(static_cast<FrameType>(h.type)) + " of " +
                                    std::to_string(h.length) + " bytes in " + in + " (at most " +
                                    std::to_string(most) + " payload bytes)");
    }
    return false;
  }

  SlotRing send_, recv_;              ///< the slots
  SlotRing send_cells_, recv_cells_;  ///< the cells of small frames (SlotRing::kCellBytes)
  std::uint64_t send_seq_ = 0, recv_seq_ = 0;
  // Walked with SlotRing::next, no division. A frame takes the next cell
  // or the next slot.
  char* send_cell_ = nullptr;  ///< the next cell to fill
  char* send_at_ = nullptr;    ///< the next slot to fill
  char* recv_cell_ = nullptr;  ///< the next cell to read
  char* recv_at_ = nullptr;    ///< the next slot to read
  enum class SendTo : std::uint8_t { kStaged, kCell, kSlot };
  SendTo send_to_ = SendTo::kSlot;  ///< where the frame begin_send began is written
  FrameHeader staged_{};            ///< its header, for SendTo::kStaged
  char staged_payload_[SlotRing::kInlineBytes];
  SlotRing send_shorts_, recv_shorts_;  ///< the short records (SlotRing::ShortRecord)
  char* send_short_ = nullptr;
  char* recv_short_ = nullptr;
  enum class Ring : std::uint8_t { kShort, kCell, kSlot };
  Ring peeked_ = Ring::kSlot;  ///< where the frame peek() saw is
  bool rejected_ = false;      ///< reject_frame reported this link
};

ShmProvider::ShmProvider(const Options& o)
    : o_(o), registry_(o.job, o.rank, o.arena_token, o.registered_limit, ShmRegistry::kFirstArena, o.secret,
                            o.named_arenas ? ShmRegistry::Sharing::kName : ShmRegistry::Sharing::kDescriptor) {
  tokens_.assign(o.nranks, "");
  tokens_[o.rank] = o.token;
  hosts_.assign(o.nranks, "");
  hosts_[o.rank] = o.host;
  peer_fifos_.assign(o.nranks, -1);
  // Yama may restrict process_vm_writev to ancestors; allow our peers.
  ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  asymmetric_fence_ = register_asymmetric_fence();
  staging_offset_ = round_page(sizeof(ShmControl) + 2 * static_cast<std::size_t>(o.nranks));
  control_bytes_ = staging_offset_ + 2 * kStagingBytes;
  std::size_t mapped = 0;
  void* p = map_segment(control_name(o.rank), control_bytes_, true, &mapped);
  if (!p) throw std::runtime_error(segment_error("create", control_name(o.rank)));
  own_name_linked_ = true;
  own_ = static_cast<ShmControl*>(p);
  own_->rank = o.rank;
  own_->pid = ::getpid();
  own_->nranks = static_cast<std::uint32_t>(o.nranks);
  own_->magic.store(kControlMagic, std::memory_order_release);
  controls_.assign(o.nranks, nullptr);
  controls_[o.rank] = own_;
  pids_.assign(o.nranks, 0);
  pids_[o.rank] = ::getpid();
  linked_.assign(o.nranks, false);
}

ShmProvider::~ShmProvider() {
  if (own_name_linked_) ::shm_unlink(control_name(o_.rank).c_str());
  if (wake_fifo_ >= 0) {
    ::close(wake_fifo_);
    ::unlink(("/dev/shm" + wake_fifo_name(o_.rank)).c_str());
  }
  for (int fd : peer_fifos_)
    if (fd >= 0) ::close(fd);
  for (ShmControl* c : controls_)
    if (c) ::munmap(c, control_bytes_);
}

std::string ShmProvider::control_name(int rank) const {
  const std::string what = "c" + std::to_string(rank);
  return "/meshmp-" + o_.job + "-" + shm_name_tag(o_.secret, tokens_.at(rank), what) + "-" + what;
}

std::string ShmProvider::link_name(int a, int b, int index) const {
  const int lo = std::min(a, b), hi = std::max(a, b);
  const std::string what = "l" + std::to_string(lo) + "-" + std::to_string(hi) + "-" + std::to_string(index);
  return "/meshmp-" + o_.job + "-" + shm_name_tag(o_.secret, tokens_.at(lo), what) + "-" + what;
}

std::string ShmProvider::wake_fifo_name(int rank) const {
  const std::string what = "w" + std::to_string(rank);
  return "/meshmp-" + o_.job + "-" +
         shm_name_tag(o_.secret, rank == o_.rank ? o_.arena_token : arena_tokens_.at(rank), what) + "-" + what;
}

std::string ShmProvider::address_card() const {
  return std::to_string(::getpid()) + " " + o_.token + " " + o_.arena_token + " " + o_.host;
}

bool ShmProvider::reachable(int peer) const {
  if (peer == o_.rank) return true;
  if (o_.forced) return kernel_of(hosts_.at(peer)) == kernel_of(o_.host);
  return same_host(peer);
}

void ShmProvider::attach(const std::vector<std::string>& cards) {
  if (cards.size() != static_cast<std::size_t>(o_.nranks))
    throw std::runtime_error("shm: " + std::to_string(cards.size()) + " address cards for " +
                             std::to_string(o_.nranks) + " ranks");
  std::vector<std::string> arena_tokens;
  const std::size_t n = o_.token.size();
  for (int r = 0; r < o_.nranks; ++r) {
    // A peer's word: "<pid> <token> <arena token> <host>", tokens of our
    // length in lower-case hex, the host a boot id and a namespace inode.
    const std::string& b = cards[r];
    std::istringstream in(b);
    std::string pid, token, arena, host, extra;
    const auto hex = [](const std::string& s) { return s.find_first_not_of("0123456789abcdef") == std::string::npos; };
    if (b.size() > 512 || !(in >> pid >> token >> arena >> host) || (in >> extra) ||
        pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9 || std::stol(pid) <= 0 ||
        token.size() != n || !hex(token) || arena.size() > 64 || !hex(arena) ||
        host.find_first_not_of("0123456789abcdef-/") != std::string::npos)
      throw std::runtime_error("shm: malformed address card from rank " + std::to_string(r));
    pids_[r] = static_cast<int>(std::stol(pid));
    tokens_[r] = token;
    arena_tokens.push_back(arena);
    hosts_[r] = host;
  }
  arena_tokens_ = arena_tokens;
  registry_.set_peer_tokens(arena_tokens);
  registry_.set_peer_pids(pids_);
  for (int r = 0; r < o_.nranks; ++r) {
    if (r == o_.rank || !reachable(r)) continue;
    std::size_t mapped = 0;
    void* p = map_segment(control_name(r), 0, false, &mapped);
    if (!p) throw std::runtime_error(segment_error("attach", control_name(r)));
    if (mapped != control_bytes_) {
      ::munmap(p, mapped);
      throw std::runtime_error("shm: cannot attach " + control_name(r) + ": wrong size");
    }
    controls_[r] = static_cast<ShmControl*>(p);
    if (controls_[r]->magic.load(std::memory_order_acquire) != kControlMagic ||
        controls_[r]->rank != r || controls_[r]->pid != pids_[r])
      throw std::runtime_error("shm: " + control_name(r) + " does not belong to rank " + std::to_string(r));
  }
}

void ShmProvider::unlink_own_control() {
  if (own_name_linked_) ::shm_unlink(control_name(o_.rank).c_str());
  own_name_linked_ = false;
}

std::unique_ptr<Link> ShmProvider::create_link(int peer, int index, bool peer_may_have_made_it) {
  const std::size_t slot_size = SlotRing::slot_size_for(o_.payload);
  const std::size_t bytes = link_segment_bytes(o_.slots, slot_size);
  const std::string name = link_name(o_.rank, peer, index);
  std::size_t mapped = 0;
  void* p = map_segment(name, bytes, true, &mapped);
  if (!p) {
    if (errno == EEXIST && peer_may_have_made_it) return nullptr;
    throw std::runtime_error(segment_error("create", name));
  }
  auto* h = static_cast<ShmLinkHeader*>(p);
  h->version = kLinkVersion;
  h->nslots = o_.slots;
  h->slot_size = static_cast<std::uint32_t>(slot_size);
  h->lo_rank = std::min(o_.rank, peer);
  h->hi_rank = std::max(o_.rank, peer);
  h->index = index;
  h->magic.store(kLinkMagic, std::memory_order_release);
  return std::make_unique<ShmLink>(this, peer, index, p, mapped, true);
}

std::unique_ptr<Link> ShmProvider::open_link(int peer, int index) {
  const std::string name = link_name(o_.rank, peer, index);
  std::size_t mapped = 0;
  void* p = map_segment(name, 0, false, &mapped);
  if (!p) {
    if (errno == EPERM) throw std::runtime_error(segment_error("open", name));
    return nullptr;  // not there yet
  }
  auto* h = static_cast<ShmLinkHeader*>(p);
  if (mapped < kLinkHeaderBytes || h->magic.load(std::memory_order_acquire) != kLinkMagic) {
    ::munmap(p, mapped);
    return nullptr;  // not initialised yet; try again later
  }
  // The header is the peer's word: check it describes exactly this mapping.
  const std::size_t need = link_segment_bytes(h->nslots, h->slot_size);
  if (h->version != kLinkVersion || h->nslots < 4 || h->nslots > 1024 ||
      h->slot_size < SlotRing::slot_size_for(64) || h->slot_size % 64 != 0 ||
      h->slot_size > (2u << 20) || need != mapped || h->lo_rank != std::min(o_.rank, peer) ||
      h->hi_rank != std::max(o_.rank, peer) || h->index != index) {
    ::munmap(p, mapped);
    throw std::runtime_error("shm: segment " + name + " has a malformed header");
  }
  ::shm_unlink(name.c_str());
  h->opened.store(1, std::memory_order_release);
  wake(peer);
  return std::make_unique<ShmLink>(this, peer, index, p, mapped, false);
}

std::unique_ptr<Link> ShmProvider::join_link(int peer, int index) {
  auto l = open_link(peer, index);
  if (!l) throw std::runtime_error("shm: neighbour rank " + std::to_string(peer) + " did not create our link");
  return l;
}

std::unique_ptr<Link> ShmProvider::connect(int peer) {
  linked_.at(peer) = true;
  std::unique_ptr<Link> link = create_link(peer, 0, true);
  if (!link) {
    // The peer created it first (a simultaneous connect): open theirs.
    for (int tries = 0; !link && tries < 1000; ++tries) {
      link = open_link(peer, 0);
      if (!link) ::usleep(100);
    }
    if (!link) throw std::runtime_error("shm: cannot open " + link_name(o_.rank, peer, 0));
    return link;
  }
  ShmControl* c = controls_.at(peer);
  c->requests()[o_.rank].store(1, std::memory_order_release);
  c->connect_pending.store(1, std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  ring(peer);
  return link;
}

void ShmProvider::accept(std::vector<std::unique_ptr<Link>>* incoming) {
  if (!own_->connect_pending.load(std::memory_order_acquire)) return;
  own_->connect_pending.store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int r = 0; r < o_.nranks; ++r) {
    if (!own_->requests()[r].exchange(0, std::memory_order_acq_rel) || linked_[r]) continue;
    if (auto l = open_link(r, 0)) {
      linked_[r] = true;
      incoming->push_back(std::move(l));
    }
  }
}

void ShmProvider::finalizing() { own_->finalized.store(1, std::memory_order_release); }

bool ShmProvider::finalized(int peer) const {
  const ShmControl* c = controls_.at(peer);
  return c && c->finalized.load(std::memory_order_acquire) != 0;
}

std::string ShmProvider::check_peer(int peer) {
  if (::kill(pids_.at(peer), 0) != 0 && errno == ESRCH) return "process " + std::to_string(pids_[peer]) + " has exited";
  return "";
}

namespace {
constexpr std::uint8_t kClosedRejected = 1;  // the reason code in a peer's control block
}

void ShmProvider::report_closed(int peer) {
  ShmControl* c = controls_.at(peer);
  c->closed(static_cast<std::uint32_t>(o_.nranks))[o_.rank].store(kClosedRejected, std::memory_order_release);
  c->closed_pending.store(1, std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  ring(peer);
}

void ShmProvider::take_failures(std::vector<LinkFailure>* failures) {
  // Asked every round of progress: the test alone, without the frame the
  // loop below needs (its string's stack guard cost 20 instructions a round).
  if (own_->closed_pending.load(std::memory_order_acquire)) [[unlikely]] take_closed(failures);
}

void ShmProvider::reject_link(int peer, std::string what) {
  report_closed(peer);
  rejected_.push_back({peer, false, std::move(what)});
  own_->closed_pending.store(1, std::memory_order_release);
}

void ShmProvider::take_closed(std::vector<LinkFailure>* failures) {
  own_->closed_pending.store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (LinkFailure& f : rejected_) failures->push_back(std::move(f));
  rejected_.clear();
  for (int r = 0; r < o_.nranks; ++r)
    if (own_->closed(static_cast<std::uint32_t>(o_.nranks))[r].exchange(0, std::memory_order_acq_rel))
      failures->push_back({r, false, "closed the link: it rejected data this rank sent"});
}

ProviderCaps ShmProvider::caps() const {
  ProviderCaps c;
  c.rdma_write = true;  // registered memory always; ordinary memory where CMA is allowed
  c.registered_memory = true;
  c.host_combine = true;
  return c;
}

std::uint64_t ShmProvider::remote_key(const void* buf, std::size_t len, std::uint32_t nonce, int) {
  return make_registration_key(registry_.region_of(buf, len), nonce);
}

MemoryDomain::Usage ShmProvider::usage() const {
  const ShmRegistry::Usage u = registry_.usage();
  return MemoryDomain::Usage{u.in_use, u.high_water, u.arena_bytes, u.arenas};
}

void ShmProvider::write_contribution(std::uint64_t seq, const void* data, std::size_t bytes) {
  ShmControl::SmpSlot& s = own_->smp[seq & 1];
  if (bytes) std::memcpy(s.data, data, bytes);  // (data may be NULL where bytes is 0)
  s.bytes = bytes;
  s.seq.store(seq + 1, std::memory_order_release);
}

void ShmProvider::post(std::uint64_t seq, const void* data, std::size_t bytes) {
  write_contribution(seq, data, bytes);
  // Every other rank reads it, and one that waited long enough is asleep.
  for (int r = 0; r < o_.nranks; ++r)
    if (r != o_.rank) wake(r);
}

bool ShmProvider::arrive(std::uint64_t seq, const void* data, std::size_t bytes) {
  write_contribution(seq, data, bytes);
  const std::uint64_t before = controls_[0]->smp_arrivals.fetch_add(1, std::memory_order_acq_rel);
  return before + 1 == static_cast<std::uint64_t>(o_.nranks) * (seq + 1);
}

const char* ShmProvider::contribution(int r, std::uint64_t seq, std::size_t* bytes) const {
  const ShmControl::SmpSlot& s = controls_[r]->smp[seq & 1];
  if (s.seq.load(std::memory_order_acquire) != seq + 1) return nullptr;
  *bytes = std::min<std::size_t>(s.bytes, kSmpSlotBytes);
  return s.data;
}

void ShmProvider::publish(std::uint64_t seq, const void* result, std::size_t bytes, std::size_t largest) {
  ShmControl::SmpSlot& s = controls_[0]->smp_result[seq & 1];
  if (bytes) std::memcpy(s.data, result, bytes);
  release_result(seq, largest);
}

void ShmProvider::publish_failure(std::uint64_t seq) { release_result(seq, kSmpFailed); }

void ShmProvider::release_result(std::uint64_t seq, std::uint64_t bytes) {
  ShmControl::SmpSlot& s = controls_[0]->smp_result[seq & 1];
  s.bytes = bytes;
  s.seq.store(seq + 1, std::memory_order_seq_cst);
  for (int r = 0; r < o_.nranks; ++r)
    if (r != o_.rank) wake(r);
}

HostCombine::State ShmProvider::result(std::uint64_t seq, void* out, std::size_t bytes) const {
  const ShmControl::SmpSlot& s = controls_[0]->smp_result[seq & 1];
  if (s.seq.load(std::memory_order_acquire) != seq + 1) return State::kPending;
  if (s.bytes == kSmpFailed) return State::kFailed;
  // Rank 0's block is a peer's word: copy no more than asked for.
  if (bytes) std::memcpy(out, s.data, std::min<std::size_t>(bytes, kSmpSlotBytes));
  return s.bytes > bytes ? State::kTruncated : State::kReleased;
}

// Whether every rank is done with broadcast seq - kBcastSlots, the last
// use of seq's slot: the least of the ranks' bcast_done, read again only
// when the least seen before is not enough (about once per kBcastSlots
// broadcasts, not per broadcast).
bool ShmProvider::broadcast_slot_free(std::uint64_t seq) {
  if (seq < kBcastSlots) return true;
  const std::uint64_t need = seq - kBcastSlots + 1;
  if (bcast_done_least_ >= need) return true;
  std::uint64_t least = ~std::uint64_t{0};
  for (int r = 0; r < o_.nranks; ++r)
    least = std::min(least, controls_[r]->bcast_done.load(std::memory_order_seq_cst));
  bcast_done_least_ = least;
  return least >= need;
}

bool ShmProvider::broadcast_publish(std::uint64_t seq, const void* data, std::size_t bytes) {
  ShmControl::BcastSlot& s = controls_[0]->bcast[seq % kBcastSlots];
  if (!broadcast_slot_free(seq)) {
    // Tell the readers to wake us, then look again: the last of them either
    // sees the waiter or its count is visible to this second look (our
    // membarrier in arm(), before we sleep, or a full fence: as wake()).
    s.waiter.store(o_.rank + 1, std::memory_order_seq_cst);
    if (!broadcast_slot_free(seq)) return false;
  }
  // Nobody else can wait on this slot before broadcast seq is out.
  if (s.waiter.load(std::memory_order_relaxed) != 0) s.waiter.store(0, std::memory_order_relaxed);
  if (bytes <= kBcastSlotBytes) {  // the tail first: seq's line is written once, last
    constexpr std::size_t head = ShmControl::BcastSlot::kHead;
    if (bytes > head) std::memcpy(s.tail, static_cast<const char*>(data) + head, bytes - head);
    if (bytes) std::memcpy(s.head, data, std::min(bytes, head));  // (data may be NULL where bytes is 0)
  }
  s.bytes = bytes;
  s.seq.store(seq + 1, std::memory_order_release);
  own_->bcast_done.store(seq + 1, std::memory_order_release);
  for (int r = 0; r < o_.nranks; ++r)
    if (r != o_.rank) wake(r);
  return true;
}

HostCombine::State ShmProvider::broadcast_result(std::uint64_t seq, void* out, std::size_t bytes, std::size_t* got) {
  ShmControl::BcastSlot& s = controls_[0]->bcast[seq % kBcastSlots];
  if (s.seq.load(std::memory_order_acquire) != seq + 1) return State::kPending;
  // Rank 0's block is a peer's word: copy no more than asked for or fits.
  const std::uint64_t root_bytes = s.bytes;
  *got = root_bytes;
  const bool here = root_bytes <= kBcastSlotBytes;
  if (here) {
    constexpr std::size_t head = ShmControl::BcastSlot::kHead;
    const std::size_t n = std::min<std::size_t>(bytes, root_bytes);
    if (n) std::memcpy(out, s.head, std::min(n, head));
    if (n > head) std::memcpy(static_cast<char*>(out) + head, s.tail, n - head);
  }
  // Done with it (the copy is out), then the waiter: the store-load order
  // a waiting root's membarrier provides (see arm()), or a full fence.
  own_->bcast_done.store(seq + 1, std::memory_order_release);
  if (asymmetric_fence_) std::atomic_signal_fence(std::memory_order_seq_cst);
  else std::atomic_thread_fence(std::memory_order_seq_cst);
  const std::int32_t w = s.waiter.load(std::memory_order_relaxed);
  if (w > 0 && w <= o_.nranks && w - 1 != o_.rank) wake(w - 1);
  return here && root_bytes > bytes ? State::kTruncated : State::kReleased;
}

char* ShmProvider::staging(int r, int which) {
  return reinterpret_cast<char*>(controls_.at(r)) + staging_offset_ + static_cast<std::size_t>(which & 1) * kStagingBytes;
}

std::uint32_t ShmProvider::arm() {
  own_->sleeping.store(wake_fifo_ >= 0 ? kSleepsInEpoll : kSleepsOnFutex, std::memory_order_seq_cst);
  // Every sender either sees `sleeping` or has its last publish visible to
  // the re-poll that follows (a barrier on every CPU running a peer).
  if (!asymmetric_fence_ || membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0)
    std::atomic_thread_fence(std::memory_order_seq_cst);
  return own_->doorbell.load(std::memory_order_seq_cst);
}

void ShmProvider::sleep(std::uint32_t seen, int timeout_ms) {
  timespec ts{timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
  ::syscall(SYS_futex, &own_->doorbell, FUTEX_WAIT, seen, &ts, nullptr, 0);
}

void ShmProvider::disarm() { own_->sleeping.store(0, std::memory_order_relaxed); }

void ShmProvider::wake(int peer) {
  ShmControl* c = controls_[peer];
  // Publish, then read `sleeping`: the store-load order the sleeper's
  // membarrier provides for us (see arm()), or a full fence.
  if (asymmetric_fence_) std::atomic_signal_fence(std::memory_order_seq_cst);
  else std::atomic_thread_fence(std::memory_order_seq_cst);
  if (c->sleeping.load(std::memory_order_seq_cst)) ring(peer);
}

void ShmProvider::ring(int peer) {
  ShmControl* c = controls_[peer];
  c->doorbell.fetch_add(1, std::memory_order_seq_cst);
  if (c->sleeping.load(std::memory_order_seq_cst) != kSleepsInEpoll) {
    ::syscall(SYS_futex, &c->doorbell, FUTEX_WAKE, 1, nullptr, nullptr, 0);
    return;
  }
  int& fd = peer_fifos_[peer];
  if (fd < 0) {
    fd = ::open(("/dev/shm" + wake_fifo_name(peer)).c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    struct stat st {};
    if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode) || st.st_uid != ::geteuid() ||
                    (st.st_mode & 077) != 0)) {
      ::close(fd);  // not the peer's FIFO: it will wake from its timeout
      fd = -1;
    }
    if (fd < 0) return;
  }
  const char b = 1;
  (void)!::write(fd, &b, 1);  // a full FIFO already wakes the reader
}

int ShmProvider::wait_fd() {
  if (wake_fifo_ >= 0) return wake_fifo_;
  const std::string path = "/dev/shm" + wake_fifo_name(o_.rank);
  if (::mkfifo(path.c_str(), 0600) != 0) {
    throw std::runtime_error(segment_error("create", path));
  }
  wake_fifo_ = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  struct stat st {};
  if (wake_fifo_ < 0 || ::fstat(wake_fifo_, &st) != 0 || !S_ISFIFO(st.st_mode) || st.st_uid != ::geteuid()) {
    const int e = errno;
    ::unlink(path.c_str());
    errno = e;
    throw std::runtime_error(segment_error("open", path));
  }
  return wake_fifo_;
}

void ShmProvider::drain_wait_fd() {
  char buf[256];
  while (wake_fifo_ >= 0 && ::read(wake_fifo_, buf, sizeof buf) > 0) {
  }
}

}  // namespace meshmp::mesh
