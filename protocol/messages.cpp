#include "protocol/messages.hpp"

namespace gridpeer::protocol {

const char* describe(RejectReason reason) {
  switch (reason) {
    case RejectReason::cannot_fit:
      return "needs more CPUs than the server has";
    case RejectReason::draining:
      return "the server is draining";
    case RejectReason::not_origin:
      return "offered by a peer that is not the job's origin";
    case RejectReason::id_in_use:
      return "another job has this id here";
    case RejectReason::unknown_offer:
      return "no offer of this job is open here";
    case RejectReason::out_of_range:
      return "the job id is not in its origin's range (origin << 40)";
    case RejectReason::reservations:
      return "it would delay a reservation of the server's own users (fair sharing)";
  }
  return "unknown reason";
}

}  // namespace gridpeer::protocol
