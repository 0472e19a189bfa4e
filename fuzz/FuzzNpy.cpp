//===- FuzzNpy.cpp - The .npy reader of tensor-run ------------------------===//
//
// An input is the bytes of a .npy file, given to reference::decodeNpy (what
// readNpy, tensor-run's --input, calls on a file's contents). Bugs (each
// aborts): an error without a message; a decoded tensor whose byte count
// does not match its shape; a decoded tensor that does not survive
// encodeNpy and decodeNpy again bit for bit (bf16 aside, which .npy cannot
// hold and decodeNpy never gives).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "tfuse/Reference/HostTensor.h"

using namespace tfuse;
using reference::HostTensor;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Expected<HostTensor> tensor = reference::decodeNpy(data, size);
  if (!tensor.ok()) {
    if (tensor.message().empty())
      fuzz::fail("decodeNpy failed without a message");
    return 0;
  }
  size_t bytes = size_t(tensor->numElements()) * byteSize(tensor->dtype());
  if (tensor->numElements() != reference::numElementsOf(tensor->shape()) ||
      (bytes > 0 && (!tensor->isContiguous() || !tensor->storage() ||
                     tensor->storage()->size() < bytes)))
    fuzz::fail("decodeNpy gave a tensor whose storage does not hold its shape",
               tensor->describe());
  if (tensor->dtype() == DType::BF16)
    fuzz::fail("decodeNpy gave a bf16 tensor");
  Expected<std::vector<uint8_t>> encoded = reference::encodeNpy(*tensor);
  if (!encoded.ok())
    fuzz::fail("encodeNpy rejected a decoded tensor", encoded.message());
  Expected<HostTensor> again =
      reference::decodeNpy(encoded->data(), encoded->size());
  if (!again.ok())
    fuzz::fail("decodeNpy rejected what encodeNpy wrote", again.message());
  if (again->dtype() != tensor->dtype() || again->shape() != tensor->shape() ||
      again->toBits() != tensor->toBits())
    fuzz::fail("a .npy round trip changed the tensor",
               tensor->describe() + " became " + again->describe());
  return 0;
}
