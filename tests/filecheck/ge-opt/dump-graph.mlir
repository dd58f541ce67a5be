// RUN: rm -rf %t
// RUN: ge-opt %s -p infer-origin-format,ge-format-pipeline --dump-graph=%t -o %t.out.mlir
// RUN: ls %t | filecheck %s --check-prefix=FILES
// RUN: filecheck %s --check-prefix=DOT < %t/18-ge-format-pipeline.dot
// RUN: filecheck %s --check-prefix=MLIR < %t/18-ge-format-pipeline.mlir

// `ge-opt --dump-graph DIR` writes the input and the IR after each pass, with
// its picture: ops filled and values coloured by storage format, TransData
// highlighted (graphviz.mlir checks the rendered .svg/.png). A pipeline pass
// is dumped pass by pass (as `ge-atc --dump-graph` dumps it), then whole.

// FILES:      00-input.dot
// FILES-NEXT: 00-input.mlir
// FILES:      01-infer-origin-format.dot
// FILES-NEXT: 01-infer-origin-format.mlir
// FILES:      02-infer-origin-format.dot
// FILES-NEXT: 02-infer-origin-format.mlir
// FILES:      03-infer-shape.dot
// FILES:      06-insert-transdata.dot
// FILES-NEXT: 06-insert-transdata.mlir
// FILES:      17-fuse-confusion-transpose.dot
// FILES:      18-ge-format-pipeline.dot
// FILES-NEXT: 18-ge-format-pipeline.mlir

// DOT:     digraph
// DOT:     label="18-ge-format-pipeline"
// DOT:     label="transdata\nNCHW -> NC1HWC0" fillcolor="#d62728"
// DOT:     label="1x9x8x8xf32\nNCHW/NC1HWC0" color="#ff7f0e"
// DOT:     label="9x9x3x3xf32\nNCHW/FRACTAL_Z" color="#2ca02c"

// MLIR:    ge.transdata {{.*}} dst_format = #ge.format<NC1HWC0>
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "input"} : tensor<1x9x8x8xf32>
  %w = ge.const {value = dense<0.1> : tensor<9x9x3x3xf32>} : tensor<9x9x3x3xf32>
  %y = ge.conv2d %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, data_format = "NCHW"} : (tensor<1x9x8x8xf32>, tensor<9x9x3x3xf32>) -> tensor<1x9x8x8xf32>
  %r = ge.relu %y : tensor<1x9x8x8xf32> -> tensor<1x9x8x8xf32>
  ge.netoutput %r : tensor<1x9x8x8xf32>
}
