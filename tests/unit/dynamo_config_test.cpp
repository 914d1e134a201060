// Dynamo's process-wide capture setting as a module spells it (analysis/dynamo_config.h): the
// forms that may turn `capture_scalar_outputs` on for the process, and the look-alikes that do
// not (scoped patches, reads, comments, strings, `False`).
#include <gtest/gtest.h>

#include <string>

#include "analysis/dynamo_config.h"
#include "analysis/semantic_model.h"

using namespace ptlint::analysis;

namespace {

// The text of the setting found, or "" when none.
std::string settingIn(std::string source) {
  auto file = ParsedFile::parse(std::move(source));
  SemanticModel model(file);
  auto at = processWideCaptureSetting(model);
  return at ? std::string(file.text().substr(at->first, at->second - at->first)) : std::string();
}

TEST(DynamoConfig, ProcessWideSettings) {
  EXPECT_EQ(settingIn("import torch\ntorch._dynamo.config.capture_scalar_outputs = True\n"),
            "torch._dynamo.config.capture_scalar_outputs = True");
  // In a function, under a condition, or a value the code computes: it may be on.
  EXPECT_NE(settingIn("import torch._dynamo\ndef setup(a):\n    if a.x:\n        torch._dynamo.config.capture_scalar_outputs = True\n"), "");
  EXPECT_NE(settingIn("import torch\ndef setup(a):\n    torch._dynamo.config.capture_scalar_outputs = a.capture\n"), "");
  EXPECT_NE(settingIn("from torch._dynamo import config as dc\ndc.capture_scalar_outputs = 1\n"), "");
  EXPECT_NE(settingIn("import torch\nsetattr(torch._dynamo.config, 'capture_scalar_outputs', True)\n"), "");
  EXPECT_NE(settingIn("import torch\ntorch._dynamo.config.load_config({'capture_scalar_outputs': True})\n"), "");
  EXPECT_EQ(settingIn("import os\nos.environ['TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS'] = '1'\n"),
            "TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS");
  EXPECT_NE(settingIn("import os\nos.environ.setdefault(\"TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS\", \"1\")\n"), "");
}

TEST(DynamoConfig, LookAlikesAreNotSettings) {
  EXPECT_EQ(settingIn("import torch\ntorch._dynamo.config.capture_scalar_outputs = False\n"), "");
  EXPECT_EQ(settingIn("import torch\ntorch._dynamo.config.capture_scalar_outputs = None\n"), "");
  EXPECT_EQ(settingIn("# torch._dynamo.config.capture_scalar_outputs = True\nx = 'capture_scalar_outputs = True'\n"), "");
  // Not torch's configuration.
  EXPECT_EQ(settingIn("class C: pass\ncfg = C()\ncfg.capture_scalar_outputs = True\n"), "");
  // Scoped to what it wraps.
  EXPECT_EQ(settingIn("import torch\nwith torch._dynamo.config.patch(capture_scalar_outputs=True):\n    pass\n"), "");
  EXPECT_EQ(settingIn("import torch\n@torch._dynamo.config.patch(capture_scalar_outputs=True)\ndef f():\n    pass\n"), "");
  EXPECT_EQ(settingIn("import torch\nwith torch._dynamo.config.patch({'capture_scalar_outputs': True}):\n    pass\n"), "");
  // A read of the variable.
  EXPECT_EQ(settingIn("import os\nv = os.environ.get('TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS')\n"), "");
  EXPECT_EQ(settingIn("import os\nif os.getenv('TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS') == '1':\n    pass\n"), "");
}

TEST(DynamoConfig, RawLook) {
  EXPECT_TRUE(mayHoldCaptureSetting("torch._dynamo.config.capture_scalar_outputs = True"));
  EXPECT_TRUE(mayHoldCaptureSetting("os.environ['TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS'] = '1'"));
  EXPECT_FALSE(mayHoldCaptureSetting("x.item()"));
}

}  // namespace
