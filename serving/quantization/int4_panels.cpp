// Many-row products with int4 weights on panels dequantized into the L2 cache, for prefill on CPUs
// with bf16 arithmetic: AMX tiles (Intel, AMX-BF16) or AVX512-BF16 dot products (AMD Zen 4).
//
// Dequantizing the whole weight to bf16 and handing it to the GEMM writes twice the bf16
// weight's bytes to memory and reads them back, and the GEMM reorders them once more. Here each
// thread takes panels of 64 output rows (one block of torch's AVX-512 int4 layout) and
// dequantizes each straight into the layout both multipliers read (pairs of adjacent input
// columns side by side, 16 output rows to a row of 64 bytes: an AMX tile row, or the weight
// operand of one `vdpbf16ps`), into a buffer that stays in its L2 cache, where the rows of x are
// multiplied by it. Only the int4 bytes come from memory.
//
// On AMX the vector units would idle while the tile unit multiplies, so the next panel is
// dequantized a few column pairs after each step of tile products. Measured on one Sapphire
// Rapids core against bf16 weights on oneDNN's AMX GEMM, a layer's matrices at 128 / 512 / 2048
// rows: 1.58x / 1.24x / 1.02x as fast (CPU time of one thread on a shared host).
//
// Without AMX the same vector units dequantize and multiply, so a panel is dequantized whole and
// then multiplied: six rows of x at a time by the panel's 64 output rows, 24 sums in registers,
// a slice of input columns (its weights 64 KiB, read from L1 and L2) for all rows before the
// next. Dequantizing costs a few instructions per pair of columns against 24 products per six
// rows, so from a few dozen rows on the products run at the rate of the bf16 GEMM itself, about
// one `vdpbf16ps` a cycle: on a 2-core Zen 4, a layer's matrices at 16 / 128 / 512 / 2048 rows
// were 1.45x / 1.08x / 1.05x / 1.00x as fast as bf16 weights on oneDNN's GEMM (medians of 7).
//
// The weights are those of the dequantize + bf16 GEMM path: (q * scale + zero - 8 scale) in fp32,
// rounded once to bf16; the products are summed in fp32, and the result is rounded to bf16 once.
//
// Compiled into every build of the library; a build for AVX512-BF16 defines the op, on tiles
// where the build is for AMX-BF16 too.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#if defined(__AVX512BF16__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#if defined(__AMX_TILE__) && defined(__AMX_BF16__)
#define PHONE_AGENT_AMX_TILES 1
#endif

namespace {

constexpr int64_t kPanelRows = 64;    // output rows per panel: one block of the packed layout
constexpr int64_t kPanelBytes = 32;   // packed bytes of one input column of a panel
constexpr int64_t kTileRows = 16;     // output rows in a row of a panel; rows of an x tile
constexpr int64_t kTileColumns = 32;  // bf16 input columns in one row of an x tile
constexpr int64_t kTileBytes = 64;    // bytes of one row of a panel (of a tile)
// Input columns per segment: a panel's segment is 256 KiB of bf16 weights; with AMX, a chunk of
// rows of x over a segment (1 MiB) stays in L2 too.
constexpr int64_t kSegmentColumns = 2048;

#if defined(PHONE_AGENT_AMX_TILES)
constexpr int64_t kRowStep = 2 * kTileRows;  // rows of x per pass: two tiles
// Rows of x multiplied by a panel before the next panel: bounds what is read per panel.
constexpr int64_t kRowChunk = 256;
// Input columns per slice (see multiply_half_panel).
constexpr int64_t kSliceColumns = 256;

// Linux lends the tile registers' state to a process only once it asks.
constexpr int kArchRequestXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

bool tiles_permitted() {
  static const bool permitted =
      syscall(SYS_arch_prctl, kArchRequestXcompPerm, kXfeatureXtiledata) == 0;
  return permitted;
}

// Tiles 0-3: sums (rows 0-15 / 16-31 of the pass by output rows 0-15 / 16-31 of the half
// panel); 4-5: x (rows 0-15, 16-31 of the pass); 6-7: weights (output rows 0-15, 16-31).
struct TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {};
  uint8_t rows[16] = {};
};

void configure_tiles() {
  TileConfig config;
  for (int tile = 0; tile < 8; ++tile) {
    config.rows[tile] = kTileRows;
    config.bytes_per_row[tile] = kTileBytes;
  }
  _tile_loadconfig(&config);
}
#endif  // PHONE_AGENT_AMX_TILES

