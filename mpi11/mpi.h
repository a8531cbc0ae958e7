/*
 * mpi.h -- meshmp's MPI-1.1 interface (MPI: A Message-Passing Interface
 * Standard, version 1.1, June 1995), C bindings, over the same nearest-
 * neighbour core as meshmp's QMP (ARCHITECTURE.md §1).
 *
 * Every function exists twice: as PMPI_name, the implementation, and as
 * MPI_name, a weak alias of it, so a profiling library can define MPI_name
 * and call PMPI_name (MPI-1.1 §8.3).
 *
 * Handles are ints (as in MPICH): 0 is the null handle of each kind.
 * Counts are in elements of the datatype argument; MPI_Aint displacements and
 * extents are in bytes. Every call returns MPI_SUCCESS or an error code whose
 * class (MPI_Error_class) is one of the MPI-1.1 classes below, after calling
 * the communicator's error handler (MPI_ERRORS_ARE_FATAL by default: print
 * the error, naming the function and the argument, and end the job).
 */
#ifndef MESHMP_MPI_H
#define MESHMP_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 1
#define MPI_SUBVERSION 1
#define MESHMP_MPI 1

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Group;
typedef int MPI_Info;
typedef int MPI_Message; /* MPI-3.1 §3.8.2 */
typedef long MPI_Aint;
typedef int MPI_Fint;
typedef long long MPI_Offset;
typedef long long MPI_Count; /* MPI-3.1 §2.5.8: counts of the _x calls */

/* Status (MPI-1.1 §3.2.5): the three public fields plus the received byte
 * count and the cancelled flag, read through MPI_Get_count/_elements and
 * MPI_Test_cancelled. */
typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int meshmp_cancelled;
  long long meshmp_bytes;
} MPI_Status;

/* ---- error classes (MPI-1.1 §7.4) -------------------------------------- */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_NO_MEM 20 /* MPI-2.2 §8.4: memory could not be allocated */
/* MPI-2.2 §9: info objects */
#define MPI_ERR_INFO 21       /* not an info object (or a predefined one changed) */
#define MPI_ERR_INFO_KEY 22   /* key empty or longer than MPI_MAX_INFO_KEY */
#define MPI_ERR_INFO_VALUE 23 /* value empty or longer than MPI_MAX_INFO_VAL */
#define MPI_ERR_INFO_NOKEY 24 /* MPI_Info_delete of a key not set */
/* The other classes of MPI-3.1 Table 8.2. meshmp raises none of them (its
 * errors in the chapters it provides have the classes above); they are
 * defined so that programs naming them compile, and MPI_Error_class and
 * MPI_Error_string know them. */
#define MPI_ERR_ACCESS 25
#define MPI_ERR_AMODE 26
#define MPI_ERR_ASSERT 27
#define MPI_ERR_BAD_FILE 28
#define MPI_ERR_BASE 29
#define MPI_ERR_CONVERSION 30
#define MPI_ERR_DISP 31
#define MPI_ERR_DUP_DATAREP 32
#define MPI_ERR_FILE_EXISTS 33
#define MPI_ERR_FILE_IN_USE 34
#define MPI_ERR_FILE 35
#define MPI_ERR_IO 36
#define MPI_ERR_KEYVAL 37
#define MPI_ERR_LOCKTYPE 38
#define MPI_ERR_NAME 39
#define MPI_ERR_NOT_SAME 40
#define MPI_ERR_NO_SPACE 41
#define MPI_ERR_NO_SUCH_FILE 42
#define MPI_ERR_PORT 43
#define MPI_ERR_QUOTA 44
#define MPI_ERR_READ_ONLY 45
#define MPI_ERR_RMA_ATTACH 46
#define MPI_ERR_RMA_CONFLICT 47
#define MPI_ERR_RMA_RANGE 48
#define MPI_ERR_RMA_SHARED 49
#define MPI_ERR_RMA_SYNC 50
#define MPI_ERR_RMA_FLAVOR 51
#define MPI_ERR_SERVICE 52
#define MPI_ERR_SIZE 53
#define MPI_ERR_SPAWN 54
#define MPI_ERR_UNSUPPORTED_DATAREP 55
#define MPI_ERR_UNSUPPORTED_OPERATION 56
#define MPI_ERR_WIN 57
/* Error codes: class + 128 * k, k > 0 naming a remembered message;
 * MPI_Add_error_class's classes are 64..127. */
#define MPI_ERR_LASTCODE 0x3fffffff

/* ---- special values ---------------------------------------------------- */
#define MPI_PROC_NULL (-1)
#define MPI_ANY_SOURCE (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_BOTTOM ((void*)0)
/* MPI-2 names real MPI-1 programs use: no status is returned. */
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
/* MPI-2's in-place reductions: the send buffer argument of MPI_Allreduce,
 * MPI_Scan, and MPI_Reduce at the root; the data are taken from recvbuf. */
#define MPI_IN_PLACE ((void*)-1)
#define MPI_BSEND_OVERHEAD 96
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 256

/* Results of MPI_Comm_compare / MPI_Group_compare (§5.4.1). */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* MPI_Topo_test (§6.5.5). */
#define MPI_CART 1
#define MPI_GRAPH 2
#define MPI_DIST_GRAPH 3 /* MPI-2.2 §7.5.4 */
/* MPI_Dist_graph_create(_adjacent)'s weights: none given, or none (degree 0) */
#define MPI_UNWEIGHTED ((int*)2)
#define MPI_WEIGHTS_EMPTY ((int*)3)

/* MPI-2.2 §12.4 thread levels (MPI_Init_thread): SINGLE, FUNNELED and
   SERIALIZED are provided; a request for MULTIPLE gets SERIALIZED. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Predefined attribute keys on MPI_COMM_WORLD (§7.1.1). */
#define MPI_KEYVAL_INVALID 0
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_LASTUSEDCODE 5 /* MPI-2.2 §8.5: the largest error code or class in use */
/* MPI-2.2 §10.5.1 and §10.5.3, with no dynamic processes: the universe is
 * the job (its size), and the job is one application (number 0). */
#define MPI_UNIVERSE_SIZE 6
#define MPI_APPNUM 7

/* ---- null handles and predefined objects -------------------------------- */
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY ((MPI_Group)1)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)-1) /* a matched probe of MPI_PROC_NULL */
#define MPI_TYPECLASS_REAL 1 /* MPI_Type_match_size */
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3
#define MPI_COMM_TYPE_SHARED 1 /* MPI_Comm_split_type: the ranks of one host */
/* MPI-2.2 §4.1.13: MPI_Type_get_envelope's combiners */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR_INTEGER 5
#define MPI_COMBINER_HVECTOR 6
#define MPI_COMBINER_INDEXED 7
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_HINDEXED 9
#define MPI_COMBINER_INDEXED_BLOCK 10
#define MPI_COMBINER_STRUCT_INTEGER 11
#define MPI_COMBINER_STRUCT 12
#define MPI_COMBINER_SUBARRAY 13
#define MPI_COMBINER_DARRAY 14
#define MPI_COMBINER_F90_REAL 15
#define MPI_COMBINER_F90_COMPLEX 16
#define MPI_COMBINER_F90_INTEGER 17
#define MPI_COMBINER_RESIZED 18
#define MPI_COMBINER_HINDEXED_BLOCK 19
/* MPI-2.2 §4.1.3-4.1.4: array orders and distributions */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
#define MPI_INFO_ENV ((MPI_Info)1) /* MPI-3.1 §9.1.2: maxprocs, thread_level, host, wdir */
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)

