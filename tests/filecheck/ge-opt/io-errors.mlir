// Missing input file; -o into a directory that does not exist leaves no file.
// RUN: not ge-opt %t.does-not-exist.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: rm -rf %t.dir
// RUN: not ge-opt %s -o %t.dir/sub/out.mlir 2>&1 | filecheck %s --check-prefix=OUTDIR
// RUN: not test -e %t.dir
// A good run with -o writes the file and nothing to stdout.
// RUN: ge-opt %s -o %t.out.mlir > %t.stdout
// RUN: not grep -q . %t.stdout
// RUN: filecheck %s --check-prefix=WRITTEN < %t.out.mlir

// MISSING-NOT: Traceback
// MISSING: ge-opt: error: cannot access '{{.*}}does-not-exist.mlir': No such file or directory
// MISSING-NOT: {{.}}

// OUTDIR-NOT: Traceback
// OUTDIR: ge-opt: error: cannot access '{{.*}}sub/out.mlir': No such file or directory
// OUTDIR-NOT: {{.}}

// WRITTEN: ge.graph @main

ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  ge.netoutput %x : tensor<2xf32>
}
