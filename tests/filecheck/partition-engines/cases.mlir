// RUN: ge-opt %s --split-input-file --opinfo %S/maximum_aicpu.json --opinfo %S/../inputs/aicpu_tile.json --partition-engines | filecheck %s
// RUN: ge-opt %s --split-input-file --opinfo %S/maximum_aicpu.json --opinfo %S/../inputs/aicpu_tile.json --partition-engines --partition-engines | filecheck %s

// Engines come from the op-information library: the user files
// inputs/aicpu_tile.json and maximum_aicpu.json make ge.tile and ge.maximum
// AI CPU ops, the rest is AI Core. Running the pass twice changes nothing (second RUN line).

// AI Core runs separated by an AI CPU op become three subgraphs, in order.
// CHECK-LABEL: ge.graph @interleaved
// CHECK-NEXT:    %x = ge.data {index = 0 : i64, name = "x"} : tensor<2x3xf32>
// CHECK-NEXT:    %b = ge.partitioned_call %x {engine = "AICore"} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:      %x_1 = ge.data {parent_index = 0 : i64} : tensor<2x3xf32>
// CHECK-NEXT:      %a = ge.relu %x_1
// CHECK-NEXT:      %b_1 = ge.sigmoid %a
// CHECK-NEXT:      ge.netoutput %b_1 : tensor<2x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %u = ge.partitioned_call %b {engine = "AICPU"} : (tensor<2x3xf32>) -> tensor<4x6xf32> {
// CHECK-NEXT:      %b_1 = ge.data {parent_index = 0 : i64} : tensor<2x3xf32>
// CHECK-NEXT:      %t = ge.tile %b_1
// CHECK-NEXT:      %u_1 = ge.tile %t
// CHECK-NEXT:      ge.netoutput %u_1 : tensor<4x6xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %n = ge.partitioned_call %u {engine = "AICore"} : (tensor<4x6xf32>) -> tensor<4x6xf32> {
// CHECK-NEXT:      %u_1 = ge.data {parent_index = 0 : i64} : tensor<4x6xf32>
// CHECK-NEXT:      %n_1 = ge.neg %u_1
// CHECK-NEXT:      ge.netoutput %n_1 : tensor<4x6xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.netoutput %n : tensor<4x6xf32>
ge.graph @interleaved {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<2x3xf32>
  %a = ge.relu %x {name = "a"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %b = ge.sigmoid %a {name = "b"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %t = ge.tile %b {multiples = array<i64: 2, 1>, name = "t"} : tensor<2x3xf32> -> tensor<4x3xf32>
  %u = ge.tile %t {multiples = array<i64: 1, 2>, name = "u"} : tensor<4x3xf32> -> tensor<4x6xf32>
  %n = ge.neg %u {name = "n"} : tensor<4x6xf32> -> tensor<4x6xf32>
  ge.netoutput %n : tensor<4x6xf32>
}

// -----

// Naive grouping of a and c (both AI Core, joined by the edge a -> c) would
// make {a, c} -> t -> {a, c} a cycle: they stay apart.
// CHECK-LABEL: ge.graph @cycle_through_other_engine
// CHECK:         %a = ge.partitioned_call %x {engine = "AICore"}
// CHECK-NEXT:      ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      ge.relu
// CHECK-NEXT:      ge.netoutput
// CHECK-NEXT:    }
// CHECK-NEXT:    %t = ge.partitioned_call %a {engine = "AICPU"}
// CHECK-NEXT:      ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      ge.tile
// CHECK-NEXT:      ge.netoutput
// CHECK-NEXT:    }
// CHECK-NEXT:    %c = ge.partitioned_call %a, %t {engine = "AICore"}
// CHECK-NEXT:      ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      ge.data {parent_index = 1 : i64}
// CHECK-NEXT:      ge.add
// CHECK-NEXT:      ge.netoutput
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.netoutput %c
ge.graph @cycle_through_other_engine {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %a = ge.relu %x {name = "a"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %t = ge.tile %a {multiples = array<i64: 1, 1>, name = "t"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %c = ge.add %a, %t {name = "c"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.netoutput %c : tensor<2x3xf32>
}

// -----

// The cycle only shows between groups: {q, p} (AI CPU, joined by q -> p) and
// {m1, m2} (AI Core, joined by m1 -> m2) would need m1 before p and q
// before m2, although no op-level path leaves {m1, m2} and comes back.
// CHECK-LABEL: ge.graph @cycle_between_groups
// CHECK:         %m1 = ge.partitioned_call %x {engine = "AICore"}
// CHECK-NEXT:      ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      ge.relu {{.*}} {name = "m1"}
// CHECK-NEXT:      ge.netoutput
// CHECK-NEXT:    }
// CHECK-NEXT:    %q, %p = ge.partitioned_call %x, %m1 {engine = "AICPU"}
// CHECK-NEXT:      ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      ge.data {parent_index = 1 : i64}
// CHECK-NEXT:      ge.tile {{.*}} {multiples = array<i64: 1, 1>, name = "q"}
// CHECK-NEXT:      ge.maximum {{.*}} {name = "p"}
// CHECK-NEXT:      ge.netoutput
// CHECK-NEXT:    }
// CHECK-NEXT:    %m2 = ge.partitioned_call %m1, %q {engine = "AICore"}
// CHECK-NEXT:      ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      ge.data {parent_index = 1 : i64}
// CHECK-NEXT:      ge.add {{.*}} {name = "m2"}
// CHECK-NEXT:      ge.netoutput
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.netoutput %p, %m2
ge.graph @cycle_between_groups {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %q = ge.tile %x {multiples = array<i64: 1, 1>, name = "q"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %m1 = ge.relu %x {name = "m1"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %p = ge.maximum %m1, %q {name = "p"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %m2 = ge.add %m1, %q {name = "m2"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.netoutput %p, %m2 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Independent same-engine branches joined by an op of that engine form one
// group; a constant used only there moves in, one shared with another group
// is passed in.
// CHECK-LABEL: ge.graph @diamond_and_constants
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %s = ge.const {{.*}}name = "s"
// CHECK-NEXT:    %j, %o2 = ge.partitioned_call %x, %s {engine = "AICore"}
// CHECK-NEXT:      %x_1 = ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      %s_1 = ge.data {parent_index = 1 : i64}
// CHECK-NEXT:      %k = ge.const {{.*}}name = "k"
// CHECK-NEXT:      %l = ge.relu %x_1
// CHECK-NEXT:      %r = ge.mul %x_1, %k
// CHECK-NEXT:      %j_1 = ge.add %l, %r
// CHECK-NEXT:      %o2_1 = ge.add %j_1, %s_1
// CHECK-NEXT:      ge.netoutput %j_1, %o2_1
// CHECK-NEXT:    }
// CHECK-NEXT:    %t = ge.partitioned_call %j {engine = "AICPU"}
// CHECK:         %o = ge.partitioned_call %t, %s {engine = "AICore"}
// CHECK:         ge.netoutput %o, %o2
ge.graph @diamond_and_constants {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %k = ge.const {value = dense<2.0> : tensor<2x3xf32>, name = "k"} : tensor<2x3xf32>
  %s = ge.const {value = dense<1.0> : tensor<2x3xf32>, name = "s"} : tensor<2x3xf32>
  %l = ge.relu %x {name = "l"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %r = ge.mul %x, %k {name = "r"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %j = ge.add %l, %r {name = "j"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = ge.tile %j {multiples = array<i64: 1, 1>, name = "t"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %o = ge.sub %t, %s {name = "o"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %o2 = ge.add %j, %s {name = "o2"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.netoutput %o, %o2 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Storage formats cross the boundaries unchanged: each subgraph ge.data has
// the type of its parent operand, each call result the type of its value.
// CHECK-LABEL: ge.graph @formats_at_boundaries
// CHECK:         %r, %d = ge.partitioned_call %x {engine = "AICore"} : (tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>) -> (tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x4x4xf32, #ge.layout<NCHW>>) {
// CHECK-NEXT:      ge.data {parent_index = 0 : i64} : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK:           ge.netoutput %r_1, %d_1 : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x4x4xf32, #ge.layout<NCHW>>
// CHECK:         %t = ge.partitioned_call %d {engine = "AICPU"} : (tensor<1x17x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x17x4x8xf32, #ge.layout<NCHW>> {
// CHECK-NEXT:      ge.data {parent_index = 0 : i64} : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
// CHECK:         %e = ge.partitioned_call %t {engine = "AICore"} : (tensor<1x17x4x8xf32, #ge.layout<NCHW>>) -> tensor<1x17x4x8xf32, #ge.layout<NCHW, NC1HWC0>> {
// CHECK-NEXT:      ge.data {parent_index = 0 : i64} : tensor<1x17x4x8xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      ge.transdata
// CHECK-NEXT:      ge.netoutput %e_1 : tensor<1x17x4x8xf32, #ge.layout<NCHW, NC1HWC0>>
ge.graph @formats_at_boundaries {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %x {name = "r"} : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %d = ge.transdata %r {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>, name = "d"} : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %t = ge.tile %d {multiples = array<i64: 1, 1, 1, 2>, name = "t"} : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x17x4x8xf32, #ge.layout<NCHW>>
  %e = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>, name = "e"} : tensor<1x17x4x8xf32, #ge.layout<NCHW>> -> tensor<1x17x4x8xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %e, %r : tensor<1x17x4x8xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Control-flow ops stay in the parent; their subgraphs are partitioned.
// CHECK-LABEL: ge.graph @control_flow
// CHECK:         %y = ge.if %p, %x : (tensor<i1>, tensor<2x3xf32>) -> tensor<2x3xf32> then {
// CHECK-NEXT:      %a = ge.data {parent_index = 1 : i64}
// CHECK-NEXT:      %t = ge.partitioned_call %a {engine = "AICPU"}
// CHECK:           ge.netoutput %t :
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %b = ge.data {parent_index = 1 : i64}
// CHECK-NEXT:      %n = ge.partitioned_call %b {engine = "AICore"}
// CHECK:           ge.netoutput %n :
// CHECK-NEXT:    }
// CHECK-NEXT:    %z = ge.partitioned_call %y {engine = "AICore"}
ge.graph @control_flow {
  %p = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<2x3xf32>
  %y = ge.if %p, %x : (tensor<i1>, tensor<2x3xf32>) -> tensor<2x3xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<2x3xf32>
    %t = ge.tile %a {multiples = array<i64: 1, 1>, name = "t"} : tensor<2x3xf32> -> tensor<2x3xf32>
    ge.netoutput %t : tensor<2x3xf32>
  } else {
    %b = ge.data {parent_index = 1 : i64} : tensor<2x3xf32>
    %n = ge.neg %b {name = "n"} : tensor<2x3xf32> -> tensor<2x3xf32>
    ge.netoutput %n : tensor<2x3xf32>
  }
  %z = ge.relu %y {name = "z"} : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput %z : tensor<2x3xf32>
}
