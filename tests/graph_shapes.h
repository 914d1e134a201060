// Adversarial project layouts for the graph walks of the project index and the same-file
// analyses: class lattices (every class deriving from every class of the level below), import
// meshes, long call chains, mutual recursion, factories returning factories, names rebound from
// names. Each is valid Python, small (well under 1 MB), and takes exponential time to a walk
// without a visited set or memo. The unit tests check that each finishes with the right findings;
// bench/graph_bench.cpp holds each to a time budget.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace ptlint::shapes {

struct Shape {
  std::string name;
  std::map<std::string, std::string> files;  // relative path -> text
  std::string probe;                         // the file linted
  int expected = -1;                         // findings of the compiled-code rules in it; -1: not checked
};

inline std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// W classes per level, D levels, each deriving from all W classes of the level below; `Top`
// derives from the last level. `L0_0` defines `forward` with `.item()` and binds `self.block`.
inline std::string lattice(int width, int depth, bool with_block) {
  std::string out = "import torch\nimport torch.nn as nn\n";
  if (with_block) out += "from block import Block\n";
  for (int w = 0; w < width; ++w) {
    out += "class L0_" + std::to_string(w) + "(nn.Module):\n";
    if (w == 0) {
      if (with_block) out += "    def __init__(self):\n        super().__init__()\n        self.block = Block()\n";
      out += with_block ? "    def forward(self, x):\n        return self.block(x) + self.other(x)\n"
                        : "    def forward(self, x):\n        return x.item()\n";
    } else {
      out += "    pass\n";
    }
  }
  auto level = [&](int d) {
    std::vector<std::string> names;
    for (int w = 0; w < width; ++w) names.push_back("L" + std::to_string(d) + "_" + std::to_string(w));
    return join(names, ", ");
  };
  for (int d = 1; d < depth; ++d)
    for (int w = 0; w < width; ++w)
      out += "class L" + std::to_string(d) + "_" + std::to_string(w) + "(" + level(d - 1) + "):\n    pass\n";
  out += "class Top(" + level(depth - 1) + "):\n    def helper(self, x):\n        return x\n";
  return out;
}

