// Few-row products with int4 weights in torch's AVX2 int4 layout, for decode on AVX2 CPUs.
//
// torch's `_weight_int4pack_mm_for_cpu` reaches about 4 GB/s of packed weights on a 2-core AVX2
// host, which makes the 4-bit build decode barely faster than bf16. This kernel reads the same
// packed tensor (blocks of 32 output rows stored as [K, 16] bytes, byte j holding row j in its
// low nibble and row j + 16 in its high nibble) and the same [K / group, N, 2] scale/zero table,
// so the prefill path and the embedding lookup are unchanged and no weight is stored twice.
//
// x is rounded to 16-bit integers, one scale per group (finer than the bf16 it arrives in). Per
// pair of input columns the kernel interleaves their bytes, widens the 32 rows' nibbles to 16-bit
// lanes and multiplies them by the pair (x[k], x[k+1]) with one vpmaddwd per 8 rows, summing a
// group in 32-bit integers; the group's scales and offsets are applied once per group:
//   y[r] = sum_g scale[g, r] xscale[g] sum_{k in g} q[k, r] xq[k]
//          + (zero[g, r] - 8 scale[g, r]) sum_{k in g} x[k]
// (integer sums cannot overflow: 15 * 32767 * group_size < 2^31 for groups up to 4096).

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <immintrin.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace {

constexpr int64_t kBlockRows = 32;
constexpr int64_t kBlockBytes = kBlockRows / 2;
constexpr int kMaxTileRows = 4;

// Eight (scale, zero) pairs as two fp32 vectors, offset = zero - 8 scale. bf16 pairs: the scale
// is the low half of each 32-bit lane, the zero the high half.
inline void load_scale_offset(const at::BFloat16* pairs, __m256& scale, __m256& offset) {
  const __m256i both = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pairs));
  scale = _mm256_castsi256_ps(_mm256_slli_epi32(both, 16));
  const __m256 zero = _mm256_castsi256_ps(_mm256_and_si256(both, _mm256_set1_epi32(-65536)));
  offset = _mm256_fnmadd_ps(_mm256_set1_ps(8.0f), scale, zero);
}

// fp32 pairs (served with fp32 activations): even and odd elements of 16 floats, in order.
inline void load_scale_offset(const float* pairs, __m256& scale, __m256& offset) {
  const __m256 first = _mm256_loadu_ps(pairs);
  const __m256 second = _mm256_loadu_ps(pairs + 8);
  const auto in_order = [](__m256 v) {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0xD8));
  };
  scale = in_order(_mm256_shuffle_ps(first, second, 0x88));
  const __m256 zero = in_order(_mm256_shuffle_ps(first, second, 0xDD));
  offset = _mm256_fnmadd_ps(_mm256_set1_ps(8.0f), scale, zero);
}

// Rows [block * 32, block * 32 + 32) of y for `Tile` rows of x.
template <int Tile, typename Pair>
void block_product(
    const uint8_t* packed_block,   // [K, 16] bytes of this block
    const Pair* scale_zero,        // [G, N, 2]
    const int16_t* x_q,            // [Tile, K] x as 16-bit integers, one scale per group
    const float* x_group_scales,   // [Tile, G]
    const float* x_group_sums,     // [Tile, G] (of x itself, not of x_q)
    int64_t block, int64_t k_size, int64_t n_size, int64_t group_size, float* y, int64_t y_stride) {
  const int64_t groups = k_size / group_size;
  const __m128i low_mask = _mm_set1_epi8(0x0F);
  __m256 total[Tile][4];
  for (int t = 0; t < Tile; ++t)
    for (int v = 0; v < 4; ++v) total[t][v] = _mm256_setzero_ps();

  for (int64_t g = 0; g < groups; ++g) {
    __m256i acc[Tile][4];
    for (int t = 0; t < Tile; ++t)
      for (int v = 0; v < 4; ++v) acc[t][v] = _mm256_setzero_si256();
    const int64_t k_end = (g + 1) * group_size;
    for (int64_t k = g * group_size; k < k_end; k += 2) {
      // Columns k and k + 1 interleaved byte by byte, so that after widening each 32-bit lane
      // holds one row's weights for both columns: what vpmaddwd multiplies by (x[k], x[k+1]).
      const __m128i column = _mm_loadu_si128(
          reinterpret_cast<const __m128i*>(packed_block + k * kBlockBytes));
      const __m128i next = _mm_loadu_si128(
          reinterpret_cast<const __m128i*>(packed_block + (k + 1) * kBlockBytes));
      const __m128i rows_0_7 = _mm_unpacklo_epi8(column, next);
      const __m128i rows_8_15 = _mm_unpackhi_epi8(column, next);
      const __m256i w[4] = {
          _mm256_cvtepu8_epi16(_mm_and_si128(rows_0_7, low_mask)),
          _mm256_cvtepu8_epi16(_mm_and_si128(rows_8_15, low_mask)),
          _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(rows_0_7, 4), low_mask)),
          _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(rows_8_15, 4), low_mask)),
      };
      for (int t = 0; t < Tile; ++t) {
        int32_t pair;
        std::memcpy(&pair, x_q + t * k_size + k, sizeof(pair));
        const __m256i x_pair = _mm256_set1_epi32(pair);
        for (int v = 0; v < 4; ++v)
          acc[t][v] = _mm256_add_epi32(acc[t][v], _mm256_madd_epi16(w[v], x_pair));
      }
    }
    // Accumulator v holds rows 8v .. 8v + 7 of the block (low nibbles 0-15, then high 16-31).
    const Pair* pairs = scale_zero + (g * n_size + block * kBlockRows) * 2;
    for (int v = 0; v < 4; ++v) {
      __m256 scale, offset;
      load_scale_offset(pairs + v * 16, scale, offset);
      for (int t = 0; t < Tile; ++t) {
        const __m256 x_scale = _mm256_set1_ps(x_group_scales[t * groups + g]);
        const __m256 x_sum = _mm256_set1_ps(x_group_sums[t * groups + g]);
        const __m256 q_dot = _mm256_mul_ps(_mm256_cvtepi32_ps(acc[t][v]), x_scale);
        total[t][v] = _mm256_fmadd_ps(q_dot, scale, total[t][v]);
        total[t][v] = _mm256_fmadd_ps(offset, x_sum, total[t][v]);
      }
    }
  }
  for (int t = 0; t < Tile; ++t)
    for (int v = 0; v < 4; ++v)
      _mm256_storeu_ps(y + t * y_stride + block * kBlockRows + v * 8, total[t][v]);
}

