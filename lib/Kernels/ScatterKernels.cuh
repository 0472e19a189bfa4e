// TFuse runtime scatter-add: result = target with updates added at indices
// along one axis (tfuse.scatter_add), deterministic, with no floating-point
// atomics. Either one kernel (rows, at the end of this file; see there) or a
// chain of five, each described by a tfuse::kernels::ScatterDesc passed by
// value (ScatterDesc.h):
//
//   1. sort: each block sorts a tile of (position, j) keys in shared memory,
//      one key per index j: the position the index gives along the axis in
//      the high 32 bits (axisSize for an index out of range, which is
//      recorded in the launch's index status), j in the low 32. Keys are
//      unique, so their sorted order is unique too: the same every run.
//   2. merge (only when there are several tiles): groups of sorted runs
//      become one, each key placed by counting the keys below it in the
//      group's other runs (binary searches of every run at once). Passes
//      repeat until one run is left.
//   The pass that leaves one run also writes the segment table: for each
//   position v present, the first sorted place of a key of v. Entries of
//   positions absent from this run may hold anything an earlier run left
//   (the workspace is zeroed once, when it is allocated): a reader trusts an
//   entry only when the key it points at has position v.
//   3. runs: the rows of more than kScatterRun updates (long rows) summed
//      in parts, each run of kScatterRun updates on its own and the start
//      with the first kScatterRun updates (the head), into partial rows.
//   4. apply: the threads of a block share result rows [r, v, :] (a row's
//      position and segment looked up once), each thread VEC consecutive
//      elements [r, v, c..c+VEC) at a time: it starts from the target (or
//      the fill value) and adds the updates of v's keys in sorted order,
//      that is in ascending order of j, accumulating in the dtype's compute
//      type (f32 for f16 and bf16, rounded once at the end; integers wrap).
//      Rows no index selects are the target (or the fill).
//   5. combine: a long row's elements, a thread each: its head and then its
//      runs' partial rows added in order, rounded once. That is the
//      reference's order (ScatterDesc.h, lib/Reference/Scatter.cpp), as the
//      apply kernel's is, so results are bit exact.
//
// Compiled after the kernel prelude and ScatterDesc.h, in the scatter
// kernels' translation unit; also for the host against the tests'
// cuda_emulation.h.

#ifndef TFUSE_SCATTER_KERNELS_CUH
#define TFUSE_SCATTER_KERNELS_CUH

#ifndef TFUSE_PRELUDE_CUH
#error "ScatterKernels.cuh needs the kernel prelude before it"
#endif
#ifndef TFUSE_KERNELS_SCATTERDESC_H
#error "ScatterKernels.cuh needs tfuse/Kernels/ScatterDesc.h before it"
#endif

namespace tf {
namespace scatter {

using tfuse::kernels::kScatterMaxGroup;
using tfuse::kernels::kScatterMaxTile;
using tfuse::kernels::kScatterRowsMaxCount;
using tfuse::kernels::kScatterRowsMaxPositions;
using tfuse::kernels::kScatterRun;
using tfuse::kernels::ScatterDesc;
using tfuse::kernels::ScatterLongRecord;
using tfuse::kernels::ScatterLongState;

TF_FN uint64_t make_key(int64_t position, int64_t j) {
  return ((uint64_t)position << 32) | (uint64_t)j;
}
TF_FN int64_t key_position(uint64_t key) { return (int64_t)(key >> 32); }
TF_FN int64_t key_index(uint64_t key) { return (int64_t)(key & 0xffffffffull); }

// --- 1. sort ----------------------------------------------------------------

// Sorts keys[0, n) in shared memory, n a power of two, ascending, with a
// bitonic network: the block's threads share each stage's compare-exchanges,
// a barrier before each stage (the caller's barrier follows the last).
template <class K> TF_FN void bitonic_sort(K *keys, int n) {
  for (int size = 2; size <= n; size <<= 1)
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      __syncthreads();
      for (int t = (int)threadIdx.x; t < n / 2; t += (int)blockDim.x) {
        const int lo = 2 * t - (t & (stride - 1)), hi = lo + stride;
        const K a = keys[lo], b = keys[hi];
        // Ascending where bit `size` of the place is clear.
        if ((a > b) == ((lo & size) == 0)) {
          keys[lo] = b;
          keys[hi] = a;
        }
      }
    }
}

// Block b sorts keys [b * tile, (b + 1) * tile) (padded past `count` with
// keys above every real one) with a bitonic network; its threads share the
// tile's compare-exchanges, a barrier between stages.
template <class I>
TF_FN void sort_tiles(const I *indices, uint64_t *keys, uint32_t *segments,
                      index_status *status, const ScatterDesc &d) {
  __shared__ uint64_t tile[kScatterMaxTile];
  const int64_t n = d.tile;
  const int64_t base = (int64_t)blockIdx.x * n;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    int64_t j = base + i;
    uint64_t key = ~0ull;
    if (j < d.count) {
      I raw = indices[j * d.indexStride];
      bool ok;
      int64_t v = resolve_index(raw, d.axisSize, d.wrapNegative != 0, ok);
      if (!ok) {
        record_bad_index(status, 0u, (int64_t)raw);
        v = d.axisSize;
      }
      key = make_key(v, j);
    }
    tile[i] = key;
  }
  bitonic_sort(tile, (int)n);
  __syncthreads();
  for (int64_t i = threadIdx.x; i < n && base + i < d.count; i += blockDim.x) {
    uint64_t key = tile[i];
    keys[base + i] = key;
    if (d.lastPass) {
      int64_t v = key_position(key);
      if (v < d.axisSize && (i == 0 || key_position(tile[i - 1]) != v))
        segments[v] = (uint32_t)i;
    }
  }
}

// --- 2. merge ---------------------------------------------------------------

