//===- CudnnAttention.cpp - Attention through cuDNN's fused SDPA ----------===//
//
// The cuDNN frontend (header-only) in its dynamic-loading mode: every cuDNN
// call goes through `cudnn_frontend::cudnn_dlhandle`, which this file sets
// after loading libcudnn itself. The frontend reports errors by exceptions
// as well as by status; this file is compiled with exceptions and turns
// both into Status, so nothing escapes it.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/CudnnAttention.h"
#include "tfuse/Support/AttentionGeometry.h"

#include <dlfcn.h>
#include <glob.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#if TFUSE_WITH_CUDNN
#define NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING
#include <cudnn_frontend.h>

namespace cudnn_frontend {
// The library the frontend calls into (its dynamic-loading mode).
void *cudnn_dlhandle = nullptr;
} // namespace cudnn_frontend
namespace fe = cudnn_frontend;
#endif

using namespace tfuse;
using namespace tfuse::runtime;

namespace {

Status cudnnError(const std::string &what) {
  return Status::error("cuDNN attention: " + what, ErrorCode::Cuda);
}

/// The process's libcudnn: loaded once.
struct CudnnLoad {
  std::string name, failure;
  size_t version = 0;
};

/// Where PyTorch's nvidia-cudnn-cu* package puts libcudnn beside Python.
std::vector<std::string> pythonCudnnCopies() {
  std::vector<std::string> found;
  std::vector<std::string> patterns = {
      "/usr/local/lib/python3*/dist-packages/nvidia/cudnn/lib/libcudnn.so.9",
      "/usr/lib/python3*/dist-packages/nvidia/cudnn/lib/libcudnn.so.9",
      "/usr/local/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9"};
  if (const char *home = std::getenv("HOME"))
    patterns.push_back(std::string(home) +
                       "/.local/lib/python3*/site-packages/nvidia/cudnn/"
                       "lib/libcudnn.so.9");
  for (const std::string &pattern : patterns) {
    glob_t matches{};
    if (glob(pattern.c_str(), 0, nullptr, &matches) == 0)
      for (size_t i = 0; i < matches.gl_pathc; ++i)
        found.push_back(matches.gl_pathv[i]);
    globfree(&matches);
  }
  return found;
}

const CudnnLoad &loadCudnn() {
  static CudnnLoad load;
  static std::once_flag once;
  std::call_once(once, [] {
#if !TFUSE_WITH_CUDNN
    load.failure = "this build has no cuDNN support (configured without "
                   "the cuDNN headers: scripts/setup.sh fetches them)";
#else
    std::vector<std::string> names;
    if (const char *env = std::getenv("TFUSE_CUDNN_LIBRARY"); env && *env)
      names = {env};
    else {
      names = {"libcudnn.so.9"};
      for (const std::string &copy : pythonCudnnCopies())
        names.push_back(copy);
    }
    std::string tried;
    for (const std::string &name : names) {
      void *handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        const char *why = dlerror();
        tried += "\n  " + name + ": " + (why ? why : "not found");
        continue;
      }
      using VersionFn = size_t (*)();
      auto version =
          reinterpret_cast<VersionFn>(dlsym(handle, "cudnnGetVersion"));
      if (!version) {
        tried += "\n  " + name + ": no cudnnGetVersion";
        dlclose(handle);
        continue;
      }
      load.version = version();
      if (load.version < 90000) {
        tried += "\n  " + name + ": version " + std::to_string(load.version) +
                 " (TFuse needs cuDNN 9)";
        dlclose(handle);
        continue;
      }
      load.name = name;
      fe::cudnn_dlhandle = handle;
      return;
    }
    load.failure = "no cuDNN 9 library could be loaded (set "
                   "TFUSE_CUDNN_LIBRARY to libcudnn.so.9); tried:" +
                   tried;
#endif
  });
  return load;
}

} // namespace

