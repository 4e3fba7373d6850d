#include "protocol/wire.hpp"

#include <type_traits>

namespace gridpeer::protocol {

const char* message_name(const WireMessage& message) {
  static constexpr const char* kNames[] = {
      "hello",     "attQuery",      "attReply",  "volunteer",      "jobOffer",  "jobAccept", "jobReject",
      "jobCommit", "transferBegin", "dataChunk", "completion",     "heartbeat", "error",     "submit",
      "submitAck", "statusRequest", "status",    "resultsRequest", "results",   "drain",     "shutdown",
      "ack",       "placeRequest",  "placement", "submitBag",      "undrain"};
  static_assert(std::size(kNames) == std::variant_size_v<WireMessage>);
  return kNames[message.index()];
}

const char* to_string(Error::Code code) {
  switch (code) {
    case Error::Code::malformed:
      return "malformed";
    case Error::Code::version_mismatch:
      return "version mismatch";
    case Error::Code::unknown_message:
      return "unknown message";
    case Error::Code::frame_too_large:
      return "frame too large";
    case Error::Code::unknown_peer:
      return "unknown peer";
    case Error::Code::config_mismatch:
      return "configuration mismatch";
    case Error::Code::not_accepted:
      return "not accepted";
  }
  return "error";
}

}  // namespace gridpeer::protocol
