! The `mpi` module of Fortran 90 programs (MPI-3.1 §17.1.3): mpif.h's
! constants, and the generic MPI_SIZEOF (§17.1.9), which gives the bytes of
! one element of a variable of any intrinsic type, scalar or array of any
! rank, as gfortran stores it. Each specific is implemented in libmpi
! (mpi11/fortran/sizeof.cc), named after its type and kind. Compiled at
! install time by the compiler that will use it (tools/install/install.sh).
module mpi
  include "mpif.h"
  interface MPI_SIZEOF
    subroutine meshmp_sizeof_integer1(x, size, ierror)
      integer(kind=1), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_integer2(x, size, ierror)
      integer(kind=2), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_integer4(x, size, ierror)
      integer(kind=4), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_integer8(x, size, ierror)
      integer(kind=8), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_integer16(x, size, ierror)
      integer(kind=16), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_real4(x, size, ierror)
      real(kind=4), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_real8(x, size, ierror)
      real(kind=8), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_real10(x, size, ierror)
      real(kind=10), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_real16(x, size, ierror)
      real(kind=16), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_complex4(x, size, ierror)
      complex(kind=4), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_complex8(x, size, ierror)
      complex(kind=8), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_complex10(x, size, ierror)
      complex(kind=10), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_complex16(x, size, ierror)
      complex(kind=16), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_logical1(x, size, ierror)
      logical(kind=1), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_logical2(x, size, ierror)
      logical(kind=2), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_logical4(x, size, ierror)
      logical(kind=4), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_logical8(x, size, ierror)
      logical(kind=8), dimension(..) :: x
      integer :: size, ierror
    end subroutine
    subroutine meshmp_sizeof_character(x, size, ierror)
      character(len=*), dimension(..) :: x
      integer :: size, ierror
    end subroutine
  end interface
end module mpi
