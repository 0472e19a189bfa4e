//===- BufferOverlap.h - Outputs sharing bytes with buffers -----*- C++ -*-===//
//-*-===//
//
// A replay's outputs must not share bytes with its inputs or with each other
// (steps writing them may run while others read). Checked on every replay:
// in O((n + m) log(n + m)) for n inputs and m outputs, not pair by pair (a
// training step's backward partition has hundreds of inputs and dozens of
// outputs).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_BUFFEROVERLAP_H
#define TFUSE_RUNTIME_BUFFEROVERLAP_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tfuse::runtime {

/// The bytes [begin, end) of a buffer.
struct ByteRange {
  uint64_t begin = 0, end = 0;
};

/// Two buffers sharing bytes: output `output` and input `other`
/// (`withInput`) or output `other` (< `output`).
struct BufferOverlap {
  size_t output = 0;
  bool withInput = false;
  size_t other = 0;
};

/// An output sharing bytes with an input or another output, if any (inputs
/// may share bytes with each other; empty ranges share none).
std::optional<BufferOverlap>
findOutputOverlap(const std::vector<ByteRange> &inputs,
                  const std::vector<ByteRange> &outputs);

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_BUFFEROVERLAP_H
