// Random point-to-point traffic among all ranks (MPI-1.1 §3.4-3.8): each
// round, every ordered pair of ranks -- a rank and itself included -- has
// 0 to 3 messages of random size (empty, a few bytes, around the eager
// limit, up to 300 KB), tag and mode (MPI_Isend, MPI_Issend, MPI_Ibsend, or
// MPI_Send_init and MPI_Start), all posted before any receive; each rank
// then takes what it is owed by MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG), by
// MPI_Probe and a receive of the probed source, tag and size, by MPI_Irecv
// and an MPI_Test loop, by MPI_Mprobe and MPI_Mrecv, or by an MPI_Improbe
// loop and MPI_Imrecv (MPI-3.1 §3.8.2). Every message must arrive whole,
// with its own source, tag and length, and the messages of each sender in
// the order it sent them (non-overtaking, §3.5). The rounds draw from fixed
// seeds, the same plan on every rank.
//
// BUILD runs it at 4 ranks as it is and with MESHMP_UNEXPECTED_LIMIT=0
// (nothing unexpected is buffered unless a frame this rank waits for may
// stand behind it) over shm, tcp and ofi, and at 8 ranks over the relays of
// the 2x2x2 mesh fabric at the default limit and at 0. At a limit of 0 it
// hung before: a CTS or SYNC_ACK stood behind frames the rank waiting for
// it would not take; on the mesh fabric, routed frames for other ranks
// stood behind a relay's neighbour's messages that the relay would not take
// (now it takes them, withholding their credits: mesh/credits.h).
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/mpi/mpi_main.h"
#include "tests/support/draw.h"

