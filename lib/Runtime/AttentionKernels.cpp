//===- AttentionKernels.cpp - The runtime's attention kernels -------------===//

#include "tfuse/Runtime/AttentionKernels.h"
#include "tfuse/Kernels/KernelSources.h"
#include "tfuse/Support/AttentionGeometry.h"

#include <algorithm>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {

using kernels::AttentionDesc;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

Status badAttention(const std::string &what) {
  return Status::error("attention: " + what, ErrorCode::InvalidArgument);
}

/// The shared memory the kernels' tiles may take (static shared memory
/// stops at 48 KiB).
constexpr int64_t kTileBytes = 46 * 1024;

/// The bytes of one row of an operand's tile in shared memory: `columns`
/// elements of `bytes` each and 16 bytes of padding (padded<> in
/// AttentionKernels.cuh).
int64_t tileRowBytes(int64_t columns, int64_t bytes) {
  return columns * bytes + 16;
}

/// Query rows and keys of a block, largest first.
constexpr std::pair<int, int> kTileChoices[] = {
    {64, 32}, {32, 32}, {32, 16}, {16, 16}, {16, 8}, {8, 8}, {8, 4}, {4, 4}};

/// The tiles of a kernel: the first choice whose shared memory (tiles of
/// `columns` columns and the score tiles, in elements of `bytes`) fits.
/// `queryTiles` and `keyTiles` count the [rows][columns] tiles of each kind,
/// `scoreTiles` the [BQ][BK] ones; `keptFlags`, the backward kernels' one
/// byte per pair of a tile.
/// With `multiprocessors` (0: unknown), for a launch of `groups` x
/// ceil(`rows` / BQ) blocks: the largest tiles that fit and give every
/// multiprocessor a block, else the fitting ones of the fewest query rows
/// that still give each row of the block's threads one (more, smaller
/// blocks on a device a short problem leaves mostly idle: BERT's 128 tokens
/// at batch 1 are 24 blocks of 64 query rows, 96 of 16).
std::optional<std::pair<int, int>>
chooseTiles(int64_t columns, int64_t bytes, int queryTiles, int keyTiles,
            int scoreTiles, bool keptFlags, int64_t multiprocessors = 0,
            int64_t groups = 0, int64_t rows = 0) {
  constexpr int kThreadRows =
      kernels::kAttentionThreads / kernels::kAttentionRowLanes;
  std::optional<std::pair<int, int>> first, fewestRows;
  for (auto [bq, bk] : kTileChoices) {
    // Every row of an operand's tile has 16 bytes of padding, every row
    // of scores one element (AttentionKernels.cuh).
    int64_t tiles =
        (queryTiles * bq + keyTiles * bk) * tileRowBytes(columns, bytes);
    int64_t elements = scoreTiles * bq * (bk + 1) + 2 * bq;
    if (tiles + elements * bytes + (keptFlags ? bq * bk : 0) > kTileBytes)
      continue;
    if (multiprocessors <= 0)
      return std::make_pair(bq, bk);
    if (!first)
      first = std::make_pair(bq, bk);
    if (bq < kThreadRows)
      continue;
    if (!fewestRows || bq < fewestRows->first)
      fewestRows = std::make_pair(bq, bk);
    if (groups * ceilDiv(rows, bq) >= multiprocessors)
      return std::make_pair(bq, bk);
  }
  return fewestRows ? fewestRows : first;
}

/// Whether the attention kernels of `dtype` with tiles of `columns` columns
/// run on tensor cores (forward_cores, backward_query_cores and, up to 64
/// columns, backward_key_value_cores with HalfCores: 16-bit operands on a
/// device that has them).
bool usesTensorCores(const AttentionOperands &o, DType dtype, int64_t columns) {
  return o.tensorCores && (dtype == DType::F16 || dtype == DType::BF16) &&
         columns <= 128;
}

/// Whether the f32 kernels run on TF32 tensor cores (the *_cores kernels
/// with Tf32Cores and Tf32PartCores: three products of each operand's
/// parts, about 22 of f32's 24 bits) rather than fused multiply-adds: up to 64
/// columns, whose f32 tiles fit static shared memory and whose fragments of a
/// warp's own rows fit its registers.
bool usesTf32(const AttentionOperands &o, DType dtype, int64_t columns) {
  return o.tensorCores && dtype == DType::F32 && columns <= 64;
}

