#include "peer/model/index_permutation.hpp"

#include <stdexcept>

namespace gridpeer {

IndexPermutation::IndexPermutation(std::uint64_t key, unsigned half_bits)
    : key_(key), half_bits_(half_bits), half_mask_((1U << half_bits) - 1) {
  if (half_bits < 1 || half_bits > 16) throw std::invalid_argument("index permutation: half_bits must be 1 to 16");
}

IndexPermutation IndexPermutation::covering(std::uint64_t key, std::uint64_t count) {
  unsigned half_bits = 1;
  while (half_bits < 16 && (std::uint64_t{1} << (2 * half_bits)) < count) ++half_bits;
  return {key, half_bits};
}

std::uint32_t IndexPermutation::round(unsigned number, std::uint32_t half) const {
  // splitmix64's finaliser of the key, the round and the half.
  std::uint64_t z = key_ + 0x9e37'79b9'7f4a'7c15ULL * (number + 1) + half;
  z = (z ^ (z >> 30)) * 0xbf58'476d'1ce4'e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d0'49bb'1331'11ebULL;
  return static_cast<std::uint32_t>(z ^ (z >> 31)) & half_mask_;
}

std::uint32_t IndexPermutation::place_of(std::uint32_t index) const {
  std::uint32_t left = (index >> half_bits_) & half_mask_;
  std::uint32_t right = index & half_mask_;
  for (unsigned number = 0; number < 4; ++number) {
    const std::uint32_t next = left ^ round(number, right);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

std::uint32_t IndexPermutation::index_at(std::uint32_t place) const {
  std::uint32_t left = (place >> half_bits_) & half_mask_;
  std::uint32_t right = place & half_mask_;
  for (unsigned number = 4; number-- > 0;) {
    const std::uint32_t previous = right ^ round(number, left);
    right = left;
    left = previous;
  }
  return (left << half_bits_) | right;
}

}  // namespace gridpeer