// A pair of input columns of a panel is 64 packed bytes: column k's 32, then column k + 1's;
// byte j holds output row j in its low nibble and row j + 32 in its high one. Vector v of a
// pair takes output rows 8 v .. 8 v + 7 (and 32 more from the high nibbles), lane i holding row
// 8 v + i / 2 of column k + i % 2 in its low byte: the order of a tile row once converted.
struct PairIndex {
  alignas(64) uint8_t bytes[4][64];
  constexpr PairIndex() : bytes{} {
    for (int v = 0; v < 4; ++v)
      for (int lane = 0; lane < 16; ++lane)
        bytes[v][4 * lane] = static_cast<uint8_t>(32 * (lane % 2) + 8 * v + lane / 2);
  }
};
constexpr PairIndex kPairIndex{};

// Each output row's scale and offset (zero - 8 scale) in fp32, twice in a row: the two columns
// of a pair share a group, and a converted vector holds a row's pair side by side.
inline void load_scale_offset(const at::BFloat16* pairs, float* scale, float* offset) {
  const __m512i first_rows = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
  const __m512i last_rows = _mm512_add_epi32(first_rows, _mm512_set1_epi32(8));
  for (int64_t r = 0; r < kPanelRows; r += 16) {
    // 32-bit lanes of (scale, zero): the scale is the low half, the zero the high one
    const __m512i both = _mm512_loadu_si512(pairs + 2 * r);
    const __m512 s = _mm512_castsi512_ps(_mm512_slli_epi32(both, 16));
    const __m512 z = _mm512_castsi512_ps(_mm512_and_si512(both, _mm512_set1_epi32(-65536)));
    const __m512 o = _mm512_fnmadd_ps(_mm512_set1_ps(8.0f), s, z);
    _mm512_store_ps(scale + 2 * r, _mm512_permutexvar_ps(first_rows, s));
    _mm512_store_ps(scale + 2 * r + 16, _mm512_permutexvar_ps(last_rows, s));
    _mm512_store_ps(offset + 2 * r, _mm512_permutexvar_ps(first_rows, o));
    _mm512_store_ps(offset + 2 * r + 16, _mm512_permutexvar_ps(last_rows, o));
  }
}

inline void load_scale_offset(const float* pairs, float* scale, float* offset) {
  const __m512i scales = _mm512_setr_epi32(0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14);
  const __m512i zeros = _mm512_add_epi32(scales, _mm512_set1_epi32(1));
  for (int64_t r = 0; r < kPanelRows; r += 8) {
    const __m512 both = _mm512_loadu_ps(pairs + 2 * r);  // (scale, zero) of 8 rows
    const __m512 s = _mm512_permutexvar_ps(scales, both);
    _mm512_store_ps(scale + 2 * r, s);
    _mm512_store_ps(offset + 2 * r,
                    _mm512_fnmadd_ps(_mm512_set1_ps(8.0f), s, _mm512_permutexvar_ps(zeros, both)));
  }
}

// Dequantizes a panel (one packed block) into tile layout a few pairs of input columns at a
// time, so that the work can be spread over the multiplication of the panel before it: the
// vector units are idle while the tile unit multiplies. In tile layout each of the panel's four
// tiles of 16 output rows holds, for each pair of input columns (k, k + 1), one tile row of
// (bf16 w[k, r], bf16 w[k + 1, r]) for its 16 rows r; 16 pairs make 1 KiB in one piece.
template <typename Pair>
class PanelDequantizer {
 public:
  PanelDequantizer(const uint8_t* packed, const Pair* scale_zero, int64_t k_size, int64_t n_size,
                   int64_t group_size)
      : packed_(packed), scale_zero_(scale_zero), k_size_(k_size), n_size_(n_size),
        group_size_(group_size) {}

  // Input columns [k_begin, k_end) of packed block `block`, into `panel`.
  void start(int64_t block, int64_t k_begin, int64_t k_end, uint8_t* panel) {
    block_ = block;
    k_begin_ = next_ = k_begin;
    k_end_ = k_end;
    panel_ = panel;
    group_ = -1;
  }