#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX ((MPI_Op)1)
#define MPI_MIN ((MPI_Op)2)
#define MPI_SUM ((MPI_Op)3)
#define MPI_PROD ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_BAND ((MPI_Op)6)
#define MPI_LOR ((MPI_Op)7)
#define MPI_BOR ((MPI_Op)8)
#define MPI_LXOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)
#define MPI_MAXLOC ((MPI_Op)11)
#define MPI_MINLOC ((MPI_Op)12)
/* The one-sided operations (MPI-3.1 §11.3.4): for MPI_Accumulate and its
 * kin only (which meshmp refuses, see below); a collective or
 * MPI_Reduce_local given one returns MPI_ERR_OP. Neither is commutative
 * (MPI_Op_commutative), as in MPICH. */
#define MPI_REPLACE ((MPI_Op)13)
#define MPI_NO_OP ((MPI_Op)14)

/* Predefined datatypes (§3.2.2, §3.12, §4.9.3). */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR ((MPI_Datatype)1)
#define MPI_SIGNED_CHAR ((MPI_Datatype)2)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)3)
#define MPI_BYTE ((MPI_Datatype)4)
#define MPI_WCHAR ((MPI_Datatype)5)
#define MPI_SHORT ((MPI_Datatype)6)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)7)
#define MPI_INT ((MPI_Datatype)8)
#define MPI_UNSIGNED ((MPI_Datatype)9)
#define MPI_LONG ((MPI_Datatype)10)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)11)
#define MPI_LONG_LONG_INT ((MPI_Datatype)12)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)13)
#define MPI_FLOAT ((MPI_Datatype)14)
#define MPI_DOUBLE ((MPI_Datatype)15)
#define MPI_LONG_DOUBLE ((MPI_Datatype)16)
#define MPI_PACKED ((MPI_Datatype)17)
#define MPI_LB ((MPI_Datatype)18)
#define MPI_UB ((MPI_Datatype)19)
#define MPI_FLOAT_INT ((MPI_Datatype)20)
#define MPI_DOUBLE_INT ((MPI_Datatype)21)
#define MPI_LONG_INT ((MPI_Datatype)22)
#define MPI_SHORT_INT ((MPI_Datatype)23)
#define MPI_2INT ((MPI_Datatype)24)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)25)
/* The Fortran types (§3.2.2, §4.9.3), usable from C too (as in MPI-2):
 * INTEGER and LOGICAL are 4 bytes (LOGICAL .TRUE. is 1, as gfortran has it),
 * REAL 4, DOUBLE PRECISION 8, COMPLEX two REALs, DOUBLE COMPLEX two DOUBLE
 * PRECISIONs; MPI_2REAL, MPI_2DOUBLE_PRECISION and MPI_2INTEGER are the
 * (value, index) pairs of MPI_MAXLOC/MPI_MINLOC. The sized INTEGERn and REALn
 * are the optional types of §3.2.2. */
#define MPI_INTEGER ((MPI_Datatype)26)
#define MPI_REAL ((MPI_Datatype)27)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)28)
#define MPI_COMPLEX ((MPI_Datatype)29)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)30)
#define MPI_LOGICAL ((MPI_Datatype)31)
#define MPI_CHARACTER ((MPI_Datatype)32)
#define MPI_2REAL ((MPI_Datatype)33)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)34)
#define MPI_2INTEGER ((MPI_Datatype)35)
#define MPI_INTEGER1 ((MPI_Datatype)36)
#define MPI_INTEGER2 ((MPI_Datatype)37)
#define MPI_INTEGER4 ((MPI_Datatype)38)
#define MPI_INTEGER8 ((MPI_Datatype)39)
#define MPI_REAL4 ((MPI_Datatype)40)
#define MPI_REAL8 ((MPI_Datatype)41)
/* Pairs of COMPLEX (MPI-1.0's Fortran pair types, kept by Open MPI): data
 * only, no reduction is defined on them. */
#define MPI_2COMPLEX ((MPI_Datatype)42)
#define MPI_2DOUBLE_COMPLEX ((MPI_Datatype)43)
/* MPI-2.2 §3.2.2's C99 types and the multi-language integers (MPI_AINT,
 * MPI_OFFSET, MPI_COUNT); the integers take the arithmetic, bitwise and
 * logical operations, MPI_C_BOOL the logical ones, the complex types
 * MPI_SUM and MPI_PROD (§5.9.2). */
#define MPI_INT8_T ((MPI_Datatype)44)
#define MPI_INT16_T ((MPI_Datatype)45)
#define MPI_INT32_T ((MPI_Datatype)46)
#define MPI_INT64_T ((MPI_Datatype)47)
#define MPI_UINT8_T ((MPI_Datatype)48)
#define MPI_UINT16_T ((MPI_Datatype)49)
#define MPI_UINT32_T ((MPI_Datatype)50)
#define MPI_UINT64_T ((MPI_Datatype)51)
#define MPI_C_BOOL ((MPI_Datatype)52)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)53)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)54)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)55)
#define MPI_AINT ((MPI_Datatype)56)
#define MPI_OFFSET ((MPI_Datatype)57)
#define MPI_COUNT ((MPI_Datatype)58)
/* MPI-2.2 §16.2.5's remaining sized Fortran types (gfortran's REAL*16 is an
 * IEEE binary128, C's __float128; INTEGER*16 is __int128; COMPLEXn is two
 * REALs of n/2 bytes), and MPI-2.2 §3.2.2's C++ types, usable from C as
 * data (MPI_CXX_BOOL a 1-byte bool, the complex ones as C's). The REALs and
 * INTEGER16 take the arithmetic operations, INTEGER16 the bitwise ones too,
 * the complex types MPI_SUM and MPI_PROD, MPI_CXX_BOOL the logical ones. */
#define MPI_REAL16 ((MPI_Datatype)59)
#define MPI_COMPLEX8 ((MPI_Datatype)60)
#define MPI_COMPLEX16 ((MPI_Datatype)61)
#define MPI_COMPLEX32 ((MPI_Datatype)62)
#define MPI_INTEGER16 ((MPI_Datatype)63)
#define MPI_CXX_BOOL ((MPI_Datatype)64)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)65)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)66)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)67)

typedef void(MPI_User_function)(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);
typedef void(MPI_Handler_function)(MPI_Comm* comm, int* error_code, ...);
/* MPI-2 names of the same handler type. */
typedef MPI_Handler_function MPI_Comm_errhandler_fn;
typedef MPI_Handler_function MPI_Comm_errhandler_function;

/* Attribute callbacks (§5.7.1): copy runs on MPI_Comm_dup (set *flag to keep
 * the attribute in the new communicator), delete on MPI_Comm_free and
 * MPI_Attr_delete. A non-MPI_SUCCESS return fails the call with that code. */
typedef int(MPI_Copy_function)(MPI_Comm oldcomm, int keyval, void* extra_state, void* attribute_val_in,
                               void* attribute_val_out, int* flag);
typedef int(MPI_Delete_function)(MPI_Comm comm, int keyval, void* attribute_val, void* extra_state);
typedef MPI_Copy_function MPI_Comm_copy_attr_function;
typedef MPI_Delete_function MPI_Comm_delete_attr_function;
/* The predefined callbacks: copy nothing, copy the value, do nothing. */
int MPI_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void* extra_state, void* attribute_val_in,
                     void* attribute_val_out, int* flag);
int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void* extra_state, void* attribute_val_in, void* attribute_val_out,
               int* flag);
