// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// A fused group (`fuse-ops`): a ge subgraph computed as one AI Core kernel;
// parent_index i mirrors operand i, netoutput operand j mirrors result j.

// CHECK-LABEL: ge.graph @fused
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
// CHECK-NEXT:    [[W:%.*]] = ge.const
// CHECK-NEXT:    [[K:%.*]], [[Y:%.*]] = ge.fused [[X]], [[W]] {fusion_rule = "ConvEltwiseFusion"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
// CHECK-NEXT:      [[A:%.*]] = ge.data {parent_index = 0 : i64} : tensor<1x3x8x8xf32>
// CHECK-NEXT:      [[B:%.*]] = ge.data {parent_index = 1 : i64} : tensor<4x3x3x3xf32>
// CHECK-NEXT:      [[C:%.*]] = ge.conv2d [[A]], [[B]] {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:      [[R:%.*]] = ge.relu [[C]] : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
// CHECK-NEXT:      ge.netoutput [[C]], [[R]] : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.netoutput [[Y]], [[K]] : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
ge.graph @fused {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<0.5> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %k, %y = ge.fused %x, %w {fusion_rule = "ConvEltwiseFusion"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
    %a = ge.data {parent_index = 0 : i64} : tensor<1x3x8x8xf32>
    %b = ge.data {parent_index = 1 : i64} : tensor<4x3x3x3xf32>
    %c = ge.conv2d %a, %b {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    %r = ge.relu %c : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
    ge.netoutput %c, %r : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
  }
  ge.netoutput %y, %k : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}
