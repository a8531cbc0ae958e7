// A QMP communication call that failed (a dead peer or link, a peer that
// finalized): the job cannot go on, and other ranks may be blocked waiting
// for this one, so main() ends the whole job with QMP_abort instead of
// finalizing (issue 29).
#pragma once

#include <stdexcept>
#include <string>

struct CommError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
