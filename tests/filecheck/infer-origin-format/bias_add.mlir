// RUN: ge-opt %s --split-input-file --infer-origin-format | filecheck %s

// GE's BiasAdd rule (research §1.4, tests biasadd_special_process and the
// BiasAdd cases of §5.1): 5-D tensors take the 3-D format of the data
// format, inputs below rank 4 stay ND, a rank-2 output keeps the format.

// biasadd_special_process: NHWC on 5-D becomes NDHWC on input and output;
// the upstream op is reached backward with NDHWC.
// CHECK-LABEL: ge.graph @biasadd_special_process
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x2x4x4x8xf32, #ge.layout<NDHWC>>
// CHECK-NEXT:    %sq = ge.mul %x, %x : {{.*}} -> tensor<1x2x4x4x8xf32, #ge.layout<NDHWC>>
// CHECK-NEXT:    %b = ge.const {{.*}} : tensor<8xf32>
// CHECK-NEXT:    %y = ge.bias_add %sq, %b {{.*}} -> tensor<1x2x4x4x8xf32, #ge.layout<NDHWC>>
ge.graph @biasadd_special_process {
  %x = ge.data {index = 0 : i64} : tensor<1x2x4x4x8xf32>
  %sq = ge.mul %x, %x : (tensor<1x2x4x4x8xf32>, tensor<1x2x4x4x8xf32>) -> tensor<1x2x4x4x8xf32>
  %b = ge.const {value = dense<1.0> : tensor<8xf32>} : tensor<8xf32>
  %y = ge.bias_add %sq, %b {data_format = "NHWC"} : (tensor<1x2x4x4x8xf32>, tensor<8xf32>) -> tensor<1x2x4x4x8xf32>
  ge.netoutput %y : tensor<1x2x4x4x8xf32>
}

// -----

// BiasAdd NCHW on 5-D becomes NCDHW.
// CHECK-LABEL: ge.graph @biasadd_nchw_5d
// CHECK:         %y = ge.bias_add %x, %b {{.*}} : (tensor<1x8x2x4x4xf32, #ge.layout<NCDHW>>, tensor<8xf32>) -> tensor<1x8x2x4x4xf32, #ge.layout<NCDHW>>
ge.graph @biasadd_nchw_5d {
  %x = ge.data {index = 0 : i64} : tensor<1x8x2x4x4xf32>
  %b = ge.const {value = dense<1.0> : tensor<8xf32>} : tensor<8xf32>
  %y = ge.bias_add %x, %b {data_format = "NCHW"} : (tensor<1x8x2x4x4xf32>, tensor<8xf32>) -> tensor<1x8x2x4x4xf32>
  ge.netoutput %y : tensor<1x8x2x4x4xf32>
}

// -----

// BiasAdd with a 2-D input: the input stays ND, the 2-D output is NCHW.
// CHECK-LABEL: ge.graph @biasadd_2d
// CHECK:         %y = ge.bias_add %x, %b {{.*}} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32, #ge.layout<NCHW>>
ge.graph @biasadd_2d {
  %x = ge.data {index = 0 : i64} : tensor<2x8xf32>
  %b = ge.const {value = dense<1.0> : tensor<8xf32>} : tensor<8xf32>
  %y = ge.bias_add %x, %b {data_format = "NCHW"} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  ge.netoutput %y : tensor<2x8xf32>
}

// -----

// BiasAdd on 4-D: the data format as it is; the bias stays ND.
// CHECK-LABEL: ge.graph @biasadd_4d
// CHECK:         %y = ge.bias_add %x, %b {{.*}} : (tensor<1x4x4x8xf32, #ge.layout<NHWC>>, tensor<8xf32>) -> tensor<1x4x4x8xf32, #ge.layout<NHWC>>
ge.graph @biasadd_4d {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x8xf32>
  %b = ge.const {value = dense<1.0> : tensor<8xf32>} : tensor<8xf32>
  %y = ge.bias_add %x, %b {data_format = "NHWC"} : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  ge.netoutput %y : tensor<1x4x4x8xf32>
}
