/* A textbook MPI-1.1 program, built by install_test.sh with the installed
 * mpicc (and mpicxx) and run with the installed mpirun: a ring with
 * MPI_Sendrecv over a periodic MPI_Cart_create grid, a column of a matrix
 * sent as an MPI_Type_vector, and an MPI_Allreduce. Prints one line on rank 0
 * if every check passed; exits non-zero otherwise. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int size, rank, left, right, ok = 1, all_ok = 0, i;
  int dims[1] = {0}, periods[1] = {1};
  double m[4][3], col[4], sum = 0;
  MPI_Comm ring;
  MPI_Datatype column;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 1, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &ring);
  MPI_Comm_rank(ring, &rank);
  MPI_Cart_shift(ring, 0, 1, &left, &right);
  for (i = 0; i < 12; ++i) m[i / 3][i % 3] = rank * 100 + i;
  MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  /* Column 1 to the right; from the left as 4 contiguous doubles. */
  MPI_Sendrecv(&m[0][1], 1, column, right, 0, col, 4, MPI_DOUBLE, left, 0, ring, MPI_STATUS_IGNORE);
  for (i = 0; i < 4; ++i) ok &= col[i] == left * 100 + 3 * i + 1;
  MPI_Allreduce(&m[0][0], &sum, 1, MPI_DOUBLE, MPI_SUM, ring);
  ok &= sum == 100.0 * size * (size - 1) / 2;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0 && all_ok) printf("hello_mpi: %d ranks, ring, column and sum ok\n", size);
  MPI_Type_free(&column);
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
