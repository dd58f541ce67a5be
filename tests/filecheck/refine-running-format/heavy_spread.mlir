// RUN: ge-opt %s --split-input-file --refine-running-format --select-storage-format --insert-transdata | filecheck %s

// What `is_heavy_op` does downstream (research §4.2 step 5.2): a graph
// input whose storage shape was derived from empty user dims spreads its
// format to its neighbours; one whose user dims have size 0 (derived too,
// but given) does not, so its consumer runs in origin format behind one
// TransData. tests/test_running_formats.py checks every graph here against
// the reference evaluator before and after.

// Empty dims: heavy, the relu takes NC1HWC0 and only the output converts.
// CHECK-LABEL: ge.graph @empty_dims_spread
// CHECK-NEXT:    %x = ge.data {{.*}}is_heavy_op = true} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %r = ge.relu %x : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.transdata %r
ge.graph @empty_dims_spread {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64>} : tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %r = ge.relu %x : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<1x17x3x3xf16, #ge.layout<NCHW>>
}

// -----

// Size-0 dims: not heavy, the relu runs in NCHW after a TransData.
// CHECK-LABEL: ge.graph @no_spread_for_zero_size_dims
// CHECK-NEXT:    %x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64: 0>} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %[[T:.*]] = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK-NEXT:    %r = ge.relu %[[T]] : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.netoutput %r
ge.graph @no_spread_for_zero_size_dims {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64: 0>} : tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %r = ge.relu %x : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<1x17x3x3xf16, #ge.layout<NCHW>>
}