int MPI_NULL_DELETE_FN(MPI_Comm comm, int keyval, void* attribute_val, void* extra_state);
#define MPI_COMM_NULL_COPY_FN MPI_NULL_COPY_FN
#define MPI_COMM_DUP_FN MPI_DUP_FN
#define MPI_COMM_NULL_DELETE_FN MPI_NULL_DELETE_FN
/* MPI-2.2 §6.7.4: datatype attributes, the same shapes on a datatype. */
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int type_keyval, void* extra_state,
                                         void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval, void* attribute_val,
                                           void* extra_state);
int MPI_TYPE_NULL_COPY_FN(MPI_Datatype oldtype, int type_keyval, void* extra_state, void* attribute_val_in,
                          void* attribute_val_out, int* flag);
int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int type_keyval, void* extra_state, void* attribute_val_in,
                    void* attribute_val_out, int* flag);
int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype datatype, int type_keyval, void* attribute_val, void* extra_state);

/* The prototypes, each for MPI_ and PMPI_. */
#define MESHMP_DECLARE(ret, name, params) \
  ret MPI_##name params;                  \
  ret PMPI_##name params;

/* Environment (§7) */
MESHMP_DECLARE(int, Init, (int* argc, char*** argv))
MESHMP_DECLARE(int, Finalize, (void))
MESHMP_DECLARE(int, Initialized, (int* flag))
MESHMP_DECLARE(int, Finalized, (int* flag))
MESHMP_DECLARE(int, Abort, (MPI_Comm comm, int errorcode))
MESHMP_DECLARE(int, Get_processor_name, (char* name, int* resultlen))
MESHMP_DECLARE(int, Get_version, (int* version, int* subversion))
/* MPI-3.1 §8.1.1: "meshmp: MPI-1.1 with MPI-2.2/3.1 additions, ...", at
 * most MPI_MAX_LIBRARY_VERSION_STRING - 1 characters and a NUL. */
MESHMP_DECLARE(int, Get_library_version, (char* version, int* resultlen))
/* MPI-2.2 §8.5: up to 32 new error classes (MPI_ERR_OTHER when none is
 * left), codes in any class but MPI_SUCCESS, and the text MPI_Error_string
 * gives for either ("" until set; a predefined class or code keeps its own:
 * MPI_ERR_ARG). MPI_LASTUSEDCODE follows them. MPI_Comm_call_errhandler
 * (§8.3) runs comm's handler on a code as a failing call on comm would. */
MESHMP_DECLARE(int, Add_error_class, (int* errorclass))
MESHMP_DECLARE(int, Add_error_code, (int errorclass, int* errorcode))
MESHMP_DECLARE(int, Add_error_string, (int errorcode, const char* string))
MESHMP_DECLARE(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
/* MPI-2.2 §16.3.4: handles are the same ints in C and Fortran. */
MESHMP_DECLARE(MPI_Comm, Comm_f2c, (MPI_Fint comm))
MESHMP_DECLARE(MPI_Fint, Comm_c2f, (MPI_Comm comm))
MESHMP_DECLARE(MPI_Datatype, Type_f2c, (MPI_Fint datatype))
MESHMP_DECLARE(MPI_Fint, Type_c2f, (MPI_Datatype datatype))
MESHMP_DECLARE(MPI_Group, Group_f2c, (MPI_Fint group))
MESHMP_DECLARE(MPI_Fint, Group_c2f, (MPI_Group group))
MESHMP_DECLARE(MPI_Request, Request_f2c, (MPI_Fint request))
MESHMP_DECLARE(MPI_Fint, Request_c2f, (MPI_Request request))
MESHMP_DECLARE(MPI_Op, Op_f2c, (MPI_Fint op))
MESHMP_DECLARE(MPI_Fint, Op_c2f, (MPI_Op op))
MESHMP_DECLARE(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler))
MESHMP_DECLARE(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler))
MESHMP_DECLARE(MPI_Info, Info_f2c, (MPI_Fint info))
MESHMP_DECLARE(MPI_Fint, Info_c2f, (MPI_Info info))
MESHMP_DECLARE(MPI_Message, Message_f2c, (MPI_Fint message))
MESHMP_DECLARE(MPI_Fint, Message_c2f, (MPI_Message message))
/* MPI-2.2 §16.3.5: a Fortran status (INTEGER(MPI_STATUS_SIZE)) as a C one
 * and back -- the same fields, copied. MPI_F_STATUS_IGNORE and
 * MPI_F_STATUSES_IGNORE are Fortran's MPI_STATUS(ES)_IGNORE as C sees them.
 * MPI_ERR_ARG: either status is NULL or an "ignore" value. */
extern MPI_Fint* MPI_F_STATUS_IGNORE;
extern MPI_Fint* MPI_F_STATUSES_IGNORE;
MESHMP_DECLARE(int, Status_f2c, (const MPI_Fint* f_status, MPI_Status* c_status))
MESHMP_DECLARE(int, Status_c2f, (const MPI_Status* c_status, MPI_Fint* f_status))
MESHMP_DECLARE(double, Wtime, (void))
MESHMP_DECLARE(double, Wtick, (void))
MESHMP_DECLARE(int, Pcontrol, (const int level, ...))
MESHMP_DECLARE(int, Error_string, (int errorcode, char* string, int* resultlen))
MESHMP_DECLARE(int, Error_class, (int errorcode, int* errorclass))
MESHMP_DECLARE(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
MESHMP_DECLARE(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler* errhandler))
MESHMP_DECLARE(int, Errhandler_create, (MPI_Handler_function* function, MPI_Errhandler* errhandler))
MESHMP_DECLARE(int, Errhandler_free, (MPI_Errhandler* errhandler))
MESHMP_DECLARE(int, Init_thread, (int* argc, char*** argv, int required, int* provided))
MESHMP_DECLARE(int, Query_thread, (int* provided))
MESHMP_DECLARE(int, Is_thread_main, (int* flag))
MESHMP_DECLARE(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void* baseptr))
MESHMP_DECLARE(int, Free_mem, (void* base))
MESHMP_DECLARE(int, Comm_create_errhandler, (MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler))
MESHMP_DECLARE(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
MESHMP_DECLARE(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler* errhandler))

/* Attributes (§5.7), and their MPI-2 names */
MESHMP_DECLARE(int, Keyval_create, (MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                                    void* extra_state))
MESHMP_DECLARE(int, Keyval_free, (int* keyval))
MESHMP_DECLARE(int, Attr_put, (MPI_Comm comm, int keyval, void* attribute_val))
MESHMP_DECLARE(int, Attr_get, (MPI_Comm comm, int keyval, void* attribute_val, int* flag))
MESHMP_DECLARE(int, Attr_delete, (MPI_Comm comm, int keyval))
MESHMP_DECLARE(int, Comm_create_keyval, (MPI_Comm_copy_attr_function* copy_fn,
                                         MPI_Comm_delete_attr_function* delete_fn, int* keyval, void* extra_state))
MESHMP_DECLARE(int, Comm_free_keyval, (int* keyval))
MESHMP_DECLARE(int, Comm_set_attr, (MPI_Comm comm, int keyval, void* attribute_val))
MESHMP_DECLARE(int, Comm_get_attr, (MPI_Comm comm, int keyval, void* attribute_val, int* flag))
MESHMP_DECLARE(int, Comm_delete_attr, (MPI_Comm comm, int keyval))

