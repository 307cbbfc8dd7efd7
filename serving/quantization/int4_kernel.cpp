// Few-row products with int4 weights in torch's packed int4 layout, for decode on x86 CPUs.
//
// torch's `_weight_int4pack_mm_for_cpu` reaches about 4 GB/s of packed weights on a 2-core AVX2
// host, which makes the 4-bit build decode barely faster than bf16. This kernel reads the same
// packed tensor and the same [K / group, N, 2] scale/zero table, so the prefill path and the
// embedding lookup are unchanged and no weight is stored twice. torch packs for the instruction
// set it runs with, and this file is compiled for the matching one (the build chooses):
//   AVX2      blocks of 32 output rows stored as [K, 16] bytes;
//   AVX-512BW blocks of 64 output rows stored as [K, 32] bytes (also the VNNI build's layout);
// byte j of a block's column holds row j in its low nibble and row j + rows / 2 in its high one.
//
// x is rounded to 16-bit integers (at most 32639 in magnitude), one scale per group, finer than
// the bf16 it arrives in, and each integer is split into two signed bytes, x_q = 256 high + low.
// Two adjacent input columns are adjacent in a block; one byte shuffle pairs them row by row, so
// that vpmaddubsw multiplies the nibbles of both columns for half a block's rows by a pair of x's
// bytes at once. Sums run in 16 bits for 8 column pairs (at most 8 * 2 * 15 * 128 = 30720), then
// widen to 32 bits as low + 256 high; the group's scales and offsets are applied once per group:
//   y[r] = sum_g scale[g, r] xscale[g] sum_{k in g} q[k, r] xq[k]
//          + (zero[g, r] - 8 scale[g, r]) sum_{k in g} x[k]
// (the 32-bit sums cannot overflow: 15 * 32639 * group_size < 2^31 for groups up to 4096).
// Built with AVX512-VNNI and VBMI (Ice Lake and later Intel cores, AMD Zen 4 and later), four
// columns are regrouped instead and multiplied with vpdpbusd straight into 32-bit sums; the
// integer sums are the same, so the result is bit for bit the AVX-512BW build's.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <immintrin.h>
#include <torch/library.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>
#include <vector>

#ifndef PHONE_AGENT_INT4_OPS
#error "build with -DPHONE_AGENT_INT4_OPS=<op namespace>"
#endif

// Work on [0, count) in chunks of `grain`, handed out to the threads as they ask for them rather
// than split in equal parts up front: where another process takes a core for a while (on two
// cores vLLM's API server does, every token), the other thread carries on with the rest instead
// of waiting for it at the end. The namespace is the build's own (builds load side by side).
namespace PHONE_AGENT_INT4_OPS {
__attribute__((visibility("hidden"))) void parallel_chunks(
    int64_t count, int64_t grain, const std::function<void(int64_t, int64_t)>& body) {
  const int64_t chunks = (count + grain - 1) / grain;
  std::atomic<int64_t> next{0};
  const int64_t threads = std::min<int64_t>(at::get_num_threads(), chunks);
  at::parallel_for(0, threads, 1, [&](int64_t, int64_t) {
    for (int64_t chunk = next++; chunk < chunks; chunk = next++)
      body(chunk * grain, std::min(count, (chunk + 1) * grain));
  });
}
}  // namespace PHONE_AGENT_INT4_OPS

#if defined(__AVX512BF16__)
#define PHONE_AGENT_PANELS
// Many rows on panels dequantized into L2 (int4_panels.cpp).
namespace PHONE_AGENT_INT4_OPS {
at::Tensor panel_mm(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scale_zero,
                    int64_t group_size);
}  // namespace PHONE_AGENT_INT4_OPS
#endif

