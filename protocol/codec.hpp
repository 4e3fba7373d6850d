#pragma once
// Cap'n Proto encoding of the wire messages. A frame is one Envelope in
// Cap'n Proto's standard stream framing (segment table, then segments), so
// any Cap'n Proto tool can read it (`capnp decode protocol/gridpeer.capnp
// Envelope`). Decoding never throws: a bad frame is a DecodeError naming
// what was wrong.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "protocol/wire.hpp"

namespace gridpeer::protocol {

struct CodecLimits {
  std::size_t max_frame_bytes = 4 << 20;  ///< a data chunk (1 MiB) with room to spare
  std::uint32_t max_segments = 64;
  std::uint64_t traversal_limit_words = 1 << 20;  ///< Cap'n Proto's read amplification guard
  int nesting_limit = 16;
};

struct DecodeError {
  Error::Code code = Error::Code::malformed;
  std::string detail;
};

using Frame = std::vector<std::uint8_t>;

Frame encode(const WireMessage& message);

/// Core messages of one size class encode to the same number of bytes,
/// whatever their field values (tests/protocol/codec_test.cpp checks it): the
/// class is the message's type and, for a reject, its reason (whose text it
/// carries), for an ATT reply whether it offers a part (co-allocation). A simulator can measure each class's encode()
/// once.
std::uint32_t size_class(const Message& message);

/// What a reader needs next: with `whole`, the frame's full size; else how
/// many leading bytes it must have to learn it (the segment table's size).
struct FrameNeed {
  std::size_t bytes = 8;
  bool whole = false;
};

/// From the first bytes of a frame (any number, 8 to start with). A segment
/// table that promises too many segments or bytes is an error.
std::variant<FrameNeed, DecodeError> frame_size(std::span<const std::uint8_t> prefix, const CodecLimits& limits = {});

/// One whole frame (as frame_size measured it) to a message.
std::variant<WireMessage, DecodeError> decode(std::span<const std::uint8_t> frame, const CodecLimits& limits = {});

}  // namespace gridpeer::protocol
