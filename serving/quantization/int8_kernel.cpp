// Products with an int8 weight of one scale per row: the vocabulary table of W4A16 builds
// (`table_bits: 8`), used as the output head.
//
// torch's `_weight_int8pack_mm` widens every weight to fp32 and runs out of arithmetic long
// before memory: at the 1.7B shape (131072 x 2048) it takes 14 ms a token on two Zen 4 cores,
// this kernel 8, about the time the table's 256 MiB take to read; it was faster at every row
// count tried, 1 to 128. The weights stay integers: x is rounded to 16-bit integers, one scale
// per row of x, and each 16 (AVX2) or 32 (AVX-512) int8 weights are sign-extended to 16 bits
// and multiplied by x with vpmaddwd (vpdpwssd with AVX512-VNNI), which adds adjacent products
// into 32-bit lanes. One weight row streams at a time: two rows side by side ran slower, the
// hardware prefetcher follows fewer streams best.
//
// Rounding x to 16 bits costs nothing next to the table's own rounding: a row of x is split
// into 65535 levels of its largest value, the weights into 255 of theirs.
//   y[m, n] = scale[n] xscale[m] sum_k w[n, k] x_q[m, k]
// Lane sums cannot overflow: a lane adds two products of at most 128 * 32767 per step, and is
// moved to fp32 every kStepsPerWidening steps (2 * 128 * 32767 * 256 < 2^31).

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <immintrin.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#ifndef PHONE_AGENT_INT4_OPS
#error "build with -DPHONE_AGENT_INT4_OPS=<op namespace>"
#endif

// Chunks of work handed to the threads as they ask (int4_kernel.cpp).
namespace PHONE_AGENT_INT4_OPS {
void parallel_chunks(int64_t count, int64_t grain,
                     const std::function<void(int64_t, int64_t)>& body);
}  // namespace PHONE_AGENT_INT4_OPS

namespace {

constexpr int kActivationLevels = 32767;
constexpr int64_t kStepsPerWidening = 256;
// x rows multiplied by one pass over a weight row, each with its own sums. From two rows on the
// product waits on multiplies, not memory; at the 1.7B shape four rows took 16 ms in one pass,
// 22 in two of two rows, and eight rows in one pass were no faster than in two of four.
constexpr int kMaxTileRows = 4;
// Weight rows a thread takes at a time: 256 KiB at K = 2048.
constexpr int64_t kRowsPerChunk = 128;

#if defined(__AVX512BW__)
using Ints = __m512i;
using Floats = __m512;
constexpr int64_t kColumnsPerStep = 32;

inline Ints zero_ints() { return _mm512_setzero_si512(); }
inline Floats zero_floats() { return _mm512_setzero_ps(); }
// 32 weights, sign-extended to 16-bit lanes.
inline Ints load_weights(const int8_t* w) {
  return _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)));
}
inline Ints load_activations(const int16_t* x) { return _mm512_loadu_si512(x); }
inline Ints multiply_add_pairs(Ints sums, Ints w, Ints x) {
#if defined(__AVX512VNNI__)
  return _mm512_dpwssd_epi32(sums, w, x);
#else
  return _mm512_add_epi32(sums, _mm512_madd_epi16(w, x));
#endif
}
inline Floats add_as_floats(Floats total, Ints sums) {
  return _mm512_add_ps(total, _mm512_cvtepi32_ps(sums));
}
inline float sum_lanes(Floats v) { return _mm512_reduce_add_ps(v); }
#else
using Ints = __m256i;
using Floats = __m256;
constexpr int64_t kColumnsPerStep = 16;

inline Ints zero_ints() { return _mm256_setzero_si256(); }
inline Floats zero_floats() { return _mm256_setzero_ps(); }
inline Ints load_weights(const int8_t* w) {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w)));
}
inline Ints load_activations(const int16_t* x) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
}
inline Ints multiply_add_pairs(Ints sums, Ints w, Ints x) {
  return _mm256_add_epi32(sums, _mm256_madd_epi16(w, x));
}
inline Floats add_as_floats(Floats total, Ints sums) {
  return _mm256_add_ps(total, _mm256_cvtepi32_ps(sums));
}
inline float sum_lanes(Floats v) {
  const __m128 quarter = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 pairs = _mm_add_ps(quarter, _mm_movehl_ps(quarter, quarter));
  return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_movehdup_ps(pairs)));
}
#endif

// Each row of x as integers of at most kActivationLevels in magnitude and its scale.
void quantize_rows(const float* x, int64_t rows, int64_t columns, int16_t* x_q, float* scales) {
  for (int64_t m = 0; m < rows; ++m) {
    const float* values = x + m * columns;
    float largest = 0.0f;
    for (int64_t k = 0; k < columns; ++k) largest = std::max(largest, std::fabs(values[k]));
    const float inverse = largest > 0.0f ? kActivationLevels / largest : 0.0f;
    for (int64_t k = 0; k < columns; ++k)
      x_q[m * columns + k] = static_cast<int16_t>(std::nearbyint(values[k] * inverse));
    scales[m] = largest / kActivationLevels;
  }
}