namespace {

#if defined(__AVX512BW__)
constexpr int64_t kBlockRows = 64;
#else
constexpr int64_t kBlockRows = 32;
#endif
constexpr int64_t kBlockBytes = kBlockRows / 2;
// Rows of x that share one pass over the weights: with two, each row's 16-bit and 32-bit sums
// still fit AVX2's 16 vector registers (four rows spilled and ran 12% slower at 8 rows). The
// AVX-512 build keeps two; more rows there, with 32 registers, are untried.
constexpr int kMaxTileRows = 2;
// 127 * 256 + 127: the largest x_q whose high byte, (x_q + 128) >> 8, still fits a signed byte.
constexpr int kActivationLevels = 32639;
// Column pairs summed in 16 bits before widening: each adds at most 2 * 15 * 128 = 3840.
constexpr int64_t kPairsPerWidening = 8;

// The few vector operations the block product needs, at the build's width. A vector of
// 16-bit lanes holds half a block's rows; one of 32-bit or fp32 lanes a quarter.
#if defined(__AVX512BW__)
using Ints = __m512i;
using Floats = __m512;

inline Ints zero_ints() { return _mm512_setzero_si512(); }
inline Floats zero_floats() { return _mm512_setzero_ps(); }
inline Ints broadcast_pair(int16_t pair) { return _mm512_set1_epi16(pair); }
inline Floats broadcast(float value) { return _mm512_set1_ps(value); }
inline Ints add_16(Ints a, Ints b) { return _mm512_add_epi16(a, b); }
inline Ints add_32(Ints a, Ints b) { return _mm512_add_epi32(a, b); }
inline Ints add_64(Ints a, Ints b) { return _mm512_add_epi64(a, b); }
inline Ints multiply_bytes(Ints w, Ints x) { return _mm512_maddubs_epi16(w, x); }
inline Ints low_nibbles(Ints v) { return _mm512_and_si512(v, _mm512_set1_epi8(0x0F)); }
inline Ints high_nibbles(Ints v) { return low_nibbles(_mm512_srli_epi16(v, 4)); }
// (1, 256) per pair of 16-bit lanes: low byte sum + 256 high byte sum, in 32 bits.
inline Ints join_bytes(Ints pairs) {
  return _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x01000001));
}
inline Ints interleave_low(Ints a, Ints b) { return _mm512_unpacklo_epi16(a, b); }
inline Ints interleave_high(Ints a, Ints b) { return _mm512_unpackhi_epi16(a, b); }
inline Floats to_floats(Ints v) { return _mm512_cvtepi32_ps(v); }
inline Floats multiply(Floats a, Floats b) { return _mm512_mul_ps(a, b); }
inline Floats multiply_add(Floats a, Floats b, Floats c) { return _mm512_fmadd_ps(a, b, c); }
inline Floats load_floats(const float* values) { return _mm512_loadu_ps(values); }
inline void store_floats(float* out, Floats v) { _mm512_storeu_ps(out, v); }
// 16 floats as bf16, rounded to nearest even (finite values).
inline void store_floats(at::BFloat16* out, Floats v) {
  const __m512i bits = _mm512_castps_si512(v);
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
  const __m512i rounded =
      _mm512_add_epi32(bits, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7FFF)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                      _mm512_cvtepi32_epi16(_mm512_srli_epi32(rounded, 16)));
}

// Columns k and k + 1 (64 adjacent bytes) with byte pair j holding row j (low nibbles) and row
// j + 32 (high nibbles) of both columns. The load has 8 bytes to a 64-bit lane, lanes 0-3 column
// k and 4-7 column k + 1; reordered (0, 4, 1, 5, ...), each 128-bit lane holds the same 8 rows
// of both columns, which the byte shuffle then pairs as (k, k + 1).
inline Ints paired_columns(const uint8_t* columns) {
  const __m512i loaded = _mm512_loadu_si512(columns);
  const __m512i spread =
      _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7), loaded);
  return _mm512_shuffle_epi8(spread, _mm512_broadcast_i32x4(_mm_setr_epi8(
                                         0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15)));
}

// The 64 rows of one input column of a block (its 32 bytes) as four vectors of fp32 q values,
// rows in order: 0-15, 16-31 (low nibbles), 32-47, 48-63 (high nibbles).
inline void column_values(const uint8_t* bytes, Floats q[4]) {
  const __m256i loaded = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes));
  const __m256i nibbles[2] = {
      _mm256_and_si256(loaded, _mm256_set1_epi8(15)),
      _mm256_and_si256(_mm256_srli_epi16(loaded, 4), _mm256_set1_epi8(15))};
  for (int h = 0; h < 2; ++h) {
    q[2 * h] = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm256_castsi256_si128(nibbles[h])));
    q[2 * h + 1] =
        _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm256_extracti128_si256(nibbles[h], 1)));
  }
}

// Widening leaves rows 0-3, 8-11, 16-19, 24-27 in `low` and 4-7, 12-15, ... in `high` (of the
// 32 a 16-bit vector held); these are rows 0-15 and 16-31 in order.
inline void rows_in_order(Ints low, Ints high, Ints rows[2]) {
  rows[0] = _mm512_permutex2var_epi32(
      low, _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23), high);
  rows[1] = _mm512_permutex2var_epi32(
      low, _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31), high);
}

// Sixteen (scale, zero) pairs as two fp32 vectors, offset = zero - 8 scale. bf16 pairs: the
// scale is the low half of each 32-bit lane, the zero the high half.
inline void load_scale_offset(const at::BFloat16* pairs, Floats& scale, Floats& offset) {
  const __m512i both = _mm512_loadu_si512(pairs);
  scale = _mm512_castsi512_ps(_mm512_slli_epi32(both, 16));
  const __m512 zero = _mm512_castsi512_ps(_mm512_and_si512(both, _mm512_set1_epi32(-65536)));
  offset = _mm512_fnmadd_ps(_mm512_set1_ps(8.0f), scale, zero);
}

// fp32 pairs (served with fp32 activations): even and odd elements of 32 floats, in order.
inline void load_scale_offset(const float* pairs, Floats& scale, Floats& offset) {
  const __m512 first = _mm512_loadu_ps(pairs);
  const __m512 second = _mm512_loadu_ps(pairs + 16);
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  scale = _mm512_permutex2var_ps(first, even, second);
  const __m512 zero = _mm512_permutex2var_ps(first, odd, second);
  offset = _mm512_fnmadd_ps(_mm512_set1_ps(8.0f), scale, zero);
}
#else
using Ints = __m256i;
using Floats = __m256;

