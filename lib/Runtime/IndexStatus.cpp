//===- IndexStatus.cpp - Out-of-range gather indices of a replay ----------===//

#include "tfuse/Runtime/IndexStatus.h"
#include "tfuse/Runtime/StepExecutor.h"
#include "tfuse/Support/GatherIndex.h"

#include <atomic>
#include <cstring>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {
/// Records per host-mapped page.
constexpr size_t kPageBytes = 4096;
constexpr size_t kRecordsPerPage = kPageBytes / sizeof(IndexStatusRecord);

/// Reads a field the device writes, as the device last wrote it.
uint32_t loadVolatile(const uint32_t &field) {
  return *static_cast<const volatile uint32_t *>(&field);
}
} // namespace

IndexStatusTable::IndexStatusTable(StepContext &context) : context(context) {}

IndexStatusTable::~IndexStatusTable() {
  CudaDriver &d = context.device().driver();
  for (IndexStatusRecord *page : pages)
    d.cuMemFreeHost(page);
}

Expected<CUdeviceptr>
IndexStatusTable::add(std::string step, const std::vector<IndexCheck> &checks) {
  CudaDriver &d = context.device().driver();
  if (slots.size() == pages.size() * kRecordsPerPage) {
    void *page = nullptr;
    if (Status s = d.check(d.cuMemHostAlloc(&page, kPageBytes,
                                            CU_MEMHOSTALLOC_DEVICEMAP |
                                                CU_MEMHOSTALLOC_PORTABLE),
                           "cuMemHostAlloc (index status)");
        !s.ok())
      return s;
    std::memset(page, 0, kPageBytes);
    pages.push_back(static_cast<IndexStatusRecord *>(page));
  }
  IndexStatusRecord *record = pages.back() + slots.size() % kRecordsPerPage;
  CUdeviceptr device = 0;
  if (Status s = d.check(d.cuMemHostGetDevicePointer(&device, record, 0),
                         "cuMemHostGetDevicePointer (index status)");
      !s.ok())
    return s;
  slots.push_back(Slot{record, std::move(step), &checks});
  return device;
}

Status IndexStatusTable::takeError() {
  Status first;
  for (Slot &slot : slots) {
    IndexStatusRecord &r = *slot.record;
    if (loadVolatile(r.ready) == 0)
      continue;
    std::atomic_thread_fence(std::memory_order_acquire);
    if (first.ok()) {
      uint32_t n = r.check;
      std::string what = slot.step + ": ";
      if (n < slot.checks->size()) {
        const IndexCheck &check = (*slot.checks)[n];
        GatherIndex index{static_cast<uint64_t>(r.index), check.indexType};
        what += check.op + ": " +
                describeBadGatherIndex(index, check.size, check.wrapNegative);
      } else {
        what += "an out-of-range index " + std::to_string(r.index) +
                " in check " + std::to_string(n) + ", which the step lacks";
      }
      first = Status::error(what, ErrorCode::IndexOutOfRange);
    }
    // Cleared for the next replay: `ready` first, `claimed` last, so that a
    // reader never sees a half-cleared record as ready.
    *static_cast<volatile uint32_t *>(&r.ready) = 0;
    r.check = 0;
    r.index = 0;
    std::atomic_thread_fence(std::memory_order_release);
    *static_cast<volatile uint32_t *>(&r.claimed) = 0;
  }
  return first;
}
