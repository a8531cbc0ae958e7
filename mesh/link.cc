#include "mesh/link.h"

namespace meshmp::mesh {

const char* put_status_name(PutStatus s) {
  switch (s) {
    case PutStatus::kDone: return "done";
    case PutStatus::kInProgress: return "in progress";
    case PutStatus::kNoResource: return "no resource";
    case PutStatus::kUnsupported: return "unsupported";
    case PutStatus::kBadRemote: return "remote address or key not registered by the peer";
    case PutStatus::kBadLocal: return "bytes could not be moved";
    case PutStatus::kPeerGone: return "peer gone";
  }
  return "?";
}

}  // namespace meshmp::mesh
