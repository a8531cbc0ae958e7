// QMP start/stop, the -qmp-* command-line options, communicators, machine and
// job queries (QMP_API.md "Start/stop", "Communicators", "Machine and job").
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/collectives.h"
#include "mpi11/qmp_bridge.h"
#include "qmp/internal.h"

namespace meshmp::qmp {
namespace {

struct Options {
  std::vector<int> geom;
  bool geom_native = false;
  std::vector<int> alloc_map, logic_map, jobs;
};

bool parse_int(const char* s, int* v) {
  const char* end = s + std::strlen(s);
  auto [p, ec] = std::from_chars(s, end, *v);
  return ec == std::errc() && p == end;
}

// Takes the -qmp-* options (each followed by its numbers) out of argv.
QMP_status_t take_options(int* argc, char*** argv, Options* o) {
  if (!argc || !argv || !*argv) return QMP_SUCCESS;
  std::vector<char*> keep;
  char** a = *argv;
  for (int i = 0; i < *argc; ++i) {
    std::vector<int>* list = nullptr;
    const char* opt = a[i];
    if (std::strcmp(opt, "-qmp-geom") == 0) list = &o->geom;
    else if (std::strcmp(opt, "-qmp-alloc-map") == 0) list = &o->alloc_map;
    else if (std::strcmp(opt, "-qmp-logic-map") == 0) list = &o->logic_map;
    else if (std::strcmp(opt, "-qmp-job") == 0) list = &o->jobs;
    if (!list) {
      keep.push_back(a[i]);
      continue;
    }
    if (list == &o->geom && i + 1 < *argc && std::strcmp(a[i + 1], "native") == 0) {
      o->geom_native = true;
      ++i;
      continue;
    }
    int v;
    while (i + 1 < *argc && parse_int(a[i + 1], &v)) {
      if (v < 0) return fail(QMP_INVALID_ARG, "QMP_init_msg_passing", std::string(opt) + ": negative value");
      list->push_back(v);
      ++i;
    }
    if (list->empty())
      return fail(QMP_INVALID_ARG, "QMP_init_msg_passing", std::string(opt) + " needs a list of numbers");
  }
  for (size_t k = 0; k < keep.size(); ++k) a[k] = keep[k];
  a[keep.size()] = nullptr;
  *argc = static_cast<int>(keep.size());
  return QMP_SUCCESS;
}

bool is_permutation(const std::vector<int>& map, size_t n) {
  if (map.size() != n) return false;
  std::vector<int> sorted = map;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < n; ++i)
    if (sorted[i] != static_cast<int>(i)) return false;
  return true;
}

// Coordinates of `rank` on `dims` with axis map[0] fastest.
std::vector<int> mapped_coords(int rank, const std::vector<int>& dims, const std::vector<int>& map) {
  std::vector<int> c(dims.size());
  for (int axis : map) {
    c[axis] = rank % dims[axis];
    rank /= dims[axis];
  }
  return c;
}

std::vector<int> identity(size_t n) {
  std::vector<int> m(n);
  std::iota(m.begin(), m.end(), 0);
  return m;
}

// Machine grid (-qmp-geom / native) and job split (-qmp-job).
QMP_status_t set_up_machine(const Options& o, State& s) {
  const mesh::Engine& e = *s.engine;
  const int n = e.size();
  if (o.geom_native) {
    s.alloc_dims = e.torus().dims();
  } else if (!o.geom.empty()) {
    s.alloc_dims = o.geom;
  }
  if (!s.alloc_dims.empty()) {
    long prod = 1;
    for (int d : s.alloc_dims) prod *= d;
    if (prod != n)
      return fail(QMP_INVALID_ARG, "QMP_init_msg_passing",
                  "-qmp-geom has " + std::to_string(prod) + " nodes but the job has " + std::to_string(n));
    std::vector<int> map = o.alloc_map.empty() ? identity(s.alloc_dims.size()) : o.alloc_map;
    if (!is_permutation(map, s.alloc_dims.size()))
      return fail(QMP_INVALID_ARG, "QMP_init_msg_passing", "-qmp-alloc-map must permute 0.." +
                                                             std::to_string(s.alloc_dims.size() - 1));
    s.alloc_coords = mapped_coords(e.rank(), s.alloc_dims, map);
    s.ictype = QMP_MESH;
  } else if (!o.alloc_map.empty()) {
    return fail(QMP_INVALID_ARG, "QMP_init_msg_passing", "-qmp-alloc-map needs -qmp-geom");
  }
  s.logic_map = o.logic_map;

  // Jobs: with a machine grid, one divisor per axis (sub-grids); else a count.
  std::vector<int> members;
  int me = 0;
  if (o.jobs.empty()) {
    s.njobs = 1;
    s.job_number = 0;
    s.job_geometry = s.alloc_dims;
    return QMP_SUCCESS;
  }
  if (!s.alloc_dims.empty()) {
    if (o.jobs.size() != s.alloc_dims.size())
      return fail(QMP_INVALID_ARG, "QMP_init_msg_passing", "-qmp-job needs one divisor per -qmp-geom axis");
    std::vector<int> jdims(s.alloc_dims.size()), jcoord(s.alloc_dims.size()), local(s.alloc_dims.size());
    s.njobs = 1;
    for (size_t i = 0; i < s.alloc_dims.size(); ++i) {
      if (o.jobs[i] < 1 || s.alloc_dims[i] % o.jobs[i] != 0)
        return fail(QMP_INVALID_ARG, "QMP_init_msg_passing",
                    "-qmp-job " + std::to_string(o.jobs[i]) + " does not divide axis " + std::to_string(i));
      jdims[i] = s.alloc_dims[i] / o.jobs[i];
      s.njobs *= o.jobs[i];
    }
    s.job_geometry = jdims;
    s.job_grid = true;
    auto job_and_local = [&](const std::vector<int>& c, int* job, int* local_rank) {
      int j = 0, l = 0;
      for (int i = static_cast<int>(c.size()) - 1; i >= 0; --i) {
        j = j * o.jobs[i] + c[i] / jdims[i];
        l = l * jdims[i] + c[i] % jdims[i];
      }
      *job = j;
      *local_rank = l;
    };
    int local_me;
    job_and_local(s.alloc_coords, &s.job_number, &local_me);
    // Members of my job, ordered by their job-local rank.
    std::vector<int> by_local(n / s.njobs, -1);
    std::vector<int> map = o.alloc_map.empty() ? identity(s.alloc_dims.size()) : o.alloc_map;
    for (int r = 0; r < n; ++r) {
      int j, l;
      job_and_local(mapped_coords(r, s.alloc_dims, map), &j, &l);
      if (j == s.job_number) by_local[l] = r;
    }
    members = by_local;
    me = local_me;
  } else {
    if (o.jobs.size() != 1 || o.jobs[0] < 1 || n % o.jobs[0] != 0)
      return fail(QMP_INVALID_ARG, "QMP_init_msg_passing", "-qmp-job must divide the number of nodes");
    s.njobs = o.jobs[0];
    const int per = n / s.njobs;
    s.job_number = e.rank() / per;
    for (int r = 0; r < per; ++r) members.push_back(s.job_number * per + r);
    me = e.rank() % per;
    s.job_geometry = {per};
  }
  QMP_comm_t job = make_comm(s.allocated, members, me);
  if (!job) return fail(QMP_ERROR, "QMP_init_msg_passing", no_context_message());
  job->builtin = true;
  job->ncolors = s.njobs;
  job->color = s.job_number;
  if (!s.alloc_dims.empty()) job->group.torus = mesh::Torus(s.job_geometry);
  s.job = job;
  s.dflt = job;
  return QMP_SUCCESS;
}

void delete_comm(QMP_comm_t c) { delete c; }

}  // namespace
}  // namespace meshmp::qmp

