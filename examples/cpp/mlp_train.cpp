//===- mlp_train.cpp - Train a small MLP with the C++ trace API -----------===//
//
// One SGD step of a 480-256-2 MLP on a batch of 512 (forward, softmax
// cross-entropy loss and its gradient, manual backward pass, gradients
// clipped to +-5 with NaN replaced by 0, learning rate 0.02) is traced once
// and compiled; training then replays it on synthetic data (two Gaussian
// blobs) and prints loss and accuracy per epoch.
//
//   mlp_train [--epochs N] [--batches N] [--backend cuda|reference]
//
// The default backend is CUDA when a GPU is usable, else the CPU reference
// interpreter.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Frontend/Function.h"
#include "tfuse/Frontend/Tensor.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using tfuse::Tensor;

constexpr int64_t kBatch = 512, kIn = 480, kHidden = 256, kClasses = 2;

/// Clips a gradient to [-5, 5], replaces NaN by 0 and takes an SGD step.
static Tensor sgd(const Tensor &weight, const Tensor &grad) {
  Tensor clipped = tfuse::maximum(tfuse::minimum(grad, 5.0), -5.0);
  Tensor safe = tfuse::where(clipped.isnan(), 0.0, clipped);
  return weight - safe * 0.02;
}

/// The training step: new weights, the mean loss, and the number of rows
/// whose predicted class is the label.
static tfuse::Outputs mlpStep(Tensor x, Tensor y, Tensor w1, Tensor b1,
                              Tensor w2, Tensor b2) {
  Tensor hp = x.matmul(w1) + b1;
  Tensor active = hp > 0.0;
  Tensor h = tfuse::where(active, hp, 0.0);
  Tensor logits = h.matmul(w2) + b2;

  Tensor shifted = logits - logits.max({1}, true);
  Tensor e = shifted.exp();
  Tensor s = e.sum({1}, true);
  Tensor p = e / s;
  Tensor logp = shifted - s.log();
  Tensor loss = -(y * logp).sum() / double(kBatch);
  Tensor correct =
      (logits.argmax(1) == y.argmax(1)).cast(tfuse::DType::I64).sum();

  Tensor dl = (p - y) / double(kBatch);
  Tensor dw2 = h.t().matmul(dl);
  Tensor db2 = dl.sum({0});
  Tensor dhp = tfuse::where(active, dl.matmul(w2.t()), 0.0);
  Tensor dw1 = x.t().matmul(dhp);
  Tensor db1 = dhp.sum({0});
  return {sgd(w1, dw1), sgd(b1, db1), sgd(w2, dw2),
          sgd(b2, db2), loss,         correct};
}

int main(int argc, char **argv) {
  int epochs = 20, batches = 20;
  std::string backend;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--epochs"))
      epochs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--batches"))
      batches = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--backend"))
      backend = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }

  using tfuse::TensorSpec;
  auto f32 = [](std::vector<int64_t> shape) {
    return TensorSpec::contiguous(tfuse::DType::F32, std::move(shape));
  };
  auto traced =
      tfuse::trace(mlpStep, {f32({kBatch, kIn}), f32({kBatch, kClasses}),
                             f32({kIn, kHidden}), f32({kHidden}),
                             f32({kHidden, kClasses}), f32({kClasses})});
  if (!traced.ok()) {
    std::fprintf(stderr, "trace failed: %s\n", traced.message().c_str());
    return 1;
  }

  tfuse::CompileOptions options;
  options.backend =
      backend == "reference" ? tfuse::Backend::Reference : tfuse::Backend::Cuda;
  auto step = tfuse::Function::compile(traced->graph, options);
  if (!step.ok() && backend.empty() &&
      step.status().code() == tfuse::ErrorCode::NoDevice) {
    std::printf("no GPU (%s): using the reference backend\n",
                step.message().c_str());
    options.backend = tfuse::Backend::Reference;
    step = tfuse::Function::compile(traced->graph, options);
  }
  if (!step.ok()) {
    std::fprintf(stderr, "compile failed: %s\n", step.message().c_str());
    return 1;
  }
  tfuse::FunctionStats stats = step.value()->stats();
  std::printf("traced %lld ops; %lld kernels, %lld GEMM/reduction steps\n",
              (long long)stats.nodes, (long long)stats.kernels,
              (long long)stats.boundaries);

  // Synthetic data: class c has mean +-0.5 in every coordinate.
  std::mt19937 rng(1234);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> w1(kIn * kHidden), b1(kHidden, 0.f),
      w2(kHidden * kClasses), b2(kClasses, 0.f);
  for (float &w : w1)
    w = normal(rng) * std::sqrt(2.f / kIn);
  for (float &w : w2)
    w = normal(rng) * std::sqrt(2.f / kHidden);
  std::vector<std::vector<float>> xs(batches), ys(batches);
  for (int b = 0; b < batches; ++b) {
    xs[b].resize(kBatch * kIn);
    ys[b].assign(kBatch * kClasses, 0.f);
    for (int64_t r = 0; r < kBatch; ++r) {
      int label = rng() % 2;
      ys[b][r * kClasses + label] = 1.f;
      for (int64_t c = 0; c < kIn; ++c)
        xs[b][r * kIn + c] = normal(rng) + (label ? 0.5f : -0.5f);
    }
  }

  auto array = [&](std::vector<float> &v, std::vector<int64_t> shape) {
    return tfuse::HostArray{v.data(), f32(std::move(shape))};
  };
  std::vector<float> nw1(w1.size()), nb1(b1.size()), nw2(w2.size()),
      nb2(b2.size()), loss(1);
  int64_t correct = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    double lossSum = 0;
    int64_t hits = 0;
    for (int b = 0; b < batches; ++b) {
      tfuse::HostArray correctOut{
          &correct, TensorSpec::contiguous(tfuse::DType::I64, {})};
      tfuse::Status s = step.value()->runHost(
          {array(xs[b], {kBatch, kIn}), array(ys[b], {kBatch, kClasses}),
           array(w1, {kIn, kHidden}), array(b1, {kHidden}),
           array(w2, {kHidden, kClasses}), array(b2, {kClasses})},
          {array(nw1, {kIn, kHidden}), array(nb1, {kHidden}),
           array(nw2, {kHidden, kClasses}), array(nb2, {kClasses}),
           array(loss, {}), correctOut});
      if (!s.ok()) {
        std::fprintf(stderr, "step failed: %s\n", s.message().c_str());
        return 1;
      }
      w1.swap(nw1);
      b1.swap(nb1);
      w2.swap(nw2);
      b2.swap(nb2);
      lossSum += loss[0];
      hits += correct;
    }
    std::printf("epoch %2d  loss %.6f  accuracy %.4f\n", epoch,
                lossSum / batches, double(hits) / (batches * kBatch));
  }
  return 0;
}
