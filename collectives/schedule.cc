#include "collectives/schedule.h"

#include <algorithm>

namespace meshmp::collectives {
namespace {

// The schedules started and not finished, advanced by the engine's progress
// hook; the hook is set only while there is one.
struct Advancing {
  std::vector<Schedule*> list;
  mesh::Engine* engine = nullptr;
};
Advancing& advancing() {
  static Advancing a;
  return a;
}

}  // namespace

// The engine's progress hook: advances every started, unfinished schedule.
bool advance_started(void*) {
  Advancing& a = advancing();
  bool moved = false;
  // By index: a step may start another schedule (appended) or end one.
  for (std::size_t i = 0; i < a.list.size();) {
    Schedule* s = a.list[i];
    moved |= s->advance();
    if (s->finished()) {
      s->advancing_ = false;
      a.list[i] = a.list.back();
      a.list.pop_back();
    } else {
      ++i;
    }
  }
  if (a.list.empty() && a.engine) {
    a.engine->set_progress_hook(nullptr, nullptr);
    a.engine = nullptr;
  }
  return moved;
}

namespace {

void join(Schedule* s, mesh::Engine& e) {
  Advancing& a = advancing();
  a.list.push_back(s);
  if (!a.engine) {
    a.engine = &e;
    e.set_progress_hook(advance_started, nullptr);
  }
}

void leave(Schedule* s) {
  Advancing& a = advancing();
  auto it = std::find(a.list.begin(), a.list.end(), s);
  if (it == a.list.end()) return;
  *it = a.list.back();
  a.list.pop_back();
  if (a.list.empty() && a.engine) {
    a.engine->set_progress_hook(nullptr, nullptr);
    a.engine = nullptr;
  }
}

}  // namespace

Schedule::~Schedule() {
  // Only an unfinished schedule is in the list (which, at the exit of a
  // program that left one finished but not freed, may be gone already).
  if (advancing_) leave(this);
  if (e_)
    for (mesh::Request* r : live_)
      if (r) e_->free(r);
}

Schedule::Round& Schedule::open_round() {
  if (rounds_.empty() || rounds_.back().closed || !rounds_.back().steps.empty()) rounds_.emplace_back();
  return rounds_.back();
}

void Schedule::send(int dst, const void* buf, std::size_t bytes) {
  open_round().transfers.push_back(Transfer{true, dst, const_cast<char*>(static_cast<const char*>(buf)), bytes, nullptr});
}

void Schedule::recv(int src, void* buf, std::size_t bytes) {
  open_round().transfers.push_back(Transfer{false, src, static_cast<char*>(buf), bytes, nullptr});
}

void Schedule::recv_exact(int src, void* buf, std::size_t bytes, Forwarding* f) {
  open_round().transfers.push_back(Transfer{false, src, static_cast<char*>(buf), bytes, f});
}

void Schedule::forward(int dst, const void* buf, std::size_t bytes, Forwarding* f) {
  open_round().transfers.push_back(Transfer{true, dst, const_cast<char*>(static_cast<const char*>(buf)), bytes, f});
}

void Schedule::then(std::function<void()> step) {
  if (rounds_.empty() || rounds_.back().closed) rounds_.emplace_back();
  rounds_.back().steps.push_back(std::move(step));
}

void Schedule::next() {
  if (!rounds_.empty()) rounds_.back().closed = true;
}

char* Schedule::scratch(std::size_t bytes) {
  scratch_.push_back(std::make_unique<char[]>(bytes ? bytes : 1));
  return scratch_.back().get();
}

void Schedule::start(mesh::Engine& e, std::uint32_t context, int tag) {
  e_ = &e;
  context_ = context;
  tag_ = tag;
  started_ = true;
  advance();
  if (!finished()) {
    advancing_ = true;
    join(this, e);
  }
}

void Schedule::post(const Round& r) {
  live_.clear();
  for (const Transfer& t : r.transfers) {
    if (!t.is_send) {
      live_.push_back(e_->irecv(t.buf, t.bytes, t.peer, tag_, context_));
    } else if (!t.fwd) {
      live_.push_back(e_->isend(t.buf, t.bytes, t.peer, tag_, context_));
    } else {
      std::size_t n;
      const void* from = t.fwd->from(t.buf, t.bytes, &n);
      live_.push_back(e_->isend(from, n, t.peer, tag_, context_));
    }
  }
  pending_ = live_.size();
}

bool Schedule::advance() {
  bool moved = false;
  while (started_ && cur_ < rounds_.size()) {
    const Round& r = rounds_[cur_];
    if (!posted_) {
      post(r);
      posted_ = moved = true;
    }
    for (std::size_t i = 0; i < live_.size(); ++i) {
      mesh::Request*& q = live_[i];
      if (!q || !e_->is_complete(q)) continue;
      mesh::Status st;
      e_->test(q, &st);
      q = nullptr;
      --pending_;
      moved = true;
      const Transfer& t = r.transfers[i];
      const bool exact = t.fwd && !t.is_send;
      if (exact && (st.error == mesh::Error::kOk || st.error == mesh::Error::kTruncate)) {
        t.fwd->received(st, t.bytes);
        // The data this rank has goes on; error() says so at the end.
        if (st.error == mesh::Error::kTruncate || st.bytes != t.bytes) length_mismatch_ = true;
      } else if (st.error != mesh::Error::kOk && err_ == mesh::Error::kOk) {
        err_ = st.error;
      }
    }
    if (pending_) return moved;
    live_.clear();
    posted_ = false;
    if (err_ != mesh::Error::kOk) {  // the rounds after a failed transfer do not run
      cur_ = rounds_.size();
      break;
    }
    for (const auto& step : r.steps) step();
    ++cur_;
  }
  return moved;
}

}  // namespace meshmp::collectives
