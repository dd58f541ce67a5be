// RUN: ge-opt %s --split-input-file --fold-constants 2>/dev/null | filecheck %s
// RUN: ge-opt %s --split-input-file --fold-constants 2>&1 >/dev/null | filecheck %s --check-prefix=LOG

// Ops whose operands are all constants run their host kernel at compile time.

// A chain folds into one constant named after its last op; the inputs go.
// CHECK-LABEL: ge.graph @chain
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %[[R:.*]] = ge.const {value = dense<{{\[\[}}1.000000e+00, 0.000000e+00, 9.000000e+00], [0.000000e+00, 1.000000e+01, 0.000000e+00]]> : tensor<2x3xf32>, name = "relu"} : tensor<2x3xf32>
// CHECK-NEXT:    ge.add %x, %[[R]]
ge.graph @chain {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %a = ge.const {value = dense<[[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]> : tensor<2x3xf32>} : tensor<2x3xf32>
  %b = ge.const {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<3xf32>
  %m = ge.mul %a, %b {name = "scale"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = ge.relu %m {name = "relu"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %y = ge.add %x, %r : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.netoutput %y : tensor<2x3xf32>
}

// -----

// Storage layouts: the TransData of a constant and the neg on NC1HWC0 fold
// into one constant stored as NC1HWC0 (3 channels padded to C0 = 8 with zeros).
// CHECK-LABEL: ge.graph @storage_layouts
// CHECK:         %[[N:.*]] = ge.const {value = dense<{{\[\[\[\[\[}}-1.000000e+00, -5.000000e+00, -9.000000e+00, 0.000000e+00, {{.*}}]]]]]> : tensor<1x1x2x2x8xf32>, name = "neg"} : tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.add %x, %[[N]]
// CHECK-NOT:     ge.transdata
ge.graph @storage_layouts {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %c = ge.const {value = dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]], [[9.0, 10.0], [11.0, 12.0]]]]> : tensor<1x3x2x2xf32>} : tensor<1x3x2x2xf32, #ge.layout<NCHW>>
  %t = ge.transdata %c {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>, name = "to5hd"} : tensor<1x3x2x2xf32, #ge.layout<NCHW>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %n = ge.neg %t {name = "neg"} : tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.add %x, %n : (tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A constant that is also an output stays; each result of a split becomes a
// constant of its own.
// CHECK-LABEL: ge.graph @shared_and_multi_result
// CHECK-NEXT:    %[[A:.*]] = ge.const {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK-NEXT:    %[[P0:.*]] = ge.const {value = dense<1.000000e+00> : tensor<1xf32>, name = "split:0"}
// CHECK-NEXT:    %[[P1:.*]] = ge.const {value = dense<[2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<3xf32>, name = "split:1"}
// CHECK-NEXT:    ge.netoutput %[[P0]], %[[P1]], %[[A]]
ge.graph @shared_and_multi_result {
  %a = ge.const {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4xf32>
  %p:2 = ge.split %a {axis = 0 : i64, sizes = array<i64: 1, 3>, name = "split"} : (tensor<4xf32>) -> (tensor<1xf32>, tensor<3xf32>)
  ge.netoutput %p#0, %p#1, %a : tensor<1xf32>, tensor<3xf32>, tensor<4xf32>
}

// -----

// External weights need the weights mapping (ge-atc passes it): skipped here.
// CHECK-LABEL: ge.graph @no_fold_external
// CHECK:         ge.mul
// LOG: fold-constants: scaled_w not folded: weight 'w' is external and no weights are given
ge.graph @no_fold_external {
  %w = ge.const {value = #ge.external<"w">} : tensor<3xf32>
  %s = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %m = ge.mul %w, %s {name = "scaled_w"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ge.netoutput %m : tensor<3xf32>
}

// -----

// CHECK-LABEL: ge.graph @no_fold_input_dependent
// CHECK:         ge.mul %x
ge.graph @no_fold_input_dependent {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  %s = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %m = ge.mul %x, %s : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ge.netoutput %m : tensor<3xf32>
}

// -----

// A host kernel that fails (an index out of range) leaves the op to run time,
// where the same error is reported.
// CHECK-LABEL: ge.graph @no_fold_host_kernel_fails
// CHECK:         ge.gather
// LOG: fold-constants: bad_gather not folded: 'ge.gather' op host kernel failed: index 5 is out of bounds for axis 0 with size 2
ge.graph @no_fold_host_kernel_fails {
  %a = ge.const {value = dense<[1, 2]> : tensor<2xi32>} : tensor<2xi32>
  %i = ge.const {value = dense<[0, 5]> : tensor<2xi32>} : tensor<2xi32>
  %g = ge.gather %a, %i {name = "bad_gather"} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  ge.netoutput %g : tensor<2xi32>
}