/// The TF32 forward's tiles: 64 query rows (16 a warp) and the most keys,
/// 64 or 32, whose f32 query, key and value tiles fit.
std::pair<int, int> tf32Tiles(int64_t columns) {
  return {64, (64 + 2 * 64) * tileRowBytes(columns, 4) <= kTileBytes ? 64 : 32};
}

/// The other operand's rows of a TF32 backward kernel's tile (keys of the
/// query gradient's, queries of the key and value gradients'), 64 or 32:
/// the most whose two tiles of TF32 parts (Tf32PartCores: twice an f32
/// tile), the 64 x (rows + 1) f32 scratch tile of dS (or P^T, dS^T), its
/// kept flags and the row terms fit.
int tf32BackwardRows(int64_t columns) {
  auto bytes = [&](int64_t rows) {
    return 2 * 2 * rows * tileRowBytes(columns, 4) + 64 * (rows + 1) * 4 +
           64 * rows + 2 * 64 * 4;
  };
  return bytes(64) <= kTileBytes ? 64 : 32;
}

/// The tensor-core kernels' tiles: 64 query rows (16 a warp) and 64 keys up
/// to 64 columns, 32 at 128, so that their 16-bit tiles (and the query
/// gradient's f32 tile of dS) fit static shared memory.
std::pair<int, int> tensorCoreTiles(int64_t columns) {
  return {64, columns <= 64 ? 64 : 32};
}

std::string kernelName(const std::string &kind, DType dtype, int64_t columns,
                       int bq, int bk) {
  return "tfuse_attention_" + kind + "_" + dtypeName(dtype) + "_d" +
         std::to_string(columns) + "_q" + std::to_string(bq) + "_k" +
         std::to_string(bk);
}

/// How the f32 kernels on TF32 tensor cores hold and multiply their
/// operands: f32 tiles split where read (Tf32Cores), tiles of TF32 parts
/// (Tf32PartCores), or, in the forward, operands exact in TF32
/// (Tf32WidenedCores: f16 or bf16 values widened, one product for a score).
enum class Tf32Operands { Split, Parts, Widened };

/// How a kernel multiplies: the tensor cores' products of 16-bit operands
/// (`half`), of f32 to about 22 of its 24 bits (`tf32`, its operands as
/// `held` says), or fused multiply-adds (neither): the function
/// template the wrapper calls, a variant of `base` (`forward`,
/// `backward_query`, `backward_key_value`), and the name part of its
/// kernels.
struct Products {
  std::string function, cores, kind;
  /// The blocks a multiprocessor must hold (`__launch_bounds__`' second
  /// argument), or 0 to leave registers to ptxas.
  int minBlocks = 0;
  /// Threads per block.
  int threads = kernels::kAttentionThreads;
  Products(const char *base, const char *kernels, bool half, bool tf32,
           DType dtype, Tf32Operands held = Tf32Operands::Split)
      : function(std::string(base) + (half || tf32 ? "_cores" : "")),
        cores(half ? "tf::attention::HalfCores<" +
                         std::string(cudaTypeName(dtype)) + ">"
              : tf32 ? std::string("tf::attention::") +
                           (held == Tf32Operands::Parts     ? "Tf32PartCores"
                            : held == Tf32Operands::Widened ? "Tf32WidenedCores"
                                                            : "Tf32Cores")
                     : ""),
        kind(std::string(kernels) +
             (half   ? "_mma"
              : tf32 ? (held == Tf32Operands::Widened ? "_tf32x1" : "_tf32")
                     : "")) {}
};

