"""The JIT's decisions: which backend runs a nest, what is hoisted."""