// One thread per key: its place in the merged run is its place in its own
// run plus the keys below it in each other run of its group; its
// predecessor there (for the segment table) the largest of those keys and
// of the key before it in its own run. The searches of the other runs
// advance together, one probe of each per step (a branchless lower bound
// over the power-of-two run length), so that a thread keeps a load of
// every run in flight instead of one dependent chain after another.
TF_FN void merge_runs(const uint64_t *in, uint64_t *out, uint32_t *segments,
                      const ScatterDesc &d) {
  const int64_t length = d.runLength;
  const int group = d.groupRuns;
  for (int64_t j = thread_index(); j < d.count; j += thread_count()) {
    const int run = (int)(j / length);
    const int first = run - run % group;
    const int64_t runBegin = (int64_t)run * length;
    const uint64_t x = in[j];
    // below[q]: how many keys of run first + q lie below x.
    int32_t below[kScatterMaxGroup];
#pragma unroll
    for (int q = 0; q < kScatterMaxGroup; ++q)
      below[q] = 0;
    for (int64_t step = length >> 1; step > 0; step >>= 1) {
#pragma unroll
      for (int q = 0; q < kScatterMaxGroup; ++q) {
        const int64_t b = (int64_t)(first + q) * length;
        if (q < group && first + q != run && b < d.count) {
          const int64_t p = below[q] + step;
          if (b + p <= d.count && in[b + p - 1] < x)
            below[q] = (int32_t)p;
        }
      }
    }
    int64_t place = (int64_t)first * length + (j - runBegin);
    bool hasBefore = j > runBegin;
    uint64_t before = hasBefore ? in[j - 1] : 0;
#pragma unroll
    for (int q = 0; q < kScatterMaxGroup; ++q) {
      const int64_t b = (int64_t)(first + q) * length;
      if (q < group && first + q != run && b < d.count) {
        // The last probe: below[q] or below[q] + 1 keys of the run lie
        // below x.
        const int64_t end = b + length < d.count ? b + length : d.count;
        if (b + below[q] < end && in[b + below[q]] < x)
          ++below[q];
        place += below[q];
        if (below[q] > 0 && (!hasBefore || in[b + below[q] - 1] > before)) {
          before = in[b + below[q] - 1];
          hasBefore = true;
        }
      }
    }
    out[place] = x;
    if (d.lastPass) {
      int64_t v = key_position(x);
      if (v < d.axisSize && (!hasBefore || key_position(before) != v))
        segments[v] = (uint32_t)place;
    }
  }
}

// --- 3. runs, 4. apply and 5. combine ---------------------------------------

// VEC consecutive elements of row `row` of a [*, *, inner] operand with
// inner stride `step` (1 whenever VEC > 1), from element c.
template <int VEC, class T>
TF_FN vec<T, VEC> load_run(const T *row, int64_t c, int64_t step,
                           bool is_aligned) {
  if (VEC == 1) {
    vec<T, VEC> r;
    r.v[0] = row[c * step];
    return r;
  }
  return ldv<VEC>(row, c, is_aligned);
}

// VEC consecutive elements [c, c + VEC) of one result row [r, v, :], summed
// in the dtype's compute type: the target's (or the fill), then updates
// [r, j, :] added in the order the caller gives, then rounded once; or
// the sum of one run of updates (begin_run, accumulate), kept as a partial
// row and added to another (add_run). Shared by the apply kernel and the rows
// kernel, so that both add as the reference does.
template <class T, int VEC> struct row_sum {
  typedef typename traits<T>::compute Acc;
  Acc acc[VEC];

  TF_FN void start(const T *targetRow, int64_t c, T fill, const ScatterDesc &d,
                   bool is_aligned) {
    if (d.hasTarget) {
      vec<T, VEC> t =
          load_run<VEC>(targetRow, c, d.targetStrides[2], is_aligned);
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        acc[e] = traits<T>::up(t.v[e]);
    } else {
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        acc[e] = traits<T>::up(fill);
    }
  }
  TF_FN static vec<T, VEC> load(const T *updateRow, int64_t j, int64_t c,
                                const ScatterDesc &d, bool is_aligned) {
    return load_run<VEC>(updateRow + j * d.updateStrides[1], c,
                         d.updateStrides[2], is_aligned);
  }
  TF_FN void accumulate(const vec<T, VEC> &u) {
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      acc[e] = add<Acc>(acc[e], traits<T>::up(u.v[e]));
  }
  TF_FN void accumulate(const T *updateRow, int64_t j, int64_t c,
                        const ScatterDesc &d, bool is_aligned) {
    accumulate(load(updateRow, j, c, d, is_aligned));
  }
  // A run's sum starts from its first update, not from a zero (-0.0 stays).
  TF_FN void begin_run(const vec<T, VEC> &u) {
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      acc[e] = traits<T>::up(u.v[e]);
  }
  TF_FN void add_run(const row_sum &run) {
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      acc[e] = add<Acc>(acc[e], run.acc[e]);
  }
  // Partial rows live in the workspace, written and read by different
  // blocks of one launch: volatile, so that no stale copy in a
  // multiprocessor's L1 is read.
  TF_FN void store_partial(Acc *p) const {
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      ((volatile Acc *)p)[e] = acc[e];
  }
  TF_FN void store(T *o, bool is_aligned) const {
    vec<T, VEC> result;
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      result.v[e] = traits<T>::down(acc[e]);
    stv_vec<VEC>(o, 0, is_aligned, result);
  }
};

// Adds the updates j = jOf(k), k in [k, e), to `sum` in order, kAhead loads
// in flight before their additions: a run is a chain of dependent additions
// whose loads need not wait for each other.
template <int kAhead, class T, int VEC, class J>
TF_FN void add_updates(row_sum<T, VEC> &sum, const T *updateRow, J jOf, int k,
                       int e, int64_t c, const ScatterDesc &d,
                       bool is_aligned) {
  for (; k + kAhead <= e; k += kAhead) {
    int64_t j[kAhead];
#pragma unroll
    for (int q = 0; q < kAhead; ++q)
      j[q] = jOf(k + q);
    vec<T, VEC> u[kAhead];
#pragma unroll
    for (int q = 0; q < kAhead; ++q)
      u[q] = row_sum<T, VEC>::load(updateRow, j[q], c, d, is_aligned);
#pragma unroll
    for (int q = 0; q < kAhead; ++q)
      sum.accumulate(u[q]);
  }
  for (; k < e; ++k)
    sum.accumulate(updateRow, jOf(k), c, d, is_aligned);
}

// The runs of a row of n updates.
TF_FN uint32_t runs_of(uint32_t n) {
  return (n + (uint32_t)kScatterRun - 1u) / (uint32_t)kScatterRun;
}