QMP_comm_struct::~QMP_comm_struct() { meshmp::mpi::release_comm_for_qmp(hidden_comm); }

namespace meshmp::qmp {

QMP_comm_t make_comm(QMP_comm_t parent, std::vector<int> members, int me) {
  State& s = state();
  // Two context pairs free on every member of the parent (mesh/context_ids.h):
  // the communicator's, and one kept for its MPI twin (QMP_get_hidden_comm).
  std::uint32_t ctx[2];
  collectives::agree_context_pairs(parent->group, ctx, 2);
  if (ctx[0] == mesh::ContextIds::kNone || ctx[1] == mesh::ContextIds::kNone) {
    for (std::uint32_t c : ctx)
      if (c != mesh::ContextIds::kNone) s.engine->context_ids().release(c);
    return nullptr;
  }
  auto* c = new QMP_comm_struct;
  c->group.engine = s.engine;
  c->group.ranks = std::move(members);
  c->group.me = me;
  c->p2p_context = ctx[0];
  c->group.context = ctx[0] + 1;
  c->hidden_context = ctx[1];
  return c;
}

std::string no_context_message() {
  return "no context id is free on every member: " + std::to_string(mesh::ContextIds::kPairs) +
         " communicators (QMP's and MPI's together) exist on some node; free some (QMP_comm_free)";
}

namespace {
// QMP_get_hidden_comm and QMP_get_mpi_comm, reporting errors under `call`.
QMP_status_t hidden_comm(QMP_comm_t comm, void** hidden, const char* call) {
  if (!check_comm(comm, call)) return state().last_error;
  if (!hidden) return fail(QMP_INVALID_ARG, call, "the MPI_Comm pointer argument is NULL");
  if (!comm->hidden_comm) comm->hidden_comm = mpi::comm_for_qmp(comm->group, comm->hidden_context);
  if (!comm->hidden_comm) return fail(QMP_ERROR, call, "MPI has been finalized, so there is no MPI_Comm to return");
  *hidden = &comm->hidden_comm;
  return QMP_SUCCESS;
}
}  // namespace

}  // namespace meshmp::qmp