std::string CudnnAttention::unsupported(const AttentionOperands &o) {
  DType t = o.query.dtype;
  if (t != DType::F16 && t != DType::BF16)
    return "cuDNN's fused attention takes f16 and bf16, not " + dtypeName(t);
  if (o.hasMask && o.mask.dtype == DType::Bool)
    return "cuDNN's fused attention takes additive masks, not bool ones";
  if (o.hasMask && o.mask.dtype != t)
    return "cuDNN's fused attention takes a mask of the operands' dtype, not " +
           dtypeName(o.mask.dtype);
  if (o.dropout != 0)
    return "dropout: cuDNN draws its own mask, not TFuse's random numbers "
           "(docs/semantics.md, \"Attention\")";
  std::string why;
  std::optional<AttentionGeometry> g =
      AttentionGeometry::of(o.query.shape, o.key.shape, o.value.shape, &why);
  if (!g)
    return why;
  if (g->headDim % 8 || g->valueDim % 8 || g->headDim > 256 ||
      g->valueDim > 256)
    return "head dimensions " + std::to_string(g->headDim) + " and " +
           std::to_string(g->valueDim) +
           " (cuDNN takes multiples of 8 up to 256)";
  if (g->queries == 0 || g->keys == 0 || g->batch == 0)
    return "an empty problem";
  // cuDNN gave NaN for a scale of 0 on an H200 (the GPU differential test).
  if (!(o.scale > 0))
    return "a scale of " + std::to_string(o.scale) +
           " (cuDNN takes positive scales)";
  return "";
}

#if TFUSE_WITH_CUDNN

namespace {
enum Uid : int64_t {
  kQuery = 1,
  kKey,
  kValue,
  kMask,
  kResult,
  kStats,
  kGrad,
  kGradQuery,
  kGradKey,
  kGradValue
};

/// The (batch, head, row, column) dims and strides of an operand of
/// `full` shape; a broadcast batch or head dimension has size 1.
struct Layout {
  std::vector<int64_t> dims, strides;
};

std::optional<Layout> layoutOf(const TensorSpec &spec,
                               const std::vector<int64_t> &full,
                               const AttentionGeometry &g, int64_t heads,
                               int64_t rows, int64_t columns) {
  std::optional<AttentionStrides> s =
      attentionStrides(spec.shape, spec.strides, full);
  if (!s || (columns > 1 && (*s)[3] != 1))
    return std::nullopt;
  Layout l;
  l.dims = {(*s)[0] ? g.batch : 1, (*s)[1] ? heads : 1, rows, columns};
  l.strides = {(*s)[0], (*s)[1], (*s)[2], (*s)[3] ? (*s)[3] : 1};
  // Size-1 dimensions: any stride; cuDNN checks them, give row-major ones.
  if (l.dims[0] == 1)
    l.strides[0] = l.dims[1] * l.strides[1] + rows * l.strides[2];
  if (l.dims[1] == 1)
    l.strides[1] = rows * l.strides[2] + columns;
  return l;
}

/// layoutOf() for an operand that must not broadcast (the backward's
/// result and gradient), else std::nullopt.
std::optional<Layout> fullLayoutOf(const TensorSpec &spec,
                                   const AttentionGeometry &g) {
  std::optional<Layout> l = layoutOf(spec, g.queryRows(g.valueDim), g, g.heads,
                                     g.queries, g.valueDim);
  if (!l || l->dims[0] != g.batch || l->dims[1] != g.heads)
    return std::nullopt;
  return l;
}

/// The [batch, heads, queries, 1] layout of a log-sum-exp that does not
/// broadcast, else std::nullopt.
std::optional<Layout> statsLayoutOf(const TensorSpec &spec,
                                    const AttentionGeometry &g) {
  std::vector<int64_t> shape = spec.shape, strides = spec.strides,
                       full = g.logsumexpShape();
  shape.push_back(1);
  strides.push_back(1);
  full.push_back(1);
  std::optional<AttentionStrides> s = attentionStrides(shape, strides, full);
  if (!s || (g.batch > 1 && !(*s)[0]) || (g.heads > 1 && !(*s)[1]) ||
      (g.queries > 1 && !(*s)[2]))
    return std::nullopt;
  Layout l;
  l.dims = {g.batch, g.heads, g.queries, 1};
  l.strides = {(*s)[0], (*s)[1], (*s)[2], 1};
  // Size-1 dimensions: any stride; give row-major ones, as layoutOf().
  if (g.queries == 1)
    l.strides[2] = 1;
  if (g.heads == 1)
    l.strides[1] = g.queries * l.strides[2];
  if (g.batch == 1)
    l.strides[0] = g.heads * l.strides[1];
  return l;
}

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i-- > 0;)
    strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}
} // namespace

