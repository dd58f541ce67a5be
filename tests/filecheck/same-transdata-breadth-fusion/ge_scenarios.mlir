// RUN: ge-opt %s --split-input-file --same-transdata-breadth-fusion | filecheck %s

// GE's SameTransdataBreadthFusionPass unit-test scenarios
// (docs/research/ge_behaviour.md §5.6), in SSA form. GE's "different in-control
// sources" cases have no counterpart (no control edges); neither do its
// probe failures (every layout here has its TransData and Casts).

// GE: op -> {Cast -> TD -> NetOutput, Cast -> TD} becomes op -> TD ->
// {Cast -> ..., Cast}; the TransData takes the head's dtype, the Casts keep
// theirs and run in NC1HWC0.
// CHECK-LABEL: ge.graph @casts_then_transdata_shared
// CHECK:         [[H:%.*]] = ge.relu %x
// CHECK-NEXT:    [[T:%.*]] = ge.transdata [[H]] {name = "td1", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x3x3xf32, #ge.layout<NCHW>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[C1:%.*]] = ge.cast [[T]] {dst_type = f16} : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[C2:%.*]] = ge.cast [[T]] {dst_type = i32} : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xi32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    [[A:%.*]] = ge.abs [[C2]]
// CHECK-NEXT:    ge.netoutput [[C1]], [[A]]
ge.graph @casts_then_transdata_shared {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf32, #ge.layout<NCHW>>
  %h = ge.relu %x : tensor<1x17x3x3xf32, #ge.layout<NCHW>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW>>
  %c1 = ge.cast %h {dst_type = f16} : tensor<1x17x3x3xf32, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %t1 = ge.transdata %c1 {name = "td1", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %c2 = ge.cast %h {dst_type = i32} : tensor<1x17x3x3xf32, #ge.layout<NCHW>> -> tensor<1x17x3x3xi32, #ge.layout<NCHW>>
  %t2 = ge.transdata %c2 {name = "td2", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x3x3xi32, #ge.layout<NCHW>> -> tensor<1x17x3x3xi32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.abs %t2 : tensor<1x17x3x3xi32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xi32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %t1, %a : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x3x3xi32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: a Cast shared with another consumer: not fused.
// CHECK-LABEL: ge.graph @no_fusion_cast_shared
// CHECK:         [[H:%.*]] = ge.relu %x
// CHECK-NEXT:    [[C1:%.*]] = ge.cast [[H]]
// CHECK-NEXT:    ge.transdata [[C1]]
// CHECK-NEXT:    ge.sigmoid [[C1]]
// CHECK-NEXT:    ge.transdata [[H]]
ge.graph @no_fusion_cast_shared {
  %x = ge.data {index = 0 : i64} : tensor<1x3x3x3xf32, #ge.layout<NCHW>>
  %h = ge.relu %x : tensor<1x3x3x3xf32, #ge.layout<NCHW>> -> tensor<1x3x3x3xf32, #ge.layout<NCHW>>
  %c1 = ge.cast %h {dst_type = f16} : tensor<1x3x3x3xf32, #ge.layout<NCHW>> -> tensor<1x3x3x3xf16, #ge.layout<NCHW>>
  %t1 = ge.transdata %c1 {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x3x3xf16, #ge.layout<NCHW>> -> tensor<1x3x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %s = ge.sigmoid %c1 : tensor<1x3x3x3xf16, #ge.layout<NCHW>> -> tensor<1x3x3x3xf16, #ge.layout<NCHW>>
  %t2 = ge.transdata %h {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x3x3xf32, #ge.layout<NCHW>> -> tensor<1x3x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %t1, %s, %t2 : tensor<1x3x3x3xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x3x3xf16, #ge.layout<NCHW>>, tensor<1x3x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: across a PartitionedCall: the TransData is pulled out of the
// subgraph and a new subgraph Data added (the old one, now unused, goes).
// CHECK-LABEL: ge.graph @partitioned_call_transdata_pulled_out
// CHECK:         [[H:%.*]] = ge.relu %x
// CHECK-NEXT:    [[T:%.*]] = ge.transdata [[H]] {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
// CHECK-NEXT:    [[P:%.*]] = ge.partitioned_call [[T]] : (tensor<1x33x2x2xf32, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>> {
// CHECK-NEXT:      [[D:%.*]] = ge.data {parent_index = 0 : i64} : tensor<1x33x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:      [[C:%.*]] = ge.cast [[D]] {dst_type = f16} : tensor<1x33x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:      [[R:%.*]] = ge.relu [[C]]
// CHECK-NEXT:      ge.netoutput [[R]]
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.netoutput [[T]], [[P]]
ge.graph @partitioned_call_transdata_pulled_out {
  %x = ge.data {index = 0 : i64} : tensor<1x33x2x2xf32, #ge.layout<NCHW>>
  %h = ge.relu %x : tensor<1x33x2x2xf32, #ge.layout<NCHW>> -> tensor<1x33x2x2xf32, #ge.layout<NCHW>>
  %t = ge.transdata %h {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x33x2x2xf32, #ge.layout<NCHW>> -> tensor<1x33x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %p = ge.partitioned_call %h : (tensor<1x33x2x2xf32, #ge.layout<NCHW>>) -> tensor<1x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>> {
    %d = ge.data {parent_index = 0 : i64} : tensor<1x33x2x2xf32, #ge.layout<NCHW>>
    %c = ge.cast %d {dst_type = f16} : tensor<1x33x2x2xf32, #ge.layout<NCHW>> -> tensor<1x33x2x2xf16, #ge.layout<NCHW>>
    %u = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x33x2x2xf16, #ge.layout<NCHW>> -> tensor<1x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
    %r = ge.relu %u : tensor<1x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
    ge.netoutput %r : tensor<1x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  }
  ge.netoutput %t, %p : tensor<1x33x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: nested PartitionedCalls: the walk goes through both boundaries; the
// outer subgraph's other input keeps its index.
// CHECK-LABEL: ge.graph @nested_partitioned_calls
// CHECK:         [[T:%.*]] = ge.transdata %x
// CHECK-NEXT:    [[Y:%.*]] = ge.data {index = 1 : i64}
// CHECK-NEXT:    [[P:%[^ ,]*]], [[P1:%[^ ]*]] = ge.partitioned_call [[Y]], [[T]]
// CHECK-NEXT:      [[DT:%.*]] = ge.data {parent_index = 1 : i64} : tensor<2x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:      [[DY:%.*]] = ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      [[Q:%.*]] = ge.partitioned_call [[DT]]
// CHECK-NEXT:        [[E:%.*]] = ge.data {parent_index = 0 : i64} : tensor<2x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:        [[C:%.*]] = ge.cast [[E]] {dst_type = f32}
// CHECK-NEXT:        ge.netoutput [[C]]
// CHECK:           [[S:%.*]] = ge.add [[DY]], [[DY]]
// CHECK-NEXT:      ge.netoutput [[Q]], [[S]]
// CHECK:         ge.netoutput [[T]], [[P]], [[P1]]
ge.graph @nested_partitioned_calls {
  %x = ge.data {index = 0 : i64} : tensor<2x3x2x2xf16, #ge.layout<NCHW>>
  %y = ge.data {index = 1 : i64} : tensor<2x3x2x2xf16, #ge.layout<NCHW>>
  %t = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<2x3x2x2xf16, #ge.layout<NCHW>> -> tensor<2x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %p:2 = ge.partitioned_call %x, %y : (tensor<2x3x2x2xf16, #ge.layout<NCHW>>, tensor<2x3x2x2xf16, #ge.layout<NCHW>>) -> (tensor<2x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<2x3x2x2xf16, #ge.layout<NCHW>>) {
    %d = ge.data {parent_index = 0 : i64} : tensor<2x3x2x2xf16, #ge.layout<NCHW>>
    %dy = ge.data {parent_index = 1 : i64} : tensor<2x3x2x2xf16, #ge.layout<NCHW>>
    %q = ge.partitioned_call %d : (tensor<2x3x2x2xf16, #ge.layout<NCHW>>) -> tensor<2x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>> {
      %e = ge.data {parent_index = 0 : i64} : tensor<2x3x2x2xf16, #ge.layout<NCHW>>
      %c = ge.cast %e {dst_type = f32} : tensor<2x3x2x2xf16, #ge.layout<NCHW>> -> tensor<2x3x2x2xf32, #ge.layout<NCHW>>
      %u = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<2x3x2x2xf32, #ge.layout<NCHW>> -> tensor<2x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
      ge.netoutput %u : tensor<2x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
    }
    %s = ge.add %dy, %dy : (tensor<2x3x2x2xf16, #ge.layout<NCHW>>, tensor<2x3x2x2xf16, #ge.layout<NCHW>>) -> tensor<2x3x2x2xf16, #ge.layout<NCHW>>
    ge.netoutput %q, %s : tensor<2x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<2x3x2x2xf16, #ge.layout<NCHW>>
  }
  ge.netoutput %t, %p#0, %p#1 : tensor<2x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<2x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<2x3x2x2xf16, #ge.layout<NCHW>>
}

// -----

// GE: through the NetOutput boundary: the head is inside the subgraph and
// one TransData outside; the shared TransData stays inside and leaves
// through a new subgraph output.
// CHECK-LABEL: ge.graph @through_netoutput_boundary
// CHECK:         [[P0:%[^ ,]*]], [[P:%[^ ]*]] = ge.partitioned_call %x
// CHECK-NEXT:      [[D:%.*]] = ge.data {parent_index = 0 : i64}
// CHECK-NEXT:      [[H:%.*]] = ge.relu [[D]]
// CHECK-NEXT:      [[T:%.*]] = ge.transdata [[H]] {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:      [[C:%.*]] = ge.cast [[T]] {dst_type = f32}
// CHECK-NEXT:      [[S:%.*]] = ge.sigmoid [[C]]
// CHECK-NEXT:      ge.netoutput [[H]], [[T]] :
// CHECK-NEXT:    }
// CHECK-NEXT:    [[A:%.*]] = ge.abs [[P]] 
// CHECK-NEXT:    ge.netoutput [[A]]
ge.graph @through_netoutput_boundary {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x2xf16, #ge.layout<NCHW>>
  %p = ge.partitioned_call %x : (tensor<1x17x2x2xf16, #ge.layout<NCHW>>) -> tensor<1x17x2x2xf16, #ge.layout<NCHW>> {
    %d = ge.data {parent_index = 0 : i64} : tensor<1x17x2x2xf16, #ge.layout<NCHW>>
    %h = ge.relu %d : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW>>
    %c = ge.cast %h {dst_type = f32} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf32, #ge.layout<NCHW>>
    %u = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf32, #ge.layout<NCHW>> -> tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
    %s = ge.sigmoid %u : tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
    ge.netoutput %h : tensor<1x17x2x2xf16, #ge.layout<NCHW>>
  }
  %t = ge.transdata %p {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.abs %t : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %a : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: an If with two subgraphs reached through the NetOutput boundary: not
// fused (the If's result is one branch's value, not the head's).
// CHECK-LABEL: ge.graph @no_fusion_if_through_netoutput
// CHECK:         ge.if
// CHECK:           ge.transdata
// CHECK:         ge.transdata
ge.graph @no_fusion_if_through_netoutput {
  %c = ge.data {index = 0 : i64} : tensor<1xi1>
  %x = ge.data {index = 1 : i64} : tensor<1x3x2x2xf16, #ge.layout<NCHW>>
  %r = ge.if %c, %x : (tensor<1xi1>, tensor<1x3x2x2xf16, #ge.layout<NCHW>>) -> tensor<1x3x2x2xf16, #ge.layout<NCHW>> then {
    %d = ge.data {parent_index = 1 : i64} : tensor<1x3x2x2xf16, #ge.layout<NCHW>>
    %h = ge.relu %d : tensor<1x3x2x2xf16, #ge.layout<NCHW>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW>>
    %u = ge.transdata %h {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf16, #ge.layout<NCHW>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
    %s = ge.sigmoid %u : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
    ge.netoutput %h : tensor<1x3x2x2xf16, #ge.layout<NCHW>>
  } else {
    %d = ge.data {parent_index = 1 : i64} : tensor<1x3x2x2xf16, #ge.layout<NCHW>>
    %n = ge.neg %d : tensor<1x3x2x2xf16, #ge.layout<NCHW>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW>>
    ge.netoutput %n : tensor<1x3x2x2xf16, #ge.layout<NCHW>>
  }
  %t = ge.transdata %r {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf16, #ge.layout<NCHW>> -> tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %t : tensor<1x3x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}