inline Ints zero_ints() { return _mm256_setzero_si256(); }
inline Floats zero_floats() { return _mm256_setzero_ps(); }
inline Ints broadcast_pair(int16_t pair) { return _mm256_set1_epi16(pair); }
inline Floats broadcast(float value) { return _mm256_set1_ps(value); }
inline Ints add_16(Ints a, Ints b) { return _mm256_add_epi16(a, b); }
inline Ints add_32(Ints a, Ints b) { return _mm256_add_epi32(a, b); }
inline Ints add_64(Ints a, Ints b) { return _mm256_add_epi64(a, b); }
inline Ints multiply_bytes(Ints w, Ints x) { return _mm256_maddubs_epi16(w, x); }
inline Ints low_nibbles(Ints v) { return _mm256_and_si256(v, _mm256_set1_epi8(0x0F)); }
inline Ints high_nibbles(Ints v) { return low_nibbles(_mm256_srli_epi16(v, 4)); }
inline Ints join_bytes(Ints pairs) {
  return _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x01000001));
}
inline Ints interleave_low(Ints a, Ints b) { return _mm256_unpacklo_epi16(a, b); }
inline Ints interleave_high(Ints a, Ints b) { return _mm256_unpackhi_epi16(a, b); }
inline Floats to_floats(Ints v) { return _mm256_cvtepi32_ps(v); }
inline Floats multiply(Floats a, Floats b) { return _mm256_mul_ps(a, b); }
inline Floats multiply_add(Floats a, Floats b, Floats c) { return _mm256_fmadd_ps(a, b, c); }
inline Floats load_floats(const float* values) { return _mm256_loadu_ps(values); }
inline void store_floats(float* out, Floats v) { _mm256_storeu_ps(out, v); }
// 8 floats as bf16, rounded to nearest even (finite values).
inline void store_floats(at::BFloat16* out, Floats v) {
  const __m256i bits = _mm256_castps_si256(v);
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(bits, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF))), 16);
  // packus interleaves the 128-bit halves: 0-3, 0-3, 4-7, 4-7 of (rounded, rounded)
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(rounded, rounded), 0x08);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(packed));
}

// Columns k and k + 1 (32 adjacent bytes) with byte pair j holding row j (low nibbles) and row
// j + 16 (high nibbles) of both columns: per 128-bit lane, 8 bytes of column k then the same 8
// of column k + 1, shuffled into (k, k + 1) pairs.
inline Ints paired_columns(const uint8_t* columns) {
  const __m256i loaded = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(columns));
  return _mm256_shuffle_epi8(_mm256_permute4x64_epi64(loaded, 0xD8),
                             _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7,
                                              15, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14,
                                              7, 15));
}

// The 32 rows of one input column of a block (its 16 bytes) as four vectors of fp32 q values,
// rows in order: 0-7, 8-15 (low nibbles), 16-23, 24-31 (high nibbles).
inline void column_values(const uint8_t* bytes, Floats q[4]) {
  const __m128i loaded = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes));
  const __m128i nibbles[2] = {_mm_and_si128(loaded, _mm_set1_epi8(15)),
                              _mm_and_si128(_mm_srli_epi16(loaded, 4), _mm_set1_epi8(15))};
  for (int h = 0; h < 2; ++h) {
    q[2 * h] = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(nibbles[h]));
    q[2 * h + 1] = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(nibbles[h], 8)));
  }
}

// Widening leaves rows 0-3, 8-11 in `low` and 4-7, 12-15 in `high` (of the 16 a 16-bit vector
// held); these are rows 0-7 and 8-15 in order.
inline void rows_in_order(Ints low, Ints high, Ints rows[2]) {
  rows[0] = _mm256_permute2x128_si256(low, high, 0x20);
  rows[1] = _mm256_permute2x128_si256(low, high, 0x31);
}

// Eight (scale, zero) pairs as two fp32 vectors, offset = zero - 8 scale. bf16 pairs: the scale
// is the low half of each 32-bit lane, the zero the high half.
inline void load_scale_offset(const at::BFloat16* pairs, Floats& scale, Floats& offset) {
  const __m256i both = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pairs));
  scale = _mm256_castsi256_ps(_mm256_slli_epi32(both, 16));
  const __m256 zero = _mm256_castsi256_ps(_mm256_and_si256(both, _mm256_set1_epi32(-65536)));
  offset = _mm256_fnmadd_ps(_mm256_set1_ps(8.0f), scale, zero);
}

// fp32 pairs (served with fp32 activations): even and odd elements of 16 floats, in order.
inline void load_scale_offset(const float* pairs, Floats& scale, Floats& offset) {
  const __m256 first = _mm256_loadu_ps(pairs);
  const __m256 second = _mm256_loadu_ps(pairs + 8);
  const auto in_order = [](__m256 v) {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0xD8));
  };
  scale = in_order(_mm256_shuffle_ps(first, second, 0x88));
  const __m256 zero = in_order(_mm256_shuffle_ps(first, second, 0xDD));
  offset = _mm256_fnmadd_ps(_mm256_set1_ps(8.0f), scale, zero);
}
#endif
// Output rows in one fp32 vector: a quarter of a block.
constexpr int64_t kRowsPerVector = kBlockRows / 4;

// The two adjacent bytes of x at `bytes` (one byte of two columns), in every 16-bit lane.
inline Ints broadcast_pair_at(const int8_t* bytes) {
  int16_t pair;
  std::memcpy(&pair, bytes, sizeof(pair));
  return broadcast_pair(pair);
}