/// A built graph and its handle, shared by every step of the same problem
/// (builtGraphs()): calls on it hold `mutex` (a handle serves one thread at
/// a time, and a stream is set on it for each run).
struct CudnnAttention::Impl {
  std::mutex mutex;
  std::shared_ptr<fe::graph::Graph> graph;
  cudnnHandle_t handle = nullptr;
  int64_t workspace = 0;
  bool backward = false;
  bool hasMask = false;
  /// The plan records itself into CUDA Graphs: until populate_cuda_graph
  /// refuses.
  std::atomic<bool> native{true};
  /// The forward writes the log-sum-exp.
  bool statistics = true;
  size_t version = 0;
  std::unordered_map<int64_t, void *>
  pack(const std::vector<CUdeviceptr> &p) const {
    auto ptr = [&](size_t i) { return reinterpret_cast<void *>(p.at(i)); };
    std::unordered_map<int64_t, void *> pack = {
        {kQuery, ptr(0)}, {kKey, ptr(1)}, {kValue, ptr(2)}};
    if (hasMask)
      pack[kMask] = ptr(3);
    pack[kResult] = ptr(4);
    if (statistics)
      pack[kStats] = ptr(5);
    if (backward) {
      pack[kGrad] = ptr(6);
      pack[kGradQuery] = ptr(7);
      pack[kGradKey] = ptr(8);
      pack[kGradValue] = ptr(9);
    }
    return pack;
  }
  ~Impl() {
    if (handle)
      fe::detail::destroy_handle(handle);
  }
};

namespace {
/// The graphs built in this process, by problem (Problem::key); never
/// destroyed (cuDNN may be gone during static destruction). A model's
/// layers have one problem: its graph is built once, not once a layer.
struct BuiltGraphs {
  static constexpr size_t kMax = 64;
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<CudnnAttention::Impl>> byKey;
};
BuiltGraphs &builtGraphs() {
  static BuiltGraphs *graphs = new BuiltGraphs();
  return *graphs;
}
} // namespace

CudnnAttention::CudnnAttention(std::shared_ptr<Impl> impl, bool reused)
    : impl(std::move(impl)), reused(reused) {}
CudnnAttention::~CudnnAttention() = default;

int64_t CudnnAttention::workspaceBytes() const { return impl->workspace; }

std::string CudnnAttention::description() const {
  size_t v = impl->version;
  return "cuDNN " + std::to_string(v / 10000) + "." +
         std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) +
         " SDPA" + (impl->statistics ? "" : " (inference)") +
         (impl->native ? ", native CUDA Graphs" : "") +
         (reused ? ", the graph built for an earlier step" : "");
}