  // Up to `count` more pairs of input columns.
  void advance(int64_t count) {
    const int64_t end = std::min(k_end_, next_ + 2 * count);
    const uint8_t* packed_block = packed_ + block_ * kPanelRows * k_size_ / 2;
    const int64_t tile_stride = (k_end_ - k_begin_) / 2 * kTileBytes;
    const __mmask64 low_bytes = 0x1111111111111111ULL;
    for (int64_t k = next_; k < end; k += 2) {
      if (k / group_size_ != group_) {
        group_ = k / group_size_;
        load_scale_offset(scale_zero_ + (group_ * n_size_ + block_ * kPanelRows) * 2, scale_,
                          offset_);
      }
      const __m512i bytes = _mm512_loadu_si512(packed_block + k * kPanelBytes);
      __m512 values[8];  // rows 8 v .. 8 v + 7 of both columns, v = 0..7
      for (int v = 0; v < 4; ++v) {
        const __m512i spread = _mm512_maskz_permutexvar_epi8(
            low_bytes, _mm512_load_si512(kPairIndex.bytes[v]), bytes);
        const __m512i nibbles[2] = {_mm512_and_si512(spread, _mm512_set1_epi32(15)),
                                    _mm512_srli_epi32(spread, 4)};
        for (int high = 0; high < 2; ++high) {
          const int64_t lane = 16 * (v + 4 * high);  // twice the first row of the vector
          values[v + 4 * high] =
              _mm512_fmadd_ps(_mm512_cvtepi32_ps(nibbles[high]), _mm512_load_ps(scale_ + lane),
                              _mm512_load_ps(offset_ + lane));
        }
      }
      uint8_t* row = panel_ + (k - k_begin_) / 2 * kTileBytes;
      for (int tile = 0; tile < 4; ++tile) {
        const __m512bh pairs = _mm512_cvtne2ps_pbh(values[2 * tile + 1], values[2 * tile]);
        _mm512_store_si512(row + tile * tile_stride, reinterpret_cast<const __m512i&>(pairs));
      }
    }
    next_ = end;
  }

  void finish() { advance(k_end_ - next_); }

 private:
  const uint8_t* packed_;
  const Pair* scale_zero_;
  int64_t k_size_, n_size_, group_size_;
  int64_t block_ = 0, k_begin_ = 0, k_end_ = 0;
  uint8_t* panel_ = nullptr;
  int64_t next_ = 0;   // the next input column to dequantize
  int64_t group_ = -1;  // the group whose scales are loaded
  alignas(64) float scale_[2 * kPanelRows];
  alignas(64) float offset_[2 * kPanelRows];
};

inline uint8_t* aligned(std::vector<uint8_t>& buffer, int64_t bytes) {
  if (static_cast<int64_t>(buffer.size()) < bytes + 64) buffer.resize(bytes + 64);
  return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(buffer.data()) + 63) &
                                    ~uintptr_t{63});
}

#if defined(PHONE_AGENT_AMX_TILES)

// x in tile order, each x tile 1 KiB in one piece and the rows past the last zeros, so that
// every pass loads whole tiles the same way. Pass p (rows 32 p .. 32 p + 31), input columns
// 32 s .. 32 s + 31, tile t (rows 16 t ..): at ((p * K / 32 + s) * 2 + t) * 16 x 32 values.
void pack_rows(const at::BFloat16* x, int64_t m_size, int64_t k_size, at::BFloat16* tiles) {
  const int64_t passes = (m_size + kRowStep - 1) / kRowStep;
  at::parallel_for(0, passes, 1, [&](int64_t begin, int64_t end) {
    for (int64_t pass = begin; pass < end; ++pass)
      for (int64_t r = 0; r < kRowStep; ++r) {
        const int64_t row = pass * kRowStep + r;
        at::BFloat16* out = tiles + pass * kRowStep * k_size + (r / kTileRows) * kTileRows *
                            kTileColumns + (r % kTileRows) * kTileColumns;
        for (int64_t k = 0; k < k_size; k += kTileColumns) {
          const __m512i values = row < m_size ? _mm512_loadu_si512(x + row * k_size + k)
                                              : _mm512_setzero_si512();
          _mm512_storeu_si512(out + (k / kTileColumns) * kRowStep * kTileColumns, values);
        }
      }
  });
}

