// Parallel I/O (MPI-3.1 chapter 13) is out of scope (issue 33). The
// chapter's C names exist so that a program whose I/O layer mentions files
// -- a lattice code's parallel configuration reader beside its serial one,
// a library with an optional MPI-IO path -- compiles and links, and learns
// at the first call what it cannot have: every call fails with
// MPI_ERR_UNSUPPORTED_OPERATION (MPI-3.1 Table 8.2). MPI_File_open raises
// it on the communicator's error handler, the rest on MPI_COMM_WORLD's.
// §13.7 gives file errors MPI_FILE_NULL's handler, MPI_ERRORS_RETURN by
// default; a program that does not check codes would then go on as if its
// configuration had been written, so the refusal goes where the default is
// fatal. MPI_File_open sets *fh to MPI_FILE_NULL first.
#include "mpi11/internal.h"

using namespace meshmp::mpi;

namespace {

constexpr const char* kWhat = "parallel I/O (MPI-3.1 chapter 13)";

}  // namespace

MESHMP_MPI_FN(int, File_open, (MPI_Comm comm, const char*, int, MPI_Info, MPI_File* fh)) {
  if (fh) *fh = MPI_FILE_NULL;
  return refuse_unsupported("MPI_File_open", kWhat, comm);
} MESHMP_MPI_END(File_open)

