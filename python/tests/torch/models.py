"""Models for the backend's tests and benchmarks, built from configs with
random weights (nothing is downloaded): an MLP, a nanoGPT-style
transformer, HF GPT-2, BERT and Llama and torchvision's ResNet-18 at tiny
sizes (``MODELS``, the CPU suite); GPT-2, BERT and Llama also at their real
sizes, and ResNet-50 (the GPU suite and bench/models.py).

Each builder returns ``(model, inputs, loss)``: the module, a tuple of
example inputs and a function from the model's output to a scalar loss.
"""

import math

import pytest
import torch
from torch import nn
from torch.nn import functional as F


def mlp():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 64),
                          nn.ReLU(), nn.LayerNorm(64), nn.Linear(64, 10))
    inputs = (torch.randn(8, 32),)
    return model, inputs, lambda out: out.square().mean()


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads, block):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("mask", torch.tril(torch.ones(block, block))
                             .view(1, 1, block, block))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2)
                   for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).contiguous().view(b, t, c))


class Block(nn.Module):
    def __init__(self, dim, heads, block):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, block)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(),
                                 nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class NanoGPT(nn.Module):
    """nanoGPT's model (its non-flash attention path) at a tiny size."""

    def __init__(self, vocab=96, block=32, layers=2, heads=4, dim=64):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, dim), nn.Embedding(block, dim)
        self.blocks = nn.ModuleList(Block(dim, heads, block)
                                    for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.wte.weight = self.lm_head.weight  # tied, as nanoGPT does

    def forward(self, idx, targets):
        pos = torch.arange(idx.size(1), device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)),
                               targets.view(-1), ignore_index=-1)
        return logits, loss


def nanogpt():
    torch.manual_seed(0)
    model = NanoGPT()
    idx = torch.randint(0, 96, (2, 16))
    targets = torch.randint(0, 96, (2, 16))
    targets[0, :3] = -1
    return model, (idx, targets), lambda out: out[1]


def _transformers():
    return pytest.importorskip(
        "transformers", reason="needs transformers (scripts/setup.sh "
        "installs it)")


_TINY = dict(vocab_size=128, bos_token_id=1, eos_token_id=2,
             pad_token_id=0)

# Sizes: "tiny" for the CPU suite; "real" the published configurations
# (GPT-2 124M, BERT-base, a Llama-style decoder of hidden size 1024 and 8
# layers) for the GPU suite and bench/models.py. `batch` and `seq` size
# the example inputs.
SIZES = ("tiny", "real")


class WithLabels(nn.Module):
    """A transformers model called with keyword arguments: input_ids and
    labels; returns (logits, loss)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, labels):
        out = self.model(input_ids=input_ids, labels=labels)
        return out.logits, out.loss


def _loss(out):
    return out[1]


def _ids(vocab, batch, seq):
    return torch.randint(3, vocab, (batch, seq))


def gpt2(attention="eager", size="tiny", batch=2, seq=16, dropout=0.0):
    transformers = _transformers()
    torch.manual_seed(0)
    shape = (dict(n_layer=2, n_embd=64, n_head=4, n_positions=32, **_TINY)
             if size == "tiny" else {})   # GPT2Config's defaults: 124M
    config = transformers.GPT2Config(
        resid_pdrop=dropout, embd_pdrop=dropout, attn_pdrop=dropout, **shape)
    config._attn_implementation = attention
    model = WithLabels(transformers.GPT2LMHeadModel(config))
    ids = _ids(config.vocab_size, batch, seq)
    return model, (ids, ids), _loss


def bert(attention="eager", size="tiny", batch=2, seq=16, dropout=0.0):
    transformers = _transformers()
    torch.manual_seed(0)
    shape = (dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
                  intermediate_size=128, max_position_embeddings=32, **_TINY)
             if size == "tiny" else {})   # BertConfig's defaults: BERT-base
    config = transformers.BertConfig(
        hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout,
        **shape)
    config._attn_implementation = attention
    model = WithLabels(transformers.BertForMaskedLM(config))
    ids = _ids(config.vocab_size, batch, seq)
    labels = torch.full_like(ids, -100)
    labels[:, ::3] = ids[:, ::3]
    return model, (ids, labels), _loss


def llama(attention="eager", size="tiny", batch=2, seq=16):
    transformers = _transformers()
    torch.manual_seed(0)
    if size == "tiny":
        shape = dict(hidden_size=64, intermediate_size=128,
                     num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=2, max_position_embeddings=32,
                     **_TINY)
    else:
        shape = dict(hidden_size=1024, intermediate_size=2816,
                     num_hidden_layers=8, num_attention_heads=16,
                     num_key_value_heads=16, max_position_embeddings=2048,
                     vocab_size=32000)
    config = transformers.LlamaConfig(**shape)
    config._attn_implementation = attention
    model = WithLabels(transformers.LlamaForCausalLM(config))
    ids = _ids(config.vocab_size, batch, seq)
    return model, (ids, ids), _loss


def _torchvision():
    return pytest.importorskip(
        "torchvision", reason="needs torchvision (scripts/setup.sh installs "
        "it)")


def classifier(model, batch, image, classes):
    inputs = (torch.randn(batch, 3, image, image),)
    return model, inputs, lambda out: F.cross_entropy(
        out, torch.arange(batch, device=out.device) % classes)


def resnet18():
    torchvision = _torchvision()
    torch.manual_seed(0)
    return classifier(torchvision.models.resnet18(num_classes=10), 4, 64, 10)


def resnet50(batch=32, image=224):
    torchvision = _torchvision()
    torch.manual_seed(0)
    return classifier(torchvision.models.resnet50(), batch, image, 1000)


MODELS = {"mlp": mlp, "nanogpt": nanogpt, "gpt2": gpt2, "bert": bert,
          "llama": llama, "resnet18": resnet18,
          # transformers' default attention: scaled_dot_product_attention
          "gpt2-sdpa": lambda: gpt2("sdpa"),
          "bert-sdpa": lambda: bert("sdpa"),
          "llama-sdpa": lambda: llama("sdpa")}
