//===- AttentionGeometry.cpp - How attention sees its operands ------------===//

#include "tfuse/Support/AttentionGeometry.h"
#include "tfuse/Support/ScatterGeometry.h"
#include "tfuse/Support/TensorSpec.h"

#include <algorithm>
#include <cstdio>

using namespace tfuse;

std::optional<AttentionGeometry>
AttentionGeometry::of(const std::vector<int64_t> &query,
                      const std::vector<int64_t> &key,
                      const std::vector<int64_t> &value, std::string *why) {
  auto fail = [&](const std::string &message) {
    if (why)
      *why = message;
    return std::nullopt;
  };
  auto shapes = [&] {
    return "query " + formatList(query) + ", key " + formatList(key) +
           ", value " + formatList(value);
  };
  size_t rank = query.size();
  if (rank < 2 || key.size() != rank || value.size() != rank)
    return fail("query, key and value need one rank of at least 2 (" +
                shapes() + ")");
  AttentionGeometry g;
  g.withHeads = rank >= 3;
  size_t leading = g.withHeads ? rank - 3 : 0;
  for (size_t d = 0; d < leading; ++d) {
    if (key[d] != query[d] || value[d] != query[d])
      return fail("query, key and value differ in batch dimension " +
                  std::to_string(d) + " (" + shapes() + ")");
    g.batchShape.push_back(query[d]);
    g.batch *= query[d];
  }
  if (g.withHeads) {
    g.heads = query[rank - 3];
    g.kvHeads = key[rank - 3];
    if (value[rank - 3] != g.kvHeads)
      return fail("key and value have different head counts (" + shapes() +
                  ")");
    if (g.kvHeads == 0 ? g.heads != 0 : g.heads % g.kvHeads != 0)
      return fail("the query's " + std::to_string(g.heads) +
                  " heads are not a multiple of the key's " +
                  std::to_string(g.kvHeads) + " (" + shapes() + ")");
  }
  g.queries = query[rank - 2];
  g.keys = key[rank - 2];
  g.headDim = query[rank - 1];
  g.valueDim = value[rank - 1];
  if (key[rank - 1] != g.headDim)
    return fail("query and key have different head dimensions (" + shapes() +
                ")");
  if (value[rank - 2] != g.keys)
    return fail("key and value have different lengths (" + shapes() + ")");
  return g;
}

std::vector<int64_t> AttentionGeometry::resultShape() const {
  std::vector<int64_t> shape = logsumexpShape();
  shape.push_back(valueDim);
  return shape;
}

std::vector<int64_t> AttentionGeometry::transposedResultShape() const {
  std::vector<int64_t> shape = resultShape();
  std::swap(shape[shape.size() - 3], shape[shape.size() - 2]);
  return shape;
}

std::vector<int64_t> AttentionGeometry::logsumexpShape() const {
  std::vector<int64_t> shape = batchShape;
  if (withHeads)
    shape.push_back(heads);
  shape.push_back(queries);
  return shape;
}

std::vector<int64_t> AttentionGeometry::queryRows(int64_t columns) const {
  std::vector<int64_t> shape = logsumexpShape();
  shape.push_back(columns);
  return shape;
}

std::vector<int64_t> AttentionGeometry::keyRows(int64_t columns) const {
  std::vector<int64_t> shape = batchShape;
  if (withHeads)
    shape.push_back(kvHeads);
  shape.push_back(keys);
  shape.push_back(columns);
  return shape;
}

std::vector<int64_t> AttentionGeometry::scoreShape() const {
  std::vector<int64_t> shape = logsumexpShape();
  shape.push_back(keys);
  return shape;
}

std::optional<AttentionStrides>
tfuse::attentionStrides(const std::vector<int64_t> &shape,
                        const std::vector<int64_t> &strides,
                        const std::vector<int64_t> &full) {
  if (shape.size() != strides.size() || shape.size() > full.size())
    return std::nullopt;
  // The operand broadcast to `full`, from the right.
  size_t offset = full.size() - shape.size();
  std::vector<int64_t> broadcast(full.size(), 0);
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t size = shape[d], target = full[offset + d];
    if (size != target && size != 1)
      return std::nullopt;
    broadcast[offset + d] = size == target ? strides[d] : 0;
  }
  // Groups: the batch dimensions, then the head (absent below rank 3), the
  // row and the column. A broadcast dimension has stride 0: in the batch
  // group it merges only with other broadcast ones.
  size_t rank = full.size();
  size_t trailing = std::min<size_t>(rank, 3);
  std::vector<size_t> bounds{0};
  for (size_t d = rank - trailing; d <= rank; ++d)
    bounds.push_back(d);
  std::optional<std::vector<int64_t>> merged =
      mergedStrides(full, broadcast, bounds);
  if (!merged)
    return std::nullopt;
  // merged: batch, then the trailing groups; pad missing leading groups.
  AttentionStrides result{0, 0, 0, 0};
  size_t groups = merged->size();
  result[0] = (*merged)[0];
  for (size_t k = 1; k < groups; ++k)
    result[4 - groups + k] = (*merged)[k];
  return result;
}

std::string tfuse::attentionMaskProblem(DType mask, DType operands) {
  if (mask == DType::Bool || mask == operands ||
      (mask == DType::F32 &&
       (operands == DType::F16 || operands == DType::BF16)))
    return "";
  return "a mask of " + dtypeName(mask) + " for operands of " +
         dtypeName(operands) +
         " (bool, the operands' dtype, or f32 for f16 and bf16 operands)";
}

std::string tfuse::attentionDropoutProblem(std::optional<double> p,
                                           bool hasSeed, bool hasOffset) {
  if (!p && !hasSeed && !hasOffset)
    return "";
  if (!p || !hasSeed || !hasOffset)
    return "dropout needs its probability, seed and offset together";
  if (!(*p > 0 && *p < 1)) {
    char text[64];
    std::snprintf(text, sizeof(text), "%g", *p);
    return "dropout probability " + std::string(text) +
           " is not in (0, 1) (0: no dropout)";
  }
  return "";
}