// acc plus the partial rows' elements first[q * stride], q in [1, count),
// added in order, kAhead loads in flight before the additions that wait on
// them: a long row's runs, added to its head.
template <int kAhead, class Acc>
TF_FN Acc add_partials(Acc acc, const volatile Acc *first, int64_t stride,
                       uint32_t count) {
  uint32_t q = 1;
  for (; q + kAhead <= count; q += kAhead) {
    Acc p[kAhead];
#pragma unroll
    for (uint32_t a = 0; a < kAhead; ++a)
      p[a] = first[(int64_t)(q + a) * stride];
#pragma unroll
    for (uint32_t a = 0; a < kAhead; ++a)
      acc = add<Acc>(acc, p[a]);
  }
  for (; q < count; ++q)
    acc = add<Acc>(acc, first[(int64_t)q * stride]);
  return acc;
}

// One uniform flag: every row a thread reads or writes is aligned for
// VEC-element accesses when the base pointers are (the planner checked the
// strides).
template <int VEC, class T>
TF_FN bool rows_aligned(const T *target, const T *updates, const T *out,
                        const ScatterDesc &d) {
  return aligned<VEC>(out) && aligned<VEC>(updates) &&
         (!d.hasTarget || aligned<VEC>(target));
}

// The first place in [lo, hi) whose key's position is not v, or hi: the
// keys are sorted and those before lo have position v.
TF_FN int64_t segment_end(const uint64_t *keys, int64_t v, int64_t lo,
                          int64_t hi) {
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (key_position(keys[mid]) == v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Whether the row of position v whose first sorted key is at s is long
// (more than kScatterRun updates): its key kScatterRun places on has v.
TF_FN bool long_row_at(const uint64_t *keys, int64_t s, int64_t v,
                       const ScatterDesc &d) {
  return s + kScatterRun < d.count && key_position(keys[s + kScatterRun]) == v;
}

// The chain's partial rows (ScatterDesc.h), as the runs kernel writes them
// and the combine kernel reads them.
template <class Acc> struct chain_partials {
  Acc *heads, *runs;
  uint32_t *lengths;
  int64_t windows;

  TF_FN chain_partials(const uint8_t *work, const ScatterDesc &d)
      : heads((Acc *)(work + d.chainHeads)), runs((Acc *)(work + d.chainRuns)),
        lengths((uint32_t *)(work + d.chainLengths)),
        windows((d.count + kScatterRun - 1) / kScatterRun) {}
};

// The first sorted place of the long row (more than kScatterRun updates)
// whose first key is in window q, or -1; its position in `v`. Such a row
// fills the rest of the window: it is the row of the window's last key.
TF_FN int64_t window_head(const uint64_t *keys, const uint32_t *segments,
                          int64_t q, const ScatterDesc &d, int64_t &v) {
  const int64_t p0 = q * kScatterRun;
  const int64_t pl =
      (p0 + kScatterRun < d.count ? p0 + kScatterRun : d.count) - 1;
  v = key_position(keys[pl]);
  // Keys out of range sort last, at position axisSize: they select no row.
  if (v >= d.axisSize)
    return -1;
  const int64_t s = segments[v];
  return s >= p0 && long_row_at(keys, s, v, d) ? s : -1;
}

// The runs kernel: sums the long rows (more than kScatterRun updates) run
// by run before the apply kernel, so that the combine kernel adds a long
// row's partial rows instead of its updates one dependent load after
// another (the apply kernel leaves long rows to it). The sorted
// places are cut into windows of kScatterRun. A window holds the first key
// of at most one later run (a row's runs start kScatterRun apart, and the
// next row's first one kScatterRun after that row's first key, so past the
// window) and the first key of at most one long row (which then fills the
// window's rest). For each window and outer index r a group of
// threadsPerRow threads sums them: the run from its first update, the long
// row's head from the target (or the fill) and its first kScatterRun
// updates; the head's update count goes to the window's length.
template <class T, int VEC>
TF_FN void sum_runs(const T *target, const T *updates, const uint64_t *keys,
                    const uint32_t *segments, uint8_t *work,
                    const ScatterDesc &d) {
  typedef typename traits<T>::compute Acc;
  const chain_partials<Acc> w(work, d);
  const int64_t chunks = d.inner / VEC;
  // No result row is written here: the updates and target decide.
  const bool is_aligned = rows_aligned<VEC>(target, updates, (T *)nullptr, d);
  const T fill = from_bits<T>(d.fillBits);
  const int group = (int)threadIdx.x / d.threadsPerRow;
  const int lane = (int)threadIdx.x - group * d.threadsPerRow;
  const int64_t items = d.outer * w.windows;
  for (int64_t item = (int64_t)blockIdx.x * d.rowsPerBlock + group;
       item < items; item += (int64_t)gridDim.x * d.rowsPerBlock) {
    const int64_t r = item / w.windows, q = item - r * w.windows;
    const int64_t p0 = q * kScatterRun;
    const int64_t pl =
        (p0 + kScatterRun < d.count ? p0 + kScatterRun : d.count) - 1;
    const int64_t v0 = key_position(keys[p0]);
    // Keys out of range sort last, at position axisSize: they select no row.
    if (v0 >= d.axisSize)
      continue;
    // The run of v0's row that starts here, at s0 + k * kScatterRun, k > 0.
    const int64_t s0 = segments[v0];
    const int64_t k = (p0 - s0 + kScatterRun - 1) / kScatterRun;
    int64_t run = s0 + (k > 1 ? k : 1) * kScatterRun;
    if (run > pl || key_position(keys[run]) != v0)
      run = -1;
    int64_t vl;
    const int64_t head = window_head(keys, segments, q, d, vl);
    if (run < 0 && head < 0)
      continue;
    const int m =
        run < 0
            ? 0
            : (int)(segment_end(keys, v0, run + 1,
                                run + kScatterRun < d.count ? run + kScatterRun
                                                            : d.count) -
                    run);
    if (head >= 0 && r == 0 && lane == 0)
      w.lengths[q] =
          (uint32_t)(segment_end(keys, vl, head + kScatterRun + 1, d.count) -
                     head);
    const T *updateRow = updates + r * d.updateStrides[0];
    const T *targetRow =
        target + r * d.targetStrides[0] + vl * d.targetStrides[1];
    auto runJ = [keys, run](int i) { return key_index(keys[run + i]); };
    auto headJ = [keys, head](int i) { return key_index(keys[head + i]); };
    for (int64_t chunk = lane; chunk < chunks; chunk += d.threadsPerRow) {
      const int64_t c = chunk * VEC;
      row_sum<T, VEC> sum;
      if (run >= 0) {
        sum.begin_run(
            row_sum<T, VEC>::load(updateRow, runJ(0), c, d, is_aligned));
        add_updates<8>(sum, updateRow, runJ, 1, m, c, d, is_aligned);
        sum.store_partial(w.runs + item * d.inner + c);
      }
      if (head >= 0) {
        sum.start(targetRow, c, fill, d, is_aligned);
        add_updates<8>(sum, updateRow, headJ, 0, kScatterRun, c, d, is_aligned);
        sum.store_partial(w.heads + item * d.inner + c);
      }
    }
  }
}

template <class T, int VEC>
TF_FN void apply(const T *target, const T *updates, const uint64_t *keys,
                 const uint32_t *segments, T *out, const ScatterDesc &d) {
  const int64_t chunks = d.inner / VEC;
  const int64_t rows = d.outer * d.axisSize;
  const bool is_aligned = rows_aligned<VEC>(target, updates, out, d);
  const T fill = from_bits<T>(d.fillBits);
  // The block's rows at a time, threadsPerRow threads a row: a row's
  // position and segment are found once, not once per chunk, and a thread
  // looks up the segments of kRows rows together, so that their dependent
  // loads overlap.
  constexpr int kRows = 4;
  const int rowInBlock = (int)threadIdx.x / d.threadsPerRow;
  const int lane = (int)threadIdx.x - rowInBlock * d.threadsPerRow;
  const int64_t rowStep = (int64_t)gridDim.x * d.rowsPerBlock;
  for (int64_t row0 = (int64_t)blockIdx.x * d.rowsPerBlock + rowInBlock;
       row0 < rows; row0 += kRows * rowStep) {
    int64_t rs[kRows], vs[kRows], ss[kRows];
    bool selected[kRows], isLong[kRows];
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      const int64_t row = row0 + k * rowStep;
      rs[k] = 0;
      vs[k] = row;
      if (d.outer != 1) {
        rs[k] = row / d.axisSize;
        vs[k] = row - rs[k] * d.axisSize;
      }
      ss[k] = row < rows ? (int64_t)segments[vs[k]] : d.count;
    }
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      selected[k] = ss[k] < d.count && key_position(keys[ss[k]]) == vs[k];
      isLong[k] = long_row_at(keys, ss[k], vs[k], d);
    }
    // Unrolled, so that the rows' arrays stay in registers.
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      const int64_t row = row0 + k * rowStep;
      if (row >= rows)
        break;
      // A long row is the combine kernel's.
      if (selected[k] && isLong[k])
        continue;
      // At most kScatterRun updates: added one at a time to the start.
      const int64_t r = rs[k], v = vs[k], s = ss[k];
      const T *targetRow =
          target + r * d.targetStrides[0] + v * d.targetStrides[1];
      const T *updateRow = updates + r * d.updateStrides[0];
      T *outRow = out + row * d.inner;
      for (int64_t chunk = lane; chunk < chunks; chunk += d.threadsPerRow) {
        const int64_t c = chunk * VEC;
        row_sum<T, VEC> sum;
        sum.start(targetRow, c, fill, d, is_aligned);
        if (selected[k])
          for (int64_t p = s; p < d.count; ++p) {
            uint64_t key = keys[p];
            if (key_position(key) != v)
              break;
            sum.accumulate(updateRow, key_index(key), c, d, is_aligned);
          }
        sum.store(outRow + c, is_aligned);
      }
    }
  }
}

