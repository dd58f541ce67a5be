// RUN: ge-opt %s --split-input-file --refine-running-format | filecheck %s
// RUN: ge-opt %s --split-input-file --refine-running-format=storage-format-spread=false | filecheck %s --check-prefix=NOSPREAD
// RUN: ge-opt %s --split-input-file --refine-running-format --refine-running-format | filecheck %s

// GE's PrepareRunningFormatRefiner scenarios (docs/research/ge_behaviour.md §4.3).
// The origin format and shape never change; the user attributes stay, so a
// second run changes nothing.

// ND [?, ?] with storage FRACTAL_NZ and user dims [1,1,1,16,16]: the dims are
// used as given (the origin shape is unknown, so they cannot be checked).
// CHECK-LABEL: ge.graph @nz_with_user_dims
// CHECK-NEXT:    %x = ge.data {index = 0 : i64, storage_format = #ge.format<FRACTAL_NZ>, storage_shape = array<i64: 1, 1, 1, 16, 16>} : tensor<?x?xf16, #ge.layout<ND, FRACTAL_NZ, storage_shape = [1, 1, 1, 16, 16]>>
// The graph output still asks for the origin layout (GE changes only the
// producer's end of the edge).
// CHECK-NEXT:    ge.netoutput %x : {{.*}} {input_layouts = [#ge.layout<ND>]}
ge.graph @nz_with_user_dims {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<FRACTAL_NZ>, storage_shape = array<i64: 1, 1, 1, 16, 16>} : tensor<?x?xf16>
  ge.netoutput %x : tensor<?x?xf16>
}

// -----

// Storage format equal to the origin format: nothing changes.
// CHECK-LABEL: ge.graph @storage_equals_origin
// CHECK-NEXT:    %x = ge.data {index = 0 : i64, storage_format = #ge.format<NCHW>, storage_shape = array<i64>} : tensor<64xf32, #ge.layout<NCHW>>
ge.graph @storage_equals_origin {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<NCHW>, storage_shape = array<i64>} : tensor<64xf32, #ge.layout<NCHW>>
  ge.netoutput %x : tensor<64xf32, #ge.layout<NCHW>>
}

// -----

// NCHW fp16 [3,8,8] with FRACTAL_Z and empty dims: derived with the default
// reshape type CHW ([1,3,8,8] -> [64,1,16,16]); the input becomes heavy
// (GE's _is_heavy_op = _enable_storage_format_spread).
// CHECK-LABEL: ge.graph @derived_shape_is_heavy
// CHECK-NEXT:    %x = ge.data {index = 0 : i64, storage_format = #ge.format<FRACTAL_Z>, storage_shape = array<i64>, is_heavy_op = true} : tensor<3x8x8xf16, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NEXT:    %r = ge.relu %x {input_layouts = [#ge.layout<NCHW>]} : tensor<3x8x8xf16, #ge.layout<NCHW, FRACTAL_Z>> -> tensor<3x8x8xf16, #ge.layout<NCHW>>
// NOSPREAD-LABEL: ge.graph @derived_shape_is_heavy
// NOSPREAD-NEXT:    %x = ge.data {{.*}}is_heavy_op = false} : tensor<3x8x8xf16, #ge.layout<NCHW, FRACTAL_Z>>
ge.graph @derived_shape_is_heavy {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<FRACTAL_Z>, storage_shape = array<i64>} : tensor<3x8x8xf16, #ge.layout<NCHW>>
  %r = ge.relu %x : tensor<3x8x8xf16, #ge.layout<NCHW>> -> tensor<3x8x8xf16, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<3x8x8xf16, #ge.layout<NCHW>>
}

// -----

// A size-0 user shape (`array<i64: 0>`, GE's GetShapeSize == 0) also derives
// the storage shape (§4.2 step 2.1), but the user did give dims, so the op
// is not heavy (step 5.2: only empty dims are).
// CHECK-LABEL: ge.graph @no_heavy_for_zero_size_shape
// CHECK-NEXT:    %x = ge.data {index = 0 : i64, storage_format = #ge.format<FRACTAL_Z>, storage_shape = array<i64: 0>} : tensor<3x8x8xf16, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NOT:     is_heavy_op
// CHECK:         ge.netoutput
// NOSPREAD-LABEL: ge.graph @no_heavy_for_zero_size_shape
// NOSPREAD-NOT:     is_heavy_op
// NOSPREAD:         ge.netoutput
ge.graph @no_heavy_for_zero_size_shape {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<FRACTAL_Z>, storage_shape = array<i64: 0>} : tensor<3x8x8xf16, #ge.layout<NCHW>>
  %r = ge.relu %x : tensor<3x8x8xf16, #ge.layout<NCHW>> -> tensor<3x8x8xf16, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<3x8x8xf16, #ge.layout<NCHW>>
}

// -----

