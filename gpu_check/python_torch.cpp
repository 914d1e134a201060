#include "gpu_check/python_torch.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace ptlint::gpu_check {
namespace {

constexpr size_t kMaxVersionPy = 1 << 20;

std::optional<std::string> readSmall(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec) || fs::file_size(file, ec) > kMaxVersionPy || ec) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// `python3.11`, `python3.12`, ... folders under <prefix>/lib (and lib64), sorted.
std::vector<std::string> pythonLibFolders(const fs::path& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const char* lib : {"lib", "lib64"})
    for (fs::directory_iterator it(prefix / lib, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.starts_with("python3")) out.push_back(std::string(lib) + "/" + name);
    }
  std::sort(out.begin(), out.end());
  return out;
}

// A version after `<prefix>-` in a dist-info / egg-info folder name of `folder`, if one is there.
std::optional<std::string> distVersion(const fs::path& folder, std::string_view prefix) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::string_view n = name;
    if (!n.starts_with(prefix)) continue;
    n.remove_prefix(prefix.size());
    if (n.ends_with(".dist-info")) n.remove_suffix(10);
    else if (n.ends_with(".egg-info")) n.remove_suffix(9);
    else continue;
    if (n.empty() || !(n[0] >= '0' && n[0] <= '9')) continue;  // `torch-` must be followed by its version
    return std::string(n.substr(0, n.find('-')));                // egg-info: torch-1.13.0-py3.11
  }
  return std::nullopt;
}

// The cuDNN a CUDA wheel of torch was built against: the nvidia-cudnn-cuXX wheel it requires,
// installed beside it (`nvidia_cudnn_cu12-9.1.0.70.dist-info`); conda: conda-meta/cudnn-*.json.
std::optional<std::string> cudnnOf(const fs::path& site, const fs::path& environment) {
  std::error_code ec;
  for (fs::directory_iterator it(site, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.starts_with("nvidia_cudnn_cu") && name.ends_with(".dist-info")) {
      size_t dash = name.find('-');
      if (dash != std::string::npos) return name.substr(dash + 1, name.size() - dash - 1 - 10);
    }
  }
  for (fs::directory_iterator it(environment / "conda-meta", ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.starts_with("cudnn-") && name.ends_with(".json")) {
      std::string rest = name.substr(6);
      return rest.substr(0, rest.find('-'));
    }
  }
  return std::nullopt;
}

std::optional<PythonTorch> torchIn(const fs::path& site, const fs::path& environment, const std::string& how) {
  std::error_code ec;
  fs::path package = site / "torch";
  if (!fs::is_regular_file(package / "__init__.py", ec)) return std::nullopt;
  PythonTorch torch;
  torch.location = package.string();
  torch.environment = environment.string();
  torch.found_by = how;
  if (auto text = readSmall(package / "version.py")) {
    for (auto& [name, value] : readVersionPy(*text)) {
      if (name == "__version__" && value) torch.version = *value;
      else if (name == "cuda") torch.cuda = value;
      else if (name == "hip") torch.hip = value;
    }
  }
  if (torch.version.empty()) torch.version = distVersion(site, "torch-").value_or("");
  if (torch.cuda) torch.cudnn = cudnnOf(site, environment);
  return torch;
}

// The site folders of an environment made by venv, virtualenv or conda.
std::vector<fs::path> environmentSites(const fs::path& prefix) {
  std::vector<fs::path> out;
  for (const auto& lib : pythonLibFolders(prefix)) out.push_back(prefix / lib / "site-packages");
  return out;
}

// The python3 on PATH (not resolved through symlinks: a venv's python is a link to the base).
std::optional<fs::path> pythonOnPath(const std::string& path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    std::string dir = path.substr(start, colon - start);
    start = colon + 1;
    if (dir.empty()) continue;
    fs::path candidate = fs::path(dir) / "python3";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::pair<std::string, std::optional<std::string>>> readVersionPy(const std::string& text) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    std::string_view line = trim(raw);
    size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string_view::npos ||
        (eq + 1 < line.size() && line[eq + 1] == '='))
      continue;
    std::string_view name = trim(line.substr(0, eq));
    if (size_t colon = name.find(':'); colon != std::string_view::npos) name = trim(name.substr(0, colon));  // annotation
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
          return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        }))
      continue;
    std::string_view value = trim(line.substr(eq + 1));
    if (size_t hash = value.find(" #"); hash != std::string_view::npos) value = trim(value.substr(0, hash));
    if (value == "None") {
      out.emplace_back(std::string(name), std::nullopt);
    } else if (value.size() >= 2 && (value[0] == '\'' || value[0] == '"') && value.back() == value[0] &&
               value.substr(1, value.size() - 2).find(value[0]) == std::string_view::npos) {
      out.emplace_back(std::string(name), std::string(value.substr(1, value.size() - 2)));
    }
  }
  return out;
}

