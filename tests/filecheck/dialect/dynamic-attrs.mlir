// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// `ge.dynamic_attrs`: an op whose parameters are run-time tensors. The
// results are typed by the static op's unbound shape function: the dims the
// parameters decide are `?`, the others stay.

// CHECK-LABEL: ge.graph @dynamic_attrs
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64} : tensor<3x17x5xf32>
// CHECK-NEXT:    [[AXES:%.*]] = ge.data {index = 1 : i64} : tensor<2xi64>
// CHECK-NEXT:    [[ENDS:%.*]] = ge.data {index = 2 : i64} : tensor<1xi64>
// CHECK-NEXT:    [[LOW:%.*]] = ge.data {index = 3 : i64} : tensor<f32>
// CHECK-NEXT:    [[SUM:%.*]] = ge.dynamic_attrs "ge.reduce_sum"([[X]] : tensor<3x17x5xf32>) [[[AXES]] : tensor<2xi64>] {parameter_names = ["axes"], static_attrs = {keep_dims = false}} -> tensor<?xf32>
// CHECK-NEXT:    [[SLICE:%.*]] = ge.dynamic_attrs "ge.slice"([[X]] : tensor<3x17x5xf32>) [[[ENDS]] : tensor<1xi64>] {parameter_names = ["ends"], static_attrs = {starts = array<i64: 0>, axes = array<i64: 1>}} -> tensor<3x?x5xf32>
// CHECK-NEXT:    [[A:%.*]], [[B:%.*]] = ge.dynamic_attrs "ge.split"([[X]] : tensor<3x17x5xf32>) [[[AXES]] : tensor<2xi64>] {parameter_names = ["split"], static_attrs = {axis = 1 : i64}} -> tensor<3x?x5xf32>, tensor<3x?x5xf32>
// CHECK-NEXT:    [[CLIP:%.*]] = ge.dynamic_attrs "ge.clip"([[X]] : tensor<3x17x5xf32>) [[[LOW]] : tensor<f32>] {parameter_names = ["min"], static_attrs = {}} -> tensor<3x17x5xf32>
// CHECK-NEXT:    ge.netoutput [[SUM]], [[SLICE]], [[A]], [[B]], [[CLIP]]
ge.graph @dynamic_attrs {
  %x = ge.data {index = 0 : i64} : tensor<3x17x5xf32>
  %axes = ge.data {index = 1 : i64} : tensor<2xi64>
  %ends = ge.data {index = 2 : i64} : tensor<1xi64>
  %low = ge.data {index = 3 : i64} : tensor<f32>
  %sum = ge.dynamic_attrs "ge.reduce_sum"(%x : tensor<3x17x5xf32>) [%axes : tensor<2xi64>] {parameter_names = ["axes"], static_attrs = {keep_dims = false}} -> tensor<?xf32>
  %slice = ge.dynamic_attrs "ge.slice"(%x : tensor<3x17x5xf32>) [%ends : tensor<1xi64>] {parameter_names = ["ends"], static_attrs = {starts = array<i64: 0>, axes = array<i64: 1>}} -> tensor<3x?x5xf32>
  %a, %b = ge.dynamic_attrs "ge.split"(%x : tensor<3x17x5xf32>) [%axes : tensor<2xi64>] {parameter_names = ["split"], static_attrs = {axis = 1 : i64}} -> tensor<3x?x5xf32>, tensor<3x?x5xf32>
  %clip = ge.dynamic_attrs "ge.clip"(%x : tensor<3x17x5xf32>) [%low : tensor<f32>] {parameter_names = ["min"], static_attrs = {}} -> tensor<3x17x5xf32>
  ge.netoutput %sum, %slice, %a, %b, %clip : tensor<?xf32>, tensor<3x?x5xf32>, tensor<3x?x5xf32>, tensor<3x?x5xf32>, tensor<3x17x5xf32>
}

// -----

// Sizes known, dims not: no parameter operand, bound on the run-time dims.

// CHECK-LABEL: ge.graph @dims_known_at_run_time
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64} : tensor<?x3x8x8xf32>
// CHECK-NEXT:    [[Y:%.*]] = ge.dynamic_attrs "ge.resize"([[X]] : tensor<?x3x8x8xf32>) [] {parameter_names = [], static_attrs = {sizes = array<i64: 1, 3, 16, 16>, mode = "nearest"}} -> tensor<?x?x?x?xf32>
ge.graph @dims_known_at_run_time {
  %x = ge.data {index = 0 : i64} : tensor<?x3x8x8xf32>
  %y = ge.dynamic_attrs "ge.resize"(%x : tensor<?x3x8x8xf32>) [] {parameter_names = [], static_attrs = {sizes = array<i64: 1, 3, 16, 16>, mode = "nearest"}} -> tensor<?x?x?x?xf32>
  ge.netoutput %y : tensor<?x?x?x?xf32>
}