/* Point-to-point (§3) */
MESHMP_DECLARE(int, Send, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
MESHMP_DECLARE(int, Bsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
MESHMP_DECLARE(int, Ssend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
MESHMP_DECLARE(int, Rsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
MESHMP_DECLARE(int, Recv, (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                           MPI_Status* status))
MESHMP_DECLARE(int, Isend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                            MPI_Request* request))
MESHMP_DECLARE(int, Ibsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request* request))
MESHMP_DECLARE(int, Issend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request* request))
MESHMP_DECLARE(int, Irsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request* request))
MESHMP_DECLARE(int, Irecv, (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                            MPI_Request* request))
MESHMP_DECLARE(int, Send_init, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                MPI_Request* request))
MESHMP_DECLARE(int, Bsend_init, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Ssend_init, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Rsend_init, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Recv_init, (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                MPI_Request* request))
MESHMP_DECLARE(int, Start, (MPI_Request* request))
MESHMP_DECLARE(int, Startall, (int count, MPI_Request* array_of_requests))
MESHMP_DECLARE(int, Request_free, (MPI_Request* request))
MESHMP_DECLARE(int, Wait, (MPI_Request* request, MPI_Status* status))
MESHMP_DECLARE(int, Test, (MPI_Request* request, int* flag, MPI_Status* status))
MESHMP_DECLARE(int, Waitany, (int count, MPI_Request* array_of_requests, int* index, MPI_Status* status))
MESHMP_DECLARE(int, Testany, (int count, MPI_Request* array_of_requests, int* index, int* flag, MPI_Status* status))
MESHMP_DECLARE(int, Waitall, (int count, MPI_Request* array_of_requests, MPI_Status* array_of_statuses))
MESHMP_DECLARE(int, Testall, (int count, MPI_Request* array_of_requests, int* flag, MPI_Status* array_of_statuses))
MESHMP_DECLARE(int, Waitsome, (int incount, MPI_Request* array_of_requests, int* outcount, int* array_of_indices,
                               MPI_Status* array_of_statuses))
MESHMP_DECLARE(int, Testsome, (int incount, MPI_Request* array_of_requests, int* outcount, int* array_of_indices,
                               MPI_Status* array_of_statuses))
MESHMP_DECLARE(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status))
MESHMP_DECLARE(int, Iprobe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status))
MESHMP_DECLARE(int, Cancel, (MPI_Request* request))
/* Matched probe (MPI-3.1 §3.8.2): the message found is taken, so that no
 * other receive or probe matches it, and MPI_Mrecv/MPI_Imrecv receives it
 * (once; *message becomes MPI_MESSAGE_NULL). Source MPI_PROC_NULL gives
 * MPI_MESSAGE_NO_PROC, whose receive completes at once with the empty
 * status. Errors: MPI_ERR_ARG for a message handle that is none. */
MESHMP_DECLARE(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status))
MESHMP_DECLARE(int, Improbe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                              MPI_Status* status))
MESHMP_DECLARE(int, Mrecv, (void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                            MPI_Status* status))
MESHMP_DECLARE(int, Imrecv, (void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                             MPI_Request* request))
MESHMP_DECLARE(int, Request_get_status, (MPI_Request request, int* flag, MPI_Status* status))
MESHMP_DECLARE(int, Test_cancelled, (const MPI_Status* status, int* flag))
/* Generalized requests (MPI-2.2 §12.2): a request the program completes
 * itself. MPI_Grequest_start returns it active; MPI_Grequest_complete marks
 * it complete, after which a wait or test completes it: query_fn fills the
 * status (a scratch one when the caller passed MPI_STATUS(ES)_IGNORE; also
 * on each MPI_Request_get_status of the complete request), then free_fn runs
 * and the request is freed. MPI_Request_free before completion defers
 * free_fn to MPI_Grequest_complete. MPI_Cancel runs cancel_fn(extra_state,
 * complete). A callback's error code is returned by the call that ran it
 * (free_fn's before query_fn's, MPI_ERR_IN_STATUS from a multiple
 * completion); a value that is no MPI error code becomes MPI_ERR_OTHER.
 * Errors: MPI_ERR_ARG for a null callback or request pointer,
 * MPI_ERR_REQUEST for completing a request twice or one not generalized.
 * With MPI_THREAD_FUNNELED no other thread can complete a generalized
 * request, so a wait for one not yet completed waits for ever. */
typedef int(MPI_Grequest_query_function)(void* extra_state, MPI_Status* status);
typedef int(MPI_Grequest_free_function)(void* extra_state);
typedef int(MPI_Grequest_cancel_function)(void* extra_state, int complete);
MESHMP_DECLARE(int, Grequest_start, (MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                                     MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                                     MPI_Request* request))
MESHMP_DECLARE(int, Grequest_complete, (MPI_Request request))
MESHMP_DECLARE(int, Get_count, (const MPI_Status* status, MPI_Datatype datatype, int* count))
MESHMP_DECLARE(int, Get_elements, (const MPI_Status* status, MPI_Datatype datatype, int* count))
MESHMP_DECLARE(int, Sendrecv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                               MPI_Comm comm, MPI_Status* status))
MESHMP_DECLARE(int, Sendrecv_replace, (void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                       int source, int recvtag, MPI_Comm comm, MPI_Status* status))
MESHMP_DECLARE(int, Buffer_attach, (void* buffer, int size))
MESHMP_DECLARE(int, Buffer_detach, (void* buffer_addr, int* size))

