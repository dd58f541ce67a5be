"""Lowering `ge` graphs to affine loops over memrefs (`convert-ge-to-loops`).

- `index`: index expressions with ranges (floordiv/mod simplification);
- `domain`: splitting iteration domains into blocks so accesses stay affine;
- `layouts`: storage formats as index maps (origin index -> buffer index);
- `emitter`: building loop nests, loads and stores from per-element bodies;
- `context`: what an op lowering sees (operand buffers, results, scratch);
- `elementwise`, `movement`, `nn`: the op lowerings;
- `table`: the policy table op name -> lowering.
"""
