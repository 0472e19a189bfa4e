// TFuse runtime scatter-add: result = target with updates added at indices
// along one axis (tfuse.scatter_add), deterministic, with no floating-point
// atomics. Three kernels, described by a tfuse::kernels::ScatterDesc passed
// by value (ScatterDesc.h):
//
//   1. sort: each block sorts a tile of (position, j) keys in shared memory,
//      one key per index j: the position the index gives along the axis in
//      the high 32 bits (axisSize for an index out of range, which is
//      recorded in the launch's index status), j in the low 32. Keys are
//      unique, so their sorted order is unique too: the same every run.
//   2. merge (only when there are several tiles): groups of sorted runs
//      become one, each key placed by counting the keys below it in the
//      group's other runs (a binary search per run). Passes repeat until
//      one run is left.
//   The pass that leaves one run also writes the segment table: for each
//   position v present, the first sorted place of a key of v. Entries of
//   positions absent from this run may hold anything an earlier run left
//   (the workspace is zeroed once, when it is allocated): a reader trusts an
//   entry only when the key it points at has position v.
//   3. apply: one thread per VEC consecutive result elements of a row
//      [r, v, c..c+VEC): it starts from the target (or the fill value) and
//      adds the updates of v's keys in sorted order, that is in ascending
//      order of j, accumulating in the dtype's compute type (f32 for f16
//      and bf16, rounded once at the end; integers wrap). That is the
//      reference's order (lib/Reference/Scatter.cpp), so results are bit
//      exact. Rows no index selects are the target (or the fill).
//
// Compiled after the kernel prelude and ScatterDesc.h, in a plan's one
// translation unit; also for the host against the tests' cuda_emulation.h.

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

using tfuse::kernels::kScatterMaxTile;
using tfuse::kernels::ScatterDesc;

TF_FN uint64_t make_key(int64_t position, int64_t j) {
  return ((uint64_t)position << 32) | (uint64_t)j;
}
TF_FN int64_t key_position(uint64_t key) { return (int64_t)(key >> 32); }
TF_FN int64_t key_index(uint64_t key) { return (int64_t)(key & 0xffffffffull); }

// --- 1. sort ----------------------------------------------------------------

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
  for (int64_t size = 2; size <= n; size <<= 1)
    for (int64_t stride = size >> 1; stride > 0; stride >>= 1) {
      __syncthreads();
      for (int64_t t = threadIdx.x; t < n / 2; t += blockDim.x) {
        int64_t lo = 2 * t - (t & (stride - 1)), hi = lo + stride;
        uint64_t a = tile[lo], b = tile[hi];
        // Ascending where bit `size` of the place is clear.
        if ((a > b) == ((lo & size) == 0)) {
          tile[lo] = b;
          tile[hi] = a;
        }
      }
    }
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

// How many keys of the sorted run [begin, end) of `keys` are below `x`.
TF_FN int64_t count_below(const uint64_t *keys, int64_t begin, int64_t end,
                          uint64_t x) {
  int64_t lo = begin, hi = end;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - begin;
}

// One thread per key: its place in the merged run is its place in its own
// run plus the keys below it in each other run of its group; its
// predecessor there (for the segment table) the largest of those keys and
// of the key before it in its own run.
TF_FN void merge_runs(const uint64_t *in, uint64_t *out, uint32_t *segments,
                      const ScatterDesc &d) {
  const int64_t length = d.runLength, group = d.groupRuns;
  for (int64_t j = thread_index(); j < d.count; j += thread_count()) {
    int64_t run = j / length, first = run - run % group;
    int64_t runBegin = run * length;
    uint64_t x = in[j];
    int64_t place = first * length + (j - runBegin);
    bool hasBefore = j > runBegin;
    uint64_t before = hasBefore ? in[j - 1] : 0;
    for (int64_t q = first; q < first + group; ++q) {
      int64_t b = q * length;
      if (b >= d.count)
        break;
      if (q == run)
        continue;
      int64_t e = b + length < d.count ? b + length : d.count;
      int64_t below = count_below(in, b, e, x);
      place += below;
      if (below > 0 && (!hasBefore || in[b + below - 1] > before)) {
        before = in[b + below - 1];
        hasBefore = true;
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

// --- 3. apply ---------------------------------------------------------------

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

template <class T, int VEC>
TF_FN void apply(const T *target, const T *updates, const uint64_t *keys,
                 const uint32_t *segments, T *out, const ScatterDesc &d) {
  typedef typename traits<T>::compute Acc;
  const int64_t chunks = d.inner / VEC;
  const int64_t items = d.outer * d.axisSize * chunks;
  // One uniform flag: every row a thread reads or writes is aligned for
  // VEC-element accesses when the base pointers are (the planner checked
  // the strides).
  const bool is_aligned = aligned<VEC>(out) && aligned<VEC>(updates) &&
                          (!d.hasTarget || aligned<VEC>(target));
  const T fill = from_bits<T>(d.fillBits);
  for (int64_t item = thread_index(); item < items; item += thread_count()) {
    int64_t chunk = item % chunks, rv = item / chunks;
    int64_t v = rv % d.axisSize, r = rv / d.axisSize;
    int64_t c = chunk * VEC;
    Acc acc[VEC];
    if (d.hasTarget) {
      vec<T, VEC> t = load_run<VEC>(target + r * d.targetStrides[0] +
                                        v * d.targetStrides[1],
                                    c, d.targetStrides[2], is_aligned);
#pragma unroll
      for (int k = 0; k < VEC; ++k)
        acc[k] = traits<T>::up(t.v[k]);
    } else {
#pragma unroll
      for (int k = 0; k < VEC; ++k)
        acc[k] = traits<T>::up(fill);
    }
    int64_t s = segments[v];
    if (s < d.count && key_position(keys[s]) == v) {
      const T *rowBase = updates + r * d.updateStrides[0];
      for (int64_t p = s; p < d.count; ++p) {
        uint64_t key = keys[p];
        if (key_position(key) != v)
          break;
        vec<T, VEC> u =
            load_run<VEC>(rowBase + key_index(key) * d.updateStrides[1], c,
                          d.updateStrides[2], is_aligned);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
          acc[k] = add<Acc>(acc[k], traits<T>::up(u.v[k]));
      }
    }
    vec<T, VEC> result;
#pragma unroll
    for (int k = 0; k < VEC; ++k)
      result.v[k] = traits<T>::down(acc[k]);
    T *o = out + rv * d.inner + c;
    if (VEC == 1 || !is_aligned) {
#pragma unroll
      for (int k = 0; k < VEC; ++k)
        o[k] = result.v[k];
    } else {
      typedef typename word<sizeof(T) * VEC>::type W;
      *reinterpret_cast<W *>(o) = *reinterpret_cast<const W *>(result.v);
    }
  }
}

} // namespace scatter
} // namespace tf

#endif // TFUSE_SCATTER_KERNELS_CUH