// The weights stream from memory once per token. The hardware prefetcher alone leaves a core's
// loads waiting: one thread over a token's weights read 6.1 GB/s where plain reads gave 8.1
// (Sapphire Rapids, a shared host), 7.2 with the line this far ahead fetched by hand.
constexpr int64_t kPrefetchBytes = 2048;
inline void prefetch_ahead(const uint8_t* bytes) {
  _mm_prefetch(reinterpret_cast<const char*>(bytes) + kPrefetchBytes, _MM_HINT_T0);
}

// Rows [block * kBlockRows, (block + 1) * kBlockRows) of y for `Tile` rows of x.
template <int Tile, typename Pair, typename Out>
void block_product(
    const uint8_t* packed_block,   // [K, kBlockBytes] bytes of this block
    const Pair* scale_zero,        // [G, N, 2]
    const int8_t* x_high,          // [Tile, K] x_q = 256 x_high + x_low, one scale per group
    const int8_t* x_low,           // [Tile, K]
    const float* x_group_scales,   // [Tile, G]
    const float* x_group_sums,     // [Tile, G] (of x itself, not of x_q)
    int64_t block, int64_t k_size, int64_t n_size, int64_t group_size, Out* y, int64_t y_stride) {
  const int64_t groups = k_size / group_size;
  Floats total[Tile][4];
  for (int t = 0; t < Tile; ++t)
    for (int v = 0; v < 4; ++v) total[t][v] = zero_floats();

  for (int64_t g = 0; g < groups; ++g) {
    // 32-bit sums of the first half's rows ([0], [1]: as widening leaves them) and the second's.
    Ints acc[Tile][4];
    for (int t = 0; t < Tile; ++t)
      for (int v = 0; v < 4; ++v) acc[t][v] = zero_ints();
    const int64_t k_end = (g + 1) * group_size;
    for (int64_t chunk = g * group_size; chunk < k_end; chunk += 2 * kPairsPerWidening) {
      const int64_t chunk_end = std::min(chunk + 2 * kPairsPerWidening, k_end);
      // 16-bit sums of the block's first half of rows ([0]) and its second ([1]) times the high
      // and the low bytes of x.
      Ints high[Tile][2], low[Tile][2];
      for (int t = 0; t < Tile; ++t)
        for (int h = 0; h < 2; ++h) high[t][h] = low[t][h] = zero_ints();
      for (int64_t k = chunk; k < chunk_end; k += 2) {
        prefetch_ahead(packed_block + k * kBlockBytes);  // a line (AVX-512) or half of one
        const Ints pairs = paired_columns(packed_block + k * kBlockBytes);
        const Ints w[2] = {low_nibbles(pairs), high_nibbles(pairs)};
        for (int t = 0; t < Tile; ++t) {
          const Ints x_high_pair = broadcast_pair_at(x_high + t * k_size + k);
          const Ints x_low_pair = broadcast_pair_at(x_low + t * k_size + k);
          for (int h = 0; h < 2; ++h) {
            high[t][h] = add_16(high[t][h], multiply_bytes(w[h], x_high_pair));
            low[t][h] = add_16(low[t][h], multiply_bytes(w[h], x_low_pair));
          }
        }
      }
      for (int t = 0; t < Tile; ++t)
        for (int h = 0; h < 2; ++h) {
          acc[t][2 * h] =
              add_32(acc[t][2 * h], join_bytes(interleave_low(low[t][h], high[t][h])));
          acc[t][2 * h + 1] =
              add_32(acc[t][2 * h + 1], join_bytes(interleave_high(low[t][h], high[t][h])));
        }
    }
    const Pair* pairs = scale_zero + (g * n_size + block * kBlockRows) * 2;
    for (int t = 0; t < Tile; ++t) {
      const Floats x_scale = broadcast(x_group_scales[t * groups + g]);
      const Floats x_sum = broadcast(x_group_sums[t * groups + g]);
      for (int h = 0; h < 2; ++h) {
        Ints rows[2];
        rows_in_order(acc[t][2 * h], acc[t][2 * h + 1], rows);
        for (int r = 0; r < 2; ++r) {
          const int v = 2 * h + r;
          Floats scale, offset;
          load_scale_offset(pairs + v * kRowsPerVector * 2, scale, offset);
          const Floats q_dot = multiply(to_floats(rows[r]), x_scale);
          total[t][v] = multiply_add(q_dot, scale, total[t][v]);
          total[t][v] = multiply_add(offset, x_sum, total[t][v]);
        }
      }
    }
  }
  for (int t = 0; t < Tile; ++t)
    for (int v = 0; v < 4; ++v)
      store_floats(y + t * y_stride + block * kBlockRows + v * kRowsPerVector, total[t][v]);
}

#if defined(__AVX512VNNI__) && defined(__AVX512VBMI__)
// With VNNI, vpdpbusd multiplies four unsigned bytes by four signed bytes and adds the four
// products to a 32-bit lane, so four adjacent columns are regrouped with one byte permute (VBMI)
// into lanes of one byte row each, and no 16-bit sums or widening are needed. Of the 128 bytes
// of four columns, byte 4 r + c of permute `half` is byte 16 half + r of column c, which sits at
// 32 c + 16 half + r.
struct QuadIndex {
  alignas(64) uint8_t bytes[2][64];
  constexpr QuadIndex() : bytes{} {
    for (int half = 0; half < 2; ++half)
      for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 4; ++c)
          bytes[half][4 * r + c] = static_cast<uint8_t>(c * 32 + half * 16 + r);
  }
};
constexpr QuadIndex kQuadIndex{};