// Rows [row_begin, row_end) of x times 32 output rows of a panel (its weight tiles `first`,
// `second`, input columns [k_begin, k_end)), added to the fp32 sums `sums` (32 x 32 per pass of
// x; `fresh`: start from zero). The input columns are taken a slice at a time, all passes over
// one slice before the next: the slice's weight tiles (16 KiB) are then read from L1 by every
// pass. After each step of tile products, `next` dequantizes `pairs_per_step` column pairs of
// the next panel.
template <typename Pair>
void multiply_half_panel(const at::BFloat16* x_tiles, int64_t row_begin, int64_t row_end,
                         const uint8_t* first, const uint8_t* second, int64_t k_begin,
                         int64_t k_end, int64_t k_size, bool fresh, float* sums,
                         PanelDequantizer<Pair>& next, int64_t pairs_per_step) {
  constexpr int64_t kTileValues = kTileRows * kTileColumns;
  constexpr int64_t kSumsStride = 2 * kTileRows * sizeof(float);
  constexpr int64_t kPassSums = kRowStep * 2 * kTileRows;
  for (int64_t slice = k_begin; slice < k_end; slice += kSliceColumns) {
    const int64_t slice_end = std::min(k_end, slice + kSliceColumns);
    for (int64_t row = row_begin; row < row_end; row += kRowStep) {
      float* pass_sums = sums + (row - row_begin) / kRowStep * kPassSums;
      if (fresh && slice == k_begin) {
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
      } else {
        _tile_loadd(0, pass_sums, kSumsStride);
        _tile_loadd(1, pass_sums + kTileRows, kSumsStride);
        _tile_loadd(2, pass_sums + kTileRows * 2 * kTileRows, kSumsStride);
        _tile_loadd(3, pass_sums + kTileRows * 2 * kTileRows + kTileRows, kSumsStride);
      }
      const at::BFloat16* x_pass = x_tiles + row * k_size;
      for (int64_t k = slice; k < slice_end; k += kTileColumns) {
        const at::BFloat16* x_step = x_pass + (k / kTileColumns) * 2 * kTileValues;
        const int64_t pair = (k - k_begin) / 2;
        _tile_loadd(4, x_step, kTileBytes);
        _tile_loadd(5, x_step + kTileValues, kTileBytes);
        _tile_loadd(6, first + pair * kTileBytes, kTileBytes);
        _tile_loadd(7, second + pair * kTileBytes, kTileBytes);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
        next.advance(pairs_per_step);
      }
      _tile_stored(0, pass_sums, kSumsStride);
      _tile_stored(1, pass_sums + kTileRows, kSumsStride);
      _tile_stored(2, pass_sums + kTileRows * 2 * kTileRows, kSumsStride);
      _tile_stored(3, pass_sums + kTileRows * 2 * kTileRows + kTileRows, kSumsStride);
    }
  }
}

// Rows [row_begin, row_end) of the sums of 32 output columns, in bf16 into y (those rows' first
// output column). Whole cache lines that nothing here reads again: stored past the caches,
// which spares reading each line in first.
void store_rows(const float* sums, int64_t row_begin, int64_t row_end, at::BFloat16* y,
                int64_t n_size) {
  for (int64_t row = row_begin; row < row_end; ++row) {
    const float* values = sums + (row - row_begin) * 2 * kTileRows;
    const __m512bh out =
        _mm512_cvtne2ps_pbh(_mm512_load_ps(values + kTileRows), _mm512_load_ps(values));
    _mm512_stream_si512(reinterpret_cast<__m512i*>(y + row * n_size),
                        reinterpret_cast<const __m512i&>(out));
  }
}

