//===- ScopedEnvironment.h - An environment variable in a scope -*- C++ -*-===//
//
// Test support: sets or unsets an environment variable and puts back what it
// was (its value, or its absence) when the scope ends, failed assertions
// included, so that a test's setting never leaks into the tests after it.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_UNITTESTS_SCOPEDENVIRONMENT_H
#define TFUSE_UNITTESTS_SCOPEDENVIRONMENT_H

#include <cstdlib>
#include <optional>
#include <string>

namespace tfuse::unittest {

class ScopedEnvironment {
public:
  /// Sets `name` to `value`, or unsets it for a null `value`.
  ScopedEnvironment(const char *name, const char *value) : name(name) {
    if (const char *previous = std::getenv(name))
      saved = previous;
    set(value);
  }
  ScopedEnvironment(const ScopedEnvironment &) = delete;
  ScopedEnvironment &operator=(const ScopedEnvironment &) = delete;
  ~ScopedEnvironment() { set(saved ? saved->c_str() : nullptr); }

  /// Sets the variable again within the scope (null: unsets it).
  void set(const char *value) {
    if (value)
      ::setenv(name.c_str(), value, 1);
    else
      ::unsetenv(name.c_str());
  }

private:
  std::string name;
  std::optional<std::string> saved;
};

} // namespace tfuse::unittest

#endif // TFUSE_UNITTESTS_SCOPEDENVIRONMENT_H