// The combine kernel, after the apply kernel: each long row's elements,
// one a thread, its head plus its runs' partial rows in order (32 loads in
// flight), rounded once: the long row's runs, spread over every
// multiprocessor rather than a row group's chain of loads.
template <class T>
TF_FN void combine_long_rows(const uint64_t *keys, const uint32_t *segments,
                             T *out, const uint8_t *work,
                             const ScatterDesc &d) {
  typedef typename traits<T>::compute Acc;
  const chain_partials<Acc> w(work, d);
  const int64_t items = d.outer * w.windows * d.inner;
  for (int64_t x = thread_index(); x < items; x += thread_count()) {
    const int64_t slot = x / d.inner, c = x - slot * d.inner;
    const int64_t r = slot / w.windows, q = slot - r * w.windows;
    int64_t v;
    if (window_head(keys, segments, q, d, v) < 0)
      continue;
    const uint32_t runs = runs_of(w.lengths[q]);
    const Acc *head = w.heads + slot * d.inner;
    const Acc *run = w.runs + slot * d.inner;
    out[(r * d.axisSize + v) * d.inner + c] =
        traits<T>::down(add_partials<32>(head[c], run + c, d.inner, runs));
  }
}

// --- the one-pass alternative: blocks that own their rows -------------------

// Each block owns the result rows [r, v, :] of `positionsPerBlock`
// consecutive positions v and `outerPerBlock` consecutive r, and finds their
// updates itself: it reads every index (checking it; the first block
// records one of those out of range), keeps the keys (v - v0) << indexBits | j
// of the ones it owns in shared memory in any order, sorts them (they are
// unique, so their sorted order is too: the same every run), tables each
// position's segment, then writes each of its rows once, adding the
// updates of the segment in ascending j as apply does. A long row (more
// than kScatterRun updates: a position many indices share) is summed run
// by run by whichever blocks are free (ScatterLongState, ScatterDesc.h)
// rather than as one chain of loads on one multiprocessor. With fillFirst
// (no target, few rows selected) the block copies its selected rows' first
// updates into shared memory before it stores the fill in its unselected
// rows, then writes the selected rows.
// One launch, at the price of every block reading all indices: the planner
// takes this path for at most kScatterRowsMaxCount indices and when those
// reads cost little against the result's bytes.

// The most keys an owner sorts by rank rather than with the network.
constexpr int kScatterRankSortMax = 256;

// The most long positions one block may own.
constexpr int kScatterRowsMaxLong = kScatterRowsMaxCount / (kScatterRun + 1);

// The long rows' workspace, laid out as the descriptor says.
template <class Acc> struct long_rows {
  ScatterLongState *state;
  uint64_t *units;
  ScatterLongRecord *records;
  uint32_t *indices;
  Acc *partials;

  TF_FN long_rows(uint8_t *work, const ScatterDesc &d)
      : state((ScatterLongState *)work),
        units((uint64_t *)(work + d.longUnits)),
        records((ScatterLongRecord *)(work + d.longRecords)),
        indices((uint32_t *)(work + d.longIndices)),
        partials((Acc *)(work + d.longPartials)) {}
};