// Each thread takes a range of panels. For each chunk of rows of x and each segment of input
// columns (so that the chunk's part of x stays in L2 across the thread's panels), it
// dequantizes its panels' segments one after the other, each during the products of the one
// before, and adds their products to the sums; the last segment stores them.
template <typename Pair>
void tile_linear(const at::BFloat16* x_tiles, int64_t m_size, const uint8_t* packed,
                 const Pair* scale_zero, int64_t k_size, int64_t n_size, int64_t group_size,
                 at::BFloat16* y) {
  const int64_t blocks = n_size / kPanelRows;
  const int64_t segments = (k_size + kSegmentColumns - 1) / kSegmentColumns;
  const int64_t segment_columns = std::min(k_size, kSegmentColumns);
  const int64_t panel_bytes = segment_columns / 2 * kPanelRows * 2 * sizeof(uint16_t);
  const int64_t half_sums = kRowChunk * 2 * kTileRows;  // one half panel's sums
  for (int64_t chunk = 0; chunk < m_size; chunk += kRowChunk) {
    const int64_t chunk_end = std::min(m_size, chunk + kRowChunk);
    // Steps of tile products over one panel segment, and the column pairs of the next to
    // dequantize after each so that it is done when the segment is.
    const int64_t steps_per_column =
        2 * ((chunk_end - chunk + kRowStep - 1) / kRowStep);  // per kTileColumns columns
    at::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
      configure_tiles();
      // With several segments every panel's sums persist until the last one.
      const int64_t kept = segments > 1 ? end - begin : 1;
      thread_local std::vector<uint8_t> panel_buffers[2], sums_buffer;
      uint8_t* panels[2] = {aligned(panel_buffers[0], panel_bytes),
                            aligned(panel_buffers[1], panel_bytes)};
      float* all_sums = reinterpret_cast<float*>(
          aligned(sums_buffer, kept * 2 * half_sums * sizeof(float)));
      PanelDequantizer<Pair> next(packed, scale_zero, k_size, n_size, group_size);
      // The order of the work: segment by segment, the thread's blocks in each; `step` counts
      // it, and each step's input columns are [columns(step), columns(step) + width(step)).
      const int64_t count = segments * (end - begin);
      const auto block_of = [&](int64_t step) { return begin + step % (end - begin); };
      const auto columns = [&](int64_t step) { return step / (end - begin) * kSegmentColumns; };
      const auto width = [&](int64_t step) {
        return std::min(k_size - columns(step), kSegmentColumns);
      };
      const auto start = [&](int64_t step) {
        next.start(block_of(step), columns(step), columns(step) + width(step), panels[step % 2]);
      };
      start(0);
      next.finish();
      for (int64_t step = 0; step < count; ++step) {
        const int64_t block = block_of(step), k_begin = columns(step);
        const int64_t k_end = k_begin + width(step);
        const bool first_segment = k_begin == 0, last_segment = k_end == k_size;
        // The next step's column pairs, spread over this step's tile products.
        const int64_t steps = steps_per_column * (width(step) / kTileColumns);
        int64_t pairs_per_step = 0;
        if (step + 1 < count) {
          start(step + 1);
          pairs_per_step = (width(step + 1) / 2 + steps - 1) / steps;
        }
        float* sums = all_sums + (segments > 1 ? block - begin : 0) * 2 * half_sums;
        const int64_t tile_stride = width(step) / 2 * kTileBytes;
        for (int64_t half = 0; half < 2; ++half) {
          const uint8_t* first = panels[step % 2] + 2 * half * tile_stride;
          multiply_half_panel(x_tiles, chunk, chunk_end, first, first + tile_stride, k_begin,
                              k_end, k_size, first_segment, sums + half * half_sums, next,
                              pairs_per_step);
        }
        if (last_segment)
          for (int64_t half = 0; half < 2; ++half)
            store_rows(sums + half * half_sums, chunk, chunk_end,
                       y + block * kPanelRows + half * 2 * kTileRows, n_size);
        if (step + 1 < count) next.finish();
      }
      _tile_release();
      _mm_sfence();  // the streamed stores of y, before another thread reads it
    });
  }
}

#else  // AVX512-BF16 without AMX

// Rows of x multiplied together by a panel: 6 rows by 4 groups of 16 output rows are 24 sums,
// with the panel's 4 weight vectors and one broadcast of x, 29 of the 32 vector registers.
constexpr int kRowGroup = 6;
// Input columns per slice: every group of rows is multiplied by a slice of the panel (64 KiB of
// weights) before the next slice, so that the slice is read from the caches closest.
constexpr int64_t kSliceColumns = 512;