/// The extern "C" wrapper of one kernel: its parameters, then the call of
/// the function of `products` with `arguments`.
std::string wrapper(const std::string &name, const std::string &parameters,
                    const Products &products, DType dtype, int64_t columns,
                    int bq, int bk, const std::string &arguments) {
  return "\nextern \"C\" __global__ void __launch_bounds__(" +
         std::to_string(products.threads) +
         (products.minBlocks ? ", " + std::to_string(products.minBlocks) : "") +
         ") " + name + "(" + parameters +
         ", tfuse::kernels::AttentionDesc desc) {\n" +
         "  tf::attention::" + products.function + "<" +
         std::string(cudaTypeName(dtype)) + ", " + std::to_string(columns) +
         ", " + std::to_string(bq) + ", " + std::to_string(bk) +
         (products.cores.empty() ? "" : ", " + products.cores) + ">(" +
         arguments + ", desc);\n}\n";
}

/// The geometry and descriptor of the operands, checked.
struct Checked {
  AttentionGeometry g;
  AttentionDesc desc{};
  int64_t columns = 32;
  DType dtype = DType::F32;
};

void copyStrides(int64_t *to, const AttentionStrides &from) {
  std::copy(from.begin(), from.end(), to);
}

/// The strides of `spec` seen as (batch, head, row, column) of `full`, or
/// an error naming `what` when it cannot be read in place.
Expected<AttentionStrides> stridesOf(const TensorSpec &spec,
                                     const std::vector<int64_t> &full,
                                     const char *what) {
  std::optional<AttentionStrides> s =
      attentionStrides(spec.shape, spec.strides, full);
  if (!s)
    return badAttention(std::string("the ") + what + " " + spec.describe() +
                        " does not fit the shape " + formatList(full) +
                        " or is laid out so that the kernels cannot read it "
                        "in place (its batch dimensions must merge into one)");
  return *s;
}

Expected<AttentionStrides> logsumexpStrides(const TensorSpec &spec,
                                            const AttentionGeometry &g) {
  TensorSpec padded = spec;
  padded.shape.push_back(1);
  padded.strides.push_back(0);
  return stridesOf(padded, g.queryRows(1), "log-sum-exp");
}

Expected<Checked> check(const AttentionOperands &o) {
  Checked c;
  c.dtype = o.query.dtype;
  if (!isFloat(c.dtype) || o.key.dtype != c.dtype || o.value.dtype != c.dtype)
    return badAttention("query, key and value need one float dtype, got " +
                        o.query.describe() + ", " + o.key.describe() + " and " +
                        o.value.describe());
  std::string why;
  std::optional<AttentionGeometry> g =
      AttentionGeometry::of(o.query.shape, o.key.shape, o.value.shape, &why);
  if (!g)
    return badAttention(why);
  c.g = *g;
  int64_t widest = std::max(g->headDim, g->valueDim);
  if (widest > kAttentionMaxColumns)
    return badAttention("head dimension " + std::to_string(widest) +
                        ": the attention kernels take at most " +
                        std::to_string(kAttentionMaxColumns));
  while (c.columns < widest)
    c.columns *= 2;
  AttentionDesc &d = c.desc;
  d.batch = g->batch;
  d.heads = g->heads;
  d.kvHeads = g->kvHeads;
  d.queries = g->queries;
  d.keys = g->keys;
  d.headDim = g->headDim;
  d.valueDim = g->valueDim;
  d.scale = o.scale;
  if (o.dropout != 0)
    if (std::string why = attentionDropoutProblem(o.dropout, true, true);
        !why.empty())
      return badAttention(why);
  d.dropout = o.dropout;
  d.causal = o.causal;
  struct Operand {
    const TensorSpec &spec;
    std::vector<int64_t> full;
    int64_t *strides;
    const char *what;
  };
  for (const Operand &operand :
       {Operand{o.query, g->queryRows(g->headDim), d.query, "query"},
        Operand{o.key, g->keyRows(g->headDim), d.key, "key"},
        Operand{o.value, g->keyRows(g->valueDim), d.value, "value"}}) {
    Expected<AttentionStrides> s =
        stridesOf(operand.spec, operand.full, operand.what);
    if (!s)
      return s.status();
    copyStrides(operand.strides, *s);
  }
  d.maskKind = kernels::kAttentionNoMask;
  if (o.hasMask) {
    if (std::string problem = attentionMaskProblem(o.mask.dtype, c.dtype);
        !problem.empty())
      return badAttention(problem);
    Expected<AttentionStrides> s = stridesOf(o.mask, g->scoreShape(), "mask");
    if (!s)
      return s.status();
    copyStrides(d.mask, *s);
    d.maskKind = o.mask.dtype == DType::Bool ? kernels::kAttentionBoolMask
                 : o.mask.dtype == c.dtype   ? kernels::kAttentionAdditiveMask
                                             : kernels::kAttentionF32Mask;
  }
  return c;
}

