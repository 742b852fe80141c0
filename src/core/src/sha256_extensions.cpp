#include "sha256_blocks.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

namespace bevenv::core::detail {
namespace {

bool cpu_has_extensions() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
  const bool ssse3 = (c & (1u << 9)) != 0;
  const bool sse41 = (c & (1u << 19)) != 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  const bool sha = (b & (1u << 29)) != 0;
  return ssse3 && sse41 && sha;
}

#define BEVENV_SHA_TARGET __attribute__((target("sha,ssse3,sse4.1")))

// The schedule's next four words from the four before: W[t] = s1(W[t-2]) + W[t-7] +
// s0(W[t-15]) + W[t-16], with `oldest` holding W[t-16..t-13] and `newest` W[t-4..t-1].
BEVENV_SHA_TARGET inline __m128i next_words(__m128i oldest, __m128i older, __m128i newer,
                                            __m128i newest) {
  const __m128i with_s0 = _mm_sha256msg1_epu32(oldest, older);
  const __m128i with_w7 = _mm_add_epi32(with_s0, _mm_alignr_epi8(newest, newer, 4));
  return _mm_sha256msg2_epu32(with_w7, newest);
}

// Four rounds: the instruction does two, on the low half of the words and constants.
BEVENV_SHA_TARGET inline void four_rounds(__m128i& abef, __m128i& cdgh, __m128i words, int group) {
  const __m128i constants = _mm_load_si128(reinterpret_cast<const __m128i*>(
      &kSha256RoundConstants[static_cast<std::size_t>(4 * group)]));
  const __m128i sums = _mm_add_epi32(words, constants);
  cdgh = _mm_sha256rnds2_epu32(cdgh, abef, sums);
  abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(sums, 0x0e));
}

}  // namespace

bool sha256_extensions_available() {
  static const bool available = cpu_has_extensions();
  return available;
}

BEVENV_SHA_TARGET void sha256_blocks_extensions(Sha256State& state, const std::uint8_t* data,
                                                std::size_t blocks) {
  // The state as the instructions hold it: A, B, E, F in one register, C, D, G, H in the other.
  const __m128i abcd = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[0]));
  const __m128i efgh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[4]));
  const __m128i badc = _mm_shuffle_epi32(abcd, 0xb1);
  const __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1b);
  __m128i abef = _mm_alignr_epi8(badc, hgfe, 8);
  __m128i cdgh = _mm_blend_epi16(hgfe, badc, 0xf0);
  // Message words are big-endian.
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  for (; blocks > 0; --blocks, data += 64) {
    const __m128i abef_before = abef;
    const __m128i cdgh_before = cdgh;
    __m128i w[4];
    for (int i = 0; i < 4; ++i) {
      w[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * i)),
                              byte_swap);
      four_rounds(abef, cdgh, w[i], i);
    }
    for (int group = 4; group < 16; ++group) {
      __m128i& slot = w[group % 4];  // W[t-16..t-13] until overwritten
      slot = next_words(slot, w[(group + 1) % 4], w[(group + 2) % 4], w[(group + 3) % 4]);
      four_rounds(abef, cdgh, slot, group);
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1b);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[0]), _mm_blend_epi16(feba, dchg, 0xf0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[4]), _mm_alignr_epi8(dchg, feba, 8));
}

}  // namespace bevenv::core::detail

#else

namespace bevenv::core::detail {

bool sha256_extensions_available() { return false; }
void sha256_blocks_extensions(Sha256State& state, const std::uint8_t* data, std::size_t blocks) {
  sha256_blocks_portable(state, data, blocks);
}

}  // namespace bevenv::core::detail

#endif
