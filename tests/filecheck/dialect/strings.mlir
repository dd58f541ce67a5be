// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// String tensors (!ge.string) and the ops over them; non-ASCII text in
// attributes reads back as text (xDSL prints it as UTF-8 byte escapes).
// Defaults (case NONE, case-insensitive, no stopwords, whitespace) are elided.

// CHECK-LABEL: ge.graph @strings
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x3x!ge.string>
// CHECK-NEXT:    [[Y:%.*]] = ge.data {index = 1 : i64} : tensor<3x!ge.string>
// CHECK-NEXT:    [[C:%.*]] = ge.string_concat [[X]], [[Y]] : (tensor<2x3x!ge.string>, tensor<3x!ge.string>) -> tensor<2x3x!ge.string>
// CHECK-NEXT:    [[M:%.*]] = ge.regex_full_match [[C]] {pattern = "\E9\9B\B6+\\w"} : (tensor<2x3x!ge.string>) -> tensor<2x3xi1>
// CHECK-NEXT:    [[E:%.*]] = ge.equal [[X]], [[Y]] : (tensor<2x3x!ge.string>, tensor<3x!ge.string>) -> tensor<2x3xi1>
// CHECK-NEXT:    [[N:%.*]] = ge.string_normalizer [[Y]] {case_change_action = "UPPER", stopwords = ["a", "\C3\9F"]} : (tensor<3x!ge.string>) -> tensor<?x!ge.string>
// CHECK-NEXT:    [[S:%.*]], [[K:%.*]] = ge.string_split [[X]] {maxsplit = 2 : i64} : (tensor<2x3x!ge.string>) -> (tensor<2x3x?x!ge.string>, tensor<2x3xi64>)
// CHECK-NEXT:    [[L:%.*]] = ge.label_encoder [[Y]] {keys = ["a", "b"], values = array<i64: 4, 5>, default = -1 : i64, dst_type = i64} : (tensor<3x!ge.string>) -> tensor<3xi64>
// CHECK-NEXT:    ge.netoutput [[M]], [[E]], [[N]], [[S]], [[K]], [[L]] :
ge.graph @strings {
  %x = ge.data {index = 0 : i64} : tensor<2x3x!ge.string>
  %y = ge.data {index = 1 : i64} : tensor<3x!ge.string>
  %c = ge.string_concat %x, %y : (tensor<2x3x!ge.string>, tensor<3x!ge.string>) -> tensor<2x3x!ge.string>
  %m = ge.regex_full_match %c {pattern = "零+\\w"} : (tensor<2x3x!ge.string>) -> tensor<2x3xi1>
  %e = ge.equal %x, %y : (tensor<2x3x!ge.string>, tensor<3x!ge.string>) -> tensor<2x3xi1>
  %n = ge.string_normalizer %y {case_change_action = "UPPER", is_case_sensitive = false, stopwords = ["a", "ß"]} : (tensor<3x!ge.string>) -> tensor<?x!ge.string>
  %s, %k = ge.string_split %x {delimiter = "", maxsplit = 2 : i64} : (tensor<2x3x!ge.string>) -> (tensor<2x3x?x!ge.string>, tensor<2x3xi64>)
  %l = ge.label_encoder %y {keys = ["a", "b"], values = array<i64: 4, 5>, default = -1 : i64, dst_type = i64} : (tensor<3x!ge.string>) -> tensor<3xi64>
  ge.netoutput %m, %e, %n, %s, %k, %l : tensor<2x3xi1>, tensor<2x3xi1>, tensor<?x!ge.string>, tensor<2x3x?x!ge.string>, tensor<2x3xi64>, tensor<3xi64>
}

// An encoded image's bytes decoded (its dims are what the bytes say).
// CHECK-LABEL: ge.graph @decode
// CHECK:         ge.image_decoder %{{.*}} {pixel_format = "BGR"} : (tensor<1058xui8>) -> tensor<?x?x3xui8>
// CHECK:         ge.image_decoder %{{.*}} : (tensor<1058xui8>) -> tensor<?x?x3xui8>
ge.graph @decode {
  %bytes = ge.data {index = 0 : i64} : tensor<1058xui8>
  %bgr = ge.image_decoder %bytes {pixel_format = "BGR"} : (tensor<1058xui8>) -> tensor<?x?x3xui8>
  %rgb = ge.image_decoder %bytes {pixel_format = "RGB"} : (tensor<1058xui8>) -> tensor<?x?x3xui8>
  ge.netoutput %bgr, %rgb : tensor<?x?x3xui8>, tensor<?x?x3xui8>
}
