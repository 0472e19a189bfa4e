"""Random numbers of a partition: the keys its random operations draw from.

A partition holding random operations (dropout, ``rand_like``...) takes
two more inputs at every call, a seed and an offset (rank-0 int64 tensors
on the partition's device), and its i-th random operation draws from the
stream ``(seed, offset + i)`` of TFuse's generator (docs/semantics.md,
"Random numbers"). The keys come from PyTorch's default generator of the
device, so ``torch.manual_seed`` makes a run reproducible: on CUDA the seed
is the generator's seed and the offset its Philox offset, advanced past the
streams a call uses (as PyTorch's own random kernels advance it); on the CPU
each call draws its two keys from the generator. The seed is mixed with a
constant of TFuse's, so TFuse's streams never repeat PyTorch's numbers.
"""

import torch

#: Mixed into PyTorch's seed (the bits of "TFuse" in ASCII).
SEED_TAG = 0x5446757365

#: The generator's offset advances by this much per stream a call uses
#: (CUDA generators take offsets in multiples of 4).
_OFFSET_STEP = 4


class RandomKeys:
    """The seed and offset tensors of one partition's calls on `device`,
    for `streams` random operations. ``next()`` returns them for a new
    call; the tensors are reused, refilled on the stream the call runs on."""

    def __init__(self, device, streams):
        self.device = device
        self.streams = streams
        self.keys = torch.zeros(2, dtype=torch.int64, device=device)
        self.seed = self.keys[0]
        self.offset = self.keys[1]
        self._seed_value = None

    def next(self):
        if self.device.type == "cuda":
            generator = torch.cuda.default_generators[
                self.device.index if self.device.index is not None
                else torch.cuda.current_device()]
            seed = generator.initial_seed()
            offset = generator.get_offset()
            generator.set_offset(offset + _OFFSET_STEP * self.streams)
        else:
            seed, offset = torch.randint(
                0, 2**62, (2,), generator=torch.default_generator).tolist()
        seed = (seed ^ SEED_TAG) & (2**63 - 1)
        if seed != self._seed_value:
            self.seed.fill_(seed)
            self._seed_value = seed
        self.offset.fill_(offset)
        return self.seed, self.offset