// File manipulation and views (§13.2, §13.3)
MESHMP_MPI_REFUSED(File_close, (MPI_File*), kWhat)
MESHMP_MPI_REFUSED(File_delete, (const char*, MPI_Info), kWhat)
MESHMP_MPI_REFUSED(File_set_size, (MPI_File, MPI_Offset), kWhat)
MESHMP_MPI_REFUSED(File_preallocate, (MPI_File, MPI_Offset), kWhat)
MESHMP_MPI_REFUSED(File_get_size, (MPI_File, MPI_Offset*), kWhat)
MESHMP_MPI_REFUSED(File_get_group, (MPI_File, MPI_Group*), kWhat)
MESHMP_MPI_REFUSED(File_get_amode, (MPI_File, int*), kWhat)
MESHMP_MPI_REFUSED(File_set_info, (MPI_File, MPI_Info), kWhat)
MESHMP_MPI_REFUSED(File_get_info, (MPI_File, MPI_Info*), kWhat)
MESHMP_MPI_REFUSED(File_set_view, (MPI_File, MPI_Offset, MPI_Datatype, MPI_Datatype, const char*, MPI_Info), kWhat)
MESHMP_MPI_REFUSED(File_get_view, (MPI_File, MPI_Offset*, MPI_Datatype*, MPI_Datatype*, char*), kWhat)
// Data access (§13.4): explicit offsets, individual and shared file pointers
MESHMP_MPI_REFUSED(File_read_at, (MPI_File, MPI_Offset, void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_read_at_all, (MPI_File, MPI_Offset, void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_write_at, (MPI_File, MPI_Offset, const void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_write_at_all, (MPI_File, MPI_Offset, const void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_iread_at, (MPI_File, MPI_Offset, void*, int, MPI_Datatype, MPI_Request*), kWhat)
MESHMP_MPI_REFUSED(File_iread_at_all, (MPI_File, MPI_Offset, void*, int, MPI_Datatype, MPI_Request*), kWhat)
MESHMP_MPI_REFUSED(File_iwrite_at, (MPI_File, MPI_Offset, const void*, int, MPI_Datatype, MPI_Request*), kWhat)
MESHMP_MPI_REFUSED(File_iwrite_at_all, (MPI_File, MPI_Offset, const void*, int, MPI_Datatype, MPI_Request*), kWhat)
MESHMP_MPI_REFUSED(File_read, (MPI_File, void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_read_all, (MPI_File, void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_write, (MPI_File, const void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_write_all, (MPI_File, const void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_iread, (MPI_File, void*, int, MPI_Datatype, MPI_Request*), kWhat)
MESHMP_MPI_REFUSED(File_iread_all, (MPI_File, void*, int, MPI_Datatype, MPI_Request*), kWhat)
MESHMP_MPI_REFUSED(File_iwrite, (MPI_File, const void*, int, MPI_Datatype, MPI_Request*), kWhat)
MESHMP_MPI_REFUSED(File_iwrite_all, (MPI_File, const void*, int, MPI_Datatype, MPI_Request*), kWhat)
MESHMP_MPI_REFUSED(File_seek, (MPI_File, MPI_Offset, int), kWhat)
MESHMP_MPI_REFUSED(File_get_position, (MPI_File, MPI_Offset*), kWhat)
MESHMP_MPI_REFUSED(File_get_byte_offset, (MPI_File, MPI_Offset, MPI_Offset*), kWhat)
MESHMP_MPI_REFUSED(File_read_shared, (MPI_File, void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_write_shared, (MPI_File, const void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_iread_shared, (MPI_File, void*, int, MPI_Datatype, MPI_Request*), kWhat)
MESHMP_MPI_REFUSED(File_iwrite_shared, (MPI_File, const void*, int, MPI_Datatype, MPI_Request*), kWhat)
MESHMP_MPI_REFUSED(File_read_ordered, (MPI_File, void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_write_ordered, (MPI_File, const void*, int, MPI_Datatype, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_seek_shared, (MPI_File, MPI_Offset, int), kWhat)
MESHMP_MPI_REFUSED(File_get_position_shared, (MPI_File, MPI_Offset*), kWhat)
// Split collective data access (§13.4.5)
MESHMP_MPI_REFUSED(File_read_at_all_begin, (MPI_File, MPI_Offset, void*, int, MPI_Datatype), kWhat)
MESHMP_MPI_REFUSED(File_read_at_all_end, (MPI_File, void*, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_write_at_all_begin, (MPI_File, MPI_Offset, const void*, int, MPI_Datatype), kWhat)
MESHMP_MPI_REFUSED(File_write_at_all_end, (MPI_File, const void*, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_read_all_begin, (MPI_File, void*, int, MPI_Datatype), kWhat)
MESHMP_MPI_REFUSED(File_read_all_end, (MPI_File, void*, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_write_all_begin, (MPI_File, const void*, int, MPI_Datatype), kWhat)
MESHMP_MPI_REFUSED(File_write_all_end, (MPI_File, const void*, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_read_ordered_begin, (MPI_File, void*, int, MPI_Datatype), kWhat)
MESHMP_MPI_REFUSED(File_read_ordered_end, (MPI_File, void*, MPI_Status*), kWhat)
MESHMP_MPI_REFUSED(File_write_ordered_begin, (MPI_File, const void*, int, MPI_Datatype), kWhat)
MESHMP_MPI_REFUSED(File_write_ordered_end, (MPI_File, const void*, MPI_Status*), kWhat)
// Interoperability and consistency (§13.5, §13.6)
MESHMP_MPI_REFUSED(File_get_type_extent, (MPI_File, MPI_Datatype, MPI_Aint*), kWhat)
MESHMP_MPI_REFUSED(Register_datarep,
                   (const char*, MPI_Datarep_conversion_function*, MPI_Datarep_conversion_function*,
                    MPI_Datarep_extent_function*, void*),
                   kWhat)
MESHMP_MPI_REFUSED(File_set_atomicity, (MPI_File, int), kWhat)
MESHMP_MPI_REFUSED(File_get_atomicity, (MPI_File, int*), kWhat)
MESHMP_MPI_REFUSED(File_sync, (MPI_File), kWhat)
// Error handlers of files (§8.3.3)
MESHMP_MPI_REFUSED(File_create_errhandler, (MPI_File_errhandler_function*, MPI_Errhandler*), kWhat)
MESHMP_MPI_REFUSED(File_set_errhandler, (MPI_File, MPI_Errhandler), kWhat)
MESHMP_MPI_REFUSED(File_get_errhandler, (MPI_File, MPI_Errhandler*), kWhat)
MESHMP_MPI_REFUSED(File_call_errhandler, (MPI_File, int), kWhat)

// Handle conversions (§17.2.4): with no file open, every Fortran handle is
// MPI_FILE_NULL's, 0.
MESHMP_MPI_FN_NOTHROW(MPI_File, File_f2c, (MPI_Fint)) { return MPI_FILE_NULL; }
MESHMP_MPI_FN_NOTHROW(MPI_Fint, File_c2f, (MPI_File)) { return 0; }
