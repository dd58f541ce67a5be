// RUN: ge-opt %s --split-input-file --fuse-ops=disable=ConvEltwiseFusion | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'fuse-ops{disable=ConvEltwiseFusion,EltwiseFusion}' | filecheck %s --check-prefix=NONE
// RUN: not ge-opt %s --split-input-file --fuse-ops=disable=NoSuchRule 2>&1 | filecheck %s --check-prefix=UNKNOWN

// Rules switch off by name (ATC's fusion switch file). Without
// ConvEltwiseFusion the relu and sigmoid still chain (EltwiseFusion).

// CHECK-LABEL: ge.graph @no_fuse_rule_disabled
// CHECK:         ge.conv2d
// CHECK-NEXT:    ge.fused %{{.*}} {fusion_rule = "EltwiseFusion"}
// CHECK-NEXT:      ge.data
// CHECK-NEXT:      ge.relu
// CHECK-NEXT:      ge.sigmoid

// NONE-LABEL: ge.graph @no_fuse_rule_disabled
// NONE-NOT:     ge.fused

// UNKNOWN: error: pass 'fuse-ops': option 'disable': unknown value 'NoSuchRule' (one of ConvBatchNormFold, ConvBiasAddFold, ConvEltwiseFusion, EltwiseFusion, MatMulBatchNormFold, MatMulBiasAddFold, MatMulEltwiseFusion, PoolEltwiseFusion, ReduceReshapeFold, ReshapeTransposeFusion, RowFlattenFold, SqueezeChainFold, TransposeBatchMatMulFusion)
ge.graph @no_fuse_rule_disabled {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<8x3x1x1xf32>} : tensor<8x3x1x1xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<8x3x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %r = ge.relu %c : tensor<1x8x4x4xf32, #ge.layout<NCHW>> -> tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %s = ge.sigmoid %r : tensor<1x8x4x4xf32, #ge.layout<NCHW>> -> tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %s : tensor<1x8x4x4xf32, #ge.layout<NCHW>>
}
