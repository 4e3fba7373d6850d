// libFuzzer: a byte stream read the way peer/transport/Connection reads a socket:
// the frame header first (frame_size), then whole frames (decode). Neither
// may crash, hang or overrun; and a frame that decodes re-encodes to a frame
// that decodes to the same message.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "protocol/codec.hpp"

using namespace gridpeer::protocol;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> rest(data, size);
  FrameNeed need{8, false};
  while (rest.size() >= need.bytes) {
    const auto measured = frame_size(rest.first(need.bytes));
    if (std::holds_alternative<DecodeError>(measured)) return 0;  // the connection closes here
    const FrameNeed next = std::get<FrameNeed>(measured);
    if (!next.whole) {
      if (next.bytes <= need.bytes) std::abort();  // must ask for more, or it would loop forever
      need = next;
      continue;
    }
    if (next.bytes > rest.size()) return 0;  // truncated: wait for more bytes
    const auto decoded = decode(rest.first(next.bytes));
    if (const auto* message = std::get_if<WireMessage>(&decoded)) {
      const Frame again = encode(*message);
      const auto back = decode(again);
      if (!std::holds_alternative<WireMessage>(back)) std::abort();
      if (std::get<WireMessage>(back).index() != message->index()) std::abort();
    }
    rest = rest.subspan(next.bytes);
    need = {8, false};
  }
  return 0;
}