/* Datatypes (§3.12) */
MESHMP_DECLARE(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype,
                                  MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                   MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_indexed, (int count, const int* array_of_blocklengths, const int* array_of_displacements,
                                   MPI_Datatype oldtype, MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_hindexed, (int count, const int* array_of_blocklengths,
                                    const MPI_Aint* array_of_displacements, MPI_Datatype oldtype,
                                    MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_struct, (int count, const int* array_of_blocklengths,
                                  const MPI_Aint* array_of_displacements, const MPI_Datatype* array_of_types,
                                  MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_commit, (MPI_Datatype* datatype))
MESHMP_DECLARE(int, Type_free, (MPI_Datatype* datatype))
MESHMP_DECLARE(int, Type_extent, (MPI_Datatype datatype, MPI_Aint* extent))
MESHMP_DECLARE(int, Type_size, (MPI_Datatype datatype, int* size))
MESHMP_DECLARE(int, Type_lb, (MPI_Datatype datatype, MPI_Aint* displacement))
MESHMP_DECLARE(int, Type_ub, (MPI_Datatype datatype, MPI_Aint* displacement))
MESHMP_DECLARE(int, Address, (const void* location, MPI_Aint* address))
MESHMP_DECLARE(int, Pack, (const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
                           int* position, MPI_Comm comm))
MESHMP_DECLARE(int, Unpack, (const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                             MPI_Datatype datatype, MPI_Comm comm))
MESHMP_DECLARE(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int* size))
/* MPI-2 datatype names and queries */
MESHMP_DECLARE(int, Get_address, (const void* location, MPI_Aint* address))
/* MPI-3.1 §4.1.12: address arithmetic -- base + disp, and addr1 - addr2,
 * for addresses from MPI_Get_address (absolute: plain integer sums). */
MESHMP_DECLARE(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
MESHMP_DECLARE(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))
MESHMP_DECLARE(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                          MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_create_hindexed, (int count, const int* array_of_blocklengths,
                                           const MPI_Aint* array_of_displacements, MPI_Datatype oldtype,
                                           MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_create_struct, (int count, const int* array_of_blocklengths,
                                         const MPI_Aint* array_of_displacements, const MPI_Datatype* array_of_types,
                                         MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                          MPI_Datatype* newtype))
/* MPI-2.2 §4.1.2 and §4.1.10: blocks of one length at element (indexed_block)
 * or byte (hindexed_block) displacements; a duplicate of a type, committed
 * if the original is. A negative count: MPI_ERR_COUNT; a negative
 * blocklength: MPI_ERR_ARG. */
MESHMP_DECLARE(int, Type_create_indexed_block, (int count, int blocklength, const int* array_of_displacements,
                                                MPI_Datatype oldtype, MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_create_hindexed_block, (int count, int blocklength,
                                                 const MPI_Aint* array_of_displacements, MPI_Datatype oldtype,
                                                 MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_create_subarray, (int ndims, const int* array_of_sizes, const int* array_of_subsizes,
                                           const int* array_of_starts, int order, MPI_Datatype oldtype,
                                           MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_create_darray, (int size, int rank, int ndims, const int* array_of_gsizes,
                                         const int* array_of_distribs, const int* array_of_dargs,
                                         const int* array_of_psizes, int order, MPI_Datatype oldtype,
                                         MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_get_envelope, (MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                        int* num_datatypes, int* combiner))
MESHMP_DECLARE(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses,
                                        int max_datatypes, int* array_of_integers, MPI_Aint* array_of_addresses,
                                        MPI_Datatype* array_of_datatypes))
MESHMP_DECLARE(int, Type_create_keyval, (MPI_Type_copy_attr_function* type_copy_attr_fn,
                                         MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                                         void* extra_state))
MESHMP_DECLARE(int, Type_free_keyval, (int* type_keyval))
MESHMP_DECLARE(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void* attribute_val))
MESHMP_DECLARE(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag))
MESHMP_DECLARE(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
/* MPI-2.2 §4.2: packing in the portable "external32" representation. */
MESHMP_DECLARE(int, Pack_external, (const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype,
                                    void* outbuf, MPI_Aint outsize, MPI_Aint* position))
MESHMP_DECLARE(int, Unpack_external, (const char* datarep, const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                                      void* outbuf, int outcount, MPI_Datatype datatype))
MESHMP_DECLARE(int, Pack_external_size, (const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size))
MESHMP_DECLARE(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype* newtype))
/* MPI-3.1 §4.1.5, §4.1.11, §8.1.2 and §4.1.x: sizes, bounds and element
 * counts as MPI_Count; MPI_Status_set_elements(_x) makes a status say
 * `count` elements of datatype arrived (MPI_Get_elements reads them back),
 * MPI_Status_set_cancelled what MPI_Test_cancelled reads; MPI_Type_match_size
 * names the Fortran type of a class (MPI_TYPECLASS_INTEGER, _REAL,
 * _COMPLEX) and size in bytes, MPI_ERR_ARG if there is none. */
MESHMP_DECLARE(int, Type_size_x, (MPI_Datatype datatype, MPI_Count* size))
MESHMP_DECLARE(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent))
MESHMP_DECLARE(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent))
MESHMP_DECLARE(int, Get_elements_x, (const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count))
MESHMP_DECLARE(int, Status_set_elements, (MPI_Status* status, MPI_Datatype datatype, int count))
MESHMP_DECLARE(int, Status_set_elements_x, (MPI_Status* status, MPI_Datatype datatype, MPI_Count count))
MESHMP_DECLARE(int, Status_set_cancelled, (MPI_Status* status, int flag))
MESHMP_DECLARE(int, Type_match_size, (int typeclass, int size, MPI_Datatype* datatype))
/* MPI-2.2 §16.2.5: the type of a Fortran 90 REAL or COMPLEX of at least p
 * decimal digits and exponent range r (either MPI_UNDEFINED, not both), or
 * INTEGER of range r, as gfortran picks the kind; one predefined handle per
 * (p, r), not to be freed; MPI_ERR_ARG where no kind is large enough. */
MESHMP_DECLARE(int, Type_create_f90_real, (int p, int r, MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_create_f90_complex, (int p, int r, MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_create_f90_integer, (int r, MPI_Datatype* newtype))
MESHMP_DECLARE(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent))
MESHMP_DECLARE(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent))
MESHMP_DECLARE(int, Type_get_name, (MPI_Datatype datatype, char* type_name, int* resultlen))
MESHMP_DECLARE(int, Type_set_name, (MPI_Datatype datatype, const char* type_name))

/* Communicators (§5.4) */
MESHMP_DECLARE(int, Comm_size, (MPI_Comm comm, int* size))
MESHMP_DECLARE(int, Comm_rank, (MPI_Comm comm, int* rank))
MESHMP_DECLARE(int, Comm_dup, (MPI_Comm comm, MPI_Comm* newcomm))
MESHMP_DECLARE(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm))
/* MPI-3.1 §6.4.2: split_type MPI_COMM_TYPE_SHARED (the ranks of this host) or
 * MPI_UNDEFINED (MPI_COMM_NULL); anything else MPI_ERR_ARG. */
MESHMP_DECLARE(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm))
/* MPI-3.1 §6.4.2: MPI_Comm_dup_with_info (hints not read). MPI_Comm_idup
 * (below) returns the duplicate at once and agrees on its context in the
 * background; it may carry traffic once the request completes. */
MESHMP_DECLARE(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm))
/* MPI-3.1 §6.4.4: no communicator hint is read; MPI_Comm_get_info returns a
 * new, empty info object (MPI_ERR_INFO for a bad info, MPI_ERR_COMM). */
MESHMP_DECLARE(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
MESHMP_DECLARE(int, Comm_get_info, (MPI_Comm comm, MPI_Info* info_used))
/* MPI-3.1 §10.3.2: MPI_COMM_NULL -- no process of a meshmp job was spawned
 * (MPI_Comm_spawn and the rest of chapter 10 are not provided). */
MESHMP_DECLARE(int, Comm_get_parent, (MPI_Comm* parent))
/* MPI-3.1 §6.4.2: called by the members of group only; a caller outside it
 * gets MPI_COMM_NULL. MPI_ERR_GROUP if group is not within comm's. */
MESHMP_DECLARE(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm))
MESHMP_DECLARE(int, Comm_idup, (MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request))
MESHMP_DECLARE(int, Comm_free, (MPI_Comm* comm))
MESHMP_DECLARE(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int* result))
MESHMP_DECLARE(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm))
MESHMP_DECLARE(int, Comm_get_name, (MPI_Comm comm, char* comm_name, int* resultlen))
MESHMP_DECLARE(int, Comm_set_name, (MPI_Comm comm, const char* comm_name))

/* Groups (§5.3) */
MESHMP_DECLARE(int, Comm_group, (MPI_Comm comm, MPI_Group* group))
MESHMP_DECLARE(int, Group_size, (MPI_Group group, int* size))
MESHMP_DECLARE(int, Group_rank, (MPI_Group group, int* rank))
MESHMP_DECLARE(int, Group_translate_ranks, (MPI_Group group1, int n, const int* ranks1, MPI_Group group2,
                                            int* ranks2))
MESHMP_DECLARE(int, Group_compare, (MPI_Group group1, MPI_Group group2, int* result))
MESHMP_DECLARE(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))
MESHMP_DECLARE(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))
MESHMP_DECLARE(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))
MESHMP_DECLARE(int, Group_incl, (MPI_Group group, int n, const int* ranks, MPI_Group* newgroup))
MESHMP_DECLARE(int, Group_excl, (MPI_Group group, int n, const int* ranks, MPI_Group* newgroup))
MESHMP_DECLARE(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup))
MESHMP_DECLARE(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup))
MESHMP_DECLARE(int, Group_free, (MPI_Group* group))

/* Intercommunicators (§5.6) */
MESHMP_DECLARE(int, Comm_test_inter, (MPI_Comm comm, int* flag))
MESHMP_DECLARE(int, Comm_remote_size, (MPI_Comm comm, int* size))
MESHMP_DECLARE(int, Comm_remote_group, (MPI_Comm comm, MPI_Group* group))
MESHMP_DECLARE(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                       int remote_leader, int tag, MPI_Comm* newintercomm))
MESHMP_DECLARE(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm* newintracomm))

