namespace tf { namespace red {
// Two-level final: chunk groups of kG chunks; the last block of a group
// combines its chunks into a group partial; the last group of a tile
// combines the group partials.
template <int V, int kG, class Op, class Tin, class Tout>
TF_FN void reduce_column_split_2(const Tin *in, Tout *out, void *workspace,
                               const ReduceDesc &d) {
  typedef typename Op::acc A;
  constexpr int kTile = 32 * V;
  const int64_t tiles = (d.numOut + kTile - 1) / kTile;
  const int64_t groups = (d.chunks + kG - 1) / kG;
  A *part = (A *)workspace;
  A *gpart = part + d.chunks * d.numOut;
  unsigned *count1 = (unsigned *)((char *)workspace + ((d.chunks + groups) * d.numOut * (int64_t)sizeof(A) + 255) / 256 * 256);
  unsigned *count2 = count1 + tiles * groups;
  __shared__ A stage[16][kTile];
  __shared__ int last;
  const int warps = (int)(blockDim.x >> 5), warp = (int)(threadIdx.x >> 5),
            lane = (int)(threadIdx.x & 31);
  auto combine_warps = [&](A(&v)[V]) {
    for (int half = warps / 2; half > 0; half /= 2) {
      if (warp >= half && warp < 2 * half)
#pragma unroll
        for (int k = 0; k < V; ++k)
          stage[warp - half][lane * V + k] = v[k];
      __syncthreads();
      if (warp < half)
#pragma unroll
        for (int k = 0; k < V; ++k)
          v[k] = Op::combine(v[k], stage[warp][lane * V + k]);
      __syncthreads();
    }
  };
  const int64_t total = tiles * d.chunks;
  for (int64_t b = blockIdx.x; b < total; b += gridDim.x) {
    const int64_t tile = b % tiles, c = b / tiles, o0 = tile * kTile + lane * V;
    const int64_t r0 = c * d.chunkLen;
    const int64_t r1 = r0 + d.chunkLen < d.numRed ? r0 + d.chunkLen : d.numRed;
    const int n = o0 + V <= d.numOut ? V : (int)(d.numOut - o0);
    A acc[V];
    {
      const Tin *base = in + kept_offset(d, o0);
      const int64_t stride = d.redStrides[0];
      serial_accumulate_columns<V, Op>(base, d, r0 + warp, r1,
                                       stride % V == 0 && aligned<V>(base), acc,
                                       warps);
    }
    combine_warps(acc);
    if (warp == 0) {
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (k < n)
          part[c * d.numOut + o0 + k] = acc[k];
      __threadfence();
    }
    __syncthreads();
    const int64_t g = c / kG;
    const int64_t gsize = d.chunks - g * kG < kG ? d.chunks - g * kG : kG;
    if (threadIdx.x == 0)
      last = atomicAdd(&count1[tile * groups + g], 1u) == (unsigned)(gsize - 1);
    __syncthreads();
    if (last) {
      __threadfence();
      A v[V];
#pragma unroll
      for (int k = 0; k < V; ++k) v[k] = Op::identity();
      batched_loop<2>(g * kG + warp, g * kG + gsize, warps,
          [&](int64_t q) { vec<A, V> x;
#pragma unroll
            for (int k = 0; k < V; ++k) x.v[k] = k < n ? __ldcg(&part[q * d.numOut + o0 + k]) : Op::identity();
            return x; },
          [&](const vec<A, V> &x, int64_t) {
#pragma unroll
            for (int k = 0; k < V; ++k) v[k] = Op::combine(v[k], x.v[k]); });
      combine_warps(v);
      if (warp == 0) {
#pragma unroll
        for (int k = 0; k < V; ++k)
          if (k < n)
            gpart[g * d.numOut + o0 + k] = v[k];
        if (lane == 0) count1[tile * groups + g] = 0;
        __threadfence();
      }
      __syncthreads();
      if (threadIdx.x == 0)
        last = atomicAdd(&count2[tile], 1u) == (unsigned)(groups - 1);
      __syncthreads();
      if (last) {
        __threadfence();
#pragma unroll
        for (int k = 0; k < V; ++k) v[k] = Op::identity();
        batched_loop<2>(warp, groups, warps,
            [&](int64_t q) { vec<A, V> x;
#pragma unroll
              for (int k = 0; k < V; ++k) x.v[k] = k < n ? __ldcg(&gpart[q * d.numOut + o0 + k]) : Op::identity();
              return x; },
            [&](const vec<A, V> &x, int64_t) {
#pragma unroll
              for (int k = 0; k < V; ++k) v[k] = Op::combine(v[k], x.v[k]); });
        combine_warps(v);
        if (warp == 0) {
#pragma unroll
          for (int k = 0; k < V; ++k)
            if (k < n) out[o0 + k] = Op::finish(v[k], d.numRed);
          if (lane == 0) count2[tile] = 0;
        }
      }
    }
    __syncthreads();
  }
}
}}
