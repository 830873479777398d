#include "hip_lessons/validation.hpp"

#include <random>
#include <sstream>

namespace hip_lessons {

std::uint64_t random_seed() {
  std::random_device device;
  // Two draws: random_device yields 32 bits at a time.
  // 63 bits, so every printed seed is accepted back by --seed (a signed 64-bit count).
  const std::uint64_t bits = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  return bits & 0x7FFFFFFFFFFFFFFFull;
}

void fill_uniform(std::vector<float>& values, std::uint64_t seed, float lo, float hi) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> distribution(lo, hi);
  for (float& v : values) v = distribution(generator);
}

std::string describe(const Mismatch& mismatch, std::size_t count) {
  std::ostringstream text;
  text.precision(9);
  text << "element " << mismatch.index << " of " << count << ": expected " << mismatch.expected
       << ", got " << mismatch.actual << " (" << mismatch.mismatches << " element"
       << (mismatch.mismatches == 1 ? "" : "s") << " differ)";
  return text.str();
}

}  // namespace hip_lessons