// Mirror: a 0 among other dims has size 0 too: derived, not heavy.
// CHECK-LABEL: ge.graph @no_heavy_for_zero_dim_among_others
// CHECK-NEXT:    %x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64: 1, 0, 4, 4, 16>} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NOT:     is_heavy_op
// CHECK:         ge.netoutput
ge.graph @no_heavy_for_zero_dim_among_others {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64: 1, 0, 4, 4, 16>} : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %x : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
}

// -----

// Nested: a subgraph input with a size-0 shape refreshes the parent's
// operand and is not heavy either.
// CHECK-LABEL: ge.graph @no_heavy_for_zero_size_shape_in_subgraph
// CHECK:         ge.partitioned_call %x {input_layouts = [#ge.layout<NCHW, NC1HWC0>]}
// CHECK-NEXT:      %d = ge.data {parent_index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64: 0>} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NOT:     is_heavy_op
// CHECK:         ge.netoutput %y
ge.graph @no_heavy_for_zero_size_shape_in_subgraph {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %y = ge.partitioned_call %x : (tensor<1x17x4x4xf16, #ge.layout<NCHW>>) -> tensor<1x17x4x4xf16, #ge.layout<NCHW>> {
    %d = ge.data {parent_index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64: 0>} : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
    %r = ge.relu %d : tensor<1x17x4x4xf16, #ge.layout<NCHW>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
    ge.netoutput %r : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  }
  ge.netoutput %y : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
}

// -----

// User dims for a static shape are used as they are (and must agree with
// the derived shape, which the dialect checks); no heavy mark.
// CHECK-LABEL: ge.graph @user_dims_static
// CHECK-NEXT:    %x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64: 1, 3, 4, 4, 8>} : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0, storage_shape = [1, 3, 4, 4, 8]>>
ge.graph @user_dims_static {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64: 1, 3, 4, 4, 8>} : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %x : tensor<1x17x4x4xf32, #ge.layout<NCHW>>
}

// -----

// A subgraph input refreshes the parent's operand too: the Case asks for
// operand 1 in FRACTAL_NZ [1,1,1,16,16] (insert-transdata converts it).
// CHECK-LABEL: ge.graph @case_subgraph_data
// CHECK:         ge.case %i, %x {input_layouts = [#ge.layout<ND>, #ge.layout<ND, FRACTAL_NZ, storage_shape = [1, 1, 1, 16, 16]>]}
// CHECK-NEXT:      %d = ge.data {parent_index = 1 : i64, storage_format = #ge.format<FRACTAL_NZ>, {{.*}}} : tensor<?x?xf16, #ge.layout<ND, FRACTAL_NZ, storage_shape = [1, 1, 1, 16, 16]>>
// CHECK-NEXT:      ge.netoutput %d : {{.*}} {input_layouts = [#ge.layout<ND>]}
ge.graph @case_subgraph_data {
  %i = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<?x?xf16>
  %y = ge.case %i, %x : (tensor<i32>, tensor<?x?xf16>) -> tensor<?x?xf16> {
    %d = ge.data {parent_index = 1 : i64, storage_format = #ge.format<FRACTAL_NZ>, storage_shape = array<i64: 1, 1, 1, 16, 16>} : tensor<?x?xf16>
    ge.netoutput %d : tensor<?x?xf16>
  }
  ge.netoutput %y : tensor<?x?xf16>
}

// -----

// NetOutput storage_formats (ND keeps): output 0 is asked for in NC1HWC0.
// CHECK-LABEL: ge.graph @netoutput_storage
// CHECK:         ge.netoutput %x, %x : {{.*}} {storage_formats = [#ge.format<NC1HWC0>, #ge.format<ND>], input_layouts = [#ge.layout<NCHW, NC1HWC0>, #ge.layout<NCHW>]}
ge.graph @netoutput_storage {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %x, %x : tensor<1x3x4x4xf16, #ge.layout<NCHW>>, tensor<1x3x4x4xf16, #ge.layout<NCHW>> {storage_formats = [#ge.format<NC1HWC0>, #ge.format<ND>]}
}

// -----

// A constant placeholder (storage attributes on the op) is relaid out at
// once: [1,16,16] fp16 -> FRACTAL_NZ [1,1,1,16,16].
// CHECK-LABEL: ge.graph @const_placeholder
// CHECK-NEXT:    %c = ge.const {storage_format = #ge.format<FRACTAL_NZ>, storage_shape = array<i64: 1, 1, 1, 16, 16>, value = dense<2.000000e+00> : tensor<1x1x1x16x16xf16>} : tensor<1x16x16xf16, #ge.layout<ND, FRACTAL_NZ, storage_shape = [1, 1, 1, 16, 16]>>
// CHECK-NEXT:    ge.netoutput %c : {{.*}} {input_layouts = [#ge.layout<ND>]}
ge.graph @const_placeholder {
  %c = ge.const {value = dense<2.0> : tensor<1x16x16xf16>, storage_format = #ge.format<FRACTAL_NZ>, storage_shape = array<i64: 1, 1, 1, 16, 16>} : tensor<1x16x16xf16>
  ge.netoutput %c : tensor<1x16x16xf16>
}
