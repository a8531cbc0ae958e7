/* MPI program for qmprun --disable-auto-cleanup (launcher_test): 3 ranks.
 * After a barrier rank 2 exits with status 3 without finalizing. Rank 0,
 * with MPI_ERRORS_RETURN, receives from it: the receive must fail, and it
 * prints "rank 0: receive from the dead rank: MPI_ERR_OTHER" (meshmp's
 * class for a dead peer; MPI-3.1 §8.3 leaves it to the implementation), or
 * "error class C" for another class. Ranks 0 and 1 then exchange a message,
 * which must arrive; an MPI_Allreduce over MPI_COMM_WORLD must fail ("rank
 * R: allreduce failed"). They print "rank R finalized" after MPI_Finalize
 * returns, and exit with status 0 (1 on a failed check). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size, value = 0, got = -1, err, cls = -1, ok = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3) {
    fprintf(stderr, "mpi_dead_peer_probe runs on 3 ranks, not %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 2) exit(3);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (rank == 0) {
    err = MPI_Recv(&value, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Error_class(err, &cls);
    if (cls == MPI_ERR_OTHER) printf("rank 0: receive from the dead rank: MPI_ERR_OTHER\n");
    else printf("rank 0: receive from the dead rank: error class %d\n", cls);
    fflush(stdout);
    ok &= err != MPI_SUCCESS;
  }
  value = 100 + rank;
  err = MPI_Sendrecv(&value, 1, MPI_INT, 1 - rank, 1, &got, 1, MPI_INT, 1 - rank, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
  if (err != MPI_SUCCESS || got != 101 - rank) {
    fprintf(stderr, "rank %d: exchange with rank %d: error %d, got %d\n", rank, 1 - rank, err, got);
    ok = 0;
  }
  /* A collective over MPI_COMM_WORLD needs the dead rank: it fails too. */
  err = MPI_Allreduce(&value, &got, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (err == MPI_SUCCESS) {
    fprintf(stderr, "rank %d: MPI_Allreduce with a dead rank succeeded\n", rank);
    ok = 0;
  } else {
    printf("rank %d: allreduce failed\n", rank);
  }
  MPI_Finalize();
  printf("rank %d finalized\n", rank);
  return ok ? 0 : 1;
}
