/* Floods to a rank that is not receiving yet (issue 14, item 10), as one MPI
 * program for meshmp, MPICH and Open MPI. Rank 0 starts N nonblocking sends
 * of mixed sizes (0 B .. 70 000 B, eager and rendezvous) to rank 1, which
 * sleeps SLEEP ms before posting its receives; both then complete their N
 * requests by one of MPI_Waitall, an MPI_Waitany loop, an MPI_Testany loop
 * or an MPI_Waitsome loop. Prints, per method, the seconds from the end of
 * the sleep until both ranks are done:
 *   flood method=waitany n=30000 seconds=1.234
 * Usage: mpi_flood [N [SLEEP_MS]]   (2 ranks)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const int sizes[] = {0, 8, 1000, 16383, 16384, 70000, 5};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static void complete_all(int method, int n, MPI_Request* r, int* idx) {
  int left = n, k, flag, out;
  switch (method) {
    case 0: MPI_Waitall(n, r, MPI_STATUSES_IGNORE); break;
    case 1: while (left) { MPI_Waitany(n, r, &k, MPI_STATUS_IGNORE); --left; } break;
    case 2:
      while (left) {
        MPI_Testany(n, r, &k, &flag, MPI_STATUS_IGNORE);
        if (flag && k != MPI_UNDEFINED) --left;
      }
      break;
    case 3: while (left) { MPI_Waitsome(n, r, &out, idx, MPI_STATUSES_IGNORE); left -= out; } break;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = argc > 1 ? atoi(argv[1]) : 30000, sleep_ms = argc > 2 ? atoi(argv[2]) : 200;
  static const char* names[] = {"waitall", "waitany", "testany", "waitsome"};
  MPI_Request* r = malloc(sizeof *r * n);
  int* idx = malloc(sizeof *idx * n);
  char* buf = calloc(70000, 1);
  for (int method = 0; method < 4; ++method) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      for (int i = 0; i < n; ++i) MPI_Isend(buf, sizes[i % NSIZES], MPI_CHAR, 1, i, MPI_COMM_WORLD, &r[i]);
    } else if (rank == 1) {
      usleep(1000 * sleep_ms);
    }
    const double t0 = MPI_Wtime();
    if (rank == 1)
      for (int i = 0; i < n; ++i) MPI_Irecv(buf, sizes[i % NSIZES], MPI_CHAR, 0, i, MPI_COMM_WORLD, &r[i]);
    if (rank < 2) complete_all(method, n, r, idx);
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 1, MPI_COMM_WORLD);
    if (rank == 1) printf("flood method=%s n=%d seconds=%.3f\n", names[method], n, tmax);
  }
  free(buf);
  free(idx);
  free(r);
  MPI_Finalize();
  return 0;
}
