// What QMP needs from meshmp's MPI so that one program can use both
// (issue 6; QMP 2.5 QMP_get_hidden_comm). A C++ interface between the two
// top layers: neither reaches into the other's internals.
#pragma once

#include <cstdint>

#include "collectives/collectives.h"

namespace meshmp::mpi {

/// QMP_init_msg_passing's part: starts MPI too when the program has not
/// (one init serves both). A later MPI_Init by the program then succeeds and
/// takes MPI over. Returns false with `*why` set if MPI cannot start.
bool start_for_qmp(const char** why);
/// QMP_finalize_msg_passing's part: finalizes MPI if QMP started it and the
/// program never called MPI_Init itself.
void finish_for_qmp();
/// A new MPI communicator over a QMP communicator's members, in the same
/// rank order, for QMP_get_hidden_comm. Purely local: its contexts are the
/// pair `hidden_context` (and the next id), which the QMP communicator
/// agreed on with its own (mesh/context_ids.h) and still owns, so its
/// traffic meets neither QMP's nor other MPI communicators'. Returns
/// MPI_COMM_NULL (0) if MPI is not running.
int comm_for_qmp(const collectives::Group& group, std::uint32_t hidden_context);
/// Frees a communicator from comm_for_qmp (the QMP communicator is freed).
void release_comm_for_qmp(int comm);

}  // namespace meshmp::mpi