// x as 16-bit integers with one scale per group: 15 bits below the group's largest value,
// finer than x's own bf16 for every element within 2^7 of it. One plain loop: for the few rows
// of decode, a chain of tensor ops costs more than the arithmetic.
void quantize_activations(const float* x, int64_t group_count, int64_t group_size, int16_t* x_q,
                          float* scales, float* sums) {
  for (int64_t group = 0; group < group_count; ++group) {
    const float* values = x + group * group_size;
    float largest = 0.0f, sum = 0.0f;
    for (int64_t i = 0; i < group_size; ++i) {
      largest = std::max(largest, std::fabs(values[i]));
      sum += values[i];
    }
    const float scale = largest / 32767.0f;
    const float inverse = largest > 0.0f ? 32767.0f / largest : 0.0f;
    for (int64_t i = 0; i < group_size; ++i)
      x_q[group * group_size + i] = static_cast<int16_t>(std::nearbyint(values[i] * inverse));
    scales[group] = scale;
    sums[group] = sum;
  }
}

template <int Tile, typename Pair>
void tile_product(const uint8_t* packed, const Pair* scale_zero, const int16_t* x_q,
                  const float* x_group_scales, const float* x_group_sums, int64_t k_size,
                  int64_t n_size, int64_t group_size, float* y, int64_t y_stride) {
  const int64_t blocks = n_size / kBlockRows;
  at::parallel_for(0, blocks, 16, [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block)
      block_product<Tile>(packed + block * kBlockRows * k_size / 2, scale_zero, x_q,
                          x_group_scales, x_group_sums, block, k_size, n_size, group_size, y,
                          y_stride);
  });
}

at::Tensor int4_mm(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scale_zero,
                   int64_t group_size) {
  TORCH_CHECK(x.dim() == 2 && packed.dim() == 2 && scale_zero.dim() == 3,
              "int4_mm: x [M, K], packed [N, K/2], scale_zero [G, N, 2]");
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

  const at::Tensor x_f = x.to(at::kFloat).contiguous();
  const at::Tensor x_group_sums = at::empty({m_size, groups}, x_f.options());
  const at::Tensor x_group_scales = at::empty({m_size, groups}, x_f.options());
  const at::Tensor x_q = at::empty({m_size, k_size}, x_f.options().dtype(at::kShort));
  quantize_activations(x_f.data_ptr<float>(), m_size * groups, group_size,
                       x_q.data_ptr<int16_t>(), x_group_scales.data_ptr<float>(),
                       x_group_sums.data_ptr<float>());
  at::Tensor y = at::empty({m_size, n_size}, x.options().dtype(at::kFloat));

  const at::Tensor packed_c = packed.contiguous();
  const at::Tensor scale_zero_c = scale_zero.contiguous();
  const auto run_tiles = [&](const auto* pairs) {
    using Pair = std::remove_cv_t<std::remove_pointer_t<decltype(pairs)>>;
    for (int64_t row = 0; row < m_size; row += kMaxTileRows) {
      const auto run = [&](auto tile_rows) {
        tile_product<decltype(tile_rows)::value, Pair>(
            packed_c.data_ptr<uint8_t>(), pairs, x_q.data_ptr<int16_t>() + row * k_size,
            x_group_scales.data_ptr<float>() + row * groups,
            x_group_sums.data_ptr<float>() + row * groups, k_size, n_size, group_size,
            y.data_ptr<float>() + row * n_size, n_size);
      };
      switch (std::min<int64_t>(kMaxTileRows, m_size - row)) {
        case 1: run(std::integral_constant<int, 1>{}); break;
        case 2: run(std::integral_constant<int, 2>{}); break;
        case 3: run(std::integral_constant<int, 3>{}); break;
        default: run(std::integral_constant<int, 4>{}); break;
      }
    }
  };
  if (scale_zero_c.scalar_type() == at::kBFloat16)
    run_tiles(scale_zero_c.data_ptr<at::BFloat16>());
  else
    run_tiles(scale_zero_c.data_ptr<float>());
  return y.to(x.scalar_type());
}

}  // namespace

TORCH_LIBRARY(phone_agent_avx2, library) {
  library.def("int4_mm(Tensor x, Tensor packed, Tensor scale_zero, int group_size) -> Tensor");
}

TORCH_LIBRARY_IMPL(phone_agent_avx2, CPU, library) {
  library.impl("int4_mm", &int4_mm);
}
