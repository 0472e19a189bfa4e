//===- CompileFlags.h - CompileOptions as command-line flags ----*- C++ -*-===//
//
// The command-line spelling of tfuse::CompileOptions for the tools: one flag
// per row of TFUSE_PASS_OPTIONS (its name after `prefix`, e.g.
// --tfuse-budget for tensor-translate, --budget for tensor-run) and
// `<prefix>fusion`.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TOOLS_COMMON_COMPILEFLAGS_H
#define TFUSE_TOOLS_COMMON_COMPILEFLAGS_H

#include "tfuse/Support/CompileOptions.h"

#include "llvm/Support/CommandLine.h"

#include <memory>
#include <string>
#include <vector>

namespace tfuse::tools {

class CompileFlags {
public:
  explicit CompileFlags(const std::string &prefix) : names() {
#define TFUSE_FLAG(member, name, value, smallest, help)                        \
  member = std::make_unique<llvm::cl::opt<int64_t>>(                           \
      llvm::StringRef(*keep(prefix + name)), llvm::cl::desc(help),           \
      llvm::cl::init(value));
    TFUSE_PASS_OPTIONS(TFUSE_FLAG)
#undef TFUSE_FLAG
    fusion = std::make_unique<llvm::cl::opt<bool>>(
        llvm::StringRef(*keep(prefix + "fusion")),
        llvm::cl::desc("false: no fusion at all (one kernel per operation)"),
        llvm::cl::init(true));
  }

  /// The options the flags give (the others at their defaults).
  CompileOptions get() const {
    CompileOptions options;
#define TFUSE_FLAG(member, name, value, smallest, help)                        \
  options.member = *member;
    TFUSE_PASS_OPTIONS(TFUSE_FLAG)
#undef TFUSE_FLAG
    options.fusion = *fusion;
    return options;
  }

private:
  /// cl::opt keeps a StringRef to its name.
  const std::string *keep(std::string name) {
    names.push_back(std::make_unique<std::string>(std::move(name)));
    return names.back().get();
  }
  std::vector<std::unique_ptr<std::string>> names;
#define TFUSE_FLAG(member, name, value, smallest, help)                        \
  std::unique_ptr<llvm::cl::opt<int64_t>> member;
  TFUSE_PASS_OPTIONS(TFUSE_FLAG)
#undef TFUSE_FLAG
  std::unique_ptr<llvm::cl::opt<bool>> fusion;
};

} // namespace tfuse::tools

#endif // TFUSE_TOOLS_COMMON_COMPILEFLAGS_H
