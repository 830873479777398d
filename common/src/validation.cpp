#include "hip_lessons/validation.hpp"

#include <algorithm>
#include <cmath>
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

namespace {

// SplitMix64's output function (Steele, Lea and Flood; Vigna's reference splitmix64.c): element
// i of the sequence for seed s is mix(s + (i + 1) * golden gamma), so no state is carried.
constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;

std::uint64_t splitmix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

void fill_uniform(std::vector<float>& values, std::uint64_t seed, float lo, float hi) {
  // Not std::uniform_real_distribution: the standard leaves its algorithm to each library, so
  // a seed would give other inputs with another standard library, and before C++26 it may
  // round up to hi itself (std::generate_canonical could return 1.0 until P0952R2 specified
  // it anew). 24 random bits are exactly a float in [0, 1); lo + span * u can still round up
  // to hi, which is then replaced by the float just below it.
  const float span = hi - lo;
  const float below_hi = std::nextafter(hi, lo);
  std::uint64_t state = seed;
  for (float& v : values) {
    state += kGamma;
    const float u = static_cast<float>(splitmix64(state) >> 40) * 0x1p-24f;
    v = std::min(lo + span * u, below_hi);
  }
}

void fill_random_words(std::vector<std::uint32_t>& words, std::uint64_t seed) {
  std::uint64_t state = seed;
  for (std::uint32_t& w : words) {
    state += kGamma;
    w = static_cast<std::uint32_t>(splitmix64(state) >> 32);
  }
}

std::string describe(const std::optional<Mismatch>& mismatch, std::size_t count) {
  if (!mismatch) return std::to_string(count) + " elements match";
  std::ostringstream text;
  text.precision(9);
  text << "element " << mismatch->index << " of " << count << ": expected " << mismatch->expected
       << ", got " << mismatch->actual << " (" << mismatch->mismatches
       << (mismatch->mismatches == 1 ? " element differs)" : " elements differ)");
  return text.str();
}

}  // namespace hip_lessons