PythonSearchInputs PythonSearchInputs::fromProcess() {
  PythonSearchInputs in;
  std::error_code ec;
  in.cwd = fs::current_path(ec);
  if (const char* v = std::getenv("VIRTUAL_ENV"); v && *v) in.virtual_env = v;
  if (const char* c = std::getenv("CONDA_PREFIX"); c && *c) in.conda_prefix = c;
  if (const char* p = std::getenv("PATH")) in.path = p;
  if (const char* h = std::getenv("HOME"); h && *h) in.home = h;
  return in;
}

PythonEnvironmentSearch findPythonTorch(const PythonSearchInputs& in) {
  PythonEnvironmentSearch search;
  auto tryEnvironment = [&](const fs::path& prefix, const std::vector<fs::path>& sites, const std::string& how) {
    search.searched.push_back(how + ": " + prefix.string());
    for (const auto& site : sites)
      if (auto t = torchIn(site, prefix, how)) {
        search.torch = std::move(t);
        return true;
      }
    return false;
  };
  std::error_code ec;
  // The project's environment: the nearest .venv/venv above the working folder.
  for (fs::path d = in.cwd; !d.empty(); d = d.parent_path()) {
    bool found = false;
    for (const char* name : {".venv", "venv"}) {
      fs::path env = d / name;
      if (!fs::is_regular_file(env / "pyvenv.cfg", ec)) continue;
      found = true;
      if (tryEnvironment(env, environmentSites(env), std::string("project ") + name)) return search;
    }
    if (found || d == d.parent_path()) break;
  }
  if (in.virtual_env && tryEnvironment(*in.virtual_env, environmentSites(*in.virtual_env), "VIRTUAL_ENV"))
    return search;
  if (in.conda_prefix && tryEnvironment(*in.conda_prefix, environmentSites(*in.conda_prefix), "CONDA_PREFIX"))
    return search;
  if (auto python = pythonOnPath(in.path)) {
    fs::path bin = python->parent_path();
    if (fs::is_regular_file(bin.parent_path() / "pyvenv.cfg", ec)) {
      // A venv on PATH (activated or not).
      tryEnvironment(bin.parent_path(), environmentSites(bin.parent_path()), "python3 on PATH");
      return search;
    }
    fs::path real = fs::canonical(*python, ec);
    if (ec) return search;
    std::string name = real.filename().string();  // python3.11
    std::string x_y = name.starts_with("python3.") ? name.substr(6) : std::string();
    fs::path prefix = real.parent_path().parent_path();
    std::vector<fs::path> sites;
    // sys.path's order: the user's site-packages, then /usr/local's, then the distribution's.
    if (!x_y.empty()) {
      if (in.home) sites.push_back(*in.home / ".local" / "lib" / ("python" + x_y) / "site-packages");
      sites.push_back(prefix / "local" / "lib" / ("python" + x_y) / "dist-packages");
      sites.push_back(prefix / "lib" / "python3" / "dist-packages");  // Debian's python3-* packages
      sites.push_back(prefix / "lib" / ("python" + x_y) / "site-packages");
    } else {
      for (const auto& s : environmentSites(prefix)) sites.push_back(s);
    }
    tryEnvironment(prefix, sites, "python3 on PATH (" + python->string() + ")");
  }
  return search;
}

nlohmann::json toJson(const PythonEnvironmentSearch& search) {
  auto opt = [](const std::optional<std::string>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json torch = nullptr;
  if (search.torch) {
    const PythonTorch& t = *search.torch;
    torch = {{"version", t.version},   {"cuda", opt(t.cuda)},           {"hip", opt(t.hip)},
             {"cudnn", opt(t.cudnn)},  {"location", t.location},        {"environment", t.environment},
             {"found_by", t.found_by}};
  }
  return {{"torch", torch}, {"searched", search.searched}};
}

}  // namespace ptlint::gpu_check