/* Info objects (MPI-2.2 §9): string keys (1..MPI_MAX_INFO_KEY characters)
 * and values (1..MPI_MAX_INFO_VAL); MPI_Info_get copies at most valuelen
 * characters and a NUL; keys are numbered in the order first set. Errors:
 * MPI_ERR_INFO (not an info object; MPI_INFO_ENV changed or freed),
 * MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE, MPI_ERR_INFO_NOKEY (delete of a key
 * not set), MPI_ERR_ARG (NULL outputs, n out of range). meshmp acts on no key. */
MESHMP_DECLARE(int, Info_create, (MPI_Info* info))
MESHMP_DECLARE(int, Info_set, (MPI_Info info, const char* key, const char* value))
MESHMP_DECLARE(int, Info_delete, (MPI_Info info, const char* key))
MESHMP_DECLARE(int, Info_get, (MPI_Info info, const char* key, int valuelen, char* value, int* flag))
MESHMP_DECLARE(int, Info_get_valuelen, (MPI_Info info, const char* key, int* valuelen, int* flag))
MESHMP_DECLARE(int, Info_get_nkeys, (MPI_Info info, int* nkeys))
MESHMP_DECLARE(int, Info_get_nthkey, (MPI_Info info, int n, char* key))
MESHMP_DECLARE(int, Info_dup, (MPI_Info info, MPI_Info* newinfo))
MESHMP_DECLARE(int, Info_free, (MPI_Info* info))

/* Collectives (§4) */
MESHMP_DECLARE(int, Barrier, (MPI_Comm comm))
MESHMP_DECLARE(int, Bcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
MESHMP_DECLARE(int, Gather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
MESHMP_DECLARE(int, Gatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root,
                              MPI_Comm comm))
MESHMP_DECLARE(int, Scatter, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
MESHMP_DECLARE(int, Scatterv, (const void* sendbuf, const int* sendcounts, const int* displs,
                               MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm))
MESHMP_DECLARE(int, Allgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
MESHMP_DECLARE(int, Allgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm))
MESHMP_DECLARE(int, Alltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
MESHMP_DECLARE(int, Alltoallv, (const void* sendbuf, const int* sendcounts, const int* sdispls,
                                MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                                MPI_Datatype recvtype, MPI_Comm comm))
MESHMP_DECLARE(int, Reduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             int root, MPI_Comm comm))
MESHMP_DECLARE(int, Allreduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm))
MESHMP_DECLARE(int, Reduce_scatter, (const void* sendbuf, void* recvbuf, const int* recvcounts,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
MESHMP_DECLARE(int, Scan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm))
MESHMP_DECLARE(int, Op_create, (MPI_User_function* function, int commute, MPI_Op* op))
MESHMP_DECLARE(int, Op_free, (MPI_Op* op))
/* MPI-2.2 §5.9.5: *commute = 1 if op is commutative (every predefined op;
 * a user op as MPI_Op_create was told), else 0. MPI_ERR_OP: no op. */
MESHMP_DECLARE(int, Op_commutative, (MPI_Op op, int* commute))
MESHMP_DECLARE(int, Reduce_local, (const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))
/* MPI-2.2 collectives: MPI_Exscan (§5.11.2: rank 0's recvbuf is left
 * unchanged), MPI_Reduce_scatter_block (§5.10.1), MPI_Alltoallw (§5.8: a
 * datatype per block, displacements in bytes). MPI_IN_PLACE as the standard
 * allows it. */
MESHMP_DECLARE(int, Exscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm))
MESHMP_DECLARE(int, Reduce_scatter_block, (const void* sendbuf, void* recvbuf, int recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
MESHMP_DECLARE(int, Alltoallw, (const void* sendbuf, const int* sendcounts, const int* sdispls,
                                const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts,
                                const int* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm))

/* Nonblocking collectives (MPI-3.1 §5.12): the blocking call's arguments
   and a request, completed by the wait/test family. Freeing or cancelling
   the request while it is active is MPI_ERR_REQUEST. */
MESHMP_DECLARE(int, Ibarrier, (MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Ibcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                             MPI_Request* request))
MESHMP_DECLARE(int, Igather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Igatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Iscatter, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Iscatterv, (const void* sendbuf, const int* sendcounts, const int* displs,
                                MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                int root, MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Iallgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Iallgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Request* request))
MESHMP_DECLARE(int, Ialltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Ialltoallv, (const void* sendbuf, const int* sendcounts, const int* sdispls,
                                 MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Ialltoallw, (const void* sendbuf, const int* sendcounts, const int* sdispls,
                                 const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts,
                                 const int* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm,
                                 MPI_Request* request))
MESHMP_DECLARE(int, Ireduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              int root, MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Iallreduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                 MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Ireduce_scatter, (const void* sendbuf, void* recvbuf, const int* recvcounts,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Ireduce_scatter_block, (const void* sendbuf, void* recvbuf, int recvcount,
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Iscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Iexscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request))

/* Process topologies (§6): Cartesian and graph */
MESHMP_DECLARE(int, Dims_create, (int nnodes, int ndims, int* dims))
MESHMP_DECLARE(int, Cart_create, (MPI_Comm comm_old, int ndims, const int* dims, const int* periods, int reorder,
                                  MPI_Comm* comm_cart))
MESHMP_DECLARE(int, Cart_get, (MPI_Comm comm, int maxdims, int* dims, int* periods, int* coords))
MESHMP_DECLARE(int, Cart_rank, (MPI_Comm comm, const int* coords, int* rank))
MESHMP_DECLARE(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int* coords))
MESHMP_DECLARE(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest))
MESHMP_DECLARE(int, Cart_sub, (MPI_Comm comm, const int* remain_dims, MPI_Comm* newcomm))
MESHMP_DECLARE(int, Cart_map, (MPI_Comm comm, int ndims, const int* dims, const int* periods, int* newrank))
MESHMP_DECLARE(int, Cartdim_get, (MPI_Comm comm, int* ndims))
MESHMP_DECLARE(int, Topo_test, (MPI_Comm comm, int* status))
MESHMP_DECLARE(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int* index, const int* edges, int reorder,
                                   MPI_Comm* comm_graph))
MESHMP_DECLARE(int, Graphdims_get, (MPI_Comm comm, int* nnodes, int* nedges))
MESHMP_DECLARE(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int* index, int* edges))
MESHMP_DECLARE(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int* nneighbors))
MESHMP_DECLARE(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int* neighbors))
MESHMP_DECLARE(int, Graph_map, (MPI_Comm comm, int nnodes, const int* index, const int* edges, int* newrank))
/* MPI-2.2 §7.5.4: distributed graphs. reorder and info are accepted and do nothing. */
MESHMP_DECLARE(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int* sources,
                                                 const int* sourceweights, int outdegree, const int* destinations,
                                                 const int* destweights, MPI_Info info, int reorder,
                                                 MPI_Comm* comm_dist_graph))
MESHMP_DECLARE(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int* sources, const int* degrees,
                                        const int* destinations, const int* weights, MPI_Info info, int reorder,
                                        MPI_Comm* comm_dist_graph))
MESHMP_DECLARE(int, Dist_graph_neighbors_count, (MPI_Comm comm, int* indegree, int* outdegree, int* weighted))
MESHMP_DECLARE(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int* sources, int* sourceweights,
                                           int maxoutdegree, int* destinations, int* destweights))
