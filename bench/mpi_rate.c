/* Message rate (issue 32): rank 0 sends WINDOW nonblocking 8-byte messages,
 * rank 1 posts WINDOW receives, both complete them with MPI_Waitall, and
 * rank 1 acknowledges with one byte; ITERS windows. One MPI-1.1 source for
 * meshmp, Open MPI and MPICH. Prints millions of messages per second:
 *   rate window=64 msgs=128000 Mmsgs=6.6
 * Usage: mpi_rate [ITERS [WINDOW]]   (2 ranks; WINDOW at most 256)
 * Instructions per message, as in the README: run it with ITERS=2000 under
 * `mpirun -np 2 valgrind --tool=callgrind ./mpi_rate 2000` and divide each
 * rank's total by 128 000. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
  MPI_Request req[256];
  char buf[8] = {0}, ack = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    if (me == 0) {
      for (int w = 0; w < window; w++) MPI_Isend(buf, 8, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[w]);
      MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int w = 0; w < window; w++) MPI_Irecv(buf, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[w]);
      MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
      MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    }
  }
  const double t = MPI_Wtime() - t0;
  if (me == 0) printf("rate window=%d msgs=%d Mmsgs=%.3f\n", window, iters * window, (double)iters * window / t / 1e6);
  MPI_Finalize();
  return 0;
}
