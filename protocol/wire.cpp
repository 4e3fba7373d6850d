#include "protocol/wire.hpp"

#include "peer/model/enum_names.hpp"

#include <type_traits>

namespace gridpeer::protocol {

const char* message_name(const WireMessage& message) {
  static constexpr const char* kNames[] = {
      "hello",         "attQuery",      "attReply",    "volunteer",      "jobOffer",    "jobAccept",  "jobReject",
      "jobCommit",     "transferBegin", "dataChunk",   "completion",     "heartbeat",   "error",      "submit",
      "submitAck",     "statusRequest", "status",      "resultsRequest", "results",     "drain",      "shutdown",
      "ack",           "placeRequest",  "placement",   "submitBag",      "undrain",     "memberPing", "memberAck",
      "memberPingReq", "memberSync",    "partPrepare", "partReport",     "partDecision"};
  static_assert(std::size(kNames) == std::variant_size_v<WireMessage>);
  return kNames[message.index()];
}

namespace {
constexpr EnumNames<Error::Code, 7> kCodeNames{{{
    {Error::Code::malformed, "malformed"},
    {Error::Code::version_mismatch, "version mismatch"},
    {Error::Code::unknown_message, "unknown message"},
    {Error::Code::frame_too_large, "frame too large"},
    {Error::Code::unknown_peer, "unknown peer"},
    {Error::Code::config_mismatch, "configuration mismatch"},
    {Error::Code::not_accepted, "not accepted"},
}}};
}  // namespace

const char* to_string(Error::Code code) {
  // The names are string literals: their views end in a NUL.
  return kCodeNames.name(code).data();
}

}  // namespace gridpeer::protocol