namespace {

using mpitest::rank;
using mpitest::size;

using meshmp::testing_support::Draw;

constexpr int kMaxPayload = 300000;
struct Head {
  int source, seq, tag, length;
};

int draw_size(Draw& d) {
  switch (d.below(6)) {
    case 0: return 0;
    case 1: return d.below(9);
    case 2: return d.below(200);
    case 3: return 16384 - 64 + d.below(128);  // around the eager limit
    case 4: return d.below(70000);
    default: return d.below(kMaxPayload);
  }
}

unsigned char byte_of(const Head& h, std::size_t i) {
  return static_cast<unsigned char>(h.source * 31 + h.seq * 7 + h.tag + static_cast<int>(i));
}

// How a message is sent: MPI_Isend, MPI_Issend, MPI_Ibsend, or MPI_Send_init + MPI_Start.
enum SendMode { kStandard, kSynchronous, kBuffered, kPersistent, kSendModes };
struct Planned {
  int length, tag;
  SendMode mode;
};

// Room for a round's buffered sends (at most 3 to each rank), attached
// while it lives (MPI-1.1 §3.6.1).
struct BsendBuffer {
  std::vector<char> room;
  explicit BsendBuffer(std::size_t bytes) : room(bytes) {
    EXPECT_EQ(MPI_Buffer_attach(room.data(), static_cast<int>(room.size())), MPI_SUCCESS);
  }
  ~BsendBuffer() {
    void* at;
    int bytes;
    MPI_Buffer_detach(&at, &bytes);
  }
};

void run_rounds(std::uint64_t seed, int rounds) {
  const int me = rank(), p = size();
  BsendBuffer attached(static_cast<std::size_t>(3 * p) * (sizeof(Head) + kMaxPayload + MPI_BSEND_OVERHEAD));
  std::vector<int> sent_seq(static_cast<std::size_t>(p), 0), last_seen(static_cast<std::size_t>(p), -1);
  std::vector<unsigned char> in(sizeof(Head) + kMaxPayload);
  for (int round = 0; round < rounds; ++round) {
    Draw d{seed * 1000003 + static_cast<std::uint64_t>(round) + 1};
    // plan[s][t]: the messages rank s sends rank t this round.
    std::vector<std::vector<std::vector<Planned>>> plan(static_cast<std::size_t>(p));
    for (int s = 0; s < p; ++s) {
      plan[s].resize(static_cast<std::size_t>(p));
      for (int t = 0; t < p; ++t) {
        const int n = d.below(4);
        for (int k = 0; k < n; ++k)
          plan[s][t].push_back(Planned{draw_size(d), d.below(4), static_cast<SendMode>(d.below(kSendModes))});
      }
    }
    const int receive_mode = d.below(5);
    int owed = 0;
    for (int s = 0; s < p; ++s) owed += static_cast<int>(plan[s][me].size());

    std::vector<std::vector<unsigned char>> out;
    std::vector<MPI_Request> sends, persistent;
    out.reserve(static_cast<std::size_t>(4 * p));
    for (int j = 0; j < p; ++j) {
      const int t = (me + 1 + j + round) % p;  // each rank starts elsewhere
      for (const Planned& m : plan[me][t]) {
        const Head h{me, sent_seq[t]++, m.tag, m.length};
        std::vector<unsigned char>& b = out.emplace_back(sizeof h + static_cast<std::size_t>(m.length));
        std::memcpy(b.data(), &h, sizeof h);
        for (std::size_t i = 0; i < static_cast<std::size_t>(m.length); ++i) b[sizeof h + i] = byte_of(h, i);
        MPI_Request r;
        const int n = static_cast<int>(b.size());
        switch (m.mode) {
          case kStandard: ASSERT_EQ(MPI_Isend(b.data(), n, MPI_BYTE, t, m.tag, MPI_COMM_WORLD, &r), MPI_SUCCESS); break;
          case kSynchronous: ASSERT_EQ(MPI_Issend(b.data(), n, MPI_BYTE, t, m.tag, MPI_COMM_WORLD, &r), MPI_SUCCESS); break;
          case kBuffered: ASSERT_EQ(MPI_Ibsend(b.data(), n, MPI_BYTE, t, m.tag, MPI_COMM_WORLD, &r), MPI_SUCCESS); break;
          default:
            ASSERT_EQ(MPI_Send_init(b.data(), n, MPI_BYTE, t, m.tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
            ASSERT_EQ(MPI_Start(&r), MPI_SUCCESS);
            persistent.push_back(r);
        }
        sends.push_back(r);
      }
    }

    for (int i = 0; i < owed; ++i) {
      MPI_Status st;
      const int cap = static_cast<int>(in.size());
      switch ((receive_mode + i) % 5) {
        case 0:
          ASSERT_EQ(MPI_Recv(in.data(), cap, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st), MPI_SUCCESS);
          break;
        case 1: {
          MPI_Status probed;
          int count = 0;
          ASSERT_EQ(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &probed), MPI_SUCCESS);
          MPI_Get_count(&probed, MPI_BYTE, &count);
          ASSERT_EQ(MPI_Recv(in.data(), count, MPI_BYTE, probed.MPI_SOURCE, probed.MPI_TAG, MPI_COMM_WORLD, &st),
                    MPI_SUCCESS);
          ASSERT_EQ(st.MPI_SOURCE, probed.MPI_SOURCE);
          ASSERT_EQ(st.MPI_TAG, probed.MPI_TAG);
          break;
        }
        case 2: {
          MPI_Request r;
          int done = 0;
          ASSERT_EQ(MPI_Irecv(in.data(), cap, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r), MPI_SUCCESS);
          while (!done) ASSERT_EQ(MPI_Test(&r, &done, &st), MPI_SUCCESS);
          break;
        }
        case 3: {  // matched probe (MPI-3.1 §3.8.2)
          MPI_Message msg;
          MPI_Status probed;
          int count = 0;
          ASSERT_EQ(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &probed), MPI_SUCCESS);
          MPI_Get_count(&probed, MPI_BYTE, &count);
          ASSERT_EQ(MPI_Mrecv(in.data(), count, MPI_BYTE, &msg, &st), MPI_SUCCESS);
          ASSERT_EQ(msg, MPI_MESSAGE_NULL);
          break;
        }
        default: {  // an MPI_Improbe loop, then MPI_Imrecv
          MPI_Message msg;
          MPI_Request r;
          int found = 0;
          while (!found) ASSERT_EQ(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &found, &msg, &st), MPI_SUCCESS);
          ASSERT_EQ(MPI_Imrecv(in.data(), cap, MPI_BYTE, &msg, &r), MPI_SUCCESS);
          ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
        }
      }
      int count = 0;
      MPI_Get_count(&st, MPI_BYTE, &count);
      SCOPED_TRACE("round " + std::to_string(round) + ", message " + std::to_string(i) + " from " +
                   std::to_string(st.MPI_SOURCE));
      ASSERT_GE(count, static_cast<int>(sizeof(Head)));
      Head h;
      std::memcpy(&h, in.data(), sizeof h);
      ASSERT_EQ(h.source, st.MPI_SOURCE);
      ASSERT_EQ(h.tag, st.MPI_TAG);
      ASSERT_EQ(h.length, count - static_cast<int>(sizeof h));
      ASSERT_GT(h.seq, last_seen[h.source]) << "overtaken";
      last_seen[h.source] = h.seq;
      for (std::size_t k = 0; k < static_cast<std::size_t>(h.length); ++k)
        ASSERT_EQ(in[sizeof h + k], byte_of(h, k)) << "byte " << k;
    }
    ASSERT_EQ(MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (MPI_Request& r : persistent) ASSERT_EQ(MPI_Request_free(&r), MPI_SUCCESS);
    // A round's receives take only its own messages: with a count owed but
    // any source, a rank a round ahead could otherwise take another's place
    // and leave a synchronous send unmatched (an erroneous program).
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST(TrafficStress, RandomMessagesArriveWholeAndInOrder) {
  for (std::uint64_t seed : {11u, 12u, 13u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    run_rounds(seed, 30);
    if (HasFatalFailure()) return;
  }
}

}  // namespace

MPI_TEST_MAIN()
