#include "collectives/hierarchy.h"

#include "collectives/collectives.h"

namespace meshmp::collectives {

Hierarchy split_by_host(const Group& g) {
  Hierarchy h;
  h.local.engine = h.roots.engine = g.engine;
  h.local.context = h.roots.context = g.context;
  const mesh::Engine& e = *g.engine;
  const int my_host = e.host_of(g.ranks[g.me]);
  std::vector<int> hosts_seen;
  h.roots.me = -1;
  for (int i = 0; i < g.size(); ++i) {
    const int host = e.host_of(g.ranks[i]);
    if (host == my_host) {
      if (i == g.me) h.local.me = h.local.size();
      h.local.ranks.push_back(g.ranks[i]);
    }
    bool first = true;
    for (int s : hosts_seen) first &= s != host;
    if (first) {
      hosts_seen.push_back(host);
      if (i == g.me) h.roots.me = h.roots.size();
      h.roots.ranks.push_back(g.ranks[i]);
    }
  }
  return h;
}

bool hierarchy_applies(const Group& g) {
  // Asked on every combine too large for the shared-memory one: a group on
  // one host answers after one pass, with no allocation.
  const mesh::Engine& e = *g.engine;
  const int first = e.host_of(g.ranks[0]);
  int other = 0;
  while (other < g.size() && e.host_of(g.ranks[other]) == first) ++other;
  if (other == g.size()) return false;  // one host
  if (other > 1) return true;           // two members on the first host
  for (int i = 1; i < g.size(); ++i)
    for (int j = 0; j < i; ++j)
      if (e.host_of(g.ranks[i]) == e.host_of(g.ranks[j])) return true;
  return false;
}

mesh::Error hierarchical_allreduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op) {
  const Hierarchy h = split_by_host(g);
  mesh::Error e = mesh::Error::kOk;
  if (h.local.size() > 1) e = reduce(h.local, buf, count, op, 0);
  if (e == mesh::Error::kOk && h.roots.me >= 0) e = allreduce(h.roots, buf, count, op);
  if (h.local.size() > 1) {
    const mesh::Error b = broadcast(h.local, buf, count * op.elem_size, 0);
    if (e == mesh::Error::kOk) e = b;
  }
  return e;
}

}  // namespace meshmp::collectives
