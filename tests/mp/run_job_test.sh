#!/usr/bin/env bash
# run_job.sh blames a job only for its own leftovers (issue 15, item 11): a
# segment another job makes meanwhile does not fail it; one with the job's
# own prefix does.
set -u
here=$(dirname "$0")
run_job="$here/run_job.sh"
foreign="/dev/shm/meshmp-foreign$$x$RANDOM"
trap 'rm -f "$foreign" /dev/shm/meshmp-*-leftover-$$' EXIT
fail=0

# The "job": another job's segment appears while it runs.
if ! "$run_job" bash -c "touch '$foreign'"; then
  echo "FAIL: another job's segment was blamed on this one" >&2
  fail=1
fi
rm -f "$foreign"

# The "job" leaves a segment of its own behind.
if "$run_job" bash -c 'touch "/dev/shm/meshmp-${MESHMP_JOB_PREFIX}-leftover-'$$'"' 2>/dev/null; then
  echo "FAIL: the job's own leftover segment went unnoticed" >&2
  fail=1
fi
exit $fail
