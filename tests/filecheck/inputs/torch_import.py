"""Print the `ge` IR the torch importer makes of small torch programs.

    python torch_import.py CASE...      (cases: see CASES)

Each case is compiled with `torch.compile` through aot_autograd as the `ge`
backend does (parameters as constants, the same decompositions), and each
forward graph's imported module is printed after a `// CASE: name` line,
before any compiler pass, with constants above 16 elements external.
"""

from __future__ import annotations

import sys

import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func
from torch._subclasses.fake_tensor import unset_fake_temporarily

from ge_frontend.torch_fx import import_fx_graph
from ge_frontend.torch_ops import decomposition_table
from ge_xdsl.torch_backend import source_names, static_inputs


def seeded(module: torch.nn.Module) -> torch.nn.Module:
    torch.manual_seed(0)
    for parameter in module.parameters():
        parameter.data = torch.randn_like(parameter)
    return module.eval()


class ConvBnRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(17, 8, 3, stride=2, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def attention_mask(mask: torch.Tensor) -> torch.Tensor:
    keys = torch.arange(mask.shape[1])[None, None, None, :]
    keep = (keys >= 0) & mask.to(torch.bool)[
        torch.arange(mask.shape[0])[:, None, None, None], keys
    ]
    return torch.where(keep, torch.tensor(0.0), torch.tensor(float("-inf")))


CASES = {
    "linear": (seeded(torch.nn.Linear(17, 5)), lambda: (torch.randn(3, 17),), False),
    "conv_bn_relu": (seeded(ConvBnRelu()), lambda: (torch.randn(2, 17, 9, 9),), False),
    "channels_last": (
        seeded(ConvBnRelu()),
        lambda: (
            torch.randn(2, 17, 9, 9).contiguous(memory_format=torch.channels_last),
        ),
        False,
    ),
    "dynamic_views": (
        lambda x: x.view(x.shape[0] * 4, x.shape[1], 16).view(
            x.shape[0], 4, x.shape[1], 16
        ),
        lambda: (torch.randn(3, 5, 64),),
        True,
    ),
    "dynamic_mask": (
        attention_mask,
        lambda: (torch.ones(3, 5, dtype=torch.int64),),
        True,
    ),
    "index_inner": (
        lambda x: x[:, :, torch.tensor([[4, 0], [-1, 2]]), torch.tensor([1, 0])],
        lambda: (torch.randn(3, 2, 5, 3, 7),),
        False,
    ),
    "no_converter": (
        lambda x: torch.relu(torch.cumsum(x, 1)),
        lambda: (torch.randn(3, 17),),
        False,
    ),
    "no_folding_of_random_values": (
        lambda x: x + torch.rand(3, 17),
        lambda: (torch.randn(3, 17),),
        False,
    ),
}


def print_imports(name: str) -> None:
    program, inputs, dynamic = CASES[name]

    def backend(graph_module, example_inputs):
        names, real = source_names(graph_module), list(example_inputs)

        def forward(gm, fake_inputs):
            with unset_fake_temporarily():
                imported = import_fx_graph(
                    gm, static_inputs(fake_inputs, real), names=names, inline_limit=16
                )
            print(f"// CASE: {name}")
            print(imported.model.module)
            for node, reason in imported.unsupported.items():
                print(f"// unsupported {node.name}: {reason}")
            return make_boxed_func(gm.forward)

        return aot_autograd(fw_compiler=forward, decompositions=decomposition_table())(
            graph_module, example_inputs
        )

    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(program, backend=backend, dynamic=dynamic)(*inputs())


if __name__ == "__main__":
    for case in sys.argv[1:]:
        print_imports(case)
