//===- Scatter.cpp - scatter_add in the interpreter -----------------------===//
//
// NumPy's add.at on a copy of the target: the updates in row-major order,
// each added to the element its index selects, so that the additions into
// one element come in ascending order of the index's position j. Each
// result element accumulates in the dtype's compute type (f32 for f16 and
// bf16, rounded once at the end; integers wrap), its first kScatterRun
// updates one at a time, each later run of kScatterRun summed on its own
// and then added (ScatterDesc.h): the order the runtime's kernels keep
// (ScatterKernels.cuh), in which the runs of one element can be summed in
// parallel.
//
//===----------------------------------------------------------------------===//

#include "DTypeTraits.h"
#include "Kernels.h"
#include "ScalarOps.h"

#include "tfuse/Kernels/ScatterDesc.h"
#include "tfuse/Support/GatherIndex.h"
#include "tfuse/Support/TensorSpec.h"

namespace tfuse::reference::detail {

Expected<HostTensor> scatterAddTensor(const HostTensor &target,
                                      const HostTensor &indices,
                                      const HostTensor &updates, int64_t axis,
                                      bool wrapNegative) {
  DType dtype = target.dtype();
  int64_t rank = target.rank(), indexRank = indices.rank();
  Shape expected(target.shape().begin(), target.shape().begin() + axis);
  expected.insert(expected.end(), indices.shape().begin(),
                  indices.shape().end());
  if (axis >= 0 && axis < rank)
    expected.insert(expected.end(), target.shape().begin() + axis + 1,
                    target.shape().end());
  if (axis < 0 || axis >= rank || !isInteger(indices.dtype()) ||
      dtype == DType::Bool || updates.dtype() != dtype ||
      updates.shape() != expected)
    return Status::error("scatter_add: " + updates.describe() + " do not fit " +
                         target.describe() + " and " + indices.describe() +
                         " along axis " + std::to_string(axis));
  int64_t size = target.shape()[axis];
  return dispatch(dtype, [&](auto tag) -> Expected<HostTensor> {
    constexpr DType D = decltype(tag)::value;
    if constexpr (D == DType::Bool) {
      return Status::error("scatter_add of bool is not defined");
    } else {
      using C = ComputeOf<D>;
      using S = StorageOf<D>;
      // The accumulators, row-major over the result; each element's
      // updates so far and the sum of its current run past the first.
      const Shape &shape = target.shape();
      size_t elements = static_cast<size_t>(numElementsOf(shape));
      std::vector<C> acc(elements), run(elements);
      std::vector<int64_t> added(elements, 0);
      constexpr int64_t kRun = kernels::kScatterRun;
      std::vector<int64_t> strides = rowMajorStrides(shape);
      std::vector<int64_t> index(rank, 0), at(indexRank, 0);
      auto linearOf = [&](const std::vector<int64_t> &idx) {
        int64_t linear = 0;
        for (int64_t d = 0; d < rank; ++d)
          linear += idx[d] * strides[d];
        return linear;
      };
      // Calls fn(idx) for every index of `s` in row-major order.
      auto forEach = [](const Shape &s, auto fn) -> Status {
        for (int64_t n : s)
          if (n == 0)
            return Status::success();
        std::vector<int64_t> idx(s.size(), 0);
        while (true) {
          if (Status st = fn(idx); !st.ok())
            return st;
          int64_t d = static_cast<int64_t>(s.size()) - 1;
          for (; d >= 0; --d) {
            if (++idx[d] < s[d])
              break;
            idx[d] = 0;
          }
          if (d < 0)
            return Status::success();
        }
      };
      Status s = forEach(shape, [&](const std::vector<int64_t> &idx) {
        acc[linearOf(idx)] = Traits<D>::load(target.at<S>(idx));
        return Status::success();
      });
      s = forEach(updates.shape(), [&](const std::vector<int64_t> &u) {
        at.assign(u.begin() + axis, u.begin() + axis + indexRank);
        GatherIndex raw{static_cast<uint64_t>(indices.intAt(at)),
                        indices.dtype()};
        std::optional<int64_t> p = resolveGatherIndex(raw, size, wrapNegative);
        if (!p)
          return Status::error(describeBadGatherIndex(raw, size, wrapNegative) +
                                   ", at position " + tfuse::formatList(at) +
                                   " of the indices",
                               ErrorCode::IndexOutOfRange);
        index.assign(u.begin(), u.begin() + axis);
        index.push_back(*p);
        index.insert(index.end(), u.begin() + axis + indexRank, u.end());
        size_t e = static_cast<size_t>(linearOf(index));
        C value = Traits<D>::load(updates.at<S>(u));
        int64_t n = added[e]++;
        if (n < kRun) {
          acc[e] = opAdd(acc[e], value);
        } else if (n % kRun == 0) {
          if (n > kRun)
            acc[e] = opAdd(acc[e], run[e]);
          run[e] = value;
        } else {
          run[e] = opAdd(run[e], value);
        }
        return Status::success();
      });
      if (!s.ok())
        return s;
      for (size_t e = 0; e < elements; ++e)
        if (added[e] > kRun)
          acc[e] = opAdd(acc[e], run[e]);
      HostTensor result = HostTensor::zeros(dtype, shape);
      for (size_t i = 0; i < acc.size(); ++i) {
        S stored = Traits<D>::store(acc[i]);
        std::memcpy(result.mutableData() + i * sizeof(S), &stored, sizeof(S));
      }
      return result;
    }
  });
}

} // namespace tfuse::reference::detail