/* Neighbourhood collectives (MPI-3.1 §7.6) on Cartesian and graph
 * communicators, blocking: one block to and from each neighbour, in §7.6's
 * order (Cartesian: per dimension the -1 then the +1 neighbour; graph:
 * MPI_Graph_neighbors'). MPI_PROC_NULL neighbours keep their blocks and move
 * nothing. MPI_ERR_TOPOLOGY on a communicator with neither topology. */
MESHMP_DECLARE(int, Neighbor_allgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
MESHMP_DECLARE(int, Neighbor_allgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                                          MPI_Comm comm))
MESHMP_DECLARE(int, Neighbor_alltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
MESHMP_DECLARE(int, Neighbor_alltoallv, (const void* sendbuf, const int* sendcounts, const int* sdispls,
                                         MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                                         const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm))
MESHMP_DECLARE(int, Neighbor_alltoallw, (const void* sendbuf, const int* sendcounts, const MPI_Aint* sdispls,
                                         const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts,
                                         const MPI_Aint* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm))
/* MPI-3.1 §7.7: the nonblocking neighbourhood collectives. */
MESHMP_DECLARE(int, Ineighbor_allgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Request* request))
MESHMP_DECLARE(int, Ineighbor_allgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                           void* recvbuf, const int* recvcounts, const int* displs,
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
MESHMP_DECLARE(int, Ineighbor_alltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request* request))
MESHMP_DECLARE(int, Ineighbor_alltoallv, (const void* sendbuf, const int* sendcounts, const int* sdispls,
                                          MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                                          const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Request* request))
MESHMP_DECLARE(int, Ineighbor_alltoallw, (const void* sendbuf, const int* sendcounts, const MPI_Aint* sdispls,
                                          const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts,
                                          const MPI_Aint* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm,
                                          MPI_Request* request))

/* One-sided communication (MPI-3.1 chapter 11) is not provided. Its names
 * are here so that programs and benchmark suites whose shared code mentions
 * windows compile and link; every call fails with
 * MPI_ERR_UNSUPPORTED_OPERATION ("MPI_Win_create: one-sided communication
 * ... is not provided"), raised on the communicator's error handler where
 * the call takes one, else on MPI_COMM_WORLD's. No window ever exists: the
 * creating calls set *win to MPI_WIN_NULL before they fail. Fortran's
 * bindings run these (mpi11/fortran/refused.cc). */
typedef int MPI_Win;
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_WIN_BASE 8 /* window attributes (§11.2.6): keyvals no communicator has */
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2
/* MPI_Win and MPI_Comm are both int: the callback types are the
 * communicator's, and so are the predefined callbacks. */
