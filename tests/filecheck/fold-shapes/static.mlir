// RUN: ge-opt --split-input-file -p fold-shapes,fold-constants %s | filecheck %s
// RUN: ge-opt --split-input-file -p fold-shapes %s | filecheck %s --check-prefix=DYN

// The dims a ge.shape / ge.size reads are static: each becomes a constant and
// fold-constants computes what was derived from it (here a gather + concat).

// CHECK-LABEL: ge.graph @static
// CHECK-NOT:   ge.shape
// CHECK-NOT:   ge.gather
// CHECK:       %[[T:.*]] = ge.const {value = dense<[11, 4, 16]> : tensor<3xi64>, name = "target"} : tensor<3xi64>
// CHECK:       %[[N:.*]] = ge.const {value = dense<1408> : tensor<i64>, name = "n"} : tensor<i64>
// CHECK:       ge.netoutput %[[T]], %[[N]]
ge.graph @static {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<2x11x64xf32>
  %s = ge.shape %x {name = "s"} : (tensor<2x11x64xf32>) -> tensor<3xi64>
  %i = ge.const {value = dense<[1]> : tensor<1xi64>} : tensor<1xi64>
  %d = ge.gather %s, %i {axis = 0 : i64, name = "d"} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %h = ge.const {value = dense<[4, 16]> : tensor<2xi64>} : tensor<2xi64>
  %t = ge.concat %d, %h {axis = 0 : i64, name = "target"} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  %n = ge.size %x {name = "n"} : (tensor<2x11x64xf32>) -> tensor<i64>
  ge.netoutput %t, %n : tensor<3xi64>, tensor<i64>
}

// -----

// DYN-LABEL: ge.graph @no_fold_of_dynamic_dims
// DYN:       ge.shape %{{.*}} {name = "all"}
// DYN:       ge.size %{{.*}} {name = "n"}
// The trailing dims are static: that shape folds.
// DYN:       ge.const {value = dense<[11, 64]> : tensor<2xi64>, name = "tail"}
ge.graph @no_fold_of_dynamic_dims {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<?x11x64xf32>
  %a = ge.shape %x {name = "all"} : (tensor<?x11x64xf32>) -> tensor<3xi64>
  %n = ge.size %x {name = "n"} : (tensor<?x11x64xf32>) -> tensor<i64>
  %t = ge.shape %x {start = 1 : i64, name = "tail"} : (tensor<?x11x64xf32>) -> tensor<2xi64>
  ge.netoutput %a, %n, %t : tensor<3xi64>, tensor<i64>, tensor<2xi64>
}
