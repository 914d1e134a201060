// PyTorch facts by release: when each API a rule names or a fix writes appeared, was
// deprecated, changed its default or was removed. Data, not code: rules ask `fact(key)` and
// compare with the configured range; every entry cites the release sources that prove it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rules/settings.h"

namespace ptlint::rules::releases {

// A key names an API by its qualified name ("torch.amp.GradScaler"), an argument by
// "qualname(arg=)" ("torch.nn.functional.scaled_dot_product_attention(scale=)"), a behaviour by
// "qualname:what" ("torch.load:weights_only-default-true").
struct ReleaseFact {
  std::string_view key;
  // The first release that has it; {0, 0}: older than every release ptlint reasons about.
  TorchVersion added{0, 0};
  std::optional<TorchVersion> deprecated;  // first release that warns (or documents it deprecated)
  std::optional<TorchVersion> removed;     // first release without it (or where it raises)
  std::string_view source;                 // the release files that show each date
};

// The fact for `key`, or null when the table has none (a rule then makes no version claim).
const ReleaseFact* fact(std::string_view key);
std::span<const ReleaseFact> allFacts();

// Does `key` exist at release `v` (added, not yet removed)? False for an unknown key.
bool existsAt(std::string_view key, TorchVersion v);
// Does it exist at every release of the range? (A fix may write it.)
bool existsThroughout(std::string_view key, const TorchRange& range);
// Is it deprecated (or removed) somewhere in the range?
bool deprecatedWithin(std::string_view key, const TorchRange& range);
// Is it removed somewhere in the range?
bool removedWithin(std::string_view key, const TorchRange& range);
// "2.3" for the release that added `key` ("?" for an unknown key): for messages and docs.
std::string addedIn(std::string_view key);

}  // namespace ptlint::rules::releases