using namespace meshmp;
using namespace meshmp::qmp;

extern "C" {

QMP_status_t QMP_init_msg_passing(int* argc, char*** argv, QMP_thread_level_t required,
                                  QMP_thread_level_t* provided) try {
  State& s = state();
  if (provided) *provided = required > QMP_THREAD_SERIALIZED ? QMP_THREAD_SERIALIZED : required;
  if (s.initialized) return QMP_SUCCESS;
  Options o;
  if (QMP_status_t st = take_options(argc, argv, &o); st != QMP_SUCCESS) return st;
  try {
    s.engine = &mesh::Engine::init();
  } catch (const std::exception& e) {
    return fail(QMP_RTENV_ERR, "QMP_init_msg_passing", e.what());
  }
  // One init serves both: MPI comes up too unless the program started it.
  if (const char* why = nullptr; !mpi::start_for_qmp(&why)) {
    mesh::Engine::finalize();
    return fail(QMP_RTENV_ERR, "QMP_init_msg_passing", std::string("starting MPI: ") + why);
  }
  // The allocated communicator: every rank, on the physical torus.
  auto* world = new QMP_comm_struct;
  world->builtin = true;
  world->group.engine = s.engine;
  world->group.me = s.engine->rank();
  for (int r = 0; r < s.engine->size(); ++r) world->group.ranks.push_back(r);
  world->group.torus = s.engine->torus();
  world->p2p_context = mesh::ContextIds::kQmpWorld;
  world->group.context = mesh::ContextIds::kQmpWorld + 1;
  world->hidden_context = mesh::ContextIds::kQmpWorldHidden;
  s.allocated = s.job = s.dflt = world;
  s.initialized = true;
  keep_buffers_within(s.engine->options().registered_limit);
  if (QMP_status_t st = set_up_machine(o, s); st != QMP_SUCCESS) {
    QMP_finalize_msg_passing();
    return st;
  }
  if (s.verbose > 0)
    QMP_info("meshmp QMP %s: %d nodes, torus %s", QMP_VERSION_STR, s.engine->size(),
             s.engine->torus().to_string().c_str());
  return QMP_SUCCESS;
} QMP_END_STATUS(QMP_init_msg_passing)

QMP_bool_t QMP_is_initialized(void) { return state().initialized ? QMP_TRUE : QMP_FALSE; }

void QMP_finalize_msg_passing(void) {
  State& s = state();
  if (!s.initialized) return;
  if (s.job != s.allocated) delete_comm(s.job);
  delete_comm(s.allocated);
  mpi::finish_for_qmp();
  release_kept_buffers();
  mesh::Engine::finalize();
  const int verbose = s.verbose;
  s = State{};
  s.verbose = verbose;
}

void QMP_abort(int error_code) {
  State& s = state();
  if (s.engine) s.engine->abort(error_code, "QMP_abort");
  std::fflush(nullptr);
  std::_Exit(error_code ? error_code : 1);
}

void QMP_abort_string(int error_code, char* message) {
  State& s = state();
  const std::string m = std::string("QMP_abort_string: ") + (message ? message : "");
  if (s.engine) s.engine->abort(error_code, m);
  std::fflush(nullptr);
  std::fprintf(stderr, "%s\n", m.c_str());
  std::_Exit(error_code ? error_code : 1);
}

// ---- communicators -----------------------------------------------------------

QMP_comm_t QMP_comm_get_allocated(void) try { return check_init("QMP_comm_get_allocated") ? state().allocated : nullptr; } QMP_END_HANDLE(QMP_comm_get_allocated)
QMP_comm_t QMP_comm_get_job(void) try { return check_init("QMP_comm_get_job") ? state().job : nullptr; } QMP_END_HANDLE(QMP_comm_get_job)
QMP_comm_t QMP_comm_get_default(void) try { return check_init("QMP_comm_get_default") ? state().dflt : nullptr; } QMP_END_HANDLE(QMP_comm_get_default)

QMP_status_t QMP_comm_set_allocated(QMP_comm_t comm) try {
  if (!check_comm(comm, "QMP_comm_set_allocated")) return state().last_error;
  state().allocated = comm;
  return QMP_SUCCESS;
} QMP_END_STATUS(QMP_comm_set_allocated)

QMP_status_t QMP_comm_set_job(QMP_comm_t comm) try {
  if (!check_comm(comm, "QMP_comm_set_job")) return state().last_error;
  state().job = comm;
  return QMP_SUCCESS;
} QMP_END_STATUS(QMP_comm_set_job)

QMP_status_t QMP_comm_set_default(QMP_comm_t comm) try {
  if (!check_comm(comm, "QMP_comm_set_default")) return state().last_error;
  state().dflt = comm;
  return QMP_SUCCESS;
} QMP_END_STATUS(QMP_comm_set_default)

QMP_status_t QMP_comm_split(QMP_comm_t comm, int color, int key, QMP_comm_t* newcomm) try {
  if (!check_comm(comm, "QMP_comm_split")) return state().last_error;
  if (!newcomm) return fail(QMP_INVALID_ARG, "QMP_comm_split", "newcomm is NULL");
  TimeInQmp timer;
  const collectives::Group& g = comm->group;
  // Everyone learns everyone's (color, key).
  int mine[2] = {color, key};
  std::vector<int> all(2 * g.size());
  collectives::gather(g, mine, all.data(), sizeof mine, 0);
  collectives::broadcast(g, all.data(), all.size() * sizeof(int), 0);
  std::vector<int> same;
  std::vector<int> colors;
  for (int r = 0; r < g.size(); ++r) {
    colors.push_back(all[2 * r]);
    if (all[2 * r] == color) same.push_back(r);
  }
  std::stable_sort(same.begin(), same.end(), [&](int a, int b) { return all[2 * a + 1] < all[2 * b + 1]; });
  std::sort(colors.begin(), colors.end());
  std::vector<int> members;
  int me = 0;
  for (size_t i = 0; i < same.size(); ++i) {
    if (same[i] == g.me) me = static_cast<int>(i);
    members.push_back(g.ranks[same[i]]);
  }
  QMP_comm_t c = make_comm(comm, members, me);
  if (!c) return fail(QMP_ERROR, "QMP_comm_split", no_context_message());
  c->ncolors = static_cast<int>(std::unique(colors.begin(), colors.end()) - colors.begin());
  c->color = color;
  c->key = key;
  *newcomm = c;
  return QMP_SUCCESS;
} QMP_END_STATUS(QMP_comm_split)

QMP_status_t QMP_comm_free(QMP_comm_t comm) try {
  if (!check_comm(comm, "QMP_comm_free")) return state().last_error;
  if (comm->builtin) return fail(QMP_INVALID_ARG, "QMP_comm_free", "the allocated and job communicators cannot be freed");
  State& s = state();
  if (s.dflt == comm) s.dflt = s.job;
  s.engine->context_ids().release(comm->p2p_context);
  s.engine->context_ids().release(comm->hidden_context);
  delete comm;
  return QMP_SUCCESS;
} QMP_END_STATUS(QMP_comm_free)

int QMP_comm_get_number_of_colors(QMP_comm_t comm) {
  return check_comm(comm, "QMP_comm_get_number_of_colors") ? comm->ncolors : 0;
}
int QMP_comm_get_color(QMP_comm_t comm) { return check_comm(comm, "QMP_comm_get_color") ? comm->color : 0; }
int QMP_comm_get_key(QMP_comm_t comm) { return check_comm(comm, "QMP_comm_get_key") ? comm->key : 0; }

QMP_status_t QMP_get_hidden_comm(QMP_comm_t comm, void** hidden) try {
  return hidden_comm(comm, hidden, "QMP_get_hidden_comm");
} QMP_END_STATUS(QMP_get_hidden_comm)
QMP_status_t QMP_get_mpi_comm(QMP_comm_t comm, void** mpicomm) try { return hidden_comm(comm, mpicomm, "QMP_get_mpi_comm"); } QMP_END_STATUS(QMP_get_mpi_comm)

// ---- machine and job -----------------------------------------------------------

QMP_ictype_t QMP_get_msg_passing_type(void) { return state().ictype; }

int QMP_get_number_of_nodes(void) { return QMP_comm_get_number_of_nodes(state().dflt); }
int QMP_comm_get_number_of_nodes(QMP_comm_t comm) {
  return check_comm(comm, "QMP_comm_get_number_of_nodes") ? comm->group.size() : 0;
}
int QMP_get_node_number(void) { return QMP_comm_get_node_number(state().dflt); }
int QMP_comm_get_node_number(QMP_comm_t comm) {
  return check_comm(comm, "QMP_comm_get_node_number") ? comm->group.me : 0;
}

int QMP_get_number_of_jobs(void) { return check_init("QMP_get_number_of_jobs") ? state().njobs : 0; }
int QMP_get_job_number(void) { return check_init("QMP_get_job_number") ? state().job_number : 0; }
int QMP_get_number_of_job_geometry_dimensions(void) {
  return check_init("QMP_get_number_of_job_geometry_dimensions") ? static_cast<int>(state().job_geometry.size()) : 0;
}
const int* QMP_get_job_geometry(void) {
  return check_init("QMP_get_job_geometry") ? state().job_geometry.data() : nullptr;
}

QMP_bool_t QMP_is_primary_node(void) { return QMP_comm_is_primary_node(state().dflt); }
QMP_bool_t QMP_comm_is_primary_node(QMP_comm_t comm) {
  return check_comm(comm, "QMP_comm_is_primary_node") && comm->group.me == 0 ? QMP_TRUE : QMP_FALSE;
}

int QMP_get_allocated_number_of_dimensions(void) {
  return check_init("QMP_get_allocated_number_of_dimensions") ? static_cast<int>(state().alloc_dims.size()) : 0;
}
const int* QMP_get_allocated_dimensions(void) {
  return check_init("QMP_get_allocated_dimensions") ? state().alloc_dims.data() : nullptr;
}
const int* QMP_get_allocated_coordinates(void) {
  return check_init("QMP_get_allocated_coordinates") ? state().alloc_coords.data() : nullptr;
}

int QMP_io_node(int node) { return node; }
int QMP_master_io_node(void) { return 0; }

}  // extern "C"