// The integer dot products of one weight row with `Tile` rows of x, as fp32.
template <int Tile>
void row_dots(const int8_t* w, const int16_t* x_q, int64_t columns, float dots[Tile]) {
  Floats totals[Tile];
  for (int t = 0; t < Tile; ++t) totals[t] = zero_floats();
  const int64_t span = kStepsPerWidening * kColumnsPerStep;
  for (int64_t start = 0; start < columns; start += span) {
    const int64_t end = std::min(columns, start + span);
    Ints sums[Tile];
    for (int t = 0; t < Tile; ++t) sums[t] = zero_ints();
    for (int64_t k = start; k < end; k += kColumnsPerStep) {
      const Ints weights = load_weights(w + k);
      for (int t = 0; t < Tile; ++t)
        sums[t] = multiply_add_pairs(sums[t], weights, load_activations(x_q + t * columns + k));
    }
    for (int t = 0; t < Tile; ++t) totals[t] = add_as_floats(totals[t], sums[t]);
  }
  for (int t = 0; t < Tile; ++t) dots[t] = sum_lanes(totals[t]);
}

template <int Tile, typename Scale>
void tile_product(const int8_t* weight, const Scale* scales, const int16_t* x_q,
                  const float* x_scales, int64_t n_size, int64_t k_size, float* y) {
  PHONE_AGENT_INT4_OPS::parallel_chunks(n_size, kRowsPerChunk, [&](int64_t begin, int64_t end) {
    float dots[Tile];
    for (int64_t n = begin; n < end; ++n) {
      row_dots<Tile>(weight + n * k_size, x_q, k_size, dots);
      const float scale = static_cast<float>(scales[n]);
      for (int t = 0; t < Tile; ++t) y[t * n_size + n] = dots[t] * x_scales[t] * scale;
    }
  });
}

at::Tensor int8_mm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales) {
  TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && scales.dim() == 1,
              "int8_mm: x [M, K], weight [N, K], scales [N]");
  TORCH_CHECK(weight.scalar_type() == at::kChar, "int8_mm: weight must be int8");
  TORCH_CHECK(scales.scalar_type() == at::kBFloat16 || scales.scalar_type() == at::kFloat,
              "int8_mm: scales must be bfloat16 or float32");
  const int64_t m_size = x.size(0), k_size = x.size(1), n_size = weight.size(0);
  TORCH_CHECK(weight.size(1) == k_size, "int8_mm: weight has ", weight.size(1),
              " columns, x has ", k_size);
  TORCH_CHECK(k_size % kColumnsPerStep == 0, "int8_mm: columns must be a multiple of ",
              kColumnsPerStep);
  TORCH_CHECK(scales.size(0) == n_size, "int8_mm: one scale per weight row");

  const at::Tensor x_f = x.to(at::kFloat).contiguous();
  std::vector<int16_t> x_q(m_size * k_size);
  std::vector<float> x_scales(m_size);
  quantize_rows(x_f.data_ptr<float>(), m_size, k_size, x_q.data(), x_scales.data());
  at::Tensor y = at::empty({m_size, n_size}, x_f.options());

  const at::Tensor weight_c = weight.contiguous();
  const at::Tensor scales_c = scales.contiguous();
  const auto run = [&](const auto* row_scales) {
    for (int64_t row = 0; row < m_size; row += kMaxTileRows) {
      const int64_t tile = std::min<int64_t>(kMaxTileRows, m_size - row);
      const auto product = [&](auto tile_rows) {
        tile_product<decltype(tile_rows)::value>(
            weight_c.data_ptr<int8_t>(), row_scales, x_q.data() + row * k_size,
            x_scales.data() + row, n_size, k_size, y.data_ptr<float>() + row * n_size);
      };
      switch (tile) {
        case 1: product(std::integral_constant<int, 1>{}); break;
        case 2: product(std::integral_constant<int, 2>{}); break;
        case 3: product(std::integral_constant<int, 3>{}); break;
        default: product(std::integral_constant<int, kMaxTileRows>{}); break;
      }
    }
  };
  if (scales_c.scalar_type() == at::kBFloat16)
    run(scales_c.data_ptr<at::BFloat16>());
  else
    run(scales_c.data_ptr<float>());
  return y.to(x.scalar_type());
}

}  // namespace

// The library's other ops are defined in int4_kernel.cpp; these join the same namespace.
#define OPS_FRAGMENT(ns, library) TORCH_LIBRARY_FRAGMENT(ns, library)
#define OPS_FRAGMENT_IMPL(ns, library) TORCH_LIBRARY_IMPL(ns, CPU, library)

OPS_FRAGMENT(PHONE_AGENT_INT4_OPS, library) {
  library.def("int8_mm(Tensor x, Tensor weight, Tensor scales) -> Tensor");
}

OPS_FRAGMENT_IMPL(PHONE_AGENT_INT4_OPS, library) {
  library.impl("int8_mm", &int8_mm);
}
