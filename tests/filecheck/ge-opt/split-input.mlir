// Without --verify-diagnostics, the first failing chunk stops ge-opt with
// its (file-relative) location; with it, every chunk reports and exit is 0.
// RUN: not ge-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=STOP
// RUN: ge-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s --check-prefix=ALL

// STOP-NOT: Traceback
// STOP: {{.*}}split-input.mlir:20:3: error: 'ge.relu' op result shape [3] must equal the input shape [2]
// STOP-NOT: {{.}}

// ALL:      ge.graph @ok
// ALL:      {{^}}/{{/}} -----
// ALL-NEXT: {{.*}}split-input.mlir:20:3: error: 'ge.relu' op result shape [3] must equal the input shape [2]
// ALL-NEXT: {{^}}/{{/}} -----
// ALL-NEXT: {{.*}}split-input.mlir:24:1: error: 'ge.graph' op graph region must end with 'ge.netoutput'

ge.graph @ok { ge.netoutput }
// -----
ge.graph @bad_relu {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  %y = ge.relu %x : tensor<2xf32> -> tensor<3xf32>
  ge.netoutput %y : tensor<3xf32>
}
// -----
ge.graph @no_output {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
}