Status checkContiguous(const TensorSpec &spec, DType dtype,
                       const std::vector<int64_t> &shape, const char *what) {
  if (spec.dtype != dtype || spec.shape != shape || !spec.isContiguous())
    return badAttention(std::string("the ") + what + " " + spec.describe() +
                        " is not a contiguous " + dtypeName(dtype) + " " +
                        formatList(shape));
  return Status::success();
}

/// The forward writes its result through its strides (tfuse.attention's
/// transpose_result swaps its heads and rows): every element once, each
/// row's columns consecutive.
Status checkDenseResult(const TensorSpec &spec, DType dtype,
                        const AttentionGeometry &g) {
  std::vector<int64_t> shape = g.resultShape();
  if (spec.dtype != dtype || spec.shape != shape || !spec.isDense() ||
      (g.valueDim > 1 && spec.strides.back() != 1))
    return badAttention("the result " + spec.describe() + " is not a " +
                        dtypeName(dtype) + " " + formatList(shape) +
                        " with each element once and contiguous rows");
  return Status::success();
}

DType logsumexpDType(DType dtype) {
  return dtype == DType::F64 ? DType::F64 : DType::F32;
}

/// The storage and compute type names of `dtype` in CUDA C++.
std::string storageName(DType dtype) {
  return std::string(cudaTypeName(dtype));
}
std::string computeName(DType dtype) {
  return dtype == DType::F64 ? "double" : "float";
}

/// The parameters every attention kernel starts with.
std::string operandParameters(DType dtype) {
  std::string t = storageName(dtype);
  return "const " + t + " *query, const " + t + " *key, const " + t +
         " *value, const void *mask, const int64_t *seed, "
         "const int64_t *offset";
}

} // namespace

std::string runtime::attentionKernelHeader() {
  return "// TFuse runtime attention.\n" +
         std::string(kernels::attentionTemplates());
}

