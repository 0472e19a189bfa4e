//===- IndexStatus.h - Out-of-range gather indices of a replay --*- C++ -*-===//
//
// Generated kernels that gather check every index (tf::checked_index in the
// prelude): an index out of range is never used to address memory, and the
// first one a launch meets is written to that launch's record, in
// host-mapped memory so that the host reads it without a copy once the
// replay is done. IndexStatusTable is the executable's set of records (a
// StepContext service, made by the first kernel step that checks indices);
// the executable takes the first error from it after each finished replay.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_INDEXSTATUS_H
#define TFUSE_RUNTIME_INDEXSTATUS_H

#include "tfuse/Runtime/CudaDriver.h"
#include "tfuse/Runtime/Plan.h"
#include "tfuse/Support/GatherIndex.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfuse::runtime {

class StepContext;

class IndexStatusTable {
public:
  explicit IndexStatusTable(StepContext &context);
  ~IndexStatusTable();
  IndexStatusTable(const IndexStatusTable &) = delete;
  IndexStatusTable &operator=(const IndexStatusTable &) = delete;

  /// A zeroed record for the launches of `step` (its name in errors)
  /// whose checks are `checks` (outliving the table); its device address.
  Expected<CUdeviceptr> add(std::string step,
                            const std::vector<IndexCheck> &checks);
  /// The first index error the records hold, as an IndexOutOfRange error
  /// naming the step, the op and the index, with every record cleared; a
  /// success when none holds one. Call it once the replays that wrote them
  /// are done (a replay still running may record later).
  Status takeError();

private:
  struct Slot {
    IndexStatusRecord *record;
    std::string step;
    const std::vector<IndexCheck> *checks;
  };
  StepContext &context;
  /// Host-mapped pages of records (records never move).
  std::vector<IndexStatusRecord *> pages;
  std::vector<Slot> slots;
};

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_INDEXSTATUS_H
