#!/usr/bin/env bash
# Runs a job with qmprun and then checks that it left nothing behind in
# /dev/shm: the job's own names only (MESHMP_JOB_PREFIX makes them ours),
# so other jobs running on the machine meanwhile do not count.
# Usage: run_job.sh QMPRUN ARGS...
set -u
# Bazel hands these to one test process; with N ranks they would collide.
unset TEST_PREMATURE_EXIT_FILE XML_OUTPUT_FILE GTEST_OUTPUT
export MESHMP_JOB_PREFIX="rj$(od -An -N5 -tx1 /dev/urandom | tr -d ' \n')"
"$@"
rc=$?
if ls /dev/shm | grep -q "^meshmp-$MESHMP_JOB_PREFIX"; then
  echo "run_job: the job left shared-memory segments behind:" >&2
  ls /dev/shm | grep "^meshmp-$MESHMP_JOB_PREFIX" >&2
  exit 1
fi
exit $rc
