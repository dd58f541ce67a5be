// REQUIRES: graphviz
// RUN: rm -rf %t
// RUN: ge-opt %s --dump-graph=%t -o %t.out.mlir
// RUN: filecheck %s < %t/00-input.svg
// RUN: python -c "import sys; sys.exit(open(sys.argv[1], 'rb').read(8) != b'\x89PNG\r\n\x1a\n')" %t/00-input.png

// With Graphviz's dot installed, each picture is also rendered as .svg and .png.

// CHECK: <svg
// CHECK: <title>00&#45;input</title>
// CHECK: fill="white">NC1HWC0 &#45;&gt; NCHW</text>
// CHECK: fill="#ff7f0e">NCHW/NC1HWC0</text>
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "input"} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
}