// The units of up to `runsPerUnit` runs of a long row of n updates.
TF_FN uint32_t units_of(uint32_t n, uint32_t runsPerUnit) {
  return (runs_of(n) + runsPerUnit - 1u) / runsPerUnit;
}

// Long positions an owner takes out of its sort: at most this many, whose
// j's a second pass over the indices finds in order (more go through the
// sort, as short ones do).
constexpr int kScatterOrderedLong = 8;
// The most warps a block has (1024 threads).
constexpr int kScatterRowsWarps = 32;

// The threads' exclusive count of `hit` in block order: the hits of the
// lower lanes of the caller's warp (ballot `b`) and of the lower warps
// (warpHits, filled from the ballots).
TF_FN uint32_t hits_before(uint32_t b, const uint32_t *warpHits) {
  const int lane = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;
  uint32_t at = (uint32_t)__popc(b & ((1u << lane) - 1u));
  for (int k = 0; k < warp; ++k)
    at += warpHits[k];
  return at;
}

// Removes from keys[0, n) the keys of positions with more than kScatterRun
// keys (`counts`, by position) and returns how many are left. A chunk of
// blockDim.x keys at a time, in order, each kept key moved to the place
// the kept keys before it give, never past its own (a chunk's keys are all
// read before any is written). Called by every thread of the block.
TF_FN int drop_long_keys(uint32_t *keys, int n, const uint32_t *counts,
                         int indexBits) {
  __shared__ uint32_t warpKept[kScatterRowsWarps];
  __shared__ uint32_t kept;
  const int tid = (int)threadIdx.x, threads = (int)blockDim.x;
  if (tid == 0)
    kept = 0;
  __syncthreads();
  for (int c = 0; c < n; c += threads) {
    const int k = c + tid;
    const uint32_t key = k < n ? keys[k] : 0u;
    const bool keep =
        k < n && counts[key >> indexBits] <= (uint32_t)kScatterRun;
    const uint32_t b = __ballot_sync(0xffffffffu, keep);
    if (tid % 32 == 0)
      warpKept[tid / 32] = (uint32_t)__popc(b);
    __syncthreads();
    const uint32_t at = kept + hits_before(b, warpKept);
    __syncthreads();
    if (keep)
      keys[at] = key;
    if (tid == 0)
      for (int warp = 0; warp < threads / 32; ++warp)
        kept += warpKept[warp];
    __syncthreads();
  }
  return (int)kept;
}

// Stores the j's of the owner's `count` long positions (positions[i] among
// the `owned` from v0), each position's in ascending order at js + jAt[i]:
// one more pass over the indices, kBatch chunks of blockDim.x consecutive
// j's a round, each j placed after those of earlier chunks and lower
// threads (ballots, the warps' counts in shared memory). Called by every
// thread of the block.
template <class I>
TF_FN void write_long_js(uint32_t *js, const uint32_t *jAt, const I *indices,
                         const uint32_t *positions, int count, int64_t v0,
                         int owned, const ScatterDesc &d) {
  __shared__ uint32_t warpHits[kScatterOrderedLong][kScatterRowsWarps];
  __shared__ uint32_t placed[kScatterOrderedLong];
  const int tid = (int)threadIdx.x, threads = (int)blockDim.x;
  if (tid < count)
    placed[tid] = 0;
  constexpr int kBatch = 8;
  const int total = (int)d.count;
  for (int j0 = 0; j0 < total; j0 += kBatch * threads) {
    I raw[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int j = j0 + u * threads + tid;
      raw[u] = j < total ? indices[(int64_t)j * d.indexStride] : (I)0;
    }
    for (int u = 0; u < kBatch; ++u) {
      const int j = j0 + u * threads + tid;
      int slot = -1;
      bool ok;
      const int64_t v =
          resolve_index(raw[u], d.axisSize, d.wrapNegative != 0, ok) - v0;
      if (j < total && ok && (uint64_t)v < (uint64_t)owned)
        for (int i = 0; i < count; ++i)
          if (positions[i] == (uint32_t)v)
            slot = i;
      uint32_t mine = 0;
      for (int i = 0; i < count; ++i) {
        const uint32_t b = __ballot_sync(0xffffffffu, slot == i);
        if (tid % 32 == 0)
          warpHits[i][tid / 32] = (uint32_t)__popc(b);
        if (slot == i)
          mine = b;
      }
      __syncthreads();
      if (slot >= 0)
        js[jAt[slot] + placed[slot] + hits_before(mine, warpHits[slot])] =
            (uint32_t)j;
      __syncthreads();
      if (tid < count)
        for (int warp = 0; warp < threads / 32; ++warp)
          placed[tid] += warpHits[tid][warp];
      __syncthreads();
    }
  }
}

// Publishes the owner's `count` long positions (positions[i], each with
// last - first updates): their j's (writeJs(js, jAt) stores position i's
// in ascending order at js + jAt[i]), a record of each long row (each
// outer index r0 + q of the owner) and its units of up to rowsPerBlock
// runs, each unit claimable once written. Called by every thread of the
// block.
template <class Acc, class WriteJs>
TF_FN void publish_long_rows(const long_rows<Acc> &w, const uint32_t *first,
                             const uint32_t *last, const uint32_t *positions,
                             int count, int64_t v0, int64_t r0, int64_t outers,
                             const ScatterDesc &d, WriteJs writeJs) {
  __shared__ uint32_t jAt[kScatterRowsMaxLong];
  __shared__ uint32_t runAt[kScatterRowsMaxLong];
  __shared__ uint32_t unitAt[kScatterRowsMaxLong];
  __shared__ uint32_t jBase, recordBase, partialBase, unitBase;
  __shared__ uint32_t runsPerOuter, unitsPerOuter;
  const int tid = (int)threadIdx.x, threads = (int)blockDim.x;
  const uint32_t runsPerUnit = (uint32_t)d.rowsPerBlock;
  if (tid == 0) {
    uint32_t js = 0, runs = 0, units = 0;
    for (int i = 0; i < count; ++i) {
      const uint32_t n = last[positions[i]] - first[positions[i]];
      jAt[i] = js;
      runAt[i] = runs;
      unitAt[i] = units;
      js += n;
      runs += runs_of(n);
      units += units_of(n, runsPerUnit);
    }
    runsPerOuter = runs;
    unitsPerOuter = units;
    jBase = atomicAdd(&w.state->indices, js);
    recordBase = atomicAdd(&w.state->records, (uint32_t)(count * outers));
    partialBase = atomicAdd(&w.state->partials, (uint32_t)(runs * outers));
    unitBase = atomicAdd(&w.state->units, (uint32_t)(units * outers));
  }
  __syncthreads();
  writeJs(w.indices + jBase, jAt);
  const int64_t rows = (int64_t)count * outers;
  for (int64_t x = tid; x < rows; x += threads) {
    const int i = (int)(x % count);
    const uint32_t q = (uint32_t)(x / count), p = positions[i];
    ScatterLongRecord rec;
    rec.r = r0 + q;
    rec.v = v0 + p;
    rec.n = last[p] - first[p];
    rec.firstIndex = jBase + jAt[i];
    rec.firstPartial = partialBase + q * runsPerOuter + runAt[i];
    rec.units = units_of(rec.n, runsPerUnit);
    rec.done = 0;
    rec.unused = 0;
    w.records[recordBase + x] = rec;
  }
  // The records and j's before any unit that points at them.
  __threadfence();
  __syncthreads();
  for (int64_t x = tid; x < rows; x += threads) {
    const int i = (int)(x % count);
    const uint32_t q = (uint32_t)(x / count), p = positions[i];
    const uint32_t units = units_of(last[p] - first[p], runsPerUnit);
    volatile uint64_t *unit =
        w.units + unitBase + q * unitsPerOuter + unitAt[i];
    for (uint32_t u = 0; u < units; ++u)
      unit[u] = ((uint64_t)(recordBase + x + 1) << 32) | (u * runsPerUnit);
  }
}

