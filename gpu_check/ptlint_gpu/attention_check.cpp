// Validation of PTL601's rewrite: the hand-rolled attention the rule recognised and the
// `scaled_dot_product_attention` call its fix writes, run on the same random inputs. Only these
// operations run — never the user's code. ATen headers only (see worker.h), and of those only
// the per-operator ones: `<ATen/ATen.h>` declares every operator and doubles the compile cost.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/Context.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <ATen/ops/bmm.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/softmax.h>
#if __has_include(<ATen/ops/scaled_dot_product_attention.h>)
#include <ATen/ops/scaled_dot_product_attention.h>
#else
#include <ATen/ops/_scaled_dot_product_attention.h>
#endif
#include <c10/core/InferenceMode.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "gpu_check/pattern.h"
#include "gpu_check/ptlint_gpu/worker.h"

using nlohmann::json;

namespace ptlint::gpu_check::worker {
namespace {

using Pattern = AttentionPattern;

struct Inputs {
  at::Tensor q, k, v;
  at::Tensor mask;    // boolean pattern: a 0/1 float tensor (T, T); additive: float (T, T)
  at::Tensor causal;  // (T, T) lower-triangular ones, built once like a registered buffer
  int64_t head_dim = 0;
};

// Tolerance on max |hand-rolled - rewrite| for the compute dtype. Outputs are convex
// combinations of N(0, 1) values (|x| < ~4); the low-precision figures allow for the hand-rolled
// softmax rounding in 16 bits (measured ~1e-2 in bf16, ~1.5e-3 in fp16 against fp64 at the
// default shape) while a wrong rewrite (inverted mask, lost scale) differs by ~1e-1 or more.
double toleranceFor(at::ScalarType dtype, bool cuda) {
  switch (dtype) {
    case at::kBFloat16: return 3e-2;
    case at::kHalf: return 5e-3;
    default: return cuda ? 1e-3 : 1e-4;  // CUDA kernels may compute fp32 matmuls in TF32
  }
}

std::string dtypeName(at::ScalarType dtype) {
  switch (dtype) {
    case at::kBFloat16: return "bfloat16";
    case at::kHalf: return "float16";
    default: return "float32";
  }
}

// What the code computes in: from autocast when the rule knew it; fp32 on CPU.
at::ScalarType computeDtype(const Pattern& p, bool cuda) {
  if (!cuda) return at::kFloat;
  if (p.dtype == "bfloat16") return at::kBFloat16;
  if (p.dtype == "float16") return at::kHalf;
  return at::kFloat;
}

Inputs makeInputs(const Pattern& p, const std::vector<int64_t>& shape, const at::TensorOptions& options) {
  const int64_t B = shape[0], H = shape[1], T = shape[2], D = shape[3];
  std::vector<int64_t> dims = p.layout == Pattern::Layout::BTD ? std::vector<int64_t>{B * H, T, D}
                                                               : std::vector<int64_t>{B, H, T, D};
  auto fp32 = options.dtype(at::kFloat);
  Inputs in;
  in.head_dim = D;
  in.q = at::randn(dims, fp32).to(options.dtype());
  in.k = at::randn(dims, fp32).to(options.dtype());
  in.v = at::randn(dims, fp32).to(options.dtype());
  if (p.mask == Pattern::Mask::Boolean) {
    // Half the positions masked, the diagonal always kept: no row is fully masked.
    auto keep = at::rand({T, T}, fp32).gt(0.5).logical_or(at::eye(T, fp32).to(at::kBool));
    in.mask = keep.to(at::kFloat);
  } else if (p.mask == Pattern::Mask::Additive) {
    in.mask = at::randn({T, T}, fp32).to(options.dtype());
  } else if (p.mask == Pattern::Mask::Causal) {
    in.causal = at::ones({T, T}, fp32).tril();
  }
  return in;
}

double scaleFactor(const Pattern& p, int64_t head_dim) {
  switch (p.scale) {
    case Pattern::Scale::Default: return 1.0 / std::sqrt(static_cast<double>(head_dim));
    case Pattern::Scale::None: return 1.0;
    case Pattern::Scale::Value: return p.scale_value;
  }
  return 1.0;
}

// softmax(Q·Kᵀ [scaled] [masked]) · V as the user wrote it. Dropout is off: eval mode.
at::Tensor handRolled(const Pattern& p, const Inputs& in) {
  at::Tensor scores = p.layout == Pattern::Layout::BTD ? at::bmm(in.q, in.k.transpose(1, 2))
                                                       : at::matmul(in.q, in.k.transpose(-2, -1));
  switch (p.scale) {
    case Pattern::Scale::Default: scores = scores / std::sqrt(static_cast<double>(in.head_dim)); break;
    case Pattern::Scale::None: break;
    case Pattern::Scale::Value: scores = scores * p.scale_value; break;
  }
  const double neg_inf = -std::numeric_limits<double>::infinity();
  switch (p.mask) {
    case Pattern::Mask::None: break;
    case Pattern::Mask::Boolean: scores = scores.masked_fill(in.mask == 0, neg_inf); break;
    case Pattern::Mask::Additive: scores = scores + in.mask; break;
    case Pattern::Mask::Causal: scores = scores.masked_fill(in.causal == 0, neg_inf); break;
  }
  at::Tensor weights = p.softmax_float32 ? at::softmax(scores.to(at::kFloat), -1).to(scores.scalar_type())
                                         : at::softmax(scores, -1);
  return p.layout == Pattern::Layout::BTD ? at::bmm(weights, in.v) : at::matmul(weights, in.v);
}

// The rewrite PTL601's fix writes: F.scaled_dot_product_attention(q, k, v, attn_mask=...,
// dropout_p=0 (eval), is_causal=..., scale=...). Before 2.1 there is no `scale=`; SDPA's own
// 1/sqrt(D) is then undone by pre-scaling q, which is the same product.
at::Tensor rewrite(const Pattern& p, const Inputs& in) {
  c10::optional<at::Tensor> attn_mask;
  bool is_causal = false;
  const bool wrong_mask = p.test_wrong_rewrite == "invert_mask";
  switch (p.mask) {
    case Pattern::Mask::None: break;
    case Pattern::Mask::Boolean: attn_mask = wrong_mask ? in.mask == 0 : in.mask != 0; break;
    case Pattern::Mask::Additive: attn_mask = wrong_mask ? -in.mask : in.mask; break;
    case Pattern::Mask::Causal: is_causal = p.test_wrong_rewrite != "drop_causal"; break;
  }
  c10::optional<double> scale;
  if (p.scale != Pattern::Scale::Default) scale = scaleFactor(p, in.head_dim);
  if (p.test_wrong_rewrite == "drop_scale") scale = p.scale == Pattern::Scale::Default ? c10::optional<double>(1.0)
                                                                                        : c10::nullopt;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  return at::scaled_dot_product_attention(in.q, in.k, in.v, attn_mask, 0.0, is_causal, scale);
#else
  at::Tensor q = in.q;
  if (scale) q = q * (*scale * std::sqrt(static_cast<double>(in.head_dim)));
#if TORCH_VERSION_MAJOR >= 2
  return at::scaled_dot_product_attention(q, in.k, in.v, attn_mask, 0.0, is_causal);
#else
  return std::get<0>(at::_scaled_dot_product_attention(q, in.k, in.v, attn_mask, 0.0, /*need_attn_weights=*/false,
                                                       is_causal));
#endif
#endif
}

// max |a - b| over positions where both are finite; +inf when they disagree on which are not.
double maxAbsError(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor a64 = a.to(at::kDouble), b64 = b.to(at::kDouble);
  at::Tensor fa = at::isfinite(a64), fb = at::isfinite(b64);
  if (!at::equal(fa, fb)) return std::numeric_limits<double>::infinity();
  at::Tensor diff = (a64 - b64).abs().masked_fill(fa.logical_not(), 0.0);
  return diff.numel() == 0 ? 0.0 : diff.max().item<double>();
}

double medianSeconds(const std::function<at::Tensor()>& run, int warmup, int repeats, bool cuda, int device) {
  auto& hooks = at::detail::getCUDAHooks();
  auto sync = [&] {
    if (cuda) hooks.deviceSynchronize(device);
  };
  for (int i = 0; i < warmup; ++i) run();
  sync();
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    run();
    sync();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (times.empty()) return std::nan("");
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

json validateOne(const Pattern& p, const std::vector<int64_t>& shape, bool cuda, int warmup, int repeats,
                 uint64_t seed) {
  const at::ScalarType dtype = computeDtype(p, cuda);
  const int device_index = 0;
  at::TensorOptions options = at::TensorOptions().dtype(dtype).device(
      cuda ? at::Device(at::kCUDA, device_index) : at::Device(at::kCPU));
  at::manual_seed(seed);
  Inputs in = makeInputs(p, shape, options);
  json result{{"device", cuda ? "cuda:0" : "cpu"}, {"dtype", dtypeName(dtype)}, {"shape", in.q.sizes().vec()},
              {"tolerance", toleranceFor(dtype, cuda)}};

  const double error = maxAbsError(handRolled(p, in), rewrite(p, in));
  result["max_abs_error"] = std::isfinite(error) ? json(error) : json(nullptr);
  result["equivalent"] = std::isfinite(error) && error <= toleranceFor(dtype, cuda);
  const double hand = medianSeconds([&] { return handRolled(p, in); }, warmup, repeats, cuda, device_index);
  const double sdpa = medianSeconds([&] { return rewrite(p, in); }, warmup, repeats, cuda, device_index);
  const double speedup = hand / sdpa;
  result["speedup"] = std::isfinite(speedup) && sdpa > 0 ? json(speedup) : json(nullptr);
  result["error"] = "";
  return result;
}

}  // namespace

json validatePatterns(const json& request) {
  c10::InferenceMode no_autograd;
  std::vector<int64_t> shape = request.value("shape", std::vector<int64_t>{2, 8, 256, 64});
  if (shape.size() != 4 || std::any_of(shape.begin(), shape.end(), [](int64_t n) { return n <= 0 || n > 65536; })) {
    throw std::invalid_argument("`shape` must be four positive sizes B, H, T, D");
  }
  const int warmup = std::clamp(request.value("warmup", 3), 0, 1000);
  const int repeats = std::clamp(request.value("repeats", 10), 1, 1000);
  const uint64_t seed = request.value("seed", uint64_t{0});
  const std::string device = request.value("device", "auto");
  bool cuda = false;
  if (device == "auto") {
    cuda = at::hasCUDA();
  } else if (device == "cuda") {
    if (!at::hasCUDA()) throw std::invalid_argument("device `cuda` requested, but this libtorch sees no CUDA device");
    cuda = true;
  } else if (device != "cpu") {
    throw std::invalid_argument("`device` must be auto, cpu or cuda");
  }

  json results = json::array();
  for (const json& item : request.at("patterns")) {
    try {
      results.push_back(validateOne(item.get<Pattern>(), shape, cuda, warmup, repeats, seed));
    } catch (const std::exception& e) {
      // One pattern failing (a bad pattern, out of memory) does not lose the others.
      std::string message = e.what();
      message = message.substr(0, message.find('\n'));
      results.push_back({{"device", cuda ? "cuda:0" : "cpu"}, {"dtype", ""}, {"shape", json::array()},
                         {"max_abs_error", nullptr}, {"tolerance", 0.0}, {"equivalent", false},
                         {"speedup", nullptr}, {"error", message}});
    }
  }
  return {{"results", results}};
}

}  // namespace ptlint::gpu_check::worker
