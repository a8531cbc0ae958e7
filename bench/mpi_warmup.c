/* The first collectives after start and after an idle second (issue 32,
 * item 6), as one MPI program for meshmp, Open MPI and MPICH: 8-byte
 * MPI_Allreduce in batches of 50, 20 batches (1000 calls) right after
 * MPI_Init and a barrier, 20 more after every rank slept a second, and 20
 * after 2000 more calls. Rank 0 prints each batch's mean time per call
 * and its slowest call (one long stall, or every call slow?):
 *   coll warm_start 0 12.345          (phase, batch, us)
 *   coll warm_start_slowest 0 80.1    (phase, batch, us)
 * so the first batches can be set against the steady ones, and one MPI
 * library's warm-up against another's on the same machine.
 * Usage: mpi_warmup   (any number of ranks)
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

enum { kBatches = 20, kPerBatch = 50 };

static void phase(const char* name, int me) {
  double x = 1, y, t[kBatches], worst[kBatches];
  for (int b = 0; b < kBatches; ++b) {
    const double t0 = MPI_Wtime();
    double last = t0;
    worst[b] = 0;
    for (int i = 0; i < kPerBatch; ++i) {
      MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      const double now = MPI_Wtime();
      if (now - last > worst[b]) worst[b] = now - last;
      last = now;
    }
    t[b] = (last - t0) / kPerBatch * 1e6;
  }
  if (me == 0)
    for (int b = 0; b < kBatches; ++b)
      printf("coll %s %d %.3f\ncoll %s_slowest %d %.3f\n", name, b, t[b], name, b, worst[b] * 1e6);
}

int main(int argc, char** argv) {
  int me;
  double x = 1, y;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Barrier(MPI_COMM_WORLD);
  phase("warm_start", me);
  sleep(1);
  phase("warm_idle", me);
  for (int i = 0; i < 2000; ++i) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  phase("warm_steady", me);
  MPI_Finalize();
  return 0;
}
