// RUN: ge-opt %s --select-storage-format | filecheck %s
// RUN: ge-opt %s --select-storage-format=target=Ascend910 | filecheck %s --check-prefix=ASCEND
// RUN: ge-opt %s --opinfo %S/relu_origin_only.json --select-storage-format | filecheck %s --check-prefix=USER
// RUN: not ge-opt %s --opinfo %S/bad_opinfo.json --select-storage-format 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not ge-opt %s --select-storage-format=target=Ascend999 2>&1 | filecheck %s --check-prefix=TARGET

// The policy's inputs: the target's C0 and the (user-extensible) op info.

// fp32 C0 is 8 under the default (seed) rule, so the 8+8 concat stays in
// NC1HWC0; Ascend910's table gives 16, which the concat's pieces do not fill.
// CHECK-NOT:   ge.target
// CHECK:       %c = ge.concat %p, %p {axis = 1 : i64} : {{.*}} -> tensor<1x16x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:  %r = ge.relu %c : {{.*}} -> tensor<1x16x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
// ASCEND:      builtin.module attributes {ge.target = "Ascend910"}
// ASCEND:      %c = ge.concat %p, %p {axis = 1 : i64, input_layouts = [#ge.layout<NCHW>, #ge.layout<NCHW>]} : {{.*}} -> tensor<1x16x4x4xf32, #ge.layout<NCHW>>

// A user file that makes relu origin-only stops the spread there.
// USER:        %r = ge.relu %c {input_layouts = [#ge.layout<NCHW>]} : {{.*}} -> tensor<1x16x4x4xf32, #ge.layout<NCHW>>

// BAD: error: op info file '{{.*}}bad_opinfo.json': op 'ge.relu': every input and output needs the same number of formats (one per combination), got [1, 2]
// TARGET: error: pass 'select-storage-format': option 'target': unknown target 'Ascend999'
ge.graph @g {
  %x = ge.data {index = 0 : i64} : tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %p = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x8x4x4xf32, #ge.layout<NCHW>> -> tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %c = ge.concat %p, %p {axis = 1 : i64} : (tensor<1x8x4x4xf32, #ge.layout<NCHW>>, tensor<1x8x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x16x4x4xf32, #ge.layout<NCHW>>
  %r = ge.relu %c : tensor<1x16x4x4xf32, #ge.layout<NCHW>> -> tensor<1x16x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<1x16x4x4xf32, #ge.layout<NCHW>>
}