// The four adjacent bytes of x at `bytes` (one byte of four columns), in every 32-bit lane.
inline Ints broadcast_quad_at(const int8_t* bytes) {
  int32_t quad;
  std::memcpy(&quad, bytes, sizeof(quad));
  return _mm512_set1_epi32(quad);
}

// Columns k to k + 3 of a block as four vectors of 32-bit lanes, one row a lane, in row order:
// rows 0-15, 16-31 (low nibbles), 32-47, 48-63 (high nibbles).
inline void quad_columns(const uint8_t* columns, Ints w[4]) {
  const __m512i first = _mm512_loadu_si512(columns);
  const __m512i second = _mm512_loadu_si512(columns + 64);
  for (int half = 0; half < 2; ++half) {
    const __m512i index = _mm512_load_si512(kQuadIndex.bytes[half]);
    const __m512i quads = _mm512_permutex2var_epi8(first, index, second);
    w[half] = low_nibbles(quads);
    w[2 + half] = high_nibbles(quads);
  }
}

// `block_product` for group sizes that are multiples of 4, on vpdpbusd.
template <int Tile, typename Pair, typename Out>
void block_product_vnni(const uint8_t* packed_block, const Pair* scale_zero,
                        const int8_t* x_high, const int8_t* x_low, const float* x_group_scales,
                        const float* x_group_sums, int64_t block, int64_t k_size, int64_t n_size,
                        int64_t group_size, Out* y, int64_t y_stride) {
  const int64_t groups = k_size / group_size;
  Floats total[Tile][4];
  for (int t = 0; t < Tile; ++t)
    for (int v = 0; v < 4; ++v) total[t][v] = zero_floats();
  for (int64_t g = 0; g < groups; ++g) {
    // Per row vector: the 32-bit sums of q times x's high bytes and times its low bytes.
    Ints high[Tile][4], low[Tile][4];
    for (int t = 0; t < Tile; ++t)
      for (int v = 0; v < 4; ++v) high[t][v] = low[t][v] = zero_ints();
    for (int64_t k = g * group_size; k < (g + 1) * group_size; k += 4) {
      Ints w[4];
      prefetch_ahead(packed_block + k * kBlockBytes);
      prefetch_ahead(packed_block + k * kBlockBytes + 64);
      quad_columns(packed_block + k * kBlockBytes, w);
      for (int t = 0; t < Tile; ++t) {
        const Ints x_high_quad = broadcast_quad_at(x_high + t * k_size + k);
        const Ints x_low_quad = broadcast_quad_at(x_low + t * k_size + k);
        for (int v = 0; v < 4; ++v) {
          high[t][v] = _mm512_dpbusd_epi32(high[t][v], w[v], x_high_quad);
          low[t][v] = _mm512_dpbusd_epi32(low[t][v], w[v], x_low_quad);
        }
      }
    }
    const Pair* pairs = scale_zero + (g * n_size + block * kBlockRows) * 2;
    for (int t = 0; t < Tile; ++t) {
      const Floats x_scale = broadcast(x_group_scales[t * groups + g]);
      const Floats x_sum = broadcast(x_group_sums[t * groups + g]);
      for (int v = 0; v < 4; ++v) {
        Floats scale, offset;
        load_scale_offset(pairs + v * kRowsPerVector * 2, scale, offset);
        const Ints q_dot = add_32(_mm512_slli_epi32(high[t][v], 8), low[t][v]);
        total[t][v] = multiply_add(multiply(to_floats(q_dot), x_scale), scale, total[t][v]);
        total[t][v] = multiply_add(offset, x_sum, total[t][v]);
      }
    }
  }
  for (int t = 0; t < Tile; ++t)
    for (int v = 0; v < 4; ++v)
      store_floats(y + t * y_stride + block * kBlockRows + v * kRowsPerVector, total[t][v]);
}
#endif

// x as integers of at most kActivationLevels in magnitude, one scale per group, split into two
// signed bytes: x_q = 256 high + low, low in [-128, 127]. One plain loop: for the few rows of
// decode, a chain of tensor ops costs more than the arithmetic.
template <typename In>
void quantize_activations(const In* x, int64_t group_count, int64_t group_size, int8_t* x_high,
                          int8_t* x_low, float* scales, float* sums) {
  for (int64_t group = 0; group < group_count; ++group) {
    const In* values = x + group * group_size;
    float largest = 0.0f, sum = 0.0f;
    for (int64_t i = 0; i < group_size; ++i) {
      const float value = static_cast<float>(values[i]);
      largest = std::max(largest, std::fabs(value));
      sum += value;
    }
    const float scale = largest / kActivationLevels;
    const float inverse = largest > 0.0f ? kActivationLevels / largest : 0.0f;
    for (int64_t i = 0; i < group_size; ++i) {
      const float value = static_cast<float>(values[i]);
      const int32_t q = static_cast<int32_t>(std::nearbyint(value * inverse));
      const int32_t high = (q + 128) >> 8;  // arithmetic shift: the floor
      x_high[group * group_size + i] = static_cast<int8_t>(high);
      x_low[group * group_size + i] = static_cast<int8_t>(q - 256 * high);
    }
    scales[group] = scale;
    sums[group] = sum;
  }
}

