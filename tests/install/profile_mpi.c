/* The MPI profiling interface (MPI-1.1 §8): a tool defines MPI_name, counts
 * the call and passes it on to PMPI_name. Built whole, the tool is part of
 * the program; -DTOOL_ONLY builds the tool alone (a shared library linked
 * before libmpi), -DPROGRAM_ONLY the program that uses it. The program checks the tool saw each of its calls once, and only
 * its own calls: MPI_Sendrecv and MPI_Allreduce must not reach the tool's
 * MPI_Send or MPI_Recv from inside the library.
 * 2 ranks; prints "profile_mpi: ok". */
#include <mpi.h>
#include <stdio.h>

#ifdef PROGRAM_ONLY
extern int profiled_sends, profiled_recvs, profiled_barriers;
#else
int profiled_sends = 0, profiled_recvs = 0, profiled_barriers = 0;

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  ++profiled_sends;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* st) {
  ++profiled_recvs;
  return PMPI_Recv(buf, count, type, source, tag, comm, st);
}
int MPI_Barrier(MPI_Comm comm) {
  ++profiled_barriers;
  return PMPI_Barrier(comm);
}
#endif

#ifndef TOOL_ONLY
int main(int argc, char** argv) {
  int me, np, x = 0, y = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np != 2) MPI_Abort(MPI_COMM_WORLD, 2);
  if (me == 0) {
    x = 42;
    MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Sendrecv(&me, 1, MPI_INT, 1 - me, 8, &y, 1, MPI_INT, 1 - me, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  const int want_sends = me == 0, want_recvs = me == 1;
  int ok = x == 42 && y == 1 && profiled_sends == want_sends && profiled_recvs == want_recvs && profiled_barriers == 1;
  if (!ok)
    fprintf(stderr, "rank %d: x %d y %d, the tool saw %d sends, %d receives, %d barriers\n", me, x, y, profiled_sends,
            profiled_recvs, profiled_barriers);
  int all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (me == 0 && all) printf("profile_mpi: ok\n");
  MPI_Finalize();
  return all ? 0 : 1;
}
#endif