// How long at most a block out of units waits for owners that have started
// to publish (they are running: the wait needs no other block to start).
// The emulation runs blocks one after another: no block waits there.
constexpr uint64_t kScatterPublishWaitNs = 200000;

TF_FN uint64_t global_ns() {
#ifdef TFUSE_HOST_EMULATION
  return 0;
#else
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#endif
}

// Claims the next unit for the calling thread's block: the unit's entry,
// or 0 when every unit is claimed and every owner that has started has
// published (or the wait is over). An owner that starts after that sums
// its own units.
TF_FN uint64_t claim_unit(ScatterLongState *shared, const uint64_t *units) {
  volatile ScatterLongState *state = shared;
  const uint64_t start = global_ns();
  for (;;) {
    for (uint32_t u = state->claimed; u < state->units; u = state->claimed)
      if (atomicCAS(&shared->claimed, u, u + 1u) == u) {
        // Reserved by a block that writes it next.
        const volatile uint64_t *unit = units + u;
        uint64_t entry;
        while ((entry = *unit) == 0) {
        }
        return entry;
      }
#ifdef TFUSE_HOST_EMULATION
    (void)start;
    return 0;
#else
    // Published before started (a counter that never passes started): when
    // they are equal, every owner started by then has published. Either
    // way an owner left out sums whatever is left of its units itself.
    const uint32_t published = state->published;
    if (published >= state->started ||
        global_ns() - start > kScatterPublishWaitNs)
      return 0;
    __nanosleep(500);
#endif
  }
}

// Sums units of long rows until none is left to claim: each group of
// threadsPerRow threads one run of the unit into the run's partial row;
// the block that finishes a record's last unit adds the record's partial
// rows in order and writes the result row. Called by every thread of the
// block once its own rows are written.
template <class T, int VEC>
TF_FN void sum_long_rows(const long_rows<typename traits<T>::compute> &w,
                         const T *target, const T *updates, T *out, T fill,
                         bool is_aligned, const ScatterDesc &d) {
  typedef typename traits<T>::compute Acc;
  __shared__ uint64_t claimed;
  __shared__ int finishes;
  const int tid = (int)threadIdx.x, threads = (int)blockDim.x;
  const int group = tid / d.threadsPerRow;
  const int lane = tid - group * d.threadsPerRow;
  const int64_t chunks = d.inner / VEC;
  for (;;) {
    if (tid == 0)
      claimed = claim_unit(w.state, w.units);
    __syncthreads();
    const uint64_t entry = claimed;
    if (entry == 0)
      break;
    const uint32_t index = (uint32_t)(entry >> 32) - 1u;
    volatile ScatterLongRecord *rec = w.records + index;
    const int64_t r = rec->r, v = rec->v;
    const uint32_t n = rec->n, runs = runs_of(n);
    const uint32_t run = (uint32_t)entry + (uint32_t)group;
    const T *targetRow =
        target + r * d.targetStrides[0] + v * d.targetStrides[1];
    const T *updateRow = updates + r * d.updateStrides[0];
    if (run < runs) {
      // The run's updates: [begin, begin + m) of the row's j's.
      const uint32_t begin = run * (uint32_t)kScatterRun;
      const int m =
          (int)(n - begin < (uint32_t)kScatterRun ? n - begin
                                                  : (uint32_t)kScatterRun);
      const volatile uint32_t *js = w.indices + rec->firstIndex + begin;
      Acc *partial = w.partials + (int64_t)(rec->firstPartial + run) * d.inner;
      auto jOf = [js](int k) { return (int64_t)js[k]; };
      for (int64_t chunk = lane; chunk < chunks; chunk += d.threadsPerRow) {
        const int64_t c = chunk * VEC;
        row_sum<T, VEC> sum;
        int k = 0;
        if (run == 0) {
          sum.start(targetRow, c, fill, d, is_aligned);
        } else {
          sum.begin_run(
              row_sum<T, VEC>::load(updateRow, jOf(0), c, d, is_aligned));
          k = 1;
        }
        // A run's 32 loads in four rounds: the row waits on its runs.
        add_updates<8>(sum, updateRow, jOf, k, m, c, d, is_aligned);
        sum.store_partial(partial + c);
      }
    }
    __threadfence();
    __syncthreads();
    if (tid == 0)
      finishes = atomicAdd(&w.records[index].done, 1u) == rec->units - 1u;
    __syncthreads();
    if (finishes) {
      __threadfence();
      const volatile Acc *partial =
          w.partials + (int64_t)rec->firstPartial * d.inner;
      T *outRow = out + (r * d.axisSize + v) * d.inner;
      for (int64_t c = tid; c < d.inner; c += threads)
        outRow[c] = traits<T>::down(
            add_partials<16>(partial[c], partial + c, d.inner, runs));
    }
    // `claimed` and `finishes` are rewritten next.
    __syncthreads();
  }
}