// Blocks a thread takes at a time, 256 output rows: 256 KiB of weights at K = 2048, a stream
// long enough for the prefetchers, short enough that a thread seldom waits long for the other.
constexpr int64_t kBlocksPerChunk = 256 / kBlockRows;

// Every row of x times the weight: each thread takes chunks of blocks and multiplies each block
// by all rows of x, kMaxTileRows at a time, so that a block is read from memory once however
// many rows there are (the passes after the first find it in L2).
template <typename Pair, typename Out>
void rows_product(const uint8_t* packed, const Pair* scale_zero, const int8_t* x_high,
                  const int8_t* x_low, const float* x_group_scales, const float* x_group_sums,
                  int64_t m_size, int64_t k_size, int64_t n_size, int64_t group_size, Out* y) {
  const int64_t blocks = n_size / kBlockRows;
  const int64_t groups = k_size / group_size;
  PHONE_AGENT_INT4_OPS::parallel_chunks(blocks, kBlocksPerChunk, [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block) {
      const uint8_t* packed_block = packed + block * kBlockRows * k_size / 2;
      for (int64_t row = 0; row < m_size; row += kMaxTileRows) {
        const auto run = [&](auto tile_rows) {
          constexpr int Tile = decltype(tile_rows)::value;
          const int8_t* high = x_high + row * k_size;
          const int8_t* low = x_low + row * k_size;
          const float* scales = x_group_scales + row * groups;
          const float* sums = x_group_sums + row * groups;
          Out* out = y + row * n_size;
#if defined(__AVX512VNNI__) && defined(__AVX512VBMI__)
          if (group_size % 4 == 0) {
            block_product_vnni<Tile>(packed_block, scale_zero, high, low, scales, sums, block,
                                     k_size, n_size, group_size, out, n_size);
            return;
          }
#endif
          block_product<Tile>(packed_block, scale_zero, high, low, scales, sums, block, k_size,
                              n_size, group_size, out, n_size);
        };
        if (m_size - row == 1)
          run(std::integral_constant<int, 1>{});
        else
          run(std::integral_constant<int, kMaxTileRows>{});
      }
    }
  });
}

at::Tensor int4_mm(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scale_zero,
                   int64_t group_size) {
  TORCH_CHECK(x.dim() == 2 && packed.dim() == 2 && scale_zero.dim() == 3,
              "int4_mm: x [M, K], packed [N, K/2], scale_zero [G, N, 2]");
  TORCH_CHECK(x.scalar_type() == at::kBFloat16 || x.scalar_type() == at::kFloat,
              "int4_mm: x must be bfloat16 or float32");
  TORCH_CHECK(packed.scalar_type() == at::kByte, "int4_mm: packed must be uint8");
  TORCH_CHECK(scale_zero.scalar_type() == at::kBFloat16 || scale_zero.scalar_type() == at::kFloat,
              "int4_mm: scale_zero must be bfloat16 or float32");
  const int64_t m_size = x.size(0), k_size = x.size(1), n_size = packed.size(0);
  TORCH_CHECK(packed.size(1) * 2 == k_size, "int4_mm: packed has ", packed.size(1) * 2,
              " columns, x has ", k_size);
  TORCH_CHECK(n_size % kBlockRows == 0, "int4_mm: rows must be a multiple of ", kBlockRows);
  TORCH_CHECK(group_size > 0 && group_size <= 4096 && group_size % 2 == 0 &&
                  k_size % group_size == 0,
              "int4_mm: group size ", group_size, " must be even, at most 4096 and divide ",
              k_size);
  const int64_t groups = k_size / group_size;
  TORCH_CHECK(scale_zero.size(0) == groups && scale_zero.size(1) == n_size &&
                  scale_zero.size(2) == 2,
              "int4_mm: scale_zero must be [K / group_size, N, 2]");

  // x's bytes and its groups' scales and sums, in one buffer the calling thread keeps: a
  // decoded token makes over a hundred of these calls.
  const int64_t x_bytes = m_size * k_size;
  thread_local std::vector<float> scratch;
  scratch.resize(2 * m_size * groups + (2 * x_bytes + 3) / 4);
  float* x_group_scales = scratch.data();
  float* x_group_sums = x_group_scales + m_size * groups;
  int8_t* x_high = reinterpret_cast<int8_t*>(x_group_sums + m_size * groups);
  int8_t* x_low = x_high + x_bytes;
  const at::Tensor x_c = x.contiguous();
  at::Tensor y = at::empty({m_size, n_size}, x.options());
  const at::Tensor packed_c = packed.contiguous();
  const at::Tensor scale_zero_c = scale_zero.contiguous();
  const auto run = [&](const auto* values, auto* out) {
    quantize_activations(values, m_size * groups, group_size, x_high, x_low, x_group_scales,
                         x_group_sums);
    const auto product = [&](const auto* pairs) {
      rows_product(packed_c.data_ptr<uint8_t>(), pairs, x_high, x_low, x_group_scales,
                   x_group_sums, m_size, k_size, n_size, group_size, out);
    };
    if (scale_zero_c.scalar_type() == at::kBFloat16)
      product(scale_zero_c.data_ptr<at::BFloat16>());
    else
      product(scale_zero_c.data_ptr<float>());
  };
  if (x_c.scalar_type() == at::kBFloat16)
    run(x_c.data_ptr<at::BFloat16>(), y.data_ptr<at::BFloat16>());
  else
    run(x_c.data_ptr<float>(), y.data_ptr<float>());
  return y;
}