// `Rows` rows of x, read as 32-bit words of two input columns (rows `x_stride` words apart, from
// the slice's first pair), times `pairs` column pairs of a panel slice whose four parts of 16
// output rows lie `part_stride` bytes apart. The fp32 sums start from zero (`fresh`) or from
// `sums` (64 a row), and end in `sums`, or rounded to bf16 in y (`last`).
template <int Rows>
inline void rows_times_slice(const int32_t* x_pairs, int64_t x_stride, const uint8_t* slice,
                             int64_t part_stride, int64_t pairs, bool fresh, bool last,
                             float* sums, at::BFloat16* y, int64_t n_size) {
  __m512 acc[Rows][4];
  for (int row = 0; row < Rows; ++row)
    for (int part = 0; part < 4; ++part)
      acc[row][part] = fresh ? _mm512_setzero_ps()
                             : _mm512_loadu_ps(sums + row * kPanelRows + part * kTileRows);
  for (int64_t pair = 0; pair < pairs; ++pair) {
    const uint8_t* w = slice + pair * kTileBytes;
    __m512bh weights[4];
    for (int part = 0; part < 4; ++part)
      weights[part] = reinterpret_cast<__m512bh>(_mm512_load_si512(w + part * part_stride));
    for (int row = 0; row < Rows; ++row) {
      const __m512bh xs =
          reinterpret_cast<__m512bh>(_mm512_set1_epi32(x_pairs[row * x_stride + pair]));
      for (int part = 0; part < 4; ++part)
        acc[row][part] = _mm512_dpbf16_ps(acc[row][part], xs, weights[part]);
    }
  }
  for (int row = 0; row < Rows; ++row)
    for (int part = 0; part < 4; ++part) {
      if (last)
        _mm256_storeu_si256(
            reinterpret_cast<__m256i*>(y + row * n_size + part * kTileRows),
            reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(acc[row][part])));
      else
        _mm512_storeu_ps(sums + row * kPanelRows + part * kTileRows, acc[row][part]);
    }
}

template <typename Fn>
void with_rows(int64_t rows, Fn&& fn) {
  switch (rows) {
    case 1: fn(std::integral_constant<int, 1>{}); break;
    case 2: fn(std::integral_constant<int, 2>{}); break;
    case 3: fn(std::integral_constant<int, 3>{}); break;
    case 4: fn(std::integral_constant<int, 4>{}); break;
    case 5: fn(std::integral_constant<int, 5>{}); break;
    default: fn(std::integral_constant<int, kRowGroup>{}); break;
  }
}

// Each thread takes a range of panels; for each segment of a panel's input columns it
// dequantizes the segment whole, then multiplies every row of x by it, a slice at a time.
template <typename Pair>
void vector_linear(const int32_t* x_pairs, int64_t m_size, const uint8_t* packed,
                   const Pair* scale_zero, int64_t k_size, int64_t n_size, int64_t group_size,
                   at::BFloat16* y) {
  const int64_t blocks = n_size / kPanelRows;
  const int64_t panel_bytes = std::min(k_size, kSegmentColumns) / 2 * kPanelRows * 4;
  at::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
    thread_local std::vector<uint8_t> panel_buffer, sums_buffer;
    uint8_t* panel = aligned(panel_buffer, panel_bytes);
    float* sums = reinterpret_cast<float*>(
        aligned(sums_buffer, m_size * kPanelRows * static_cast<int64_t>(sizeof(float))));
    PanelDequantizer<Pair> dequantizer(packed, scale_zero, k_size, n_size, group_size);
    for (int64_t block = begin; block < end; ++block)
      for (int64_t k_begin = 0; k_begin < k_size; k_begin += kSegmentColumns) {
        const int64_t k_end = std::min(k_size, k_begin + kSegmentColumns);
        dequantizer.start(block, k_begin, k_end, panel);
        dequantizer.finish();
        const int64_t part_stride = (k_end - k_begin) / 2 * kTileBytes;
        for (int64_t slice = k_begin; slice < k_end; slice += kSliceColumns) {
          const int64_t slice_end = std::min(k_end, slice + kSliceColumns);
          const bool fresh = slice == 0, last = slice_end == k_size;
          for (int64_t first = 0; first < m_size; first += kRowGroup)
            with_rows(std::min<int64_t>(kRowGroup, m_size - first), [&](auto rows) {
              constexpr int kRows = decltype(rows)::value;
              rows_times_slice<kRows>(x_pairs + first * k_size / 2 + slice / 2, k_size / 2,
                                      panel + (slice - k_begin) / 2 * kTileBytes, part_stride,
                                      (slice_end - slice) / 2, fresh, last,
                                      sums + first * kPanelRows,
                                      y + first * n_size + block * kPanelRows, n_size);
            });
        }
      }
  });
}

#endif  // PHONE_AGENT_AMX_TILES

