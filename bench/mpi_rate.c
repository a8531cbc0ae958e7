/* Message rate (issue 32): rank 0 sends WINDOW nonblocking 8-byte messages,
 * rank 1 posts WINDOW receives, both complete them with MPI_Waitall, and
 * rank 1 acknowledges with one byte; ITERS windows. One MPI-1.1 source for
 * meshmp, Open MPI and MPICH. Prints millions of messages per second:
 *   rate window=64 msgs=128000 Mmsgs=6.6
 * Usage: mpi_rate [ITERS [WINDOW [phases]]]   (2 ranks; WINDOW at most 256)
 * With "phases", each rank also prints where its time went, ns per message:
 *   phases rank=1 post=28.6 wait=29.0 ack=0.8
 * (post: the MPI_Isend or MPI_Irecv loop, wait: MPI_Waitall, ack: the
 * one-byte acknowledgement; MPI_Wtime read four times per window).
 * Instructions per message, as in the README: run it with ITERS=2000 under
 * `mpirun -np 2 valgrind --tool=callgrind ./mpi_rate 2000` and divide each
 * rank's total by 128 000. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int me, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int iters = argc > 1 ? atoi(argv[1]) : 20000;
  const int window = argc > 2 ? atoi(argv[2]) : 64;
  if (np != 2 || iters < 1 || window < 1 || window > 256) {
    if (me == 0) fprintf(stderr, "usage: mpi_rate [ITERS [WINDOW <= 256]] on 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int phases = argc > 3 && strcmp(argv[3], "phases") == 0;
  MPI_Request req[256];
  char buf[8] = {0}, ack = 0;
  double post = 0, wait = 0, acked = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    const double a = phases ? MPI_Wtime() : 0;
    if (me == 0) {
      for (int w = 0; w < window; w++) MPI_Isend(buf, 8, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[w]);
    } else {
      for (int w = 0; w < window; w++) MPI_Irecv(buf, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[w]);
    }
    const double b = phases ? MPI_Wtime() : 0;
    MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
    const double c = phases ? MPI_Wtime() : 0;
    if (me == 0) MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    if (phases) {
      const double d = MPI_Wtime();
      post += b - a, wait += c - b, acked += d - c;
    }
  }
  const double t = MPI_Wtime() - t0;
  if (me == 0) printf("rate window=%d msgs=%d Mmsgs=%.3f\n", window, iters * window, (double)iters * window / t / 1e6);
  if (phases) {
    const double n = (double)iters * window / 1e9;
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) printf("phases rank=1 post=%.1f wait=%.1f ack=%.1f\n", post / n, wait / n, acked / n);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("phases rank=0 post=%.1f wait=%.1f ack=%.1f\n", post / n, wait / n, acked / n);
  }
  MPI_Finalize();
  return 0;
}