// Rows [k_begin, k_end) of `out` ([K, stop - start], the transposed weight the prefill GEMM
// multiplies by), from output rows [start, stop) of the weight:
//   W[r, k] = q[k, r] scale[g, r] + zero[g, r] - 8 scale[g, r]
// computed in fp32 (one fused multiply-add; q scale is exact, so this is torch's own
// dequantization), then stored in Out. A row of `out` is written left to right, a block's 32
// or 64 rows at a time, so the writes stream.
template <typename Pair, typename Out>
void dequantize_columns(const uint8_t* packed, const Pair* scale_zero, int64_t k_begin,
                        int64_t k_end, int64_t k_size, int64_t n_size, int64_t group_size,
                        int64_t start, int64_t stop, Out* out) {
  const int64_t width = stop - start;
  std::vector<float> scale(width), offset(width);
  int64_t loaded_group = -1;
  for (int64_t k = k_begin; k < k_end; ++k) {
    const int64_t g = k / group_size;
    if (g != loaded_group) {
      const Pair* pairs = scale_zero + (g * n_size + start) * 2;
      for (int64_t c = 0; c < width; ++c) {
        scale[c] = static_cast<float>(pairs[2 * c]);
        offset[c] = static_cast<float>(pairs[2 * c + 1]) - 8.0f * scale[c];
      }
      loaded_group = g;
    }
    Out* row = out + k * width;
    for (int64_t block = start / kBlockRows; block < stop / kBlockRows; ++block) {
      const int64_t c = block * kBlockRows - start;
      Floats q[4];
      column_values(packed + (block * k_size + k) * kBlockBytes, q);
      for (int v = 0; v < 4; ++v) {
        const int64_t first = c + v * kRowsPerVector;
        store_floats(row + first, multiply_add(q[v], load_floats(scale.data() + first),
                                               load_floats(offset.data() + first)));
      }
    }
  }
}

// Rows [start, stop) of the weight into `out` ([K, stop - start], fp32 or bf16, contiguous).
void dequantize_into(const at::Tensor& packed, const at::Tensor& scale_zero, int64_t group_size,
                     int64_t start, int64_t stop, at::Tensor& out) {
  const int64_t n_size = packed.size(0), k_size = packed.size(1) * 2;
  const at::Tensor packed_c = packed.contiguous();
  const at::Tensor scale_zero_c = scale_zero.contiguous();
  const auto run = [&](const auto* pairs, auto* values) {
    at::parallel_for(0, k_size, 16, [&](int64_t begin, int64_t end) {
      dequantize_columns(packed_c.data_ptr<uint8_t>(), pairs, begin, end, k_size, n_size,
                         group_size, start, stop, values);
    });
  };
  const auto with_pairs = [&](auto* values) {
    if (scale_zero_c.scalar_type() == at::kBFloat16)
      run(scale_zero_c.data_ptr<at::BFloat16>(), values);
    else
      run(scale_zero_c.to(at::kFloat).data_ptr<float>(), values);
  };
  if (out.scalar_type() == at::kFloat)
    with_pairs(out.data_ptr<float>());
  else
    with_pairs(out.data_ptr<at::BFloat16>());
}

// Rows [start, stop) of the weight as [K, stop - start] in `dtype` (fp32 or bf16).
at::Tensor dequantize_rows(const at::Tensor& packed, const at::Tensor& scale_zero,
                           int64_t group_size, int64_t start, int64_t stop,
                           at::ScalarType dtype) {
  TORCH_CHECK(packed.dim() == 2 && packed.scalar_type() == at::kByte && scale_zero.dim() == 3,
              "dequantize_rows: packed [N, K/2] uint8, scale_zero [G, N, 2]");
  TORCH_CHECK(dtype == at::kFloat || dtype == at::kBFloat16,
              "dequantize_rows: dtype must be float32 or bfloat16");
  const int64_t n_size = packed.size(0), k_size = packed.size(1) * 2;
  TORCH_CHECK(0 <= start && start < stop && stop <= n_size && start % kBlockRows == 0 &&
                  stop % kBlockRows == 0,
              "dequantize_rows: rows [", start, ", ", stop, ") must be whole blocks of ",
              kBlockRows, " within ", n_size);
  TORCH_CHECK(group_size > 0 && k_size % group_size == 0 &&
                  scale_zero.size(0) == k_size / group_size && scale_zero.size(1) == n_size &&
                  scale_zero.size(2) == 2,
              "dequantize_rows: scale_zero must be [K / group_size, N, 2]");
  at::Tensor out = at::empty({k_size, stop - start}, packed.options().dtype(dtype));
  dequantize_into(packed, scale_zero, group_size, start, stop, out);
  return out;
}

// The GEMM path dequantizes this many bytes of weights per step, into a buffer the calling
// thread keeps: fresh memory for every step (as a new tensor) costs a page fault per 4 KiB, and a
// step this size is still in the caches when the GEMM reads it.
constexpr int64_t kDequantizeStepBytes = 1 << 20;