// x [M, K] (bf16) times the packed weight (torch's AVX-512 layout), in bf16.
at::Tensor panel_product(const at::Tensor& x, const at::Tensor& packed,
                         const at::Tensor& scale_zero, int64_t group_size) {
#if defined(PHONE_AGENT_AMX_TILES)
  TORCH_CHECK(tiles_permitted(), "panel_mm: Linux refused this process the AMX tile state");
#endif
  TORCH_CHECK(x.dim() == 2 && packed.dim() == 2 && scale_zero.dim() == 3,
              "panel_mm: x [M, K], packed [N, K/2], scale_zero [G, N, 2]");
  TORCH_CHECK(x.scalar_type() == at::kBFloat16, "panel_mm: x must be bfloat16");
  TORCH_CHECK(packed.scalar_type() == at::kByte, "panel_mm: packed must be uint8");
  TORCH_CHECK(scale_zero.scalar_type() == at::kBFloat16 || scale_zero.scalar_type() == at::kFloat,
              "panel_mm: scale_zero must be bfloat16 or float32");
  const int64_t m_size = x.size(0), k_size = x.size(1), n_size = packed.size(0);
  TORCH_CHECK(packed.size(1) * 2 == k_size, "panel_mm: packed has ", packed.size(1) * 2,
              " columns, x has ", k_size);
  TORCH_CHECK(n_size % kPanelRows == 0, "panel_mm: rows must be a multiple of ", kPanelRows);
  TORCH_CHECK(k_size % kTileColumns == 0, "panel_mm: columns must be a multiple of ",
              kTileColumns);
  TORCH_CHECK(group_size > 0 && group_size % 2 == 0 && k_size % group_size == 0,
              "panel_mm: group size ", group_size, " must be even and divide ", k_size);
  TORCH_CHECK(scale_zero.size(0) == k_size / group_size && scale_zero.size(1) == n_size &&
                  scale_zero.size(2) == 2,
              "panel_mm: scale_zero must be [K / group_size, N, 2]");
  const at::Tensor x_c = x.contiguous();
  const at::Tensor packed_c = packed.contiguous();
  const at::Tensor scale_zero_c = scale_zero.contiguous();
  at::Tensor y = at::empty({m_size, n_size}, x.options());
#if defined(PHONE_AGENT_AMX_TILES)
  const int64_t passes = (m_size + kRowStep - 1) / kRowStep;
  at::Tensor x_tiles = at::empty({passes * kRowStep, k_size}, x.options());
  pack_rows(x_c.data_ptr<at::BFloat16>(), m_size, k_size, x_tiles.data_ptr<at::BFloat16>());
  const auto run = [&](const auto* pairs) {
    tile_linear(x_tiles.data_ptr<at::BFloat16>(), m_size, packed_c.data_ptr<uint8_t>(), pairs,
                k_size, n_size, group_size, y.data_ptr<at::BFloat16>());
  };
#else
  const auto run = [&](const auto* pairs) {
    vector_linear(reinterpret_cast<const int32_t*>(x_c.data_ptr<at::BFloat16>()), m_size, packed_c.data_ptr<uint8_t>(), pairs,
                  k_size, n_size, group_size, y.data_ptr<at::BFloat16>());
  };
#endif
  if (scale_zero_c.scalar_type() == at::kBFloat16)
    run(scale_zero_c.data_ptr<at::BFloat16>());
  else
    run(scale_zero_c.data_ptr<float>());
  return y;
}

}  // namespace

#ifndef PHONE_AGENT_INT4_OPS
#error "build with -DPHONE_AGENT_INT4_OPS=<op namespace>"
#endif

// For `linear` in int4_kernel.cpp; the namespace is the build's own, so that builds loaded side
// by side never bind each other's.
namespace PHONE_AGENT_INT4_OPS {
__attribute__((visibility("hidden"))) at::Tensor panel_mm(const at::Tensor& x,
                                                         const at::Tensor& packed,
                                                         const at::Tensor& scale_zero,
                                                         int64_t group_size) {
  return panel_product(x, packed, scale_zero, group_size);
}
}  // namespace PHONE_AGENT_INT4_OPS

#define OPS_FRAGMENT(ns, library) TORCH_LIBRARY_FRAGMENT(ns, library)
#define OPS_FRAGMENT_IMPL(ns, library) TORCH_LIBRARY_IMPL(ns, CPU, library)

OPS_FRAGMENT(PHONE_AGENT_INT4_OPS, library) {
  library.def("panel_mm(Tensor x, Tensor packed, Tensor scale_zero, int group_size) -> Tensor");
#if defined(PHONE_AGENT_AMX_TILES)
  // No tensor to dispatch on: defined with its kernel, for every backend.
  library.def("tiles_permitted() -> bool", &tiles_permitted);
#endif
}

OPS_FRAGMENT_IMPL(PHONE_AGENT_INT4_OPS, library) {
  library.impl("panel_mm", &panel_product);
}
#endif
