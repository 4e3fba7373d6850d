// libFuzzer: one frame straight into the message decoder. A decoded message
// is canonical after one trip: encode(decode(encode(m))) == encode(m).
#include <cstdint>
#include <cstdlib>
#include <span>

#include "protocol/codec.hpp"

using namespace gridpeer::protocol;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto decoded = decode(std::span<const std::uint8_t>(data, size));
  const auto* message = std::get_if<WireMessage>(&decoded);
  if (message == nullptr) {
    if (std::get<DecodeError>(decoded).detail.empty()) std::abort();  // an error must say why
    return 0;
  }
  const Frame first = encode(*message);
  const auto again = decode(first);
  if (!std::holds_alternative<WireMessage>(again)) std::abort();
  if (encode(std::get<WireMessage>(again)) != first) std::abort();
  return 0;
}