// x [M, K] times the weight on the plan's path: below `prefill_min_rows` rows `int4_mm`; from
// there on panels dequantized into L2 where `panels` (builds for AVX512-BF16 only; bf16 x), else
// with the weight dequantized a step of output rows at a time into `prefill_dtype` and
// multiplied by the GEMM. One op for all, so that decode pays one dispatch per matrix and no
// Python on the way (a Python custom op cost 30 us a call, 3 ms of a decoded token's 111).
at::Tensor linear(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scale_zero,
                  int64_t group_size, int64_t prefill_min_rows, at::ScalarType prefill_dtype,
                  bool panels) {
  if (x.size(0) < prefill_min_rows) return int4_mm(x, packed, scale_zero, group_size);
  if (panels && x.scalar_type() == at::kBFloat16) {
#if defined(PHONE_AGENT_PANELS)
    return PHONE_AGENT_INT4_OPS::panel_mm(x, packed, scale_zero, group_size);
#else
    TORCH_CHECK(false, "linear: this build has no panel products");
#endif
  }
  const int64_t n_size = packed.size(0), k_size = packed.size(1) * 2;
  const int64_t value_bytes = prefill_dtype == at::kFloat ? 4 : 2;
  const int64_t step_rows = std::min(
      n_size,
      std::max<int64_t>(1, kDequantizeStepBytes / (k_size * value_bytes * kBlockRows)) *
          kBlockRows);
  thread_local at::Tensor buffer;
  if (!buffer.defined() || buffer.scalar_type() != prefill_dtype ||
      buffer.numel() < k_size * step_rows)
    buffer = at::empty({k_size * step_rows}, packed.options().dtype(prefill_dtype));
  const at::Tensor x_compute = x.to(prefill_dtype);
  at::Tensor out = at::empty({x.size(0), n_size}, x.options());
  for (int64_t start = 0; start < n_size; start += step_rows) {
    const int64_t stop = std::min(n_size, start + step_rows);
    at::Tensor weight_t = buffer.narrow(0, 0, k_size * (stop - start)).view({k_size, stop - start});
    dequantize_into(packed, scale_zero, group_size, start, stop, weight_t);
    out.narrow(1, start, stop - start).copy_(at::mm(x_compute, weight_t));
  }
  return out;
}

// The sum of `data` as 64-bit words, read with the threads and chunks of the few-row kernel:
// what plain reads of memory reach on this machine, the reference `bench kernels` holds the
// decode kernels to. Every byte is read once; the sum only keeps the reads from being dropped.
int64_t sum_words(const at::Tensor& data) {
  TORCH_CHECK(data.is_contiguous() && data.nbytes() % 256 == 0,
              "sum_words: a contiguous tensor of whole 256-byte lines");
  const uint8_t* bytes = static_cast<const uint8_t*>(data.data_ptr());
  std::atomic<int64_t> total{0};
  constexpr int64_t kChunkBytes = 256 << 10;
  const int64_t size = static_cast<int64_t>(data.nbytes());
  PHONE_AGENT_INT4_OPS::parallel_chunks(size, kChunkBytes, [&](int64_t begin, int64_t end) {
    Ints sums[4] = {zero_ints(), zero_ints(), zero_ints(), zero_ints()};
    constexpr int64_t kVectorBytes = sizeof(Ints);
    for (int64_t at = begin; at < end; at += 4 * kVectorBytes)
      for (int v = 0; v < 4; ++v) {
        Ints loaded;
        std::memcpy(&loaded, bytes + at + v * kVectorBytes, kVectorBytes);
        sums[v] = add_64(sums[v], loaded);
      }
    alignas(64) int64_t words[4 * kVectorBytes / 8];
    std::memcpy(words, sums, sizeof(words));
    int64_t chunk_total = 0;
    for (const int64_t word : words) chunk_total += word;
    total += chunk_total;
  });
  return total;
}

}  // namespace

// Each build registers its ops under its own namespace (the build passes it, e.g.
// phone_agent_int4_avx512_vnni), so builds for several instruction sets load side by side in one
// process: the tests and `bench kernels` run every one the CPU can. TORCH_LIBRARY pastes its
// argument, so it is expanded here first.
#define OPS_LIBRARY(ns, library) TORCH_LIBRARY(ns, library)
#define OPS_LIBRARY_IMPL(ns, library) TORCH_LIBRARY_IMPL(ns, CPU, library)

OPS_LIBRARY(PHONE_AGENT_INT4_OPS, library) {
  library.def("int4_mm(Tensor x, Tensor packed, Tensor scale_zero, int group_size) -> Tensor");
  library.def(
      "dequantize_rows(Tensor packed, Tensor scale_zero, int group_size, int start, int stop, "
      "ScalarType dtype) -> Tensor");
  library.def(
      "linear(Tensor x, Tensor packed, Tensor scale_zero, int group_size, int prefill_min_rows, "
      "ScalarType prefill_dtype, bool panels) -> Tensor");
  library.def("sum_words(Tensor data) -> int");
}

OPS_LIBRARY_IMPL(PHONE_AGENT_INT4_OPS, library) {
  library.impl("int4_mm", &int4_mm);
  library.impl("dequantize_rows", &dequantize_rows);
  library.impl("linear", &linear);
  library.impl("sum_words", &sum_words);
}