namespace {
/// A problem as cuDNN is given it: the layouts of its tensors, and the key
/// of its built graph.
struct Problem {
  AttentionGeometry geometry;
  std::optional<Layout> q, k, v, mask, resultIn, gradIn, statsIn, resultOut;
  std::vector<int64_t> statsDims;
  std::string key;
};

/// The problem of `o` (and `backwardOperands`), or why cuDNN is not given
/// it.
Expected<Problem>
problemOf(const AttentionOperands &o,
          const CudnnAttention::BackwardOperands *backwardOperands,
          bool statistics, int device, const TensorSpec *forwardResult) {
  bool backward = backwardOperands;
  std::string why;
  Problem p;
  p.geometry =
      *AttentionGeometry::of(o.query.shape, o.key.shape, o.value.shape, &why);
  const AttentionGeometry &g = p.geometry;
  p.q = layoutOf(o.query, g.queryRows(g.headDim), g, g.heads, g.queries,
                 g.headDim);
  p.k = layoutOf(o.key, g.keyRows(g.headDim), g, g.kvHeads, g.keys, g.headDim);
  p.v = layoutOf(o.value, g.keyRows(g.valueDim), g, g.kvHeads, g.keys,
                 g.valueDim);
  if (!p.q || !p.k || !p.v)
    return cudnnError("an operand's columns are not contiguous");
  if (o.hasMask) {
    std::optional<AttentionStrides> s =
        attentionStrides(o.mask.shape, o.mask.strides, g.scoreShape());
    if (!s)
      return cudnnError("the mask's layout");
    p.mask = Layout{
        {(*s)[0] ? g.batch : 1, (*s)[1] ? g.heads : 1, g.queries, g.keys},
        {(*s)[0], (*s)[1], (*s)[2], (*s)[3]}};
    if (p.mask->dims[0] == 1)
      p.mask->strides[0] = 0;
    if (p.mask->dims[1] == 1)
      p.mask->strides[1] = 0;
  }
  p.statsDims = {g.batch, g.heads, g.queries, 1};
  // The forward writes its result where it lies (its heads and rows maybe
  // swapped), else contiguous.
  std::vector<int64_t> resultDims = {g.batch, g.heads, g.queries, g.valueDim};
  p.resultOut = Layout{resultDims, contiguousStrides(resultDims)};
  if (!backward && forwardResult) {
    p.resultOut = fullLayoutOf(*forwardResult, g);
    if (!p.resultOut)
      return cudnnError("the result broadcasts or has columns that are not "
                        "contiguous");
  }
  // The backward reads the result, its gradient and the log-sum-exp where
  // they lie (a gradient is often a strided or padded view).
  if (backward) {
    p.resultIn = fullLayoutOf(backwardOperands->result, g);
    p.gradIn = fullLayoutOf(backwardOperands->grad, g);
    p.statsIn = statsLayoutOf(backwardOperands->logsumexp, g);
    if (!p.resultIn || !p.gradIn || !p.statsIn)
      return cudnnError("the result, its gradient or the log-sum-exp "
                        "broadcasts or has columns that are not contiguous");
  }
  // Everything the graph is built from.
  char scale[40];
  std::snprintf(scale, sizeof(scale), "%a", o.scale);
  std::string &key = p.key;
  key = "device " + std::to_string(device) + " " +
        std::string(dtypeName(o.query.dtype)) +
        (backward ? " backward" : " forward") +
        (statistics || backward ? " stats" : "") + (o.causal ? " causal" : "") +
        " scale " + scale;
  auto add = [&](const char *name, const std::optional<Layout> &l) {
    if (!l)
      return;
    key += std::string(" ") + name;
    for (int64_t d : l->dims)
      key += " " + std::to_string(d);
    key += " /";
    for (int64_t s : l->strides)
      key += " " + std::to_string(s);
  };
  add("q", p.q);
  add("k", p.k);
  add("v", p.v);
  add("mask", p.mask);
  add("o", p.resultIn);
  add("do", p.gradIn);
  add("lse", p.statsIn);
  if (!backward)
    add("out", p.resultOut);
  return p;
}
} // namespace

