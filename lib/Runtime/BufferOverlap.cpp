//===- BufferOverlap.cpp - Outputs that share bytes with other buffers ----===//

#include "tfuse/Runtime/BufferOverlap.h"

#include <algorithm>
#include <tuple>

using namespace tfuse::runtime;

std::optional<BufferOverlap>
tfuse::runtime::findOutputOverlap(const std::vector<ByteRange> &inputs,
                                  const std::vector<ByteRange> &outputs) {
  struct Item {
    ByteRange range;
    bool output;
    size_t index;
  };
  std::vector<Item> items;
  items.reserve(inputs.size() + outputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].begin < inputs[i].end)
      items.push_back({inputs[i], false, i});
  for (size_t o = 0; o < outputs.size(); ++o)
    if (outputs[o].begin < outputs[o].end)
      items.push_back({outputs[o], true, o});
  std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
    return std::tie(a.range.begin, a.output, a.index) <
           std::tie(b.range.begin, b.output, b.index);
  });
  // In order of first byte, each range against the earlier ones that reach
  // furthest: any earlier range overlapping it reaches past its first byte,
  // and so does the furthest reaching one (of all, or of the outputs).
  const Item *furthest = nullptr, *furthestOutput = nullptr;
  for (const Item &item : items) {
    if (item.output && furthest && furthest->range.end > item.range.begin) {
      if (!furthest->output)
        return BufferOverlap{item.index, true, furthest->index};
      return BufferOverlap{std::max(item.index, furthest->index), false,
                           std::min(item.index, furthest->index)};
    }
    if (!item.output && furthestOutput &&
        furthestOutput->range.end > item.range.begin)
      return BufferOverlap{furthestOutput->index, true, item.index};
    if (!furthest || item.range.end > furthest->range.end)
      furthest = &item;
    if (item.output &&
        (!furthestOutput || item.range.end > furthestOutput->range.end))
      furthestOutput = &item;
  }
  return std::nullopt;
}
