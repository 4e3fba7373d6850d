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
    std::size_t operator()(const JobTransfer&) const { return kFrame + 10 * kWord; }
    std::size_t operator()(const PlaceRequest&) const { return kFrame + 7 * kWord; }
    std::size_t operator()(const Placement&) const { return kFrame + 2 * kWord; }
  };
  return std::visit(Sizer{}, message);
}

}  // namespace gridpeer::protocol
