// The ofi provider (issue 28) over libfabric's tcp provider on loopback:
// its connection requests' authenticator, and providers in this process
// talking to each other -- with strangers and replayed requests knocking
// at a rank's listener while it runs.
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include "mesh/host_identity.h"
#include "mesh/providers/ofi/ofi_auth.h"
#include "mesh/providers/ofi/ofi_provider.h"

namespace meshmp::mesh {
namespace {

constexpr const char* kSecret = "ofi test job secret";

// ---- the authenticator ------------------------------------------------------

TEST(OfiAuth, ARequestIsAcceptedOnlyWithTheJobsKeyForTheListenerItNames) {
  const tcp::LinkKey k = tcp::derive_key("job secret");
  const ofi::ListenerId l = ofi::make_listener_id(), other_listener = ofi::make_listener_id();
  const ofi::ConnReq r = ofi::make_conn_req(k, l, 3, 5, 1, 0);
  ofi::ConnReq out{};
  EXPECT_EQ(ofi::check_conn_req(k, l, &r, sizeof r, 5, 8, &out), "");
  EXPECT_EQ(out.from, 3u);
  EXPECT_EQ(out.index, 1u);
  EXPECT_NE(ofi::check_conn_req(tcp::derive_key("another job"), l, &r, sizeof r, 5, 8, &out), "");  // wrong secret
  EXPECT_NE(ofi::check_conn_req(k, other_listener, &r, sizeof r, 5, 8, &out), "");  // another listener's
  EXPECT_NE(ofi::check_conn_req(k, l, &r, sizeof r, 4, 8, &out), "");               // addressed to another rank
  EXPECT_NE(ofi::check_conn_req(k, l, &r, sizeof r - 1, 5, 8, &out), "");           // truncated
  EXPECT_NE(ofi::check_conn_req(k, l, &r, 0, 5, 8, &out), "");
  EXPECT_NE(ofi::check_conn_req(k, l, &r, sizeof r, 5, 3, &out), "");  // from a rank the job does not have
  ofi::ConnReq flipped = r;
  flipped.index ^= 1;  // any field changed breaks the MAC
  EXPECT_NE(ofi::check_conn_req(k, l, &flipped, sizeof flipped, 5, 8, &out), "");
  const ofi::ConnReq self = ofi::make_conn_req(k, l, 5, 5, 0, 0);
  EXPECT_NE(ofi::check_conn_req(k, l, &self, sizeof self, 5, 8, &out), "");  // from itself
  const ofi::ConnReq bad_index = ofi::make_conn_req(k, l, 3, 5, 2, 0);
  EXPECT_NE(ofi::check_conn_req(k, l, &bad_index, sizeof bad_index, 5, 8, &out), "");
  // Two requests never share a nonce (the listener refuses a repeated one).
  const ofi::ConnReq again = ofi::make_conn_req(k, l, 3, 5, 1, 0);
  EXPECT_NE(std::memcmp(again.nonce, r.nonce, sizeof r.nonce), 0);

  const ofi::Welcome w = ofi::make_welcome(k, r);
  EXPECT_TRUE(ofi::check_welcome(k, r, &w, sizeof w));
  EXPECT_FALSE(ofi::check_welcome(k, again, &w, sizeof w));  // the answer to another request
  EXPECT_FALSE(ofi::check_welcome(tcp::derive_key("another job"), r, &w, sizeof w));
  EXPECT_FALSE(ofi::check_welcome(k, r, &w, sizeof w - 1));
}

TEST(OfiAuth, HexRoundTripsAndRefusesWhatIsNotHex) {
  const unsigned char b[3] = {0x00, 0xab, 0x7f};
  EXPECT_EQ(ofi::to_hex(b, 3), "00ab7f");
  unsigned char back[3];
  EXPECT_TRUE(ofi::from_hex("00ab7f", back, 3));
  EXPECT_EQ(std::memcmp(b, back, 3), 0);
  EXPECT_FALSE(ofi::from_hex("00ab7", back, 3));
  EXPECT_FALSE(ofi::from_hex("00AB7F", back, 3));
  EXPECT_FALSE(ofi::from_hex("00ab7g", back, 3));
}

// ---- providers in this process ------------------------------------------------

ProviderSetup setup_for(int rank, int nranks, const std::string& secret = kSecret) {
  ProviderSetup s;
  s.job = "ofitest";
  s.rank = rank;
  s.nranks = nranks;
  s.slots = 8;
  s.payload = 1024;
  s.secret = secret;
  s.host = host_identity();
  s.torus = Torus({nranks}, {true});
  s.ofi_provider = "tcp";
  return s;
}

// Polls every provider until `done` or 5 s.
template <typename F>
bool pump(const std::vector<OfiProvider*>& ps, F done, std::vector<std::unique_ptr<Link>>* in = nullptr) {
  std::vector<std::unique_ptr<Link>> none;
  for (int i = 0; i < 5000; ++i) {
    for (OfiProvider* p : ps) p->accept(in && p == ps.back() ? in : &none);
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// Rank 0's link to rank 1, up, with rank 1's end of it in *in; null if the
// two did not come up within pump's 5 s.
std::unique_ptr<Link> connect_pair(OfiProvider& p0, OfiProvider& p1, std::vector<std::unique_ptr<Link>>* in) {
  const std::vector<std::string> cards = {p0.address_card(), p1.address_card()};
  p0.attach(cards);
  p1.attach(cards);
  std::unique_ptr<Link> a = p0.connect(1);
  if (!pump({&p0, &p1}, [&] { return !in->empty() && a->up() && (*in)[0]->up(); }, in)) return nullptr;
  return a;
}

// The port and listener id on a provider's card ("ofi <id> <heartbeat
// address> <key> tcp <port> ...").
int port_of(const OfiProvider& p, ofi::ListenerId* id) {
  std::istringstream in(p.address_card());
  std::string ofi, hex, addr, key, tcp;
  int port = 0;
  in >> ofi >> hex >> addr >> key >> tcp >> port;
  EXPECT_EQ(tcp, "tcp");
  EXPECT_TRUE(ofi::from_hex(hex, id->bytes, sizeof id->bytes));
  return port;
}

// A client that is no rank of the job: a bare libfabric endpoint sending
// chosen bytes as its connection request. connect() returns true if the
// listener accepted (FI_CONNECTED), false if it refused.
struct RawClient {
  fi_info* info = nullptr;
  fid_fabric* fabric = nullptr;
  fid_domain* domain = nullptr;
  fid_eq* eq = nullptr;
  fid_ep* ep = nullptr;
  fid_cq* cq = nullptr;

  RawClient() {
    fi_info* hints = fi_allocinfo();
    hints->ep_attr->type = FI_EP_MSG;
    hints->caps = FI_MSG | FI_RMA;
    hints->addr_format = FI_SOCKADDR_IN;
    hints->fabric_attr->prov_name = strdup("tcp");
    EXPECT_EQ(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", nullptr, 0, hints, &info), 0);
    fi_freeinfo(hints);
    EXPECT_EQ(fi_fabric(info->fabric_attr, &fabric, nullptr), 0);
    EXPECT_EQ(fi_domain(fabric, info, &domain, nullptr), 0);
    fi_eq_attr ea{};
    ea.size = 16;
    EXPECT_EQ(fi_eq_open(fabric, &ea, &eq, nullptr), 0);
  }
  ~RawClient() {
    if (ep) fi_close(&ep->fid);
    if (cq) fi_close(&cq->fid);
    fi_close(&eq->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
  }
  // The links the listener makes meanwhile go to *made.
  bool connect(int port, const void* data, std::size_t len, OfiProvider& listener,
               std::vector<std::unique_ptr<Link>>* made) {
    fi_cq_attr ca{};
    ca.format = FI_CQ_FORMAT_CONTEXT;
    EXPECT_EQ(fi_endpoint(domain, info, &ep, nullptr), 0);
    EXPECT_EQ(fi_cq_open(domain, &ca, &cq, nullptr), 0);
    EXPECT_EQ(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV), 0);
    EXPECT_EQ(fi_ep_bind(ep, &eq->fid, 0), 0);
    EXPECT_EQ(fi_enable(ep), 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(fi_connect(ep, &to, data, len), 0);
    int outcome = 0;  // 1 connected, -1 refused
    pump({&listener}, [&] {
      alignas(fi_eq_cm_entry) char buf[sizeof(fi_eq_cm_entry) + 64];
      std::uint32_t ev = 0;
      const ssize_t n = fi_eq_read(eq, &ev, buf, sizeof buf, 0);
      if (n >= 0 && ev == FI_CONNECTED) outcome = 1;
      if (n == -FI_EAVAIL) {
        fi_eq_err_entry err{};
        fi_eq_readerr(eq, &err, 0);
        outcome = -1;
      }
      return outcome != 0;
    }, made);
    EXPECT_NE(outcome, 0) << "the listener neither accepted nor refused within 5 s";
    return outcome == 1;
  }
};

TEST(OfiProvider, StrangersAndReplayedRequestsAreRefusedBeforeAnyLinkIsMade) {
  OfiProvider p{setup_for(1, 2)};
  std::vector<std::string> cards = {p.address_card(), p.address_card()};
  p.attach(cards);
  ofi::ListenerId id;
  const int port = port_of(p, &id);
  std::vector<std::unique_ptr<Link>> in;

  // Garbage, a request under another secret, one for another listener.
  const std::vector<char> junk(48, 'j');
  EXPECT_FALSE(RawClient().connect(port, junk.data(), junk.size(), p, &in));
  const ofi::ConnReq wrong = ofi::make_conn_req(tcp::derive_key("not the secret"), id, 0, 1, 0, ofi::kOnDemand);
  EXPECT_FALSE(RawClient().connect(port, &wrong, sizeof wrong, p, &in));
  const ofi::ConnReq elsewhere = ofi::make_conn_req(tcp::derive_key(kSecret), ofi::make_listener_id(), 0, 1, 0,
                                                    ofi::kOnDemand);
  EXPECT_FALSE(RawClient().connect(port, &elsewhere, sizeof elsewhere, p, &in));
  EXPECT_FALSE(RawClient().connect(port, nullptr, 0, p, &in));
  pump({&p}, [] { return false; }, &in);  // (5 s: nothing may come of them)
  EXPECT_TRUE(in.empty());
  ASSERT_TRUE(in.empty());

  // The right request is accepted and makes a link; the same bytes again
  // (recorded and replayed) are refused.
  const ofi::ConnReq good = ofi::make_conn_req(tcp::derive_key(kSecret), id, 0, 1, 0, ofi::kOnDemand);
  RawClient first;
  EXPECT_TRUE(first.connect(port, &good, sizeof good, p, &in));
  EXPECT_TRUE(pump({&p}, [&] { return !in.empty(); }, &in));
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0]->peer(), 0);
  in.clear();
  EXPECT_FALSE(RawClient().connect(port, &good, sizeof good, p, &in));
  EXPECT_TRUE(in.empty()) << "a replayed request made a link";
  std::vector<LinkFailure> f;
  p.take_failures(&f);
  for (const auto& x : f) ADD_FAILURE() << x.what;
}

TEST(OfiProvider, TwoRanksConnectOnFirstUseAndExchangeFramesAndWrites) {
  OfiProvider p0{setup_for(0, 2)}, p1{setup_for(1, 2)};
  const std::vector<std::string> cards = {p0.address_card(), p1.address_card()};
  p0.attach(cards);
  p1.attach(cards);
  EXPECT_TRUE(p0.reachable(1));
  EXPECT_TRUE(p0.same_host(1));
  std::unique_ptr<Link> a = p0.connect(1);
  std::vector<std::unique_ptr<Link>> in;
  ASSERT_TRUE(pump({&p0, &p1}, [&] { return !in.empty() && a->up() && in[0]->up(); }, &in));
  Link& b = *in[0];
  EXPECT_EQ(b.peer(), 0);

  // A frame each way, the payload intact.
  for (int i = 0; i < 20; ++i) {
    char* pl;
    FrameHeader* h = a->begin_send(&pl, 1000);
    std::memset(h, 0, sizeof *h);
    h->tag = 100 + i;
    for (int k = 0; k < 1000; ++k) pl[k] = static_cast<char>(i + k);
    a->end_send(1000);
    FrameHeader got;
    const char* payload;
    ASSERT_TRUE(pump({&p0, &p1}, [&] { return b.peek(&got, &payload); }));
    EXPECT_EQ(got.tag, 100 + i);
    EXPECT_EQ(got.seq, b.recv_seq());
    for (int k = 0; k < 1000; ++k) ASSERT_EQ(payload[k], static_cast<char>(i + k));
    b.release();
  }

  // A write into a buffer rank 1 announced to rank 0: every byte lands.
  std::vector<unsigned char> src(1 << 20), dst(1 << 20, 0);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
  const std::uint64_t rkey = p1.remote_key(dst.data(), dst.size(), 42, 0);
  EXPECT_NE(rkey & 0xffffffffu, OfiProvider::kNoKey);
  EXPECT_EQ(rkey >> 32, 42u);
  const iovec iov{src.data(), src.size()};
  ASSERT_EQ(a->put(&iov, 1, reinterpret_cast<std::uint64_t>(dst.data()), rkey, 77), PutStatus::kInProgress);
  PutCompletion c;
  ASSERT_TRUE(pump({&p0, &p1}, [&] {
    FrameHeader h;
    const char* pl;
    b.peek(&h, &pl);  // rank 1 polls too (its provider moves the bytes)
    return a->poll_put(&c);
  }));
  EXPECT_EQ(c.cookie, 77u);
  EXPECT_EQ(c.status, PutStatus::kDone);
  // A frame behind the write on the same endpoint (the engine's DONE):
  // when it is there, so are the bytes.
  char* pl;
  std::memset(a->begin_send(&pl, 0), 0, sizeof(FrameHeader));
  a->end_send(0);
  FrameHeader done;
  const char* none;
  ASSERT_TRUE(pump({&p0, &p1}, [&] { return b.peek(&done, &none); }));
  b.release();
  EXPECT_TRUE(dst == src) << "the written bytes differ";
  p1.forget(rkey);
  // A key announced to rank 0 is no key for a write from another rank's
  // link: rank 1's registrations are per peer.
  const std::uint64_t for_other = p1.remote_key(dst.data(), dst.size(), 43, 1);
  EXPECT_NE(static_cast<std::uint32_t>(for_other), static_cast<std::uint32_t>(rkey));
  p1.forget(for_other);
  std::vector<LinkFailure> f;
  p0.take_failures(&f);
  p1.take_failures(&f);
  for (const auto& x : f) ADD_FAILURE() << x.what;

  // Rank 1's end closes (its process died: the kernel closes the socket):
  // rank 0's link fails, naming the peer, within the bounded pump.
  in.clear();
  ASSERT_TRUE(pump({&p0}, [&] {
    FrameHeader h;
    const char* pl;
    a->peek(&h, &pl);
    p0.take_failures(&f);
    return !f.empty();
  }));
  EXPECT_EQ(f[0].peer, 1);
  EXPECT_TRUE(f[0].peer_gone);
  EXPECT_NE(f[0].what.find("ofi 0<->1"), std::string::npos) << f[0].what;
  EXPECT_FALSE(a->up());
}

// In a job with shm beside ofi the engine epolls ofi's wait_fd() and
// drains it after each wake: once everything that woke it is read and
// drained, the descriptor must not stay readable (the rank would never
// sleep again).
// Without hardware RDMA a link's slots hold the stream eager limit: the
// engine's credits, but at most 32 of them, on both ends alike.
TEST(OfiProvider, StreamSlotsAreTheCreditsUpTo32) {
  for (const std::uint32_t credits : {8u, 64u}) {
    ProviderSetup s0 = setup_for(0, 2), s1 = setup_for(1, 2);
    s0.slots = s1.slots = credits;
    s0.stream_payload = s1.stream_payload = 65536;
    OfiProvider p0{s0}, p1{s1};
    std::vector<std::unique_ptr<Link>> in;
    std::unique_ptr<Link> a = connect_pair(p0, p1, &in);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->slots(), std::min(credits, 32u));
    EXPECT_EQ(in[0]->slots(), std::min(credits, 32u));
    EXPECT_GE(a->max_payload(), 65536u);
  }
}

TEST(OfiProvider, TheWaitDescriptorIsQuietOnceWhatWokeItIsReadAndDrained) {
  OfiProvider p0{setup_for(0, 2)}, p1{setup_for(1, 2)};
  std::vector<std::unique_ptr<Link>> in;
  std::unique_ptr<Link> a = connect_pair(p0, p1, &in);
  ASSERT_TRUE(a);
  Link& b = *in[0];
  char* pl;
  std::memset(a->begin_send(&pl, 0), 0, sizeof(FrameHeader));
  a->end_send(0);
  // Until the frame is there, unread: then arm() finds something waiting
  // and makes the descriptor readable at once.
  epoll_event ev;
  const int ep = ::epoll_create1(0);
  ::epoll_ctl(ep, EPOLL_CTL_ADD, p1.wait_fd(), &(ev = epoll_event{EPOLLIN, {}}));
  bool woke = false;
  for (int i = 0; i < 5000 && !woke; ++i) {
    p1.arm();
    woke = ::epoll_wait(ep, &ev, 1, 1) == 1;
    if (!woke) p1.disarm();
  }
  ASSERT_TRUE(woke) << "the frame did not wake the rank within 5 s";
  p1.disarm();
  p1.arm();  // the frame is there, unread: a kick
  FrameHeader h;
  const char* payload;
  ASSERT_TRUE(pump({&p1}, [&] { return b.peek(&h, &payload); }));
  b.release();
  p1.disarm();
  p1.drain_wait_fd();
  p1.arm();  // nothing pending now
  EXPECT_EQ(::epoll_wait(ep, &ev, 1, 0), 0) << "the wait descriptor stays readable";
  p1.drain_wait_fd();
  p1.disarm();
  ::close(ep);
}

TEST(OfiProvider, AnUnknownLibfabricProviderIsAClearError) {
  ProviderSetup s = setup_for(0, 2);
  s.ofi_provider = "no-such-provider";
  try {
    OfiProvider p{s};
    ADD_FAILURE() << "opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-provider"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("MESHMP_OFI_PROVIDER"), std::string::npos) << e.what();
  }
}

// --provider auto with a fabric that cannot open: every rank must choose
// alike, so the start stops -- saying how to run over TCP instead.
TEST(OpenProviders, AutoWithAFabricThatCannotOpenStopsTheStartSayingHowToUseTcp) {
  ProviderSetup s = setup_for(0, 2);
  s.job = "ofiauto" + std::to_string(::getpid());
  s.ofi_provider = "no-such-provider";
  try {
    auto v = open_providers("auto", s);
    ADD_FAILURE() << "opened " << v.size() << " providers";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-provider"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("MESHMP_PROVIDER=tcp"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace meshmp::mesh
