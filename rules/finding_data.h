// What a rule keeps with one of its findings for tools outside it (PTL601's AttentionFacts, which
// gpu_check rebuilds the computation from). The linter and the front ends never read it: a rule
// stores its own plain type with makeFindingData, a reader asks for that type with
// findingData<T>(diagnostic) and gets null from every other rule's finding.
#pragma once

#include <memory>
#include <utility>

namespace ptlint::rules {

struct FindingData {
  virtual ~FindingData() = default;
};

template <typename T>
struct FindingDataOf final : FindingData {
  explicit FindingDataOf(T v) : value(std::move(v)) {}
  T value;
};

template <typename T>
std::shared_ptr<const FindingData> makeFindingData(T value) {
  return std::make_shared<const FindingDataOf<T>>(std::move(value));
}

// The `T` a finding's data holds; null when it holds none or another rule's type.
template <typename T>
const T* findingData(const std::shared_ptr<const FindingData>& data) {
  const auto* of = dynamic_cast<const FindingDataOf<T>*>(data.get());
  return of ? &of->value : nullptr;
}

}  // namespace ptlint::rules
