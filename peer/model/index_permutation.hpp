#pragma once
// A seeded permutation of the indices 0 .. 2^(2h) - 1: a four-round Feistel
// network over two h-bit halves. Being a permutation with an inverse, an
// order can be walked from its first place (index_at) or an index placed in
// it (place_of) without holding the order: random:K partner sets and the
// membership's probe order draw from it without a list of every member.
#include <cstdint>

namespace gridpeer {

class IndexPermutation {
 public:
  /// `half_bits` from 1 to 16: the domain is 2^(2 * half_bits).
  IndexPermutation(std::uint64_t key, unsigned half_bits);
  /// The smallest permutation whose domain holds `count` indices.
  static IndexPermutation covering(std::uint64_t key, std::uint64_t count);

  [[nodiscard]] std::uint32_t place_of(std::uint32_t index) const;
  [[nodiscard]] std::uint32_t index_at(std::uint32_t place) const;
  [[nodiscard]] std::uint64_t size() const { return std::uint64_t{1} << (2 * half_bits_); }

 private:
  [[nodiscard]] std::uint32_t round(unsigned number, std::uint32_t half) const;

  std::uint64_t key_;
  unsigned half_bits_;
  std::uint32_t half_mask_;
};

}  // namespace gridpeer
