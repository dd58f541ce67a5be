// RUN: ge-opt %s --split-input-file --infer-origin-format=data-format=NCHW | filecheck %s --check-prefixes=CHECK,NCHW
// RUN: ge-opt %s --split-input-file --infer-origin-format=data-format=NHWC | filecheck %s --check-prefixes=CHECK,NHWC
// RUN: ge-opt %s --split-input-file -p 'infer-origin-format{data-format=NHWC}' | filecheck %s --check-prefixes=CHECK,NHWC
// RUN: ge-opt %s --split-input-file --infer-origin-format=data-format=ND | filecheck %s --check-prefixes=CHECK,NONE
// RUN: ge-opt %s --split-input-file --infer-origin-format | filecheck %s --check-prefixes=CHECK,NONE
// RUN: ge-opt %s --split-input-file --infer-origin-format=data-format=NHWC | ge-opt --split-input-file --infer-origin-format=data-format=NHWC | filecheck %s --check-prefixes=CHECK,NHWC
// RUN: not ge-opt %s --infer-origin-format=data-format=NCWH 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not ge-opt %s --infer-origin-format=data-format=NC1HWC0 2>&1 | filecheck %s --check-prefix=STORAGE
// RUN: not ge-opt %s --infer-origin-format=data-format=RESERVED 2>&1 | filecheck %s --check-prefix=RESERVED

// GE's DataNodeFormatProcess (research §1.5, DataNode fallback tests): after
// propagation, graph inputs still ND with rank >= 4 take the data-format
// option, then propagate. ND as the option does nothing; an internal format
// or RESERVED is an error (not the format of a graph input).

// BAD: error: pass 'infer-origin-format': option 'data-format': unknown format 'NCWH'
// STORAGE: error: pass 'infer-origin-format': option 'data-format': NC1HWC0 is a storage format; the data format of graph inputs is one of ND, NCHW, NHWC
// RESERVED: error: pass 'infer-origin-format': option 'data-format': RESERVED is not a data format

// IncCov_DataNodeFormatProcess: a 4-D ND input takes the option and its
// consumers follow; a 2-D input stays ND; an input that already has a
// format, or got one from propagation, is skipped; a 5-D input cannot be
// labelled with a 4-D format and stays ND.
// CHECK-LABEL: ge.graph @data_node_fallback
// NCHW-NEXT:     %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// NHWC-NEXT:     %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NHWC>>
// NONE-NEXT:     %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
// CHECK-NEXT:    %m = ge.data {index = 1 : i64} : tensor<3x4xf32>
// CHECK-NEXT:    %e = ge.data {index = 2 : i64} : tensor<1x3x4x4xf32, #ge.layout<HWCN>>
// CHECK-NEXT:    %c = ge.data {index = 3 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %v = ge.data {index = 4 : i64} : tensor<1x2x3x4x4xf32>
// NCHW-NEXT:     %r = ge.relu %x : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// NHWC-NEXT:     %r = ge.relu %x : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NHWC>>
// NONE-NEXT:     %r = ge.relu %x : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %n = ge.neg %m : tensor<3x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    %p = ge.avg_pool %c {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
ge.graph @data_node_fallback {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
  %m = ge.data {index = 1 : i64} : tensor<3x4xf32>
  %e = ge.data {index = 2 : i64} : tensor<1x3x4x4xf32, #ge.layout<HWCN>>
  %c = ge.data {index = 3 : i64} : tensor<1x3x4x4xf32>
  %v = ge.data {index = 4 : i64} : tensor<1x2x3x4x4xf32>
  %r = ge.relu %x : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  %n = ge.neg %m : tensor<3x4xf32> -> tensor<3x4xf32>
  %p = ge.avg_pool %c {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.netoutput %r, %n, %e, %p, %v : tensor<1x3x4x4xf32>, tensor<3x4xf32>, tensor<1x3x4x4xf32, #ge.layout<HWCN>>, tensor<1x3x4x4xf32>, tensor<1x2x3x4x4xf32>
}

// -----

// GE's data_format test: data1 feeds a conv (so propagation labels it);
// data2 -> relu -> reshape -> the conv's filter. The reshape stops the
// filter's NCHW, so data2 is left to the fallback, which the relu follows.
// CHECK-LABEL: ge.graph @data_format
// CHECK-NEXT:    %d1 = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
// NCHW-NEXT:     %d2 = ge.data {index = 1 : i64} : tensor<4x3x3x3xf32, #ge.layout<NCHW>>
// NHWC-NEXT:     %d2 = ge.data {index = 1 : i64} : tensor<4x3x3x3xf32, #ge.layout<NHWC>>
// NONE-NEXT:     %d2 = ge.data {index = 1 : i64} : tensor<4x3x3x3xf32>
// NCHW-NEXT:     %r = ge.relu %d2 : {{.*}} -> tensor<4x3x3x3xf32, #ge.layout<NCHW>>
// NHWC-NEXT:     %r = ge.relu %d2 : {{.*}} -> tensor<4x3x3x3xf32, #ge.layout<NHWC>>
// NONE-NEXT:     %r = ge.relu %d2 : tensor<4x3x3x3xf32> -> tensor<4x3x3x3xf32>
// CHECK-NEXT:    %w = ge.reshape %r {{.*}} -> tensor<4x3x3x3xf32, #ge.layout<NCHW>>
ge.graph @data_format {
  %d1 = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %d2 = ge.data {index = 1 : i64} : tensor<4x3x3x3xf32>
  %r = ge.relu %d2 : tensor<4x3x3x3xf32> -> tensor<4x3x3x3xf32>
  %w = ge.reshape %r {shape = array<i64: 4, 3, 3, 3>} : tensor<4x3x3x3xf32> -> tensor<4x3x3x3xf32>
  %y = ge.conv2d %d1, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  ge.netoutput %y : tensor<1x4x6x6xf32>
}

// -----

// Subgraph inputs take the fallback too; the subgraph output is reflected
// into the parent result.
// CHECK-LABEL: ge.graph @fallback_in_subgraph
// NCHW:            %r = ge.if {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>> then {
// NCHW-NEXT:         %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// NHWC:            %r = ge.if {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NHWC>> then {
// NHWC-NEXT:         %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NHWC>>
// NONE:            %r = ge.if {{.*}} -> tensor<1x3x4x4xf32> then {
// NONE-NEXT:         %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
ge.graph @fallback_in_subgraph {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32>
  %r = ge.if %c, %x : (tensor<i1>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
    ge.netoutput %a : tensor<1x3x4x4xf32>
  } else {
    %b = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
    ge.netoutput %b : tensor<1x3x4x4xf32>
  }
  ge.netoutput %r : tensor<1x3x4x4xf32>
}
