// The Fortran bindings of the chapters meshmp does not provide, one-sided
// communication (MPI-3.1 chapter 11) and parallel I/O (chapter 13): each
// runs its C call, which fails with MPI_ERR_UNSUPPORTED_OPERATION whatever
// its arguments (mpi11/one_sided.cc, mpi11/file_io.cc), so only the
// communicator of MPI_WIN_CREATE/ALLOCATE(_SHARED)/CREATE_DYNAMIC and
// MPI_FILE_OPEN -- whose error handler the refusal runs -- and the handle
// they set to MPI_WIN_NULL / MPI_FILE_NULL are passed on. A Fortran program
// whose I/O or one-sided code is never reached links, as in C.
#include "mpi11/fortran/fortran.h"

// ---- one-sided communication (chapter 11) ----------------------------------
MESHMP_FORTRAN_FN(void, win_create, (void*, void*, void*, void*, const F* comm, F* win, F* ierror)) {
  *ierror = PMPI_Win_create(nullptr, {}, {}, {}, *comm, win);
}
MESHMP_FORTRAN_FN(void, win_allocate, (void*, void*, void*, const F* comm, void*, F* win, F* ierror)) {
  *ierror = PMPI_Win_allocate({}, {}, {}, *comm, nullptr, win);
}
MESHMP_FORTRAN_FN(void, win_allocate_shared, (void*, void*, void*, const F* comm, void*, F* win, F* ierror)) {
  *ierror = PMPI_Win_allocate_shared({}, {}, {}, *comm, nullptr, win);
}
MESHMP_FORTRAN_FN(void, win_create_dynamic, (void*, const F* comm, F* win, F* ierror)) {
  *ierror = PMPI_Win_create_dynamic({}, *comm, win);
}
MESHMP_FORTRAN_FN(void, win_shared_query, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Win_shared_query({}, {}, nullptr, nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, win_attach, (void*, void*, void*, F* ierror)) { *ierror = PMPI_Win_attach({}, nullptr, {}); }
MESHMP_FORTRAN_FN(void, win_detach, (void*, void*, F* ierror)) { *ierror = PMPI_Win_detach({}, nullptr); }
MESHMP_FORTRAN_FN(void, win_free, (void*, F* ierror)) { *ierror = PMPI_Win_free(nullptr); }
MESHMP_FORTRAN_FN(void, win_get_group, (void*, void*, F* ierror)) { *ierror = PMPI_Win_get_group({}, nullptr); }
MESHMP_FORTRAN_FN(void, win_set_info, (void*, void*, F* ierror)) { *ierror = PMPI_Win_set_info({}, {}); }
MESHMP_FORTRAN_FN(void, win_get_info, (void*, void*, F* ierror)) { *ierror = PMPI_Win_get_info({}, nullptr); }
MESHMP_FORTRAN_FN(void, put, (void*, void*, void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Put(nullptr, {}, {}, {}, {}, {}, {}, {});
}
MESHMP_FORTRAN_FN(void, get, (void*, void*, void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Get(nullptr, {}, {}, {}, {}, {}, {}, {});
}
MESHMP_FORTRAN_FN(void, accumulate, (void*, void*, void*, void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Accumulate(nullptr, {}, {}, {}, {}, {}, {}, {}, {});
}
MESHMP_FORTRAN_FN(void, get_accumulate,
                  (void*, void*, void*, void*, void*, void*, void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Get_accumulate(nullptr, {}, {}, nullptr, {}, {}, {}, {}, {}, {}, {}, {});
}
MESHMP_FORTRAN_FN(void, fetch_and_op, (void*, void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Fetch_and_op(nullptr, nullptr, {}, {}, {}, {}, {});
}
MESHMP_FORTRAN_FN(void, compare_and_swap, (void*, void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Compare_and_swap(nullptr, nullptr, nullptr, {}, {}, {}, {});
}
MESHMP_FORTRAN_FN(void, rput, (void*, void*, void*, void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Rput(nullptr, {}, {}, {}, {}, {}, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, rget, (void*, void*, void*, void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Rget(nullptr, {}, {}, {}, {}, {}, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, raccumulate,
                  (void*, void*, void*, void*, void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Raccumulate(nullptr, {}, {}, {}, {}, {}, {}, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, rget_accumulate,
                  (void*, void*, void*, void*, void*, void*, void*, void*, void*, void*, void*, void*, void*,
                   F* ierror)) {
  *ierror = PMPI_Rget_accumulate(nullptr, {}, {}, nullptr, {}, {}, {}, {}, {}, {}, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, win_fence, (void*, void*, F* ierror)) { *ierror = PMPI_Win_fence({}, {}); }
MESHMP_FORTRAN_FN(void, win_start, (void*, void*, void*, F* ierror)) { *ierror = PMPI_Win_start({}, {}, {}); }
MESHMP_FORTRAN_FN(void, win_complete, (void*, F* ierror)) { *ierror = PMPI_Win_complete({}); }
MESHMP_FORTRAN_FN(void, win_post, (void*, void*, void*, F* ierror)) { *ierror = PMPI_Win_post({}, {}, {}); }
MESHMP_FORTRAN_FN(void, win_wait, (void*, F* ierror)) { *ierror = PMPI_Win_wait({}); }
MESHMP_FORTRAN_FN(void, win_test, (void*, void*, F* ierror)) { *ierror = PMPI_Win_test({}, nullptr); }
MESHMP_FORTRAN_FN(void, win_lock, (void*, void*, void*, void*, F* ierror)) { *ierror = PMPI_Win_lock({}, {}, {}, {}); }
MESHMP_FORTRAN_FN(void, win_lock_all, (void*, void*, F* ierror)) { *ierror = PMPI_Win_lock_all({}, {}); }
MESHMP_FORTRAN_FN(void, win_unlock, (void*, void*, F* ierror)) { *ierror = PMPI_Win_unlock({}, {}); }
MESHMP_FORTRAN_FN(void, win_unlock_all, (void*, F* ierror)) { *ierror = PMPI_Win_unlock_all({}); }
MESHMP_FORTRAN_FN(void, win_flush, (void*, void*, F* ierror)) { *ierror = PMPI_Win_flush({}, {}); }
MESHMP_FORTRAN_FN(void, win_flush_all, (void*, F* ierror)) { *ierror = PMPI_Win_flush_all({}); }
MESHMP_FORTRAN_FN(void, win_flush_local, (void*, void*, F* ierror)) { *ierror = PMPI_Win_flush_local({}, {}); }
MESHMP_FORTRAN_FN(void, win_flush_local_all, (void*, F* ierror)) { *ierror = PMPI_Win_flush_local_all({}); }
MESHMP_FORTRAN_FN(void, win_sync, (void*, F* ierror)) { *ierror = PMPI_Win_sync({}); }
MESHMP_FORTRAN_FN(void, win_create_keyval, (void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Win_create_keyval(nullptr, nullptr, nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, win_free_keyval, (void*, F* ierror)) { *ierror = PMPI_Win_free_keyval(nullptr); }
MESHMP_FORTRAN_FN(void, win_set_attr, (void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Win_set_attr({}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, win_get_attr, (void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Win_get_attr({}, {}, nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, win_delete_attr, (void*, void*, F* ierror)) { *ierror = PMPI_Win_delete_attr({}, {}); }
MESHMP_FORTRAN_FN(void, win_set_name, (void*, void*, F* ierror)) { *ierror = PMPI_Win_set_name({}, nullptr); }
MESHMP_FORTRAN_FN(void, win_get_name, (void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Win_get_name({}, nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, win_create_errhandler, (void*, void*, F* ierror)) {
  *ierror = PMPI_Win_create_errhandler(nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, win_set_errhandler, (void*, void*, F* ierror)) { *ierror = PMPI_Win_set_errhandler({}, {}); }
MESHMP_FORTRAN_FN(void, win_get_errhandler, (void*, void*, F* ierror)) {
  *ierror = PMPI_Win_get_errhandler({}, nullptr);
}
MESHMP_FORTRAN_FN(void, win_call_errhandler, (void*, void*, F* ierror)) { *ierror = PMPI_Win_call_errhandler({}, {}); }

// ---- parallel I/O (chapter 13) -------------------------------------------------
MESHMP_FORTRAN_FN(void, file_open, (const F* comm, void*, void*, void*, F* fh, F* ierror)) {
  *ierror = PMPI_File_open(*comm, nullptr, {}, {}, fh);
}
MESHMP_FORTRAN_FN(void, file_close, (void*, F* ierror)) { *ierror = PMPI_File_close(nullptr); }
MESHMP_FORTRAN_FN(void, file_delete, (void*, void*, F* ierror)) { *ierror = PMPI_File_delete(nullptr, {}); }
MESHMP_FORTRAN_FN(void, file_set_size, (void*, void*, F* ierror)) { *ierror = PMPI_File_set_size({}, {}); }
MESHMP_FORTRAN_FN(void, file_preallocate, (void*, void*, F* ierror)) { *ierror = PMPI_File_preallocate({}, {}); }
MESHMP_FORTRAN_FN(void, file_get_size, (void*, void*, F* ierror)) { *ierror = PMPI_File_get_size({}, nullptr); }
MESHMP_FORTRAN_FN(void, file_get_group, (void*, void*, F* ierror)) { *ierror = PMPI_File_get_group({}, nullptr); }
MESHMP_FORTRAN_FN(void, file_get_amode, (void*, void*, F* ierror)) { *ierror = PMPI_File_get_amode({}, nullptr); }
MESHMP_FORTRAN_FN(void, file_set_info, (void*, void*, F* ierror)) { *ierror = PMPI_File_set_info({}, {}); }
MESHMP_FORTRAN_FN(void, file_get_info, (void*, void*, F* ierror)) { *ierror = PMPI_File_get_info({}, nullptr); }
MESHMP_FORTRAN_FN(void, file_set_view, (void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_set_view({}, {}, {}, {}, nullptr, {});
}
MESHMP_FORTRAN_FN(void, file_get_view, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_get_view({}, nullptr, nullptr, nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, file_read_at, (void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read_at({}, {}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_read_at_all, (void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read_at_all({}, {}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_write_at, (void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write_at({}, {}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_write_at_all, (void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write_at_all({}, {}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_iread_at, (void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_iread_at({}, {}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_iread_at_all, (void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_iread_at_all({}, {}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_iwrite_at, (void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_iwrite_at({}, {}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_iwrite_at_all, (void*, void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_iwrite_at_all({}, {}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_read, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_read_all, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read_all({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_write, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_write_all, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write_all({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_iread, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_iread({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_iread_all, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_iread_all({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_iwrite, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_iwrite({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_iwrite_all, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_iwrite_all({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_seek, (void*, void*, void*, F* ierror)) { *ierror = PMPI_File_seek({}, {}, {}); }
MESHMP_FORTRAN_FN(void, file_get_position, (void*, void*, F* ierror)) { *ierror = PMPI_File_get_position({}, nullptr); }
MESHMP_FORTRAN_FN(void, file_get_byte_offset, (void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_get_byte_offset({}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_read_shared, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read_shared({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_write_shared, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write_shared({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_iread_shared, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_iread_shared({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_iwrite_shared, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_iwrite_shared({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_read_ordered, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read_ordered({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_write_ordered, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write_ordered({}, nullptr, {}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_seek_shared, (void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_seek_shared({}, {}, {});
}
MESHMP_FORTRAN_FN(void, file_get_position_shared, (void*, void*, F* ierror)) {
  *ierror = PMPI_File_get_position_shared({}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_read_at_all_begin, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read_at_all_begin({}, {}, nullptr, {}, {});
}
MESHMP_FORTRAN_FN(void, file_read_at_all_end, (void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read_at_all_end({}, nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, file_write_at_all_begin, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write_at_all_begin({}, {}, nullptr, {}, {});
}
MESHMP_FORTRAN_FN(void, file_write_at_all_end, (void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write_at_all_end({}, nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, file_read_all_begin, (void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read_all_begin({}, nullptr, {}, {});
}
MESHMP_FORTRAN_FN(void, file_read_all_end, (void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read_all_end({}, nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, file_write_all_begin, (void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write_all_begin({}, nullptr, {}, {});
}
MESHMP_FORTRAN_FN(void, file_write_all_end, (void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write_all_end({}, nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, file_read_ordered_begin, (void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read_ordered_begin({}, nullptr, {}, {});
}
MESHMP_FORTRAN_FN(void, file_read_ordered_end, (void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_read_ordered_end({}, nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, file_write_ordered_begin, (void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write_ordered_begin({}, nullptr, {}, {});
}
MESHMP_FORTRAN_FN(void, file_write_ordered_end, (void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_write_ordered_end({}, nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, file_get_type_extent, (void*, void*, void*, F* ierror)) {
  *ierror = PMPI_File_get_type_extent({}, {}, nullptr);
}
MESHMP_FORTRAN_FN(void, register_datarep, (void*, void*, void*, void*, void*, F* ierror)) {
  *ierror = PMPI_Register_datarep(nullptr, nullptr, nullptr, nullptr, nullptr);
}
// MPI_CONVERSION_FN_NULL, the predefined "no conversion" that
// MPI_REGISTER_DATAREP takes (§13.5.3): a procedure in Fortran, so a call
// naming it links; it converts nothing.
extern "C" void mpi_conversion_fn_null_(void*, void*, void*, void*, void*, void*, F* ierror) { *ierror = MPI_SUCCESS; }
MESHMP_FORTRAN_FN(void, file_set_atomicity, (void*, void*, F* ierror)) { *ierror = PMPI_File_set_atomicity({}, {}); }
MESHMP_FORTRAN_FN(void, file_get_atomicity, (void*, void*, F* ierror)) {
  *ierror = PMPI_File_get_atomicity({}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_sync, (void*, F* ierror)) { *ierror = PMPI_File_sync({}); }
MESHMP_FORTRAN_FN(void, file_create_errhandler, (void*, void*, F* ierror)) {
  *ierror = PMPI_File_create_errhandler(nullptr, nullptr);
}
MESHMP_FORTRAN_FN(void, file_set_errhandler, (void*, void*, F* ierror)) { *ierror = PMPI_File_set_errhandler({}, {}); }
MESHMP_FORTRAN_FN(void, file_get_errhandler, (void*, void*, F* ierror)) {
  *ierror = PMPI_File_get_errhandler({}, nullptr);
}
MESHMP_FORTRAN_FN(void, file_call_errhandler, (void*, void*, F* ierror)) {
  *ierror = PMPI_File_call_errhandler({}, {});
}
