// The part of a segment's or FIFO's name in /dev/shm that no one outside
// the job can predict (issue 29): 128 bits of HMAC-SHA-512-256 under the
// job's secret (Bootstrap::secret, learnt only through the bootstrap) of the
// rank's random token and the rest of the name. /dev/shm is listed by every
// user, but seeing one name (rank 0's control segment, an arena) gives
// nothing from which another -- a link not yet made, the next arena -- can
// be worked out and squatted.
#pragma once

#include <string>

namespace meshmp::mesh {

/// 32 hex digits naming the segment `what` ("c3", "l0-1-0", "m2-5", "w1") of
/// the rank whose token is `token`; `token` itself where `secret` is empty
/// (providers opened without a launcher, in unit tests).
std::string shm_name_tag(const std::string& secret, const std::string& token, const std::string& what);

}  // namespace meshmp::mesh
