"""The compiler's passes, one per module, registered lazily by name.

`PASSES` maps each pass name to the module and class that implement it; the
module is imported only when the pass is requested.
"""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass

PASSES: dict[str, tuple[str, str]] = {
    "infer-origin-format": ("infer_origin_format", "InferOriginFormatPass"),
    "infer-shape": ("infer_shape", "InferShapePass"),
    "refine-running-format": ("refine_running_format", "RefineRunningFormatPass"),
    "select-storage-format": ("select_storage_format", "SelectStorageFormatPass"),
    "insert-transdata": ("insert_transdata", "InsertTransDataPass"),
}
"""Pass name -> (module in this package, ModulePass class name)."""


def _loader(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(import_module(f"passes.{module}"), cls)

    return load


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass of the project, as xDSL's lazily-loading factories."""
    return {name: _loader(module, cls) for name, (module, cls) in PASSES.items()}
