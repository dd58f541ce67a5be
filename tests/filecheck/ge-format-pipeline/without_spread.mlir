// RUN: ge-opt %s --ge-format-pipeline="data-format=NCHW spread=false stats=true" 2>&1 | filecheck %s

// Without the heavy-format spread of select-storage-format, every
// elementwise op between convolutions stays in NCHW and insert-transdata
// wraps it in TransData; GE's own passes find no inverse pair next to each
// other, sink-trans-ops moves the TransData through the elementwise ops (and
// the [C,1,1] constants of an exported batch norm) until they cancel. The
// statistics (stderr) show the count after each pass.

// CHECK: ge-format-pipeline: insert-transdata: 4 runtime TransData
// CHECK: ge-format-pipeline: round 1: transop-symmetry-elimination: 4 runtime TransData
// CHECK: ge-format-pipeline: round 1: sink-trans-ops: 2 runtime TransData
// CHECK: ge-format-pipeline: round 2: sink-trans-ops: 2 runtime TransData
// CHECK-NOT: round 3

// CHECK-LABEL: ge.graph @residual_block
// CHECK:         %[[IN:.*]] = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
// CHECK:         %c = ge.conv2d %[[IN]]
// CHECK-NEXT:    %m = ge.mul %c, %{{.*}} : (tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<17x1x1xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "CHW">>)
// CHECK:         %a = ge.add %m, %{{.*}} -> tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %r = ge.relu %a : tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK:         %d = ge.conv2d %r
// CHECK-NEXT:    %s = ge.add %d, %r : (tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>)
// CHECK-NEXT:    %[[OUT:.*]] = ge.transdata %s {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK-NEXT:    ge.netoutput %[[OUT]]
ge.graph @residual_block {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<0.25> : tensor<17x3x3x3xf32>} : tensor<17x3x3x3xf32>
  %v = ge.const {value = dense<0.125> : tensor<17x17x1x1xf32>} : tensor<17x17x1x1xf32>
  %k = ge.const {value = dense<1.5> : tensor<17x1x1xf32>} : tensor<17x1x1xf32>
  %o = ge.const {value = dense<-0.5> : tensor<17x1x1xf32>} : tensor<17x1x1xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<17x3x3x3xf32>) -> tensor<1x17x6x6xf32>
  %m = ge.mul %c, %k : (tensor<1x17x6x6xf32>, tensor<17x1x1xf32>) -> tensor<1x17x6x6xf32>
  %a = ge.add %m, %o : (tensor<1x17x6x6xf32>, tensor<17x1x1xf32>) -> tensor<1x17x6x6xf32>
  %r = ge.relu %a : tensor<1x17x6x6xf32> -> tensor<1x17x6x6xf32>
  %d = ge.conv2d %r, %v {data_format = "NCHW"} : (tensor<1x17x6x6xf32>, tensor<17x17x1x1xf32>) -> tensor<1x17x6x6xf32>
  %s = ge.add %d, %r : (tensor<1x17x6x6xf32>, tensor<1x17x6x6xf32>) -> tensor<1x17x6x6xf32>
  ge.netoutput %s : tensor<1x17x6x6xf32>
}
