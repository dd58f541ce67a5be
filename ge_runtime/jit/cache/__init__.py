"""The JIT's code cache: its folder and its entries."""
