#!/usr/bin/env bash
# Runs a job with qmprun and then checks that it left nothing behind in
# /dev/shm. Usage: run_job.sh QMPRUN ARGS...
set -u
# Bazel hands these to one test process; with N ranks they would collide.
unset TEST_PREMATURE_EXIT_FILE XML_OUTPUT_FILE GTEST_OUTPUT
before=$(ls /dev/shm | grep -c '^meshmp-' || true)
"$@"
rc=$?
after=$(ls /dev/shm | grep -c '^meshmp-' || true)
if [ "$after" -gt "$before" ]; then
  echo "run_job: the job left shared-memory segments behind:" >&2
  ls /dev/shm | grep '^meshmp-' >&2
  exit 1
fi
exit $rc
