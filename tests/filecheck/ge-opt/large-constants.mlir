// RUN: ge-opt %s --split-input-file --mlir-elide-elementsattrs-if-larger=4 | filecheck %s --check-prefix=ELIDE
// RUN: ge-opt %s --split-input-file --mlir-print-elementsattrs-as-resources-if-larger=4 | filecheck %s --check-prefix=BLOB
// RUN: ge-opt %s --split-input-file --mlir-print-elementsattrs-as-resources-if-larger=4 | ge-opt --split-input-file | filecheck %s --check-prefix=BACK
// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops --mlir-print-elementsattrs-as-resources-if-larger=4 | iree-opt --split-input-file | filecheck %s --check-prefix=IREE
// RUN: ge-opt %s --split-input-file --mlir-elide-elementsattrs-if-larger=4 | not ge-opt --split-input-file 2>&1 | filecheck %s --check-prefix=ELIDED-BACK
// RUN: not ge-opt %inputs/bad-resource-size.mlir 2>&1 | filecheck %s --check-prefix=BAD

// Large constants as mlir-opt prints them: elided for reading, or moved to the
// file's resource section (which MLIR tools read, and ge-opt reads back).
// Splats and constants of at most N elements stay inline.

// ELIDE-LABEL: ge.graph @main
// ELIDE:         ge.const {value = dense_resource<__elided__> : tensor<2x3xf32>, name = "conv1.weight"}
// ELIDE-NEXT:    ge.const {value = dense<[1.000000e+00, 2.000000e+00, 0xFF800000, 4.000000e+00]> : tensor<4xf32>}
// ELIDE-NEXT:    ge.const {value = dense<5.000000e-01> : tensor<2x3xf32>}
// ELIDE-NOT:     dialect_resources

// BLOB-LABEL: ge.graph @main
// BLOB:         ge.const {value = dense_resource<conv1.weight> : tensor<2x3xf32>, name = "conv1.weight"}
// BLOB-NEXT:    ge.const {value = dense<[1.000000e+00, 2.000000e+00, 0xFF800000, 4.000000e+00]> : tensor<4xf32>}
// BLOB-NEXT:    ge.const {value = dense<5.000000e-01> : tensor<2x3xf32>}
// BLOB-NEXT:    ge.const {value = dense_resource<conv1.weight> : tensor<6xf32>}
// BLOB-NEXT:    ge.const {value = dense_resource<cst> : tensor<2x3xf16>}
// BLOB:       {-#
// BLOB-NEXT:    dialect_resources: {
// BLOB-NEXT:      builtin: {
// BLOB-NEXT:        conv1.weight: "0x040000000000803F00000040000080FF000080400000A0400000C07F",
// BLOB-NEXT:        cst: "0x02000000003C004000420044004500FC"
// BLOB-NEXT:      }
// BLOB-NEXT:    }
// BLOB-NEXT:  #-}

// BACK-LABEL: ge.graph @main
// BACK:         ge.const {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00, 0xFF800000], [4.000000e+00, 5.000000e+00, 0x7FC00000]]> : tensor<2x3xf32>, name = "conv1.weight"}
// BACK:         ge.const {value = dense<[1.000000e+00, 2.000000e+00, 0xFF800000, 4.000000e+00, 5.000000e+00, 0x7FC00000]> : tensor<6xf32>}
// BACK-NEXT:    ge.const {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 0xFC00]]> : tensor<2x3xf16>}
// BACK-NOT:     dialect_resources

// IREE-LABEL: func.func @main
// IREE:         memref.get_global @main_const0 : memref<2x3xf32>
// IREE:         memref.get_global @main_const4 : memref<2x3xf16>
// IREE:       {-#
// IREE-NEXT:     dialect_resources: {
// IREE-NEXT:       builtin: {
// IREE-NEXT:         main_const0: "0x040000000000803F00000040000080FF000080400000A0400000C07F",
// IREE-NEXT:         main_const4: "0x02000000003C004000420044004500FC"

// BAD: bad-resource-size.mlir:2:{{[0-9]+}}: error: resource 'w' holds 8 bytes, tensor<3xf32> needs 12
// ELIDED-BACK: stdin:{{[0-9]+}}:{{[0-9]+}}: error: an elided constant (dense_resource<__elided__>) cannot be read back; print without --mlir-elide-elementsattrs-if-larger
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<2x3xf32>
  %w = ge.const {value = dense<[[1.0, 2.0, 0xFF800000], [4.0, 5.0, 0x7FC00000]]> : tensor<2x3xf32>, name = "conv1.weight"} : tensor<2x3xf32>
  %small = ge.const {value = dense<[1.0, 2.0, 0xFF800000, 4.0]> : tensor<4xf32>} : tensor<4xf32>
  %splat = ge.const {value = dense<0.5> : tensor<2x3xf32>} : tensor<2x3xf32>
  %same_bytes = ge.const {value = dense<[1.0, 2.0, 0xFF800000, 4.0, 5.0, 0x7FC00000]> : tensor<6xf32>} : tensor<6xf32>
  %half = ge.const {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 0xFC00]]> : tensor<2x3xf16>} : tensor<2x3xf16>
  %y = ge.add %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = ge.mul %y, %splat : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.netoutput %z, %small, %same_bytes, %half : tensor<2x3xf32>, tensor<4xf32>, tensor<6xf32>, tensor<2x3xf16>
}

