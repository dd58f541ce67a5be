// Unknown passes, unknown flags and bad pass options: one line, exit code 1.
// RUN: not ge-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not ge-opt %s --no-such-flag 2>&1 | filecheck %s --check-prefix=FLAG
// RUN: not ge-opt %s -p 'infer-origin-format{no-such-option=1}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not ge-opt %s --infer-origin-format=no-such-option=1 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not ge-opt %s -p 'infer-origin-format{' 2>&1 | filecheck %s --check-prefix=SYNTAX

// PASS-NOT: Traceback
// PASS: ge-opt: error: {{.*}}no-such-pass{{.*}}
// PASS-NOT: {{.}}

// FLAG-NOT: Traceback
// FLAG: ge-opt: error: unrecognized arguments: --no-such-flag (see --help)
// FLAG-NOT: {{.}}

// OPTION-NOT: Traceback
// OPTION: ge-opt: error: pass 'infer-origin-format' has no option 'no-such-option' (options: data-format)
// OPTION-NOT: {{.}}

// SYNTAX-NOT: Traceback
// SYNTAX: ge-opt: error: {{.+}}
// SYNTAX-NOT: {{.}}

ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  ge.netoutput %x : tensor<2xf32>
}
