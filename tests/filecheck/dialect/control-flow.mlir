// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// Control flow with GE subgraphs: parent_index i mirrors parent operand i,
// netoutput operand j mirrors parent result j.

// CHECK-LABEL: ge.graph @if
// CHECK:         [[C:%.*]] = ge.data {index = 0 : i64} : tensor<i1>
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 1 : i64} : tensor<2x3xf32>
// CHECK-NEXT:    [[R:%.*]] = ge.if [[C]], [[X]] : (tensor<i1>, tensor<2x3xf32>) -> tensor<2x3xf32> then {
// CHECK-NEXT:      [[A:%.*]] = ge.data {parent_index = 1 : i64} : tensor<2x3xf32>
// CHECK-NEXT:      [[B:%.*]] = ge.relu [[A]] : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:      ge.netoutput [[B]] : tensor<2x3xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      [[A2:%.*]] = ge.data {parent_index = 1 : i64} : tensor<2x3xf32>
// CHECK-NEXT:      [[B2:%.*]] = ge.neg [[A2]] : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:      ge.netoutput [[B2]] : tensor<2x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.netoutput [[R]] : tensor<2x3xf32>
ge.graph @if {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<2x3xf32>
  %r = ge.if %c, %x : (tensor<i1>, tensor<2x3xf32>) -> tensor<2x3xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<2x3xf32>
    %b = ge.relu %a : tensor<2x3xf32> -> tensor<2x3xf32>
    ge.netoutput %b : tensor<2x3xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<2x3xf32>
    %b = ge.neg %a : tensor<2x3xf32> -> tensor<2x3xf32>
    ge.netoutput %b : tensor<2x3xf32>
  }
  ge.netoutput %r : tensor<2x3xf32>
}

// -----

