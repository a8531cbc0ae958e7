// Random sequences of collectives, every result checked (MPI-1.1 ch. 4;
// MPI-2.2 §5.2.1 MPI_IN_PLACE, §5.8 MPI_Alltoallw, §5.10 MPI_Reduce_scatter_block,
// §5.11.2 MPI_Exscan; MPI-3.1 §5.12 nonblocking collectives). Each step draws
// a communicator (MPI_COMM_WORLD, a dup, a split by parity with the keys
// reversed, a periodic 3-d Cartesian communicator that may reorder, and one
// without rank 1), a collective of the seventeen, blocking or nonblocking, an
// element type (int, or a vector of two ints with a gap), an operation (sum,
// max, min, bxor, or a non-commutative matrix product), MPI_IN_PLACE or not,
// a root, and counts from 0 through the eager limit to 2 MiB, per rank
// where the call allows it (the v-variants place blocks out of order and with
// gaps). Up to six nonblocking collectives on any communicators are pending
// at once, with blocking ones on the same communicators between them
// (MPI-3.1 §5.12: ordered per communicator), completed by MPI_Waitall or an
// MPI_Test loop. Every rank draws the same plan from a fixed seed and knows
// every rank's data, so it computes what each call must leave in its receive
// buffer, gaps included.
//
// BUILD runs it at 3, 4 and 5 ranks (the host combine), at 8 over the relays
// of the 2x2x2 mesh fabric (shm and ofi) and at 4 with
// MESHMP_UNEXPECTED_LIMIT=0. It found that an MPI_Allreduce of no elements
// into a NULL buffer (an empty std::vector's data()) failed on 3 or more
// ranks of one host (the host combine took a null result for a failure).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/mpi/mat_op.h"
#include "tests/mpi/mpi_main.h"
#include "tests/support/draw.h"

namespace {

using mpitest::Mat;

using meshmp::testing_support::Draw;

constexpr int kGap = 0x7f7f7f7f;  // what no call may write

// Element kinds: MPI_INT; a vector of two ints 3 apart resized to 4 ints
// (ints 1 and 2 of each element are gaps); mpitest::Mat (8 ints).
enum Kind { kInt, kVec, kMat };
constexpr int kInts[] = {1, 2, 8};    // data ints per element
constexpr int kExtent[] = {1, 4, 8};  // ints per element in a buffer
int place(Kind k, int j) { return k == kVec ? 3 * j : j; }

enum Op { kSum, kMax, kMin, kBxor, kMatProduct };

enum What {
  kBarrier, kBcast, kReduce, kAllreduce, kGather, kGatherv, kScatter, kScatterv, kAllgather, kAllgatherv,
  kAlltoall, kAlltoallv, kReduceScatter, kReduceScatterBlock, kScan, kExscan, kAlltoallw, kWhats
};
const char* const kNames[] = {"barrier",   "bcast",      "reduce",    "allreduce",      "gather",
                              "gatherv",   "scatter",    "scatterv",  "allgather",      "allgatherv",
                              "alltoall",  "alltoallv",  "reduce_scatter", "reduce_scatter_block",
                              "scan",      "exscan",     "alltoallw"};
bool reduces(What w) { return w == kReduce || w == kAllreduce || (w >= kReduceScatter && w <= kExscan); }

// Rank r's value for data int i of a call.
int value(int r, long i, int salt) {
  std::uint32_t x = static_cast<std::uint32_t>(r + 1) * 2654435761u ^ static_cast<std::uint32_t>(i) * 40503u ^
                    static_cast<std::uint32_t>(salt) * 97u;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  return static_cast<int>(x % 2001u) - 1000;
}

Mat mat_of(int r, long e, int salt) {
  auto v = [&](int j) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(value(r, e * 4 + j, salt))); };
  return {v(0), v(1), v(2), v(3)};
}

using Ints = std::vector<int>;

Ints gaps(long n) { return Ints(static_cast<std::size_t>(n > 0 ? n : 0), kGap); }