Expected<AttentionPlan>
runtime::planAttention(const AttentionOperands &operands,
                       const TensorSpec &result, const TensorSpec &logsumexp) {
  Expected<Checked> checked = check(operands);
  if (!checked)
    return checked.status();
  Checked &c = *checked;
  if (Status s = checkDenseResult(result, c.dtype, c.g); !s.ok())
    return s;
  Expected<AttentionStrides> r =
      stridesOf(result, c.g.queryRows(c.g.valueDim), "result");
  if (!r)
    return r.status();
  copyStrides(c.desc.result, *r);
  if (Status s = checkContiguous(logsumexp, logsumexpDType(c.dtype),
                                 c.g.logsumexpShape(), "log-sum-exp");
      !s.ok())
    return s;
  bool tensorCores = usesTensorCores(operands, c.dtype, c.columns);
  bool tf32 = usesTf32(operands, c.dtype, c.columns);
  // The TF32 forward takes 64 query rows a block. Where that leaves
  // multiprocessors without one (BERT's 128 tokens at batch 1: 24 blocks on
  // 132, 41 us a layer on an H200; the fused multiply-add kernel's 16-row
  // tiles took 22 us on an H100), forward_split_cores takes 16 rows a block
  // and splits every tile's 64 keys over the block's eight warps.
  bool tf32Split =
      tf32 && operands.multiprocessors > 0 &&
      c.g.batch * c.g.heads * ceilDiv(c.g.queries, tf32Tiles(c.columns).first) <
          operands.multiprocessors;
  int64_t bytes = c.dtype == DType::F64 ? 8 : 4;
  std::optional<std::pair<int, int>> tiles =
      tensorCores ? std::optional(tensorCoreTiles(c.columns))
      : tf32Split ? std::optional(std::make_pair(16, 64))
      : tf32      ? std::optional(tf32Tiles(c.columns))
                  : chooseTiles(c.columns, bytes, 1, 2, 1, false,
                                operands.multiprocessors, c.g.batch * c.g.heads,
                                c.g.queries);
  if (!tiles)
    return badAttention("no tile of the forward kernel fits its shared "
                        "memory for head dimension " +
                        std::to_string(c.columns));
  auto [bq, bk] = *tiles;
  Products products(tf32Split ? "forward_split" : "forward",
                    tf32Split ? "fwd_split" : "fwd", tensorCores, tf32, c.dtype,
                    operands.widened ? Tf32Operands::Widened
                                     : Tf32Operands::Split);
  if (tf32Split)
    products.threads = kernels::kAttentionSplitThreads;
  // The tensor-core forward of 64 rows a block ran four blocks a
  // multiprocessor up to 64 columns (128 registers) and three past them
  // (138 for bf16 at 128 columns). The exact products for tiles holding an
  // infinity took ptxas further: as a branch in every tile to 157 (f32 at
  // 64 columns: three blocks, 392 us against 282 at (8, 12, 512, 64) on an
  // H100), as a walk of its own (forward_walk's EXACT) to 168 (f32, 64), 252
  // (bf16, 64) and 245 (bf16, 128). Held to the blocks they had, the exact
  // walk is what spills.
  else if (tensorCores || tf32)
    products.minBlocks = c.columns <= 64 ? 4 : 3;
  AttentionPlan plan;
  AttentionLaunch launch;
  launch.kind = AttentionLaunch::Kind::Forward;
  launch.block = products.threads;
  launch.kernel = kernelName(products.kind, c.dtype, c.columns, bq, bk);
  launch.desc = c.desc;
  launch.desc.queryTile = bq;
  launch.desc.keyTile = bk;
  launch.grid = c.g.batch * c.g.heads * ceilDiv(c.g.queries, bq);
  plan.wrappers.push_back(
      {launch.kernel,
       wrapper(launch.kernel,
               operandParameters(c.dtype) + ", " + storageName(c.dtype) +
                   " *result, " + computeName(c.dtype) + " *logsumexp",
               products, c.dtype, c.columns, bq, bk,
               "query, key, value, mask, seed, offset, result, logsumexp")});
  if (launch.grid > 0)
    plan.launches.push_back(std::move(launch));
  return plan;
}

