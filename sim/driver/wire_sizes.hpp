#pragma once
// What a core message costs on a link in gridsim: exactly the bytes the
// daemon would send, encode(to_wire(message)).size(). Messages of one size
// class encode to one size (protocol::size_class, tested in codec_test), so
// each class is encoded once per run rather than at every message.
#include <cstddef>
#include <vector>

#include "protocol/codec.hpp"

namespace gridpeer::sim {

class WireSizes {
 public:
  std::size_t of(const protocol::Message& message) {
    const std::uint32_t size_class = protocol::size_class(message);
    if (size_class >= sizes_.size()) sizes_.resize(size_class + 1, 0);
    std::size_t& size = sizes_[size_class];
    if (size == 0) size = protocol::encode(protocol::to_wire(message)).size();
    return size;
  }

 private:
  std::vector<std::size_t> sizes_;  // by size class; 0: not measured yet
};

}  // namespace gridpeer::sim