// Every shape, at a size that hangs a walk without a memo (minutes to hours) and takes
// milliseconds with one.
inline std::vector<Shape> adversarialShapes() {
  std::vector<Shape> out;
  const std::string marker = "pyproject.toml";
  {
    // The lattice compiled from another file, as an instance and through `.compile()`.
    Shape s{"lattice_cross_file", {}, "model.py", 1};
    s.files[marker] = "";
    s.files["model.py"] = lattice(8, 10, false);
    s.files["train.py"] = "import torch\nfrom model import Top\nm = torch.compile(Top())\nn = Top()\nn.compile()\n";
    out.push_back(std::move(s));
  }
  {
    // The same lattice compiled in its own file (the same-file analysis and the index).
    Shape s{"lattice_same_file", {}, "model.py", 1};
    s.files[marker] = "";
    s.files["model.py"] = lattice(8, 10, false) + "m = torch.compile(Top())\n";
    out.push_back(std::move(s));
  }
  {
    // Attribute lookups through the lattice: `self.block(x)` bound in the deepest base, and
    // `self.other(x)` bound nowhere.
    Shape s{"lattice_attributes", {}, "block.py", 1};
    s.files[marker] = "";
    s.files["model.py"] = lattice(8, 10, true);
    s.files["block.py"] = "import torch.nn as nn\nclass Block(nn.Module):\n    def forward(self, x):\n        return x.item()\n";
    s.files["train.py"] = "import torch\nfrom model import Top\nm = torch.compile(Top())\n";
    out.push_back(std::move(s));
  }
  {
    // N modules, each importing and calling every other; one `.item()` at the far end.
    const int n = 40;
    Shape s{"import_mesh", {}, "m" + std::to_string(n - 1) + ".py", 1};
    s.files[marker] = "";
    for (int i = 0; i < n; ++i) {
      std::string imports, calls;
      for (int k = 0; k < n; ++k)
        if (k != i) {
          imports += "from m" + std::to_string(k) + " import f" + std::to_string(k) + "\n";
          calls += "    f" + std::to_string(k) + "(x)\n";
        }
      std::string text = imports + "def f" + std::to_string(i) + "(x):\n" + calls;
      if (i == n - 1) text += "    x.item()\n";
      text += "    return x\n";
      if (i == 0) text += "import torch\nc = torch.compile(f0)\n";
      s.files["m" + std::to_string(i) + ".py"] = text;
    }
    out.push_back(std::move(s));
  }
  {
    // A call chain through 300 modules in nested packages.
    const int n = 300;
    Shape s{"call_chain", {}, "pkg/c" + std::to_string(n - 1) + ".py", 1};
    s.files[marker] = "";
    s.files["pkg/__init__.py"] = "";
    for (int i = 0; i < n; ++i) {
      std::string text;
      if (i + 1 < n) text += "from pkg.c" + std::to_string(i + 1) + " import f" + std::to_string(i + 1) + "\n";
      text += "def f" + std::to_string(i) + "(x):\n";
      text += i + 1 < n ? "    return f" + std::to_string(i + 1) + "(x)\n" : "    return x.item()\n";
      if (i == 0) text += "import torch\nc = torch.compile(f0)\n";
      s.files["pkg/c" + std::to_string(i) + ".py"] = text;
    }
    out.push_back(std::move(s));
  }
  {
    // Mutual recursion across files, factories returning each other, a re-export ring.
    Shape s{"mutual_recursion", {}, "b.py", 1};
    s.files[marker] = "";
    s.files["a.py"] = "from b import g\nfrom c import X\ndef f(x):\n    return g(x)\n"
                      "def make_a(cfg):\n    return make_b(cfg)\ndef make_b(cfg):\n    return make_a(cfg)\n";
    s.files["b.py"] = "from a import f\ndef g(x):\n    x.item()\n    return f(x)\n";
    s.files["c.py"] = "from d import X\n";
    s.files["d.py"] = "from c import X\n";
    s.files["train.py"] = "import torch\nfrom a import f, make_a, X\nc = torch.compile(f)\nm = torch.compile(make_a(1))\n"
                          "k = torch.compile(X())\n";
    out.push_back(std::move(s));
  }
  {
    // Factories returning factories: D levels of W factories, each returning every factory of
    // the next level; the last level builds the module.
    const int width = 6, depth = 7;
    Shape s{"factory_lattice", {}, "model.py", 1};
    s.files[marker] = "";
    std::string text = "import torch.nn as nn\nclass Model(nn.Module):\n    def forward(self, x):\n        return x.item()\n";
    for (int d = depth - 1; d >= 0; --d)
      for (int w = 0; w < width; ++w) {
        text += "def make_" + std::to_string(d) + "_" + std::to_string(w) + "(k):\n";
        if (d == depth - 1) {
          text += "    return Model()\n";
        } else {
          for (int v = 0; v < width; ++v)
            text += "    if k == " + std::to_string(v) + ":\n        return make_" + std::to_string(d + 1) + "_" +
                    std::to_string(v) + "(k)\n";
          text += "    return make_" + std::to_string(d + 1) + "_0(k)\n";
        }
      }
    s.files["model.py"] = text;
    s.files["train.py"] = "import torch\nfrom model import make_0_0\nm = torch.compile(make_0_0(1))\n";
    out.push_back(std::move(s));
  }
  {
    // Names rebound from names: each of 7 names bound 12 times from the previous one.
    const int names = 7, times = 12;
    std::string body = "def main():\n";
    for (int t = 0; t < times; ++t) body += "    x0 = Model()\n";
    for (int i = 1; i < names; ++i)
      for (int t = 0; t < times; ++t) body += "    x" + std::to_string(i) + " = x" + std::to_string(i - 1) + "\n";
    body += "    return torch.compile(x" + std::to_string(names - 1) + ")\n";
    const std::string model = "import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def forward(self, x):\n        return x.item()\n";
    Shape cross{"rebound_names_cross_file", {}, "model.py", 1};
    cross.files[marker] = "";
    cross.files["model.py"] = model;
    cross.files["train.py"] = "import torch\nfrom model import Model\n" + body;
    out.push_back(std::move(cross));
    Shape same{"rebound_names_same_file", {}, "model.py", 1};
    same.files[marker] = "";
    same.files["model.py"] = model + body;
    out.push_back(std::move(same));
  }
  return out;
}

inline void writeShape(const Shape& shape, const std::filesystem::path& dir) {
  for (const auto& [rel, text] : shape.files) {
    std::filesystem::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel, std::ios::binary) << text;
  }
}

}  // namespace ptlint::shapes
