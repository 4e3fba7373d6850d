#include "protocol/messages.hpp"

namespace gridpeer::protocol {

std::size_t wire_size(const Message& message) {
  // 16-byte frame header (segment table) + 8-byte union tag + fields in words.
  constexpr std::size_t kFrame = 24;
  constexpr std::size_t kWord = 8;
  struct Sizer {
    std::size_t operator()(const AttQuery&) const { return kFrame + 8 * kWord; }
    std::size_t operator()(const AttReply&) const { return kFrame + 5 * kWord; }
    std::size_t operator()(const Volunteer&) const { return kFrame + kWord; }
    std::size_t operator()(const JobOffer&) const { return kFrame + 10 * kWord; }
    std::size_t operator()(const PlaceRequest&) const { return kFrame + 7 * kWord; }
    std::size_t operator()(const Placement&) const { return kFrame + 2 * kWord; }
    std::size_t operator()(const JobAccept&) const { return kFrame + 2 * kWord; }
    std::size_t operator()(const JobCommit&) const { return kFrame + 2 * kWord; }
    std::size_t operator()(const JobReject&) const { return kFrame + 3 * kWord; }
  };
  return std::visit(Sizer{}, message);
}

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
  }
  return "unknown reason";
}

}  // namespace gridpeer::protocol