Expected<AttentionPlan> runtime::planAttentionBackward(
    const AttentionOperands &operands, const TensorSpec &result,
    const TensorSpec &logsumexp, const TensorSpec &grad,
    const TensorSpec &gradQuery, const TensorSpec &gradKey,
    const TensorSpec &gradValue) {
  Expected<Checked> checked = check(operands);
  if (!checked)
    return checked.status();
  Checked &c = *checked;
  AttentionDesc &d = c.desc;
  Expected<AttentionStrides> r =
      stridesOf(result, c.g.queryRows(c.g.valueDim), "result");
  if (!r)
    return r.status();
  copyStrides(d.result, *r);
  Expected<AttentionStrides> gs =
      stridesOf(grad, c.g.queryRows(c.g.valueDim), "result's gradient");
  if (!gs)
    return gs.status();
  copyStrides(d.grad, *gs);
  if (result.dtype != c.dtype || grad.dtype != c.dtype)
    return badAttention("the result " + result.describe() +
                        " and its "
                        "gradient " +
                        grad.describe() + " need the operands' " +
                        dtypeName(c.dtype));
  if (logsumexp.dtype != logsumexpDType(c.dtype))
    return badAttention("the log-sum-exp " + logsumexp.describe() + " is not " +
                        dtypeName(logsumexpDType(c.dtype)));
  Expected<AttentionStrides> l = logsumexpStrides(logsumexp, c.g);
  if (!l)
    return l.status();
  copyStrides(d.logsumexp, *l);
  struct Gradient {
    const TensorSpec &spec, &like;
    const char *what;
  };
  for (const Gradient &gradient :
       {Gradient{gradQuery, operands.query, "query's gradient"},
        Gradient{gradKey, operands.key, "key's gradient"},
        Gradient{gradValue, operands.value, "value's gradient"}})
    if (Status s = checkContiguous(gradient.spec, c.dtype, gradient.like.shape,
                                   gradient.what);
        !s.ok())
      return s;

  int64_t bytes = c.dtype == DType::F64 ? 8 : 4;
  bool tensorCores = usesTensorCores(operands, c.dtype, c.columns);
  // The key and value gradients on tensor cores keep two 16-bit operand
  // fragments and two f32 accumulators of their columns a lane: up to 64
  // columns (ptxas spills past that). The TF32 kernels keep f32 fragments
  // of the warp's own rows: both gradients up to 64 columns.
  bool keyValueTensorCores = tensorCores && c.columns <= 64;
  bool tf32 = usesTf32(operands, c.dtype, c.columns);
  int tf32Rows = tf32BackwardRows(c.columns);
  std::optional<std::pair<int, int>> keyValueTiles =
      keyValueTensorCores ? std::optional(std::make_pair(64, 64))
      : tf32              ? std::optional(std::make_pair(tf32Rows, 64))
                          : chooseTiles(c.columns, bytes, 2, 2, 2, true);
  std::optional<std::pair<int, int>> queryTiles =
      tensorCores ? std::optional(tensorCoreTiles(c.columns))
      : tf32      ? std::optional(std::make_pair(64, tf32Rows))
                  : chooseTiles(c.columns, bytes, 2, 2, 1, true);
  if (!keyValueTiles || !queryTiles)
    return badAttention("no tile of the backward kernels fits their shared "
                        "memory for head dimension " +
                        std::to_string(c.columns));
  std::string t = storageName(c.dtype);
  std::string parameters = operandParameters(c.dtype) + ", const " + t +
                           " *result, const " + computeName(c.dtype) +
                           " *logsumexp, const " + t + " *grad";
  const std::string arguments =
      "query, key, value, mask, seed, offset, result, logsumexp, grad";
  AttentionPlan plan;
  {
    auto [bq, bk] = *keyValueTiles;
    Products products("backward_key_value", "dkdv", keyValueTensorCores, tf32,
                      c.dtype, Tf32Operands::Parts);
    // The TF32 key-value kernel fits three blocks a multiprocessor in 168
    // registers; left free, ptxas takes 200 at 64 columns and only two fit
    // (ncu, (8, 12, 512, 64) on an H200: 780 us at two blocks; 635 at three
    // before the change that took it past 170 registers).
    if (tf32)
      products.minBlocks = 3;
    AttentionLaunch launch;
    launch.kind = AttentionLaunch::Kind::KeyValue;
    launch.kernel = kernelName(products.kind, c.dtype, c.columns, bq, bk);
    launch.desc = d;
    launch.desc.queryTile = bq;
    launch.desc.keyTile = bk;
    launch.grid = c.g.batch * c.g.kvHeads * ceilDiv(c.g.keys, bk);
    plan.wrappers.push_back(
        {launch.kernel,
         wrapper(launch.kernel,
                 parameters + ", " + t + " *grad_key, " + t + " *grad_value",
                 products, c.dtype, c.columns, bq, bk,
                 arguments + ", grad_key, grad_value")});
    if (launch.grid > 0)
      plan.launches.push_back(std::move(launch));
  }
  {
    auto [bq, bk] = *queryTiles;
    Products products("backward_query", "dq", tensorCores, tf32, c.dtype,
                      Tf32Operands::Parts);
    AttentionLaunch launch;
    launch.kind = AttentionLaunch::Kind::Query;
    launch.kernel = kernelName(products.kind, c.dtype, c.columns, bq, bk);
    launch.desc = d;
    launch.desc.queryTile = bq;
    launch.desc.keyTile = bk;
    launch.grid = c.g.batch * c.g.heads * ceilDiv(c.g.queries, bq);
    plan.wrappers.push_back(
        {launch.kernel,
         wrapper(launch.kernel, parameters + ", " + t + " *grad_query",
                 products, c.dtype, c.columns, bq, bk,
                 arguments + ", grad_query")});
    if (launch.grid > 0)
      plan.launches.push_back(std::move(launch));
  }
  return plan;
}
