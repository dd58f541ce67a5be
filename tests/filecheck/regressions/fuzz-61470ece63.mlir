// Shrunk by hypothesis from a failing differential fuzz case (tests/test_fuzz.py,
// blocks: chain). Two bugs:
// - invalid IR after refine-running-format: 'ge.transdata' op src_format NCHW
//   does not match the operand's storage format NC1HWC0 (the operand is
//   converted later, by insert-transdata, as `input_layouts` says; fixed in
//   the verifier, ge_dialect/ops.py `TransDataOp.verify_`);
// - then invalid IR after insert-transdata: a one-element value kept its
//   layout into that `ge.transdata` and the graph output (fixed in
//   passes/insert_transdata.py: no scalar exemption into those two).
// RUN: python %S/../../fuzz/differential.py %s --options "data-format=NCHW spread=false beyond-ge=false target=Ascend910" --seed 0 | filecheck %s
// CHECK: ok: {{[0-9]+}} outputs agree
// RUN: ge-opt %s --ge-format-pipeline="data-format=NCHW spread=false beyond-ge=false target=Ascend910" --convert-ge-to-loops | filecheck %s --check-prefix=LOOPS
// LOOPS: func.func @main

builtin.module {
  ge.graph @main {
    %0 = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>, storage_shape = array<i64>, name = "x"} : tensor<1x1x1x1xf32, #ge.layout<NCHW>>
    %1 = ge.transdata %0 {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x1x1x1xf32, #ge.layout<NCHW>> -> tensor<1x1x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
    ge.netoutput %0, %1 : tensor<1x1x1x1xf32, #ge.layout<NCHW>>, tensor<1x1x1x1xf32, #ge.layout<NCHW, NC1HWC0>> {storage_formats = [#ge.format<NC1HWC0>, #ge.format<ND>]}
  }
}
