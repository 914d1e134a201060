// Analyses built lazily by whoever needs them first and owned by what they describe: a parsed
// file holds those of its tree alone (PTL601's attention index), a semantic model those that
// need names resolved (compiled regions). Freed with their owner.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

namespace ptlint::analysis {

class AnalysisCache {
 public:
  // `key` names the analysis (the address of a static tag); `build()` returns a
  // std::shared_ptr<const T> and must not ask for the same key. Thread-safe; two threads asking
  // at once may both build, and the first stored wins.
  template <typename T, typename Build>
  const T& get(const void* key, Build&& build) const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = built_.find(key); it != built_.end()) return *static_cast<const T*>(it->second.get());
    }
    std::shared_ptr<const void> built = std::shared_ptr<const T>(build());
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = built_.emplace(key, std::move(built)).first;
    return *static_cast<const T*>(it->second.get());
  }

 private:
  mutable std::mutex mutex_;
  mutable std::unordered_map<const void*, std::shared_ptr<const void>> built_;
};

}  // namespace ptlint::analysis