// Elements [e0, e0 + n) of buf get rank r's elements [g0, g0 + n).
void put(Ints& buf, Kind k, long e0, long n, int r, long g0, int salt) {
  for (long e = 0; e < n; ++e) {
    if (k == kMat) {
      const Mat m = mat_of(r, g0 + e, salt);
      std::memcpy(&buf[static_cast<std::size_t>((e0 + e) * kExtent[k])], &m, sizeof m);
      continue;
    }
    for (int j = 0; j < kInts[k]; ++j)
      buf[static_cast<std::size_t>((e0 + e) * kExtent[k] + place(k, j))] = value(r, (g0 + e) * kInts[k] + j, salt);
  }
}

// Element e of buf gets the reduction of element g over ranks lo..hi, in rank order.
void put_reduced(Ints& buf, Kind k, Op op, long e, int lo, int hi, long g, int salt) {
  if (op == kMatProduct) {
    Mat acc = mat_of(hi, g, salt);
    for (int r = hi - 1; r >= lo; --r) acc = mpitest::times(mat_of(r, g, salt), acc);
    std::memcpy(&buf[static_cast<std::size_t>(e * kExtent[k])], &acc, sizeof acc);
    return;
  }
  for (int j = 0; j < kInts[k]; ++j) {
    int acc = value(lo, g * kInts[k] + j, salt);
    for (int r = lo + 1; r <= hi; ++r) {
      const int v = value(r, g * kInts[k] + j, salt);
      acc = op == kSum ? acc + v : op == kMax ? std::max(acc, v) : op == kMin ? std::min(acc, v) : acc ^ v;
    }
    buf[static_cast<std::size_t>(e * kExtent[k] + place(k, j))] = acc;
  }
}

// One collective call: its buffers and arrays live until it completes.
struct Call {
  int step = 0;
  What what = kBarrier;
  Ints send, recv, expect;
  std::vector<int> c1, d1, c2, d2;
  std::vector<MPI_Datatype> t1, t2;
  MPI_Request request = MPI_REQUEST_NULL;
};

void check(const Call& c) {
  ASSERT_GE(c.recv.size(), c.expect.size());
  for (std::size_t i = 0; i < c.expect.size(); ++i)
    ASSERT_EQ(c.recv[i], c.expect[i]) << "step " << c.step << ", " << kNames[c.what] << ": int " << i << " of "
                                      << c.expect.size();
}

struct Setup {
  MPI_Datatype type[3];
  MPI_Op mat_product;
  std::vector<MPI_Comm> comms;
  Setup() {
    type[kInt] = MPI_INT;
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 4 * sizeof(int), &type[kVec]);
    MPI_Type_free(&v);
    MPI_Type_commit(&type[kVec]);
    MPI_Type_contiguous(4, MPI_UINT64_T, &type[kMat]);
    MPI_Type_commit(&type[kMat]);
    MPI_Op_create(mpitest::mat_times, 0, &mat_product);
    const int me = mpitest::rank(), p = mpitest::size();
    comms.assign(5, MPI_COMM_NULL);
    comms[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &comms[2]);
    int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
    MPI_Dims_create(p, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &comms[3]);
    MPI_Group world, without_1;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    const int one[1] = {1};
    MPI_Group_excl(world, p > 2 ? 1 : 0, one, &without_1);
    MPI_Comm_create(MPI_COMM_WORLD, without_1, &comms[4]);
    MPI_Group_free(&without_1);
    MPI_Group_free(&world);
    for (std::size_t c = 1; c < comms.size(); ++c)  // errors fail the test, with its trace
      if (comms[c] != MPI_COMM_NULL) MPI_Comm_set_errhandler(comms[c], MPI_ERRORS_RETURN);
  }
  ~Setup() {
    for (std::size_t c = 1; c < comms.size(); ++c)
      if (comms[c] != MPI_COMM_NULL) MPI_Comm_free(&comms[c]);
    MPI_Type_free(&type[kVec]);
    MPI_Type_free(&type[kMat]);
    MPI_Op_free(&mat_product);
  }
};