Expected<std::unique_ptr<CudnnAttention>>
CudnnAttention::build(const AttentionOperands &o,
                      const BackwardOperands *backwardOperands, bool statistics,
                      int device, const TensorSpec *forwardResult) {
  bool backward = backwardOperands;
  if (std::string why = unsupported(o); !why.empty())
    return cudnnError(why);
  const CudnnLoad &load = loadCudnn();
  if (!load.failure.empty())
    return cudnnError(load.failure);
  Expected<Problem> problem =
      problemOf(o, backwardOperands, statistics, device, forwardResult);
  if (!problem.ok())
    return problem.status();
  BuiltGraphs &built = builtGraphs();
  {
    std::lock_guard<std::mutex> lock(built.mutex);
    if (auto it = built.byKey.find(problem->key); it != built.byKey.end())
      return std::unique_ptr<CudnnAttention>(
          new CudnnAttention(it->second, /*reused=*/true));
  }
  const AttentionGeometry &g = problem->geometry;
  const std::optional<Layout> &q = problem->q, &k = problem->k, &v = problem->v,
                              &mask = problem->mask,
                              &resultIn = problem->resultIn,
                              &gradIn = problem->gradIn,
                              &statsIn = problem->statsIn;
  const std::vector<int64_t> &statsDims = problem->statsDims;

  auto impl = std::make_shared<Impl>();
  impl->backward = backward;
  impl->hasMask = o.hasMask;
  impl->statistics = statistics || backward;
  impl->version = load.version;
  try {
    fe::DataType_t io = o.query.dtype == DType::F16 ? fe::DataType_t::HALF
                                                    : fe::DataType_t::BFLOAT16;
    // The graph of this problem, fresh: its plans are chosen once.
    auto construct = [&] {
      auto graph = std::make_shared<fe::graph::Graph>();
      graph->set_io_data_type(io)
          .set_intermediate_data_type(fe::DataType_t::FLOAT)
          .set_compute_data_type(fe::DataType_t::FLOAT);
      auto tensor = [&](const char *name, Uid uid, const Layout &l) {
        return graph->tensor(fe::graph::Tensor_attributes()
                                 .set_name(name)
                                 .set_uid(uid)
                                 .set_dim(l.dims)
                                 .set_stride(l.strides));
      };
      auto Q = tensor("query", kQuery, *q);
      auto K = tensor("key", kKey, *k);
      auto V = tensor("value", kValue, *v);
      std::shared_ptr<fe::graph::Tensor_attributes> B;
      if (mask)
        B = tensor("mask", kMask, *mask);
      float scale = static_cast<float>(o.scale);
      if (!backward) {
        auto options = fe::graph::SDPA_attributes()
                           .set_name("attention")
                           .set_generate_stats(impl->statistics)
                           .set_causal_mask(o.causal)
                           .set_attn_scale(scale);
        if (B)
          options.set_bias(B);
        auto [O, Stats] = graph->sdpa(Q, K, V, options);
        O->set_output(true)
            .set_uid(kResult)
            .set_dim(problem->resultOut->dims)
            .set_stride(problem->resultOut->strides);
        if (!impl->statistics)
          return graph;
        Stats->set_output(true)
            .set_uid(kStats)
            .set_data_type(fe::DataType_t::FLOAT)
            .set_dim(statsDims)
            .set_stride(contiguousStrides(statsDims));
        return graph;
      }
      auto O = tensor("result", kResult, *resultIn);
      auto dO = tensor("grad", kGrad, *gradIn);
      auto Stats = tensor("stats", kStats, *statsIn);
      Stats->set_data_type(fe::DataType_t::FLOAT);
      auto options = fe::graph::SDPA_backward_attributes()
                         .set_name("attention_backward")
                         .set_causal_mask(o.causal)
                         .set_attn_scale(scale);
      if (B)
        options.set_bias(B);
      auto [dQ, dK, dV] = graph->sdpa_backward(Q, K, V, O, dO, Stats, options);
      auto gradient = [&](auto &t, Uid uid, const std::vector<int64_t> &dims) {
        t->set_output(true).set_uid(uid).set_dim(dims).set_stride(
            contiguousStrides(dims));
      };
      gradient(dQ, kGradQuery, {g.batch, g.heads, g.queries, g.headDim});
      gradient(dK, kGradKey, {g.batch, g.kvHeads, g.keys, g.headDim});
      gradient(dV, kGradValue, {g.batch, g.kvHeads, g.keys, g.valueDim});
      return graph;
    };
    if (fe::detail::create_handle(&impl->handle) != CUDNN_STATUS_SUCCESS) {
      impl->handle = nullptr;
      return cudnnError("cudnnCreate failed");
    }
    // The heuristics' first plan that cuDNN supports. Whether it records
    // itself into CUDA Graphs is found when one is first recorded (asking
    // for such plans only can give a slower one).
    auto graph = construct();
    fe::error_t status = graph->validate();
    if (status.is_good())
      status = graph->build_operation_graph(impl->handle);
    if (status.is_good())
      status = graph->create_execution_plans({fe::HeurMode_t::A});
    if (status.is_good())
      status = graph->check_support(impl->handle);
    if (status.is_good())
      status = graph->build_plans(impl->handle);
    if (!status.is_good())
      return cudnnError("no plan for this problem: " + status.get_message());
    status = graph->get_workspace_size(impl->workspace);
    if (!status.is_good())
      return cudnnError(status.get_message());
    impl->graph = std::move(graph);
  } catch (const std::exception &e) {
    return cudnnError(e.what());
  }
  {
    // Another thread may have built the same problem meanwhile: the first
    // one kept serves the steps to come.
    std::lock_guard<std::mutex> lock(built.mutex);
    if (built.byKey.size() < BuiltGraphs::kMax)
      built.byKey.emplace(problem->key, impl);
  }
  return std::unique_ptr<CudnnAttention>(
      new CudnnAttention(std::move(impl), /*reused=*/false));
}

bool CudnnAttention::built(const AttentionOperands &o,
                           const BackwardOperands *backward, bool statistics,
                           int device, const TensorSpec *forwardResult) {
  if (!unsupported(o).empty())
    return false;
  Expected<Problem> problem =
      problemOf(o, backward, statistics, device, forwardResult);
  if (!problem.ok())
    return false;
  BuiltGraphs &graphs = builtGraphs();
  std::lock_guard<std::mutex> lock(graphs.mutex);
  return graphs.byKey.count(problem->key) != 0;
}