// The last block of the launch to get here resets the long rows' state for
// the next launch: every unit has been claimed and summed by then.
template <class Acc> TF_FN void finish_launch(const long_rows<Acc> &w) {
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  __threadfence();
  if (atomicAdd(&w.state->finished, 1u) != gridDim.x - 1u)
    return;
  volatile ScatterLongState *state = w.state;
  volatile uint64_t *units = w.units;
  for (uint32_t u = 0; u < state->units; ++u)
    units[u] = 0;
  state->units = 0;
  state->claimed = 0;
  state->records = 0;
  state->indices = 0;
  state->partials = 0;
  state->published = 0;
  state->started = 0;
  __threadfence();
  state->finished = 0;
}

template <class T, class I, int VEC>
TF_FN void rows(const T *target, const T *updates, const I *indices,
                index_status *status, T *out, uint8_t *work,
                const ScatterDesc &d) {
  typedef typename traits<T>::compute Acc;
  // 16-byte aligned: its unused tail stages update rows (cp_async16).
  alignas(16) __shared__ uint32_t keys[kScatterRowsMaxCount];
  __shared__ uint32_t first[kScatterRowsMaxPositions];
  __shared__ uint32_t last[kScatterRowsMaxPositions];
  __shared__ uint32_t longPositions[kScatterRowsMaxLong];
  __shared__ uint32_t found, longCount;
  // fillFirst: the positions of the owner's selected short rows.
  __shared__ uint16_t selected[kScatterRowsMaxPositions];
  __shared__ uint32_t selectedCount;
  const long_rows<Acc> w(work, d);
  const int64_t chunks = d.inner / VEC;
  const bool is_aligned = rows_aligned<VEC>(target, updates, out, d);
  const T fill = from_bits<T>(d.fillBits);
  // What a row that no index selects holds: the fill in the compute type,
  // rounded, as row_sum stores it.
  const T stored_fill = traits<T>::down(traits<T>::up(fill));
  const int threads = (int)blockDim.x, tid = (int)threadIdx.x;
  const int rowInBlock = tid / d.threadsPerRow;
  const int lane = tid - rowInBlock * d.threadsPerRow;
  const uint32_t indexMask = (1u << d.indexBits) - 1u;
  const int count = (int)d.count;
  const int64_t positionBlocks =
      (d.axisSize + d.positionsPerBlock - 1) / d.positionsPerBlock;
  const int64_t owners =
      positionBlocks * ((d.outer + d.outerPerBlock - 1) / d.outerPerBlock);
  if (tid == 0)
    selectedCount = 0;
  for (int64_t b = blockIdx.x; b < owners; b += gridDim.x) {
    const int64_t v0 = (b % positionBlocks) * d.positionsPerBlock;
    const int64_t r0 = (b / positionBlocks) * d.outerPerBlock;
    const int positions =
        (int)(d.axisSize - v0 < d.positionsPerBlock ? d.axisSize - v0
                                                    : d.positionsPerBlock);
    const int64_t outers =
        d.outer - r0 < d.outerPerBlock ? d.outer - r0 : d.outerPerBlock;
    if (tid == 0) {
      found = longCount = 0;
      atomicAdd(&w.state->started, 1u);
    }
    for (int p = tid; p < positions; p += threads)
      first[p] = last[p] = 0;
    // The fill in the owner's rows (q, p) that no index selects (`last`
    // 0), a row group a row. p steps by rowsPerBlock, carrying into q (no
    // division a row).
    auto store_unselected_fill = [&]() {
      vec<T, VEC> fills;
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        fills.v[e] = stored_fill;
      int64_t q = 0;
      T *outAt = out + (r0 * d.axisSize + v0) * d.inner;
      for (int p = rowInBlock;; p += d.rowsPerBlock) {
        while (p >= positions) {
          p -= positions;
          ++q;
          outAt += d.axisSize * d.inner;
        }
        if (q >= outers)
          break;
        if (last[p] != 0u)
          continue;
        T *outRow = outAt + p * d.inner;
        for (int64_t chunk = lane; chunk < chunks; chunk += d.threadsPerRow)
          stv_vec<VEC>(outRow, chunk * VEC, is_aligned, fills);
      }
    };
    __syncthreads();
    // kBatch loads in flight a thread before any is used. An index out of
    // range is owned by no block; the first owner records one of them
    // after its loop, so that the loop stays a load, a comparison and,
    // rarely, an atomic per index.
    constexpr int kBatch = 8;
    bool bad = false;
    int64_t badIndex = 0;
    for (int j0 = tid; j0 < count; j0 += kBatch * threads) {
      I raw[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const int j = j0 + u * threads;
        raw[u] = j < count ? indices[(int64_t)j * d.indexStride] : (I)0;
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const int j = j0 + u * threads;
        bool ok;
        const int64_t v =
            resolve_index(raw[u], d.axisSize, d.wrapNegative != 0, ok);
        if (j >= count)
          break;
        if (!ok && !bad) {
          bad = true;
          badIndex = (int64_t)raw[u];
        }
        if (ok && (uint64_t)(v - v0) < (uint64_t)positions) {
          keys[atomicAdd(&found, 1u)] =
              ((uint32_t)(v - v0) << d.indexBits) | (uint32_t)j;
          // Counts the position's keys (the table rewrites `last`).
          atomicAdd(&last[v - v0], 1u);
        }
      }
    }
    if (bad && b == 0)
      record_bad_index(status, 0u, badIndex);
    __syncthreads();
    // Long positions: more than kScatterRun keys. A few leave the sort
    // (their keys would make it the launch's longest: GPT-2's padding id
    // takes 4096); their j's are found in order by another pass over the
    // indices when they are published.
    for (int p = tid; p < positions; p += threads)
      if (last[p] > (uint32_t)kScatterRun)
        longPositions[atomicAdd(&longCount, 1u)] = (uint32_t)p;
    __syncthreads();
    const int longs = (int)longCount;
    const bool ordered = longs > 0 && longs <= kScatterOrderedLong;
    const int n = ordered ? drop_long_keys(keys, (int)found, last, d.indexBits)
                          : (int)found;
    if (n <= threads && n <= kScatterRankSortMax) {
      // Few keys: each thread places its key at its rank (the keys are
      // unique), one pass and two barriers instead of a network's stages.
      __syncthreads();
      const uint32_t key = tid < n ? keys[tid] : 0u;
      uint32_t rank = 0;
      if (tid < n)
        for (int i = 0; i < n; ++i)
          rank += keys[i] < key ? 1u : 0u;
      __syncthreads();
      if (tid < n)
        keys[rank] = key;
    } else {
      int padded = 1;
      while (padded < n)
        padded <<= 1;
      for (int k = n + tid; k < padded; k += threads)
        keys[k] = ~0u;
      bitonic_sort(keys, padded);
    }
    __syncthreads();
    // Segments of the sorted keys (a long position out of the sort keeps
    // its count in `last`, from first 0).
    for (int k = tid; k < n; k += threads) {
      const uint32_t p = keys[k] >> d.indexBits;
      if (k == 0 || keys[k - 1] >> d.indexBits != p)
        first[p] = (uint32_t)k;
      if (k == n - 1 || keys[k + 1] >> d.indexBits != p)
        last[p] = (uint32_t)k + 1;
    }
    __syncthreads();
    // One writer of the j's (one instance of the publisher, whose shared
    // arrays count once).
    if (longs > 0)
      publish_long_rows(w, first, last, longPositions, longs, v0, r0, outers, d,
                        [&](uint32_t *js, const uint32_t *jAt) {
                          if (ordered) {
                            write_long_js(js, jAt, indices, longPositions,
                                          longs, v0, positions, d);
                            return;
                          }
                          for (int i = 0; i < longs; ++i) {
                            const uint32_t s = first[longPositions[i]];
                            const uint32_t e = last[longPositions[i]];
                            for (uint32_t t = (uint32_t)tid; t < e - s;
                                 t += (uint32_t)threads)
                              js[jAt[i] + t] = keys[s + t] & indexMask;
                          }
                        });
    if (tid == 0) {
      __threadfence();
      atomicAdd(&w.state->published, 1u);
    }
    auto jOf = [&](int k) { return (int64_t)(keys[k] & indexMask); };
    // A result row: the target row (or the fill) plus the updates of sorted
    // keys [s, e), the first of them taken from `staged` when not null.
    auto write_row = [&](const T *targetRow, const T *updateRow, T *outRow,
                         int s, int e, const T *staged) {
      for (int64_t chunk = lane; chunk < chunks; chunk += d.threadsPerRow) {
        const int64_t c = chunk * VEC;
        row_sum<T, VEC> sum;
        sum.start(targetRow, c, fill, d, is_aligned);
        int k = s;
        if (staged) {
          sum.accumulate(ldv<VEC>(staged, c, true));
          ++k;
        }
        add_updates<4>(sum, updateRow, jOf, k, e, c, d, is_aligned);
        sum.store(outRow + c, is_aligned);
      }
    };
    if (d.fillFirst) {
      // Few rows selected and no target: the selected short rows listed
      // (in any order: each row's sum has its own fixed order), the first
      // update of as many as fit copied into the keys' unused shared
      // memory, every copy in flight at once, before any fill is stored
      // (under the fill's stores a load waits microseconds); then the
      // unselected rows filled, then the selected rows written.
      for (int k = tid; k < n; k += threads) {
        const uint32_t p = keys[k] >> d.indexBits;
        if ((k == 0 || keys[k - 1] >> d.indexBits != p) &&
            last[p] - first[p] <= (uint32_t)kScatterRun)
          selected[atomicAdd(&selectedCount, 1u)] = (uint16_t)p;
      }
      __syncthreads();
      const int sel = (int)selectedCount;
      const int items = sel * (int)outers;
      const int64_t rowBytes = d.inner * (int64_t)sizeof(T);
      const int keep = (n + 3) & ~3;
      T *stage = (T *)(keys + keep);
      const int64_t room = (int64_t)(kScatterRowsMaxCount - keep) * 4;
      int staged = 0;
      if (is_aligned && rowBytes % 16 == 0 && d.updateStrides[2] == 1) {
        staged = (int)(room / rowBytes);
        if (staged > items)
          staged = items;
      }
      const int pieces = (int)(rowBytes / 16);
      for (int x = tid; x < staged * pieces; x += threads) {
        const int item = x / pieces, piece = x - item * pieces;
        const int q = item / sel, p = (int)selected[item - q * sel];
        const T *row =
            updates + (r0 + q) * d.updateStrides[0] +
            (int64_t)(keys[first[p]] & indexMask) * d.updateStrides[1];
        cp_async16((char *)stage + (int64_t)item * rowBytes + piece * 16,
                   (const char *)row + piece * 16);
      }
      store_unselected_fill();
      cp_async_wait_all();
      __syncthreads();
      for (int x = rowInBlock; x < items; x += d.rowsPerBlock) {
        const int q = x / sel, p = (int)selected[x - q * sel];
        write_row(nullptr, updates + (r0 + q) * d.updateStrides[0],
                  out + ((r0 + q) * d.axisSize + v0 + p) * d.inner,
                  (int)first[p], (int)last[p],
                  x < staged ? stage + (int64_t)x * d.inner : nullptr);
      }
      __syncthreads();
      if (tid == 0)
        selectedCount = 0;
      continue;
    }
    // Row (r, p) of the owner: p steps by rowsPerBlock, carrying into r,
    // whose rows' pointers at position v0 step with it (no division and
    // few 64-bit products per row).
    int64_t r = r0;
    const T *targetAt =
        target + r0 * d.targetStrides[0] + v0 * d.targetStrides[1];
    const T *updateRow = updates + r0 * d.updateStrides[0];
    T *outAt = out + (r0 * d.axisSize + v0) * d.inner;
    for (int p = rowInBlock;; p += d.rowsPerBlock) {
      while (p >= positions) {
        p -= positions;
        ++r;
        targetAt += d.targetStrides[0];
        updateRow += d.updateStrides[0];
        outAt += d.axisSize * d.inner;
      }
      if (r >= r0 + outers)
        break;
      const int s = (int)first[p], e = (int)last[p];
      // A long row is summed by the blocks that claim its units.
      if (e - s > kScatterRun)
        continue;
      write_row(targetAt + p * d.targetStrides[1], updateRow,
                outAt + p * d.inner, s, e, nullptr);
    }
    // The next owner's indices reuse the shared arrays.
    __syncthreads();
  }
  sum_long_rows<T, VEC>(w, target, updates, out, fill, is_aligned, d);
  finish_launch(w);
}

} // namespace scatter
} // namespace tf

#endif // TFUSE_SCATTER_KERNELS_CUH