// Draws (on every rank) and makes (on the communicator's members) step `step`.
void run_steps(std::uint64_t seed, int steps) {
  mpitest::ErrorsReturn errors_return;
  Setup s;
  const int wsize = mpitest::size();
  // Sizes every rank knows before it learns whether it is a member.
  const int planned_size[5] = {wsize, wsize, (wsize + 1) / 2, wsize, wsize > 2 ? wsize - 1 : wsize};
  constexpr int kMaxPending = 6, kMaxBytes = 2 << 20;
  std::vector<Call> pending;
  pending.reserve(kMaxPending);
  Draw d{seed * 0x9E3779B97F4A7C15ull + 1};
  auto complete_pending = [&](bool by_test) {
    if (by_test) {
      for (bool all = false; !all;) {
        all = true;
        for (Call& c : pending) {
          int done = 0;
          ASSERT_EQ(MPI_Test(&c.request, &done, MPI_STATUS_IGNORE), MPI_SUCCESS);
          all = all && done;
        }
      }
    } else {
      std::vector<MPI_Request> r;
      for (Call& c : pending) r.push_back(c.request);
      ASSERT_EQ(MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE), MPI_SUCCESS);
    }
    for (const Call& c : pending) check(c);
    pending.clear();
  };
  for (int step = 0; step < steps; ++step) {
    const int ci = d.below(5);
    const What what = static_cast<What>(d.below(kWhats));
    const bool nonblocking = d.below(3) == 0;
    Op op = static_cast<Op>(d.below(5));
    Kind k = op == kMatProduct ? kMat : reduces(what) ? kInt : static_cast<Kind>(d.below(2));
    if (!reduces(what) && k == kMat) k = kInt;
    const bool in_place = d.below(3) == 0;
    const int salt = step * 131 + 7;
    int n = planned_size[ci];
    int root = d.below(n);
    const int max_count = kMaxBytes / static_cast<int>(sizeof(int)) / kExtent[k];
    auto draw_count = [&](int most) {
      switch (d.below(6)) {
        case 0: return 0;
        case 1: return 1 + d.below(3);
        case 2: return d.below(64);
        case 3: return d.below(most / 8 + 1);
        case 4: return std::min(most, 4096 + d.below(64) - 32);  // 16 KiB of ints: the eager limit
        default: return d.below(most + 1);
      }
    };
    const int count = draw_count(max_count);
    const int block = draw_count(max_count / n / 2);
    const std::uint64_t varied = d.next();  // per-rank counts of the v-variants
    const bool wait_now = d.below(3) == 0, by_test = d.below(2) == 0;
    const MPI_Comm comm = s.comms[static_cast<std::size_t>(ci)];
    if (comm == MPI_COMM_NULL) continue;
    int me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    root = std::min(root, n - 1);
    const int ext = kExtent[k];
    const MPI_Datatype dt = s.type[k];
    const MPI_Op mop = op == kSum ? MPI_SUM : op == kMax ? MPI_MAX : op == kMin ? MPI_MIN : op == kBxor ? MPI_BXOR
                                                                                                  : s.mat_product;
    // Counts rank i sends rank j in the v-variants, 0..block.
    auto varied_count = [&](int i, int j) {
      return static_cast<int>(((varied >> ((i * 7 + j * 3) % 40)) ^ static_cast<std::uint64_t>(i * 31 + j * 17)) %
                              static_cast<std::uint64_t>(block + 1));
    };
    SCOPED_TRACE("seed " + std::to_string(seed) + ", step " + std::to_string(step) + ", " + kNames[what] +
                 (nonblocking ? " (nonblocking)" : "") + (in_place ? " in place" : "") + " on communicator " +
                 std::to_string(ci));
    Call c;
    c.step = step;
    c.what = what;
    MPI_Request* req = nonblocking ? &c.request : nullptr;
    int rc = MPI_SUCCESS;
    const bool result_here = what == kAllreduce || what == kAllgather || what == kAllgatherv || me == root;
    switch (what) {
      case kBarrier:
        rc = req ? MPI_Ibarrier(comm, req) : MPI_Barrier(comm);
        break;
      case kBcast:
        c.recv = gaps(long{count} * ext);
        c.expect = c.recv;
        put(c.expect, k, 0, count, root, 0, salt);
        if (me == root) c.recv = c.expect;
        rc = req ? MPI_Ibcast(c.recv.data(), count, dt, root, comm, req)
                 : MPI_Bcast(c.recv.data(), count, dt, root, comm);
        break;
      case kReduce:
      case kAllreduce: {
        c.send = gaps(long{count} * ext);
        put(c.send, k, 0, count, me, 0, salt);
        if (result_here) {
          c.recv = in_place ? c.send : gaps(long{count} * ext);
          c.expect = gaps(long{count} * ext);
          for (long e = 0; e < count; ++e) put_reduced(c.expect, k, op, e, 0, n - 1, e, salt);
        }
        const void* sb = in_place && result_here ? MPI_IN_PLACE : c.send.data();
        if (what == kAllreduce)
          rc = req ? MPI_Iallreduce(sb, c.recv.data(), count, dt, mop, comm, req)
                   : MPI_Allreduce(sb, c.recv.data(), count, dt, mop, comm);
        else
          rc = req ? MPI_Ireduce(sb, c.recv.data(), count, dt, mop, root, comm, req)
                   : MPI_Reduce(sb, c.recv.data(), count, dt, mop, root, comm);
        break;
      }
      case kGather:
      case kAllgather: {
        c.send = gaps(long{block} * ext);
        put(c.send, k, 0, block, me, 0, salt);
        if (result_here) {
          c.expect = gaps(long{block} * ext * n);
          for (int r = 0; r < n; ++r) put(c.expect, k, long{r} * block, block, r, 0, salt);
          c.recv = gaps(long{block} * ext * n);
          if (in_place) put(c.recv, k, long{me} * block, block, me, 0, salt);
        }
        const void* sb = in_place && result_here ? MPI_IN_PLACE : c.send.data();
        if (what == kAllgather)
          rc = req ? MPI_Iallgather(sb, block, dt, c.recv.data(), block, dt, comm, req)
                   : MPI_Allgather(sb, block, dt, c.recv.data(), block, dt, comm);
        else
          rc = req ? MPI_Igather(sb, block, dt, c.recv.data(), block, dt, root, comm, req)
                   : MPI_Gather(sb, block, dt, c.recv.data(), block, dt, root, comm);
        break;
      }
      case kScatter: {
        if (me == root) {
          c.send = gaps(long{block} * ext * n);
          for (int r = 0; r < n; ++r) put(c.send, k, long{r} * block, block, r, 7, salt);
        }
        void* rb = MPI_IN_PLACE;
        if (!(in_place && me == root)) {
          c.recv = gaps(long{block} * ext);
          c.expect = c.recv;
          put(c.expect, k, 0, block, me, 7, salt);
          rb = c.recv.data();
        }
        rc = req ? MPI_Iscatter(c.send.data(), block, dt, rb, block, dt, root, comm, req)
                 : MPI_Scatter(c.send.data(), block, dt, rb, block, dt, root, comm);
        break;
      }
      case kGatherv:
      case kAllgatherv:
      case kScatterv: {
        // Blocks in rank order or reversed, with gaps of 0-2 elements.
        c.c1.resize(static_cast<std::size_t>(n));
        c.d1.resize(static_cast<std::size_t>(n));
        int total = 0;
        for (int j = 0; j < n; ++j) {
          const int r = varied & 1 ? n - 1 - j : j;
          c.c1[r] = varied_count(r, 0);
          c.d1[r] = total + r % 3;
          total = c.d1[r] + c.c1[r];
        }
        const int mine = c.c1[static_cast<std::size_t>(me)];
        if (what != kScatterv) {
          c.send = gaps(long{mine} * ext);
          put(c.send, k, 0, mine, me, 0, salt);
          if (result_here) {
            c.expect = gaps(long{total} * ext);
            for (int r = 0; r < n; ++r) put(c.expect, k, c.d1[r], c.c1[r], r, 0, salt);
            c.recv = gaps(long{total} * ext);
            if (in_place) put(c.recv, k, c.d1[me], mine, me, 0, salt);
          }
          const void* sb = in_place && result_here ? MPI_IN_PLACE : c.send.data();
          if (what == kAllgatherv)
            rc = req ? MPI_Iallgatherv(sb, mine, dt, c.recv.data(), c.c1.data(), c.d1.data(), dt, comm, req)
                     : MPI_Allgatherv(sb, mine, dt, c.recv.data(), c.c1.data(), c.d1.data(), dt, comm);
          else
            rc = req ? MPI_Igatherv(sb, mine, dt, c.recv.data(), c.c1.data(), c.d1.data(), dt, root, comm, req)
                     : MPI_Gatherv(sb, mine, dt, c.recv.data(), c.c1.data(), c.d1.data(), dt, root, comm);
        } else {
          if (me == root) {
            c.send = gaps(long{total} * ext);
            for (int r = 0; r < n; ++r) put(c.send, k, c.d1[r], c.c1[r], r, 7, salt);
          }
          void* rb = MPI_IN_PLACE;
          if (!(in_place && me == root)) {
            c.recv = gaps(long{mine} * ext);
            c.expect = c.recv;
            put(c.expect, k, 0, mine, me, 7, salt);
            rb = c.recv.data();
          }
          rc = req ? MPI_Iscatterv(c.send.data(), c.c1.data(), c.d1.data(), dt, rb, mine, dt, root, comm, req)
                   : MPI_Scatterv(c.send.data(), c.c1.data(), c.d1.data(), dt, rb, mine, dt, root, comm);
        }
        break;
      }
      case kAlltoall: {
        // The block rank i sends rank j holds rank i's elements from j * block.
        c.send = gaps(long{block} * ext * n);
        for (int j = 0; j < n; ++j) put(c.send, k, long{j} * block, block, me, long{j} * block, salt);
        c.expect = gaps(long{block} * ext * n);
        for (int i = 0; i < n; ++i) put(c.expect, k, long{i} * block, block, i, long{me} * block, salt);
        c.recv = in_place ? c.send : gaps(long{block} * ext * n);
        const void* sb = in_place ? MPI_IN_PLACE : c.send.data();
        rc = req ? MPI_Ialltoall(sb, block, dt, c.recv.data(), block, dt, comm, req)
                 : MPI_Alltoall(sb, block, dt, c.recv.data(), block, dt, comm);
        break;
      }
      case kAlltoallv:
      case kAlltoallw: {
        c.c1.resize(static_cast<std::size_t>(n));
        c.d1.resize(static_cast<std::size_t>(n));
        c.c2.resize(static_cast<std::size_t>(n));
        c.d2.resize(static_cast<std::size_t>(n));
        int sent = 0, received = 0;
        for (int j = 0; j < n; ++j) {
          c.c1[j] = varied_count(me, j);
          c.d1[j] = sent + (j & 1);
          sent = c.d1[j] + c.c1[j];
          c.c2[j] = varied_count(j, me);
          c.d2[j] = received + ((j + 1) & 1);
          received = c.d2[j] + c.c2[j];
        }
        c.send = gaps(long{sent} * ext);
        for (int j = 0; j < n; ++j) put(c.send, k, c.d1[j], c.c1[j], me, long{j} * 1000003, salt);
        c.recv = gaps(long{received} * ext);
        c.expect = c.recv;
        for (int i = 0; i < n; ++i) put(c.expect, k, c.d2[i], c.c2[i], i, long{me} * 1000003, salt);
        if (what == kAlltoallv) {
          rc = req ? MPI_Ialltoallv(c.send.data(), c.c1.data(), c.d1.data(), dt, c.recv.data(), c.c2.data(),
                                    c.d2.data(), dt, comm, req)
                   : MPI_Alltoallv(c.send.data(), c.c1.data(), c.d1.data(), dt, c.recv.data(), c.c2.data(),
                                   c.d2.data(), dt, comm);
        } else {
          // Alltoallw's displacements are in bytes.
          for (int j = 0; j < n; ++j) {
            c.d1[j] *= ext * static_cast<int>(sizeof(int));
            c.d2[j] *= ext * static_cast<int>(sizeof(int));
          }
          c.t1.assign(static_cast<std::size_t>(n), dt);
          c.t2.assign(static_cast<std::size_t>(n), dt);
          rc = req ? MPI_Ialltoallw(c.send.data(), c.c1.data(), c.d1.data(), c.t1.data(), c.recv.data(), c.c2.data(),
                                    c.d2.data(), c.t2.data(), comm, req)
                   : MPI_Alltoallw(c.send.data(), c.c1.data(), c.d1.data(), c.t1.data(), c.recv.data(), c.c2.data(),
                                   c.d2.data(), c.t2.data(), comm);
        }
        break;
      }
      case kReduceScatter:
      case kReduceScatterBlock: {
        c.c1.resize(static_cast<std::size_t>(n));
        int total = 0, first = 0;
        for (int r = 0; r < n; ++r) {
          c.c1[r] = what == kReduceScatterBlock ? block : varied_count(r, 1);
          if (r < me) first += c.c1[r];
          total += c.c1[r];
        }
        const int mine = c.c1[static_cast<std::size_t>(me)];
        c.send = gaps(long{total} * ext);
        put(c.send, k, 0, total, me, 0, salt);
        c.expect = gaps(long{mine} * ext);
        for (long e = 0; e < mine; ++e) put_reduced(c.expect, k, op, e, 0, n - 1, first + e, salt);
        // In place, the whole vector is in the receive buffer and my block lands at its start.
        c.recv = in_place ? c.send : gaps(long{mine} * ext);
        const void* sb = in_place ? MPI_IN_PLACE : c.send.data();
        if (what == kReduceScatter)
          rc = req ? MPI_Ireduce_scatter(sb, c.recv.data(), c.c1.data(), dt, mop, comm, req)
                   : MPI_Reduce_scatter(sb, c.recv.data(), c.c1.data(), dt, mop, comm);
        else
          rc = req ? MPI_Ireduce_scatter_block(sb, c.recv.data(), block, dt, mop, comm, req)
                   : MPI_Reduce_scatter_block(sb, c.recv.data(), block, dt, mop, comm);
        break;
      }
      case kScan:
      case kExscan: {
        const bool exclusive = what == kExscan;
        c.send = gaps(long{count} * ext);
        put(c.send, k, 0, count, me, 0, salt);
        c.recv = in_place ? c.send : gaps(long{count} * ext);
        if (!(exclusive && me == 0)) {  // rank 0's exscan result is undefined
          c.expect = gaps(long{count} * ext);
          for (long e = 0; e < count; ++e) put_reduced(c.expect, k, op, e, 0, exclusive ? me - 1 : me, e, salt);
        }
        const void* sb = in_place ? MPI_IN_PLACE : c.send.data();
        if (exclusive)
          rc = req ? MPI_Iexscan(sb, c.recv.data(), count, dt, mop, comm, req)
                   : MPI_Exscan(sb, c.recv.data(), count, dt, mop, comm);
        else
          rc = req ? MPI_Iscan(sb, c.recv.data(), count, dt, mop, comm, req)
                   : MPI_Scan(sb, c.recv.data(), count, dt, mop, comm);
        break;
      }
      case kWhats:
        break;
    }
    ASSERT_EQ(rc, MPI_SUCCESS);
    if (nonblocking) {
      pending.push_back(std::move(c));
    } else {
      check(c);
      if (::testing::Test::HasFatalFailure()) return;
    }
    if (pending.size() == kMaxPending || (!pending.empty() && wait_now)) complete_pending(by_test);
    if (::testing::Test::HasFatalFailure()) return;
  }
  complete_pending(false);
}

TEST(CollStress, RandomCollectivesOnFiveCommunicatorsGiveEveryResult) {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    run_steps(seed, 200);
    if (HasFatalFailure()) return;
  }
}

}  // namespace

MPI_TEST_MAIN()