// An `if` with only the condition, no results, and the parent's layout
// carried by the subgraph data (origin shape and dtype must match).
// CHECK-LABEL: ge.graph @if_no_inputs
// CHECK:         ge.if [[C:%.*]] : (tensor<i1>) -> () then {
// CHECK-NEXT:      ge.netoutput{{$}}
// CHECK-NEXT:    } else {
// CHECK-NEXT:      ge.netoutput{{$}}
// CHECK-NEXT:    }
// CHECK-LABEL: ge.graph @if_layout
// CHECK:         ge.if %{{.*}}, %{{.*}} {name = "branchy"} : (tensor<i1>, tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>> then {
// CHECK-NEXT:      ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK:         } else {
// CHECK-NEXT:      ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
ge.graph @if_no_inputs {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  ge.if %c : (tensor<i1>) -> () then {
    ge.netoutput
  } else {
    ge.netoutput
  }
  ge.netoutput
}
ge.graph @if_layout {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.if %c, %x {name = "branchy"} : (tensor<i1>, tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
    ge.netoutput %a : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
    %b = ge.transdata %a {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
    ge.netoutput %b : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  }
  ge.netoutput %r : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// CHECK-LABEL: ge.graph @case
// CHECK:         [[I:%.*]] = ge.data {index = 0 : i64} : tensor<i32>
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 1 : i64} : tensor<4xf32>
// CHECK-NEXT:    [[R:%.*]] = ge.case [[I]], [[X]] : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      [[A:%.*]] = ge.data {parent_index = 1 : i64} : tensor<4xf32>
// CHECK-NEXT:      ge.netoutput [[A]] : tensor<4xf32>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      [[A1:%.*]] = ge.data {parent_index = 1 : i64} : tensor<4xf32>
// CHECK-NEXT:      [[E:%.*]] = ge.exp [[A1]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:      ge.netoutput [[E]] : tensor<4xf32>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      [[K:%.*]] = ge.const {value = dense<0.000000e+00> : tensor<4xf32>} : tensor<4xf32>
// CHECK-NEXT:      ge.netoutput [[K]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.netoutput [[R]] : tensor<4xf32>
ge.graph @case {
  %i = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<4xf32>
  %r = ge.case %i, %x : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32> {
    %a = ge.data {parent_index = 1 : i64} : tensor<4xf32>
    ge.netoutput %a : tensor<4xf32>
  }, {
    %a = ge.data {parent_index = 1 : i64} : tensor<4xf32>
    %e = ge.exp %a : tensor<4xf32> -> tensor<4xf32>
    ge.netoutput %e : tensor<4xf32>
  }, {
    %k = ge.const {value = dense<0.0> : tensor<4xf32>} : tensor<4xf32>
    ge.netoutput %k : tensor<4xf32>
  }
  ge.netoutput %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: ge.graph @while
// CHECK:         [[N:%.*]] = ge.data {index = 0 : i64} : tensor<i32>
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 1 : i64} : tensor<2xf32>
// CHECK-NEXT:    [[R0:%.*]], [[R1:%.*]] = ge.while [[N]], [[X]] : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) cond {
// CHECK-NEXT:      [[CN:%.*]] = ge.data {parent_index = 0 : i64} : tensor<i32>
// CHECK-NEXT:      [[CX:%.*]] = ge.data {parent_index = 1 : i64} : tensor<2xf32>
// CHECK-NEXT:      [[B:%.*]] = ge.cast [[CN]] {dst_type = i1} : tensor<i32> -> tensor<i1>
// CHECK-NEXT:      ge.netoutput [[B]] : tensor<i1>
// CHECK-NEXT:    } body {
// CHECK-NEXT:      [[BN:%.*]] = ge.data {parent_index = 0 : i64} : tensor<i32>
// CHECK-NEXT:      [[BX:%.*]] = ge.data {parent_index = 1 : i64} : tensor<2xf32>
// CHECK-NEXT:      [[ONE:%.*]] = ge.const {value = dense<-1> : tensor<i32>} : tensor<i32>
// CHECK-NEXT:      [[N2:%.*]] = ge.add [[BN]], [[ONE]] : (tensor<i32>, tensor<i32>) -> tensor<i32>
// CHECK-NEXT:      [[X2:%.*]] = ge.mul [[BX]], [[BX]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:      ge.netoutput [[N2]], [[X2]] : tensor<i32>, tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.netoutput [[R1]] : tensor<2xf32>
ge.graph @while {
  %n = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<2xf32>
  %r:2 = ge.while %n, %x : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) cond {
    %cn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %cx = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    %b = ge.cast %cn {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %bn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %bx = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    %one = ge.const {value = dense<-1> : tensor<i32>} : tensor<i32>
    %n2 = ge.add %bn, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %x2 = ge.mul %bx, %bx : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ge.netoutput %n2, %x2 : tensor<i32>, tensor<2xf32>
  }
  ge.netoutput %r#1 : tensor<2xf32>
}

// -----

// CHECK-LABEL: ge.graph @partitioned_call
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x2xf32>
// CHECK-NEXT:    [[Y:%.*]] = ge.data {index = 1 : i64} : tensor<2x2xf32>
// CHECK-NEXT:    [[R:%.*]] = ge.partitioned_call [[X]], [[Y]] {engine = "AIcoreEngine"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> {
// CHECK-NEXT:      [[A:%.*]] = ge.data {parent_index = 0 : i64} : tensor<2x2xf32>
// CHECK-NEXT:      [[B:%.*]] = ge.data {parent_index = 1 : i64} : tensor<2x2xf32>
// CHECK-NEXT:      [[S:%.*]] = ge.sub [[A]], [[B]] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:      ge.netoutput [[S]] : tensor<2x2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    [[Q0:%.*]], [[Q1:%.*]] = ge.partitioned_call [[R]] : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
// CHECK-NEXT:      [[QA:%.*]] = ge.data {parent_index = 0 : i64} : tensor<2x2xf32>
// CHECK-NEXT:      [[QT:%.*]] = ge.abs [[QA]] : tensor<2x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT:      ge.netoutput [[QA]], [[QT]] : tensor<2x2xf32>, tensor<2x2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    ge.netoutput [[Q0]], [[Q1]] : tensor<2x2xf32>, tensor<2x2xf32>
ge.graph @partitioned_call {
  %x = ge.data {index = 0 : i64} : tensor<2x2xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x2xf32>
  %r = ge.partitioned_call %x, %y {engine = "AIcoreEngine"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> {
    %a = ge.data {parent_index = 0 : i64} : tensor<2x2xf32>
    %b = ge.data {parent_index = 1 : i64} : tensor<2x2xf32>
    %s = ge.sub %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    ge.netoutput %s : tensor<2x2xf32>
  }
  %q:2 = ge.partitioned_call %r : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
    %a = ge.data {parent_index = 0 : i64} : tensor<2x2xf32>
    %t = ge.abs %a : tensor<2x2xf32> -> tensor<2x2xf32>
    ge.netoutput %a, %t : tensor<2x2xf32>, tensor<2x2xf32>
  }
  ge.netoutput %q#0, %q#1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// Nested control flow: a while inside an if branch.
// CHECK-LABEL: ge.graph @nested
// CHECK:         ge.if
// CHECK:           ge.while
// CHECK:           cond {
// CHECK:           } body {
// CHECK:         } else {
ge.graph @nested {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<f32>
  %r = ge.if %c, %x : (tensor<i1>, tensor<f32>) -> tensor<f32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<f32>
    %w = ge.while %a : (tensor<f32>) -> tensor<f32> cond {
      %v = ge.data {parent_index = 0 : i64} : tensor<f32>
      %z = ge.const {value = dense<1.0e+01> : tensor<f32>} : tensor<f32>
      %d = ge.sub %z, %v : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %p = ge.cast %d {dst_type = i1} : tensor<f32> -> tensor<i1>
      ge.netoutput %p : tensor<i1>
    } body {
      %v = ge.data {parent_index = 0 : i64} : tensor<f32>
      %v2 = ge.add %v, %v : (tensor<f32>, tensor<f32>) -> tensor<f32>
      ge.netoutput %v2 : tensor<f32>
    }
    ge.netoutput %w : tensor<f32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<f32>
    ge.netoutput %a : tensor<f32>
  }
  ge.netoutput %r : tensor<f32>
}
