// The barriers over one-sided flag windows (Engine::open_flag_window; issue
// 31), after seed 002 (Wang et al., "RDMA-write barrier"): every rank sets
// a flag in its partners' memory with an RDMA write and waits for its own
// flags, so a barrier moves no message through the protocol engine.
//
// - Recursive doubling (seed 002 §3): in round k rank i writes to i XOR 2^k
//   and waits for its write back. For a group of N that is not a power of
//   two, the N - 2^m ranks above 2^m = 2^floor(log2 N) first report to rank
//   i - 2^m and are released by it after the doubling among the 2^m:
//   floor(log2 N) + 2 steps.
// - The SMP flat tree (seed 002 §4, §5.2): the members on one host write
//   their arrival into a line each of the host's first member, which then
//   writes every member's release line.
// - Combined (seed 002 §5): the flat tree on each host, recursive doubling
//   among the hosts' first members in between.
//
// Flags carry the barrier's 64-bit sequence number, one more per barrier of
// the communicator, and a wait is for a value at least as large: nothing is
// ever reset and no number wraps. A window and its partners' addresses are
// set up at a communicator's first such barrier (one message to and from
// each partner) and kept until its context pair is released.
#pragma once

#include "collectives/group.h"
#include "mesh/engine.h"

namespace meshmp::collectives {

/// Barrier over flag windows: `how` is kRdma (recursive doubling among all
/// members) or kFlat (the flat tree on each host, recursive doubling among
/// the hosts' first members where the group spans hosts). kOk, or the error
/// of a partner that failed (kPeerDead) or refused a write (kProtocol).
/// Every member must call it with the same `how`.
mesh::Error flag_barrier(const Group& g, mesh::BarrierChoice how);

}  // namespace meshmp::collectives