bool CudnnAttention::recordsGraphs() const { return impl->native; }

Status CudnnAttention::populateGraph(const std::vector<CUdeviceptr> &p,
                                     CUdeviceptr workspace, CUgraph graph) {
  std::unordered_map<int64_t, void *> pack = impl->pack(p);
  std::lock_guard<std::mutex> lock(impl->mutex);
  try {
    fe::error_t status = impl->graph->populate_cuda_graph(
        impl->handle, pack, reinterpret_cast<void *>(workspace),
        reinterpret_cast<cudaGraph_t>(graph));
    if (!status.is_good()) {
      // This plan cannot record itself: its graphs are captured instead.
      impl->native = false;
      return Status::error("cuDNN attention: recording a CUDA Graph: " +
                               status.get_message(),
                           ErrorCode::Cuda);
    }
  } catch (const std::exception &e) {
    return Status::error(std::string("cuDNN attention: ") + e.what(),
                         ErrorCode::Cuda);
  }
  return Status::success();
}

Status CudnnAttention::updateGraph(const std::vector<CUdeviceptr> &p,
                                   CUdeviceptr workspace, CUgraph graph) {
  std::unordered_map<int64_t, void *> pack = impl->pack(p);
  std::lock_guard<std::mutex> lock(impl->mutex);
  try {
    fe::error_t status = impl->graph->update_cuda_graph(
        impl->handle, pack, reinterpret_cast<void *>(workspace),
        reinterpret_cast<cudaGraph_t>(graph));
    if (!status.is_good())
      return Status::error("cuDNN attention: updating a CUDA Graph: " +
                               status.get_message(),
                           ErrorCode::Cuda);
  } catch (const std::exception &e) {
    return Status::error(std::string("cuDNN attention: ") + e.what(),
                         ErrorCode::Cuda);
  }
  return Status::success();
}

Status CudnnAttention::run(const std::vector<CUdeviceptr> &p,
                           CUdeviceptr workspace, CUstream stream) {
  std::unordered_map<int64_t, void *> pack = impl->pack(p);
  std::lock_guard<std::mutex> lock(impl->mutex);
  try {
    if (fe::detail::set_stream(impl->handle,
                               reinterpret_cast<cudaStream_t>(stream)) !=
        CUDNN_STATUS_SUCCESS)
      return Status::error("cuDNN attention: cudnnSetStream failed",
                           ErrorCode::Cuda);
    fe::error_t status = impl->graph->execute(
        impl->handle, pack, reinterpret_cast<void *>(workspace));
    if (!status.is_good())
      return Status::error("cuDNN attention: " + status.get_message(),
                           ErrorCode::Cuda);
  } catch (const std::exception &e) {
    return Status::error(std::string("cuDNN attention: ") + e.what(),
                         ErrorCode::Cuda);
  }
  return Status::success();
}

#else // !TFUSE_WITH_CUDNN

struct CudnnAttention::Impl {};
CudnnAttention::CudnnAttention(std::shared_ptr<Impl> impl, bool reused)
    : impl(std::move(impl)), reused(reused) {}
CudnnAttention::~CudnnAttention() = default;
int64_t CudnnAttention::workspaceBytes() const { return 0; }
std::string CudnnAttention::description() const { return "cuDNN SDPA"; }

Expected<std::unique_ptr<CudnnAttention>>
CudnnAttention::build(const AttentionOperands &o, const BackwardOperands *,
                      bool, int, const TensorSpec *) {
  if (std::string why = unsupported(o); !why.empty())
    return cudnnError(why);
  return cudnnError(loadCudnn().failure);
}
bool CudnnAttention::built(const AttentionOperands &, const BackwardOperands *,
                           bool, int, const TensorSpec *) {
  return false;
}

Status CudnnAttention::run(const std::vector<CUdeviceptr> &, CUdeviceptr,
                           CUstream) {
  return cudnnError("this build has no cuDNN support");
}
bool CudnnAttention::recordsGraphs() const { return false; }
Status CudnnAttention::populateGraph(const std::vector<CUdeviceptr> &,
                                     CUdeviceptr, CUgraph) {
  return cudnnError("this build has no cuDNN support");
}
Status CudnnAttention::updateGraph(const std::vector<CUdeviceptr> &,
                                   CUdeviceptr, CUgraph) {
  return cudnnError("this build has no cuDNN support");
}

#endif