typedef MPI_Copy_function MPI_Win_copy_attr_function;
typedef MPI_Delete_function MPI_Win_delete_attr_function;
typedef MPI_Handler_function MPI_Win_errhandler_function;
typedef MPI_Handler_function MPI_Win_errhandler_fn;
#define MPI_WIN_NULL_COPY_FN MPI_NULL_COPY_FN
#define MPI_WIN_DUP_FN MPI_DUP_FN
#define MPI_WIN_NULL_DELETE_FN MPI_NULL_DELETE_FN
MESHMP_DECLARE(int, Win_create, (void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win))
MESHMP_DECLARE(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                   MPI_Win* win))
MESHMP_DECLARE(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                          MPI_Win* win))
MESHMP_DECLARE(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win* win))
MESHMP_DECLARE(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr))
MESHMP_DECLARE(int, Win_attach, (MPI_Win win, void* base, MPI_Aint size))
MESHMP_DECLARE(int, Win_detach, (MPI_Win win, const void* base))
MESHMP_DECLARE(int, Win_free, (MPI_Win* win))
MESHMP_DECLARE(int, Win_get_group, (MPI_Win win, MPI_Group* group))
MESHMP_DECLARE(int, Win_set_info, (MPI_Win win, MPI_Info info))
MESHMP_DECLARE(int, Win_get_info, (MPI_Win win, MPI_Info* info_used))
MESHMP_DECLARE(int, Put, (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                          MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
MESHMP_DECLARE(int, Get, (void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                          MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
MESHMP_DECLARE(int, Accumulate, (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                 int target_rank, MPI_Aint target_disp, int target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
MESHMP_DECLARE(int, Get_accumulate, (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                     void* result_addr, int result_count, MPI_Datatype result_datatype,
                                     int target_rank, MPI_Aint target_disp, int target_count,
                                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
MESHMP_DECLARE(int, Fetch_and_op, (const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                                   int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win))
MESHMP_DECLARE(int, Compare_and_swap, (const void* origin_addr, const void* compare_addr, void* result_addr,
                                       MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))
MESHMP_DECLARE(int, Rput, (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                           MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                           MPI_Request* request))
MESHMP_DECLARE(int, Rget, (void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                           MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                           MPI_Request* request))
MESHMP_DECLARE(int, Raccumulate, (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                  int target_rank, MPI_Aint target_disp, int target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request))
MESHMP_DECLARE(int, Rget_accumulate, (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                      void* result_addr, int result_count, MPI_Datatype result_datatype,
                                      int target_rank, MPI_Aint target_disp, int target_count,
                                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request))
MESHMP_DECLARE(int, Win_fence, (int assert, MPI_Win win))
MESHMP_DECLARE(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
MESHMP_DECLARE(int, Win_complete, (MPI_Win win))
MESHMP_DECLARE(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
MESHMP_DECLARE(int, Win_wait, (MPI_Win win))
MESHMP_DECLARE(int, Win_test, (MPI_Win win, int* flag))
MESHMP_DECLARE(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
MESHMP_DECLARE(int, Win_lock_all, (int assert, MPI_Win win))
MESHMP_DECLARE(int, Win_unlock, (int rank, MPI_Win win))
MESHMP_DECLARE(int, Win_unlock_all, (MPI_Win win))
MESHMP_DECLARE(int, Win_flush, (int rank, MPI_Win win))
MESHMP_DECLARE(int, Win_flush_all, (MPI_Win win))
MESHMP_DECLARE(int, Win_flush_local, (int rank, MPI_Win win))
MESHMP_DECLARE(int, Win_flush_local_all, (MPI_Win win))
MESHMP_DECLARE(int, Win_sync, (MPI_Win win))
MESHMP_DECLARE(int, Win_create_keyval, (MPI_Win_copy_attr_function* win_copy_attr_fn,
                                        MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                                        void* extra_state))
MESHMP_DECLARE(int, Win_free_keyval, (int* win_keyval))
MESHMP_DECLARE(int, Win_set_attr, (MPI_Win win, int win_keyval, void* attribute_val))
MESHMP_DECLARE(int, Win_get_attr, (MPI_Win win, int win_keyval, void* attribute_val, int* flag))
MESHMP_DECLARE(int, Win_delete_attr, (MPI_Win win, int win_keyval))
MESHMP_DECLARE(int, Win_set_name, (MPI_Win win, const char* win_name))
MESHMP_DECLARE(int, Win_get_name, (MPI_Win win, char* win_name, int* resultlen))
MESHMP_DECLARE(int, Win_create_errhandler, (MPI_Win_errhandler_function* win_errhandler_fn,
                                            MPI_Errhandler* errhandler))
MESHMP_DECLARE(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
MESHMP_DECLARE(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler* errhandler))
MESHMP_DECLARE(int, Win_call_errhandler, (MPI_Win win, int errorcode))
MESHMP_DECLARE(MPI_Win, Win_f2c, (MPI_Fint win))
MESHMP_DECLARE(MPI_Fint, Win_c2f, (MPI_Win win))

/* Parallel I/O (MPI-3.1 chapter 13) is not provided either, and is present
 * for the same reason: a program whose I/O layer mentions files (a lattice
 * code's parallel configuration reader, say) links and runs the rest. Every
 * call fails with MPI_ERR_UNSUPPORTED_OPERATION ("MPI_File_open: parallel
 * I/O ... is not provided"): MPI_File_open sets *fh to MPI_FILE_NULL and
 * raises it on the communicator's error handler, the rest on
 * MPI_COMM_WORLD's -- not on MPI_FILE_NULL's, whose default
 * (MPI_ERRORS_RETURN, §13.7) would let a program that does not check codes
 * go on without its output. Fortran's bindings run these too. */
typedef int MPI_File;
#define MPI_FILE_NULL ((MPI_File)0)
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT (-54278278)
#define MPI_MAX_DATAREP_STRING 128
typedef MPI_Handler_function MPI_File_errhandler_function;
typedef MPI_Handler_function MPI_File_errhandler_fn;
typedef int(MPI_Datarep_conversion_function)(void* userbuf, MPI_Datatype datatype, int count, void* filebuf,
                                             MPI_Offset position, void* extra_state);
typedef int(MPI_Datarep_extent_function)(MPI_Datatype datatype, MPI_Aint* file_extent, void* extra_state);
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function*)0)
MESHMP_DECLARE(int, File_open, (MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh))
MESHMP_DECLARE(int, File_close, (MPI_File* fh))
MESHMP_DECLARE(int, File_delete, (const char* filename, MPI_Info info))
MESHMP_DECLARE(int, File_set_size, (MPI_File fh, MPI_Offset size))
MESHMP_DECLARE(int, File_preallocate, (MPI_File fh, MPI_Offset size))
MESHMP_DECLARE(int, File_get_size, (MPI_File fh, MPI_Offset* size))
MESHMP_DECLARE(int, File_get_group, (MPI_File fh, MPI_Group* group))
MESHMP_DECLARE(int, File_get_amode, (MPI_File fh, int* amode))
MESHMP_DECLARE(int, File_set_info, (MPI_File fh, MPI_Info info))
MESHMP_DECLARE(int, File_get_info, (MPI_File fh, MPI_Info* info_used))
MESHMP_DECLARE(int, File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                                    const char* datarep, MPI_Info info))
MESHMP_DECLARE(int, File_get_view, (MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype,
                                    char* datarep))
MESHMP_DECLARE(int, File_read_at, (MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                   MPI_Status* status))
MESHMP_DECLARE(int, File_read_at_all, (MPI_File fh, MPI_Offset offset, void* buf, int count,
                                       MPI_Datatype datatype, MPI_Status* status))
MESHMP_DECLARE(int, File_write_at, (MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                    MPI_Datatype datatype, MPI_Status* status))
MESHMP_DECLARE(int, File_write_at_all, (MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                        MPI_Datatype datatype, MPI_Status* status))
MESHMP_DECLARE(int, File_iread_at, (MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                    MPI_Request* request))
MESHMP_DECLARE(int, File_iread_at_all, (MPI_File fh, MPI_Offset offset, void* buf, int count,
                                        MPI_Datatype datatype, MPI_Request* request))
MESHMP_DECLARE(int, File_iwrite_at, (MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                     MPI_Datatype datatype, MPI_Request* request))
MESHMP_DECLARE(int, File_iwrite_at_all, (MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                         MPI_Datatype datatype, MPI_Request* request))
MESHMP_DECLARE(int, File_read, (MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status))
MESHMP_DECLARE(int, File_read_all, (MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status))
MESHMP_DECLARE(int, File_write, (MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                 MPI_Status* status))
MESHMP_DECLARE(int, File_write_all, (MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                     MPI_Status* status))
MESHMP_DECLARE(int, File_iread, (MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request))
MESHMP_DECLARE(int, File_iread_all, (MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                     MPI_Request* request))
MESHMP_DECLARE(int, File_iwrite, (MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                  MPI_Request* request))
MESHMP_DECLARE(int, File_iwrite_all, (MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                      MPI_Request* request))
MESHMP_DECLARE(int, File_seek, (MPI_File fh, MPI_Offset offset, int whence))
MESHMP_DECLARE(int, File_get_position, (MPI_File fh, MPI_Offset* offset))
MESHMP_DECLARE(int, File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset* disp))
MESHMP_DECLARE(int, File_read_shared, (MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                       MPI_Status* status))
MESHMP_DECLARE(int, File_write_shared, (MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                        MPI_Status* status))
MESHMP_DECLARE(int, File_iread_shared, (MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                        MPI_Request* request))
MESHMP_DECLARE(int, File_iwrite_shared, (MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                         MPI_Request* request))
MESHMP_DECLARE(int, File_read_ordered, (MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                        MPI_Status* status))
MESHMP_DECLARE(int, File_write_ordered, (MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                         MPI_Status* status))
MESHMP_DECLARE(int, File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
MESHMP_DECLARE(int, File_get_position_shared, (MPI_File fh, MPI_Offset* offset))
MESHMP_DECLARE(int, File_read_at_all_begin, (MPI_File fh, MPI_Offset offset, void* buf, int count,
                                             MPI_Datatype datatype))
MESHMP_DECLARE(int, File_read_at_all_end, (MPI_File fh, void* buf, MPI_Status* status))
MESHMP_DECLARE(int, File_write_at_all_begin, (MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                              MPI_Datatype datatype))
MESHMP_DECLARE(int, File_write_at_all_end, (MPI_File fh, const void* buf, MPI_Status* status))
MESHMP_DECLARE(int, File_read_all_begin, (MPI_File fh, void* buf, int count, MPI_Datatype datatype))
MESHMP_DECLARE(int, File_read_all_end, (MPI_File fh, void* buf, MPI_Status* status))
MESHMP_DECLARE(int, File_write_all_begin, (MPI_File fh, const void* buf, int count, MPI_Datatype datatype))
MESHMP_DECLARE(int, File_write_all_end, (MPI_File fh, const void* buf, MPI_Status* status))
MESHMP_DECLARE(int, File_read_ordered_begin, (MPI_File fh, void* buf, int count, MPI_Datatype datatype))
MESHMP_DECLARE(int, File_read_ordered_end, (MPI_File fh, void* buf, MPI_Status* status))
MESHMP_DECLARE(int, File_write_ordered_begin, (MPI_File fh, const void* buf, int count, MPI_Datatype datatype))
MESHMP_DECLARE(int, File_write_ordered_end, (MPI_File fh, const void* buf, MPI_Status* status))
MESHMP_DECLARE(int, File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent))
MESHMP_DECLARE(int, Register_datarep, (const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
                                       MPI_Datarep_conversion_function* write_conversion_fn,
                                       MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state))
MESHMP_DECLARE(int, File_set_atomicity, (MPI_File fh, int flag))
MESHMP_DECLARE(int, File_get_atomicity, (MPI_File fh, int* flag))
MESHMP_DECLARE(int, File_sync, (MPI_File fh))
MESHMP_DECLARE(int, File_create_errhandler, (MPI_File_errhandler_function* file_errhandler_fn,
                                             MPI_Errhandler* errhandler))
MESHMP_DECLARE(int, File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler))
MESHMP_DECLARE(int, File_get_errhandler, (MPI_File file, MPI_Errhandler* errhandler))
MESHMP_DECLARE(int, File_call_errhandler, (MPI_File fh, int errorcode))
MESHMP_DECLARE(MPI_File, File_f2c, (MPI_Fint file))
MESHMP_DECLARE(MPI_Fint, File_c2f, (MPI_File file))

#undef MESHMP_DECLARE

#ifdef __cplusplus
}
#endif

#endif /* MESHMP_MPI_H */
