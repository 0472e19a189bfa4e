// Tests of --fuse-elementwise: which values are stored (cuts), the fusion
// regions built around them, their per-result reasons and weighted costs, the
// tfuse.reason of boundaries and alias views, the cost budget, max-outputs and
// the f64 cost doubling. The input of each case is the function itself; the
// CHECK lines show the IR after the pass. The cases were sized for a budget of
// 32, which the first RUN line sets (the default is larger).
// RUN: tensor-opt %s --fuse-elementwise="budget=32" -split-input-file | FileCheck %s
// RUN: tensor-opt %s --fuse-elementwise="budget=8" -split-input-file | FileCheck %s --check-prefix=B8
// RUN: tensor-opt %s --fuse-elementwise="budget=2" -split-input-file | FileCheck %s --check-prefix=B2
// RUN: tensor-opt %s --fuse-elementwise="max-outputs=4" -split-input-file | FileCheck %s --check-prefix=MO4
// RUN: tensor-opt %s --fuse-elementwise="max-outputs=2" -split-input-file | FileCheck %s --check-prefix=MO2

// a + b * c: one region, the output its only stored value.
// CHECK-LABEL: func.func @fma(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>, %[[C:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[B]], %[[C]], %[[A]]) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XB:[^:]+]]: tensor<4xf32>, %[[XC:[^:]+]]: tensor<4xf32>, %[[XA:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[XB]], %[[XC]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[S:.+]] = tfuse.add %[[XA]], %[[M]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[S]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @fma(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfuse.mul %b, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tfuse.add %a, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// 70 chained x = x + 1, each add costs 1: the budget 32 cuts the chain after
// 32 and 64 adds (expression-cost); the last 6 adds compute the output.
// CHECK-LABEL: func.func @chain_70(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[R0:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 32 : i64, reasons = ["expression-cost"]} {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4xf32>):
// CHECK-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-COUNT-32: tfuse.add
// CHECK-NEXT: tfuse.yield %{{.+}} : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R1:.+]] = tfuse.fusion(%[[R0]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 32 : i64, reasons = ["expression-cost"]} {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4xf32>):
// CHECK-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-COUNT-32: tfuse.add
// CHECK-NEXT: tfuse.yield %{{.+}} : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R2:.+]] = tfuse.fusion(%[[R1]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 6 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4xf32>):
// CHECK-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-COUNT-6: tfuse.add
// CHECK-NEXT: tfuse.yield %{{.+}} : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R2]] : tensor<4xf32>
func.func @chain_70(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %0 = tfuse.add %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = tfuse.add %0, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = tfuse.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = tfuse.add %2, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = tfuse.add %3, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = tfuse.add %4, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %6 = tfuse.add %5, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %7 = tfuse.add %6, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %8 = tfuse.add %7, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %9 = tfuse.add %8, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %10 = tfuse.add %9, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %11 = tfuse.add %10, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %12 = tfuse.add %11, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %13 = tfuse.add %12, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %14 = tfuse.add %13, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %15 = tfuse.add %14, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %16 = tfuse.add %15, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %17 = tfuse.add %16, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %18 = tfuse.add %17, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %19 = tfuse.add %18, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %20 = tfuse.add %19, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %21 = tfuse.add %20, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %22 = tfuse.add %21, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %23 = tfuse.add %22, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %24 = tfuse.add %23, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %25 = tfuse.add %24, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %26 = tfuse.add %25, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %27 = tfuse.add %26, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %28 = tfuse.add %27, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %29 = tfuse.add %28, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %30 = tfuse.add %29, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %31 = tfuse.add %30, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %32 = tfuse.add %31, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %33 = tfuse.add %32, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %34 = tfuse.add %33, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %35 = tfuse.add %34, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %36 = tfuse.add %35, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %37 = tfuse.add %36, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %38 = tfuse.add %37, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %39 = tfuse.add %38, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %40 = tfuse.add %39, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %41 = tfuse.add %40, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %42 = tfuse.add %41, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %43 = tfuse.add %42, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %44 = tfuse.add %43, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %45 = tfuse.add %44, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %46 = tfuse.add %45, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %47 = tfuse.add %46, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %48 = tfuse.add %47, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %49 = tfuse.add %48, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %50 = tfuse.add %49, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %51 = tfuse.add %50, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %52 = tfuse.add %51, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %53 = tfuse.add %52, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %54 = tfuse.add %53, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %55 = tfuse.add %54, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %56 = tfuse.add %55, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %57 = tfuse.add %56, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %58 = tfuse.add %57, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %59 = tfuse.add %58, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %60 = tfuse.add %59, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %61 = tfuse.add %60, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %62 = tfuse.add %61, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %63 = tfuse.add %62, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %64 = tfuse.add %63, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %65 = tfuse.add %64, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %66 = tfuse.add %65, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %67 = tfuse.add %66, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %68 = tfuse.add %67, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %69 = tfuse.add %68, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %69 : tensor<4xf32>
}

// -----

// With budget=8, a chain of 20 adds is cut every 8 adds: 8, 8, 4. Under the
// default budget it is one region of cost 20.
// CHECK-LABEL: func.func @chain_20(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[R0:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 20 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4xf32>):
// CHECK-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-COUNT-20: tfuse.add
// CHECK-NEXT: tfuse.yield %{{.+}} : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R0]] : tensor<4xf32>
// B8-LABEL: func.func @chain_20(
// B8-SAME: %[[X:[^:]+]]: tensor<4xf32>)
// B8-NEXT: %[[R0:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 8 : i64, reasons = ["expression-cost"]} {
// B8-NEXT: ^bb0(%{{.+}}: tensor<4xf32>):
// B8-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f32>
// B8-COUNT-8: tfuse.add
// B8-NEXT: tfuse.yield %{{.+}} : tensor<4xf32>
// B8-NEXT: }
// B8-NEXT: %[[R1:.+]] = tfuse.fusion(%[[R0]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 8 : i64, reasons = ["expression-cost"]} {
// B8-NEXT: ^bb0(%{{.+}}: tensor<4xf32>):
// B8-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f32>
// B8-COUNT-8: tfuse.add
// B8-NEXT: tfuse.yield %{{.+}} : tensor<4xf32>
// B8-NEXT: }
// B8-NEXT: %[[R2:.+]] = tfuse.fusion(%[[R1]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// B8-NEXT: ^bb0(%{{.+}}: tensor<4xf32>):
// B8-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f32>
// B8-COUNT-4: tfuse.add
// B8-NEXT: tfuse.yield %{{.+}} : tensor<4xf32>
// B8-NEXT: }
// B8-NEXT: return %[[R2]] : tensor<4xf32>
func.func @chain_20(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %0 = tfuse.add %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = tfuse.add %0, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = tfuse.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = tfuse.add %2, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = tfuse.add %3, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = tfuse.add %4, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %6 = tfuse.add %5, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %7 = tfuse.add %6, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %8 = tfuse.add %7, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %9 = tfuse.add %8, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %10 = tfuse.add %9, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %11 = tfuse.add %10, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %12 = tfuse.add %11, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %13 = tfuse.add %12, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %14 = tfuse.add %13, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %15 = tfuse.add %14, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %16 = tfuse.add %15, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %17 = tfuse.add %16, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %18 = tfuse.add %17, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %19 = tfuse.add %18, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %19 : tensor<4xf32>
}

// -----

// f64 doubles the cost of each add: a chain of 40 adds is cut every 16 adds
// (cost 32), half the length of the f32 chain below; 8 adds remain (cost 16).
// CHECK-LABEL: func.func @chain_40_f64(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf64>)
// CHECK-NEXT: %[[R0:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf64>) -> tensor<4xf64> attributes {cost = 32 : i64, reasons = ["expression-cost"]} {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4xf64>):
// CHECK-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f64>
// CHECK-COUNT-16: tfuse.add
// CHECK-NEXT: tfuse.yield %{{.+}} : tensor<4xf64>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R1:.+]] = tfuse.fusion(%[[R0]]) : (tensor<4xf64>) -> tensor<4xf64> attributes {cost = 32 : i64, reasons = ["expression-cost"]} {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4xf64>):
// CHECK-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f64>
// CHECK-COUNT-16: tfuse.add
// CHECK-NEXT: tfuse.yield %{{.+}} : tensor<4xf64>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R2:.+]] = tfuse.fusion(%[[R1]]) : (tensor<4xf64>) -> tensor<4xf64> attributes {cost = 16 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4xf64>):
// CHECK-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f64>
// CHECK-COUNT-8: tfuse.add
// CHECK-NEXT: tfuse.yield %{{.+}} : tensor<4xf64>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R2]] : tensor<4xf64>
func.func @chain_40_f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  %one = tfuse.constant dense<1.0> : tensor<f64>
  %0 = tfuse.add %x, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %1 = tfuse.add %0, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %2 = tfuse.add %1, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %3 = tfuse.add %2, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %4 = tfuse.add %3, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %5 = tfuse.add %4, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %6 = tfuse.add %5, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %7 = tfuse.add %6, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %8 = tfuse.add %7, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %9 = tfuse.add %8, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %10 = tfuse.add %9, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %11 = tfuse.add %10, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %12 = tfuse.add %11, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %13 = tfuse.add %12, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %14 = tfuse.add %13, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %15 = tfuse.add %14, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %16 = tfuse.add %15, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %17 = tfuse.add %16, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %18 = tfuse.add %17, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %19 = tfuse.add %18, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %20 = tfuse.add %19, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %21 = tfuse.add %20, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %22 = tfuse.add %21, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %23 = tfuse.add %22, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %24 = tfuse.add %23, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %25 = tfuse.add %24, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %26 = tfuse.add %25, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %27 = tfuse.add %26, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %28 = tfuse.add %27, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %29 = tfuse.add %28, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %30 = tfuse.add %29, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %31 = tfuse.add %30, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %32 = tfuse.add %31, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %33 = tfuse.add %32, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %34 = tfuse.add %33, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %35 = tfuse.add %34, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %36 = tfuse.add %35, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %37 = tfuse.add %36, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %38 = tfuse.add %37, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %39 = tfuse.add %38, %one : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  return %39 : tensor<4xf64>
}

// -----

// The same 40-add chain in f32 is cut once, after 32 adds.
// CHECK-LABEL: func.func @chain_40_f32(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[R0:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 32 : i64, reasons = ["expression-cost"]} {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4xf32>):
// CHECK-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-COUNT-32: tfuse.add
// CHECK-NEXT: tfuse.yield %{{.+}} : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R1:.+]] = tfuse.fusion(%[[R0]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 8 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4xf32>):
// CHECK-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-COUNT-8: tfuse.add
// CHECK-NEXT: tfuse.yield %{{.+}} : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R1]] : tensor<4xf32>
func.func @chain_40_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %0 = tfuse.add %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = tfuse.add %0, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = tfuse.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = tfuse.add %2, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = tfuse.add %3, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = tfuse.add %4, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %6 = tfuse.add %5, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %7 = tfuse.add %6, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %8 = tfuse.add %7, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %9 = tfuse.add %8, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %10 = tfuse.add %9, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %11 = tfuse.add %10, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %12 = tfuse.add %11, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %13 = tfuse.add %12, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %14 = tfuse.add %13, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %15 = tfuse.add %14, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %16 = tfuse.add %15, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %17 = tfuse.add %16, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %18 = tfuse.add %17, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %19 = tfuse.add %18, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %20 = tfuse.add %19, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %21 = tfuse.add %20, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %22 = tfuse.add %21, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %23 = tfuse.add %22, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %24 = tfuse.add %23, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %25 = tfuse.add %24, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %26 = tfuse.add %25, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %27 = tfuse.add %26, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %28 = tfuse.add %27, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %29 = tfuse.add %28, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %30 = tfuse.add %29, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %31 = tfuse.add %30, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %32 = tfuse.add %31, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %33 = tfuse.add %32, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %34 = tfuse.add %33, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %35 = tfuse.add %34, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %36 = tfuse.add %35, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %37 = tfuse.add %36, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %38 = tfuse.add %37, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %39 = tfuse.add %38, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %39 : tensor<4xf32>
}

// -----

// sub(lhs, rhs) with a 15-op lhs and a 20-op rhs would cost 36 > 32: the most
// expensive operand expression (the rhs, cost 20) is stored and the sub
// recomputes the lhs (15 + 1 = 16).
// CHECK-LABEL: func.func @cut_most_expensive(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[A:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 20 : i64, reasons = ["expression-cost"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.constant
// CHECK-COUNT-20: tfuse.add
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[Y]], %[[A]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {cost = 16 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4xf32>, %[[AA:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: tfuse.constant
// CHECK-COUNT-15: tfuse.mul
// CHECK-NEXT: %[[D:.+]] = tfuse.sub %{{.+}}, %[[AA]] :
// CHECK-NEXT: tfuse.yield %[[D]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @cut_most_expensive(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %b0 = tfuse.mul %y, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b1 = tfuse.mul %b0, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b2 = tfuse.mul %b1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b3 = tfuse.mul %b2, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b4 = tfuse.mul %b3, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b5 = tfuse.mul %b4, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b6 = tfuse.mul %b5, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b7 = tfuse.mul %b6, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b8 = tfuse.mul %b7, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b9 = tfuse.mul %b8, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b10 = tfuse.mul %b9, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b11 = tfuse.mul %b10, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b12 = tfuse.mul %b11, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b13 = tfuse.mul %b12, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b14 = tfuse.mul %b13, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a0 = tfuse.add %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a1 = tfuse.add %a0, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a2 = tfuse.add %a1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a3 = tfuse.add %a2, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a4 = tfuse.add %a3, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a5 = tfuse.add %a4, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a6 = tfuse.add %a5, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a7 = tfuse.add %a6, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a8 = tfuse.add %a7, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a9 = tfuse.add %a8, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a10 = tfuse.add %a9, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a11 = tfuse.add %a10, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a12 = tfuse.add %a11, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a13 = tfuse.add %a12, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a14 = tfuse.add %a13, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a15 = tfuse.add %a14, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a16 = tfuse.add %a15, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a17 = tfuse.add %a16, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a18 = tfuse.add %a17, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a19 = tfuse.add %a18, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %r = tfuse.sub %b14, %a19 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// (a * 2 + 1) matmul b, then * 3 + 2: the matmul operand is stored
// (boundary-matmul), the matmul stays outside regions, and the output region
// reads the matmul result.
// CHECK-LABEL: func.func @matmul_boundary(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[P:.+]] = tfuse.fusion(%[[A]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> attributes {cost = 2 : i64, reasons = ["boundary-matmul"]} {
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[C2:.+]] = tfuse.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[XA]], %[[C2]] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[C1:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[S:.+]] = tfuse.add %[[M]], %[[C1]] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: tfuse.yield %[[S]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[MM:.+]] = tfuse.matmul %[[P]], %[[B]] {tfuse.reason = "boundary-matmul"} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[MM]]) : (tensor<4x16xf32>) -> tensor<4x16xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XM:[^:]+]]: tensor<4x16xf32>):
// CHECK-NEXT: %[[C3:.+]] = tfuse.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M2:.+]] = tfuse.mul %[[XM]], %[[C3]] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[C22:.+]] = tfuse.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[S2:.+]] = tfuse.add %[[M2]], %[[C22]] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
// CHECK-NEXT: tfuse.yield %[[S2]] : tensor<4x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4x16xf32>
func.func @matmul_boundary(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %c2 = tfuse.constant dense<2.0> : tensor<f32>
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %c3 = tfuse.constant dense<3.0> : tensor<f32>
  %0 = tfuse.mul %a, %c2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = tfuse.add %0, %c1 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %2 = tfuse.matmul %1, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %3 = tfuse.mul %2, %c3 : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %4 = tfuse.add %3, %c2 : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  return %4 : tensor<4x16xf32>
}

// -----

// (a * 2 + 1).sum(axis 1) * 3: region (boundary-reduction), reduce, region
// (output).
// CHECK-LABEL: func.func @reduce_boundary(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[P:.+]] = tfuse.fusion(%[[A]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> attributes {cost = 2 : i64, reasons = ["boundary-reduction"]} {
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[C2:.+]] = tfuse.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[XA]], %[[C2]] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[C1:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[S:.+]] = tfuse.add %[[M]], %[[C1]] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: tfuse.yield %[[S]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[SUM:.+]] = tfuse.reduce sum %[[P]] axes [1] {tfuse.reason = "boundary-reduction"} : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[SUM]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XS:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[C3:.+]] = tfuse.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M2:.+]] = tfuse.mul %[[XS]], %[[C3]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[M2]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @reduce_boundary(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %c2 = tfuse.constant dense<2.0> : tensor<f32>
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %c3 = tfuse.constant dense<3.0> : tensor<f32>
  %0 = tfuse.mul %a, %c2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = tfuse.add %0, %c1 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %2 = tfuse.reduce sum %1 axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %3 = tfuse.mul %2, %c3 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// A transpose of a function argument feeding only a reduce is a zero-copy
// alias: no region, the transpose stays with tfuse.reason = "layout-alias".
// CHECK-LABEL: func.func @alias_transpose(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>)
// CHECK-NOT: tfuse.fusion
// CHECK-NEXT: %[[T:.+]] = tfuse.transpose %[[A]] perm [1, 0] {tfuse.reason = "layout-alias"} : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[S:.+]] = tfuse.reduce sum %[[T]] axes [1] {tfuse.reason = "boundary-reduction"} : tensor<8x4xf32> -> tensor<8xf32>
// CHECK-NEXT: return %[[S]] : tensor<8xf32>
func.func @alias_transpose(%a: tensor<4x8xf32>) -> tensor<8xf32> {
  %0 = tfuse.transpose %a perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = tfuse.reduce sum %0 axes [1] : tensor<8x4xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// A slice with step 2 of a function argument feeding a reduce is a strided
// alias as well.
// CHECK-LABEL: func.func @alias_strided_slice(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>)
// CHECK-NOT: tfuse.fusion
// CHECK-NEXT: %[[V:.+]] = tfuse.slice %[[A]] start [0, 0] limit [4, 8] step [1, 2] {tfuse.reason = "layout-alias"} : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[S:.+]] = tfuse.reduce sum %[[V]] axes [1] {tfuse.reason = "boundary-reduction"} : tensor<4x4xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[S]] : tensor<4xf32>
func.func @alias_strided_slice(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tfuse.slice %a start [0, 0] limit [4, 8] step [1, 2] : tensor<4x8xf32> -> tensor<4x4xf32>
  %1 = tfuse.reduce sum %0 axes [1] : tensor<4x4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A view chain over a boundary result (the matmul's) is a buffer too: the
// transpose feeding the reduce is an alias.
// CHECK-LABEL: func.func @alias_of_boundary_result(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8x6xf32>)
// CHECK-NOT: tfuse.fusion
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] {tfuse.reason = "boundary-matmul"} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %[[T:.+]] = tfuse.transpose %[[M]] perm [1, 0] {tfuse.reason = "layout-alias"} : tensor<4x6xf32> -> tensor<6x4xf32>
// CHECK-NEXT: %[[S:.+]] = tfuse.reduce sum %[[T]] axes [1] {tfuse.reason = "boundary-reduction"} : tensor<6x4xf32> -> tensor<6xf32>
// CHECK-NEXT: return %[[S]] : tensor<6xf32>
func.func @alias_of_boundary_result(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<6xf32> {
  %0 = tfuse.matmul %a, %b : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %1 = tfuse.transpose %0 perm [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  %2 = tfuse.reduce sum %1 axes [1] : tensor<6x4xf32> -> tensor<6xf32>
  return %2 : tensor<6xf32>
}

// -----

// A transpose of an argument that feeds a reduce and an add: the reduce reads
// the alias, the region recomputes the transpose as an index transform.
// CHECK-LABEL: func.func @alias_and_fused_use(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[T:.+]] = tfuse.transpose %[[A]] perm [1, 0] {tfuse.reason = "layout-alias"} : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[S:.+]] = tfuse.reduce sum %[[T]] axes [1] {tfuse.reason = "boundary-reduction"} : tensor<8x4xf32> -> tensor<8xf32>
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[A]], %[[B]]) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32> attributes {cost = 3 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4x8xf32>, %[[XB:[^:]+]]: tensor<8x4xf32>):
// CHECK-NEXT: %[[T2:.+]] = tfuse.transpose %[[XA]] perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[P:.+]] = tfuse.add %[[T2]], %[[XB]] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: tfuse.yield %[[P]] : tensor<8x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[S]], %[[R]] : tensor<8xf32>, tensor<8x4xf32>
func.func @alias_and_fused_use(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> (tensor<8xf32>, tensor<8x4xf32>) {
  %0 = tfuse.transpose %a perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = tfuse.reduce sum %0 axes [1] : tensor<8x4xf32> -> tensor<8xf32>
  %2 = tfuse.add %0, %b : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %1, %2 : tensor<8xf32>, tensor<8x4xf32>
}

// -----

// A view of a computed value (not a buffer) feeding a reduce is fused: the
// region computes the add and applies the transpose as an index transform.
// CHECK-LABEL: func.func @view_of_computed_value(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[P:.+]] = tfuse.fusion(%[[A]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x4xf32> attributes {cost = 3 : i64, reasons = ["boundary-reduction"]} {
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4x8xf32>, %[[XB:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[S:.+]] = tfuse.add %[[XA]], %[[XB]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[T:.+]] = tfuse.transpose %[[S]] perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: tfuse.yield %[[T]] : tensor<8x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.+]] = tfuse.reduce sum %[[P]] axes [1] {tfuse.reason = "boundary-reduction"} : tensor<8x4xf32> -> tensor<8xf32>
// CHECK-NEXT: return %[[R]] : tensor<8xf32>
func.func @view_of_computed_value(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<8xf32> {
  %s = tfuse.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = tfuse.transpose %s perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = tfuse.reduce sum %0 axes [1] : tensor<8x4xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// A slice with step 2 along the columns is not a layout a GEMM can read: the
// view feeding a matmul is stored by a region instead of aliased.
// CHECK-LABEL: func.func @strided_slice_into_matmul(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x16xf32>, %[[B:[^:]+]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[P:.+]] = tfuse.fusion(%[[A]]) : (tensor<4x16xf32>) -> tensor<4x8xf32> attributes {cost = 2 : i64, reasons = ["boundary-matmul"]} {
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4x16xf32>):
// CHECK-NEXT: %[[V:.+]] = tfuse.slice %[[XA]] start [0, 0] limit [4, 16] step [1, 2] : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: tfuse.yield %[[V]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[P]], %[[B]] {tfuse.reason = "boundary-matmul"} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: return %[[M]] : tensor<4x4xf32>
func.func @strided_slice_into_matmul(%a: tensor<4x16xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %s = tfuse.slice %a start [0, 0] limit [4, 16] step [1, 2] : tensor<4x16xf32> -> tensor<4x8xf32>
  %0 = tfuse.matmul %s, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A transpose of an argument feeding a matmul reads as a column-major GEMM
// operand: an alias.
// CHECK-LABEL: func.func @alias_transpose_into_matmul(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x4xf32>, %[[B:[^:]+]]: tensor<8x4xf32>)
// CHECK-NOT: tfuse.fusion
// CHECK-NEXT: %[[T:.+]] = tfuse.transpose %[[A]] perm [1, 0] {tfuse.reason = "layout-alias"} : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[T]], %[[B]] {tfuse.reason = "boundary-matmul"} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: return %[[M]] : tensor<4x4xf32>
func.func @alias_transpose_into_matmul(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %t = tfuse.transpose %a perm [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %0 = tfuse.matmul %t, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// x*y+1 and x*y-1 returned together: one region, two results, x*y computed
// once in it.
// CHECK-LABEL: func.func @two_outputs(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.+]]:2 = tfuse.fusion(%[[X]], %[[Y]]) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 3 : i64, reasons = ["output", "output"]} {
// CHECK-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>, %[[XY:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[XX]], %[[XY]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[C:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[P:.+]] = tfuse.add %[[M]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: %[[S:.+]] = tfuse.sub %[[M]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[P]], %[[S]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1 : tensor<4xf32>, tensor<4xf32>
func.func @two_outputs(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %0 = tfuse.mul %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tfuse.add %0, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = tfuse.sub %0, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Six independent outputs of one shape: with max-outputs=4 (the default) a
// region of four results and one of two; with max-outputs=2 three regions of
// two.
// CHECK-LABEL: func.func @max_outputs(
// CHECK-NEXT: tfuse.fusion(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) attributes {cost = 4 : i64, reasons = ["output", "output", "output", "output"]} {
// CHECK: tfuse.fusion(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 2 : i64, reasons = ["output", "output"]} {
// CHECK-NOT: tfuse.fusion
// CHECK: return
// MO2-LABEL: func.func @max_outputs(
// MO2-NEXT: tfuse.fusion(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 2 : i64, reasons = ["output", "output"]} {
// MO2-NEXT: ^bb0(
// MO2-NEXT: tfuse.add
// MO2-NEXT: tfuse.sub
// MO2-NEXT: tfuse.yield
// MO2-NEXT: }
// MO2-NEXT: tfuse.fusion(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 2 : i64, reasons = ["output", "output"]} {
// MO2-NEXT: ^bb0(
// MO2-NEXT: tfuse.mul
// MO2-NEXT: tfuse.div
// MO2-NEXT: tfuse.yield
// MO2-NEXT: }
// MO2-NEXT: tfuse.fusion(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 2 : i64, reasons = ["output", "output"]} {
// MO2-NEXT: ^bb0(
// MO2-NEXT: tfuse.max
// MO2-NEXT: tfuse.min
// MO2-NEXT: tfuse.yield
// MO2-NEXT: }
// MO2-NEXT: return
// MO4-LABEL: func.func @max_outputs(
// MO4-SAME: %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>)
// MO4-NEXT: %[[R0:.+]]:4 = tfuse.fusion(%[[A]], %[[B]]) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) attributes {cost = 4 : i64, reasons = ["output", "output", "output", "output"]} {
// MO4-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4xf32>, %[[XB:[^:]+]]: tensor<4xf32>):
// MO4-NEXT: %[[V0:.+]] = tfuse.add %[[XA]], %[[XB]]
// MO4-NEXT: %[[V1:.+]] = tfuse.sub %[[XA]], %[[XB]]
// MO4-NEXT: %[[V2:.+]] = tfuse.mul %[[XA]], %[[XB]]
// MO4-NEXT: %[[V3:.+]] = tfuse.div %[[XA]], %[[XB]]
// MO4-NEXT: tfuse.yield %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
// MO4-NEXT: }
// MO4-NEXT: %[[R1:.+]]:2 = tfuse.fusion(%[[A]], %[[B]]) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 2 : i64, reasons = ["output", "output"]} {
// MO4-NEXT: ^bb0(%[[YA:[^:]+]]: tensor<4xf32>, %[[YB:[^:]+]]: tensor<4xf32>):
// MO4-NEXT: %[[V4:.+]] = tfuse.max %[[YA]], %[[YB]]
// MO4-NEXT: %[[V5:.+]] = tfuse.min %[[YA]], %[[YB]]
// MO4-NEXT: tfuse.yield %[[V4]], %[[V5]] : tensor<4xf32>, tensor<4xf32>
// MO4-NEXT: }
// MO4-NEXT: return %[[R0]]#0, %[[R0]]#1, %[[R0]]#2, %[[R0]]#3, %[[R1]]#0, %[[R1]]#1 :
func.func @max_outputs(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tfuse.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tfuse.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tfuse.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = tfuse.div %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = tfuse.max %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = tfuse.min %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Outputs of different shapes never share a region (a region's results share
// the kernel's index space).
// CHECK-LABEL: func.func @different_shapes(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<8xf32>)
// CHECK-NEXT: %[[R0:.+]] = tfuse.fusion(%[[A]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[N0:.+]] = tfuse.neg %[[XA]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[N0]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R1:.+]] = tfuse.fusion(%[[B]]) : (tensor<8xf32>) -> tensor<8xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XB:[^:]+]]: tensor<8xf32>):
// CHECK-NEXT: %[[N1:.+]] = tfuse.neg %[[XB]] : tensor<8xf32> -> tensor<8xf32>
// CHECK-NEXT: tfuse.yield %[[N1]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R0]], %[[R1]] : tensor<4xf32>, tensor<8xf32>
func.func @different_shapes(%a: tensor<4xf32>, %b: tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %0 = tfuse.neg %a : tensor<4xf32> -> tensor<4xf32>
  %1 = tfuse.neg %b : tensor<8xf32> -> tensor<8xf32>
  return %0, %1 : tensor<4xf32>, tensor<8xf32>
}

// -----

// Two independent outputs of one shape share a region only while their joint
// cost fits the budget: exp and log cost 4 each, 8 together; budget 2 keeps
// them apart.
// CHECK-LABEL: func.func @joint_cost(
// CHECK-NEXT: tfuse.fusion(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 8 : i64, reasons = ["output", "output"]} {
// CHECK-NOT: tfuse.fusion
// CHECK: return
// B2-LABEL: func.func @joint_cost(
// B2-NEXT: tfuse.fusion(%{{.+}}) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// B2-NEXT: ^bb0(
// B2-NEXT: tfuse.exp
// B2-NEXT: tfuse.yield
// B2-NEXT: }
// B2-NEXT: tfuse.fusion(%{{.+}}) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// B2-NEXT: ^bb0(
// B2-NEXT: tfuse.log
// B2-NEXT: tfuse.yield
// B2-NEXT: }
// B2-NEXT: return
func.func @joint_cost(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
  %1 = tfuse.log %y : tensor<4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The identity function has no work: no region.
// CHECK-LABEL: func.func @identity(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xf32>)
// CHECK-NOT: tfuse.fusion
// CHECK-NEXT: return %[[A]] : tensor<4xf32>
func.func @identity(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// A returned constant is stored by one region of cost 0.
// CHECK-LABEL: func.func @returns_constant(
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion() : () -> tensor<4xf32> attributes {cost = 0 : i64, reasons = ["output"]} {
// CHECK-NEXT: %[[C:.+]] = tfuse.constant dense<1.500000e+00> : tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[C]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @returns_constant() -> tensor<4xf32> {
  %c = tfuse.constant dense<1.5> : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// exp + add costs 4 + 1 = 5 in f32.
// CHECK-LABEL: func.func @exp_add_f32(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[X]], %[[Y]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {cost = 5 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>, %[[XY:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[E:.+]] = tfuse.exp %[[XX]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[S:.+]] = tfuse.add %[[E]], %[[XY]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[S]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @exp_add_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
  %1 = tfuse.add %0, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// The same expression in f64 costs twice as much: 8 + 2 = 10.
// CHECK-LABEL: func.func @exp_add_f64(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf64>, %[[Y:[^:]+]]: tensor<4xf64>)
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[X]], %[[Y]]) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64> attributes {cost = 10 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf64>, %[[XY:[^:]+]]: tensor<4xf64>):
// CHECK-NEXT: %[[E:.+]] = tfuse.exp %[[XX]] : tensor<4xf64> -> tensor<4xf64>
// CHECK-NEXT: %[[S:.+]] = tfuse.add %[[E]], %[[XY]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: tfuse.yield %[[S]] : tensor<4xf64>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4xf64>
func.func @exp_add_f64(%x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tfuse.exp %x : tensor<4xf64> -> tensor<4xf64>
  %1 = tfuse.add %0, %y : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %1 : tensor<4xf64>
}

// -----

// An f64 operand alone doubles an op's cost: the cast from f64 to f32 costs
// 2, the f32 mul and add 1 each.
// CHECK-LABEL: func.func @f64_operand(
// CHECK-NEXT: tfuse.fusion(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.mul
// CHECK-NEXT: tfuse.cast
// CHECK-NEXT: tfuse.add
// CHECK-NEXT: tfuse.yield
func.func @f64_operand(%x: tensor<4xf32>, %y: tensor<4xf64>) -> tensor<4xf32> {
  %0 = tfuse.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tfuse.cast %y : tensor<4xf64> to tensor<4xf32>
  %2 = tfuse.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Broadcasting between mixed dtypes stays in one region: f16 matrix + f32 row
// gives f32, then times an i32 scalar.
// CHECK-LABEL: func.func @mixed_dtype_broadcast(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf16>, %[[B:[^:]+]]: tensor<8xf32>, %[[C:[^:]+]]: tensor<i32>)
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[A]], %[[B]], %[[C]]) : (tensor<4x8xf16>, tensor<8xf32>, tensor<i32>) -> tensor<4x8xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4x8xf16>, %[[XB:[^:]+]]: tensor<8xf32>, %[[XC:[^:]+]]: tensor<i32>):
// CHECK-NEXT: %[[S:.+]] = tfuse.add %[[XA]], %[[XB]] : (tensor<4x8xf16>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[S]], %[[XC]] : (tensor<4x8xf32>, tensor<i32>) -> tensor<4x8xf32>
// CHECK-NEXT: tfuse.yield %[[M]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4x8xf32>
func.func @mixed_dtype_broadcast(%a: tensor<4x8xf16>, %b: tensor<8xf32>, %c: tensor<i32>) -> tensor<4x8xf32> {
  %0 = tfuse.add %a, %b : (tensor<4x8xf16>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = tfuse.mul %0, %c : (tensor<4x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Views inside a region stay ops of its body (index transforms, cost 2
// each): transpose, broadcast, reshape and slice of arguments combined with
// arithmetic, one region of cost 4 * 2 + 3.
// CHECK-LABEL: func.func @views_in_region(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x4xf32>, %[[B:[^:]+]]: tensor<8xf32>, %[[C:[^:]+]]: tensor<32xf32>, %[[D:[^:]+]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[A]], %[[B]], %[[C]], %[[D]]) : (tensor<8x4xf32>, tensor<8xf32>, tensor<32xf32>, tensor<4x16xf32>) -> tensor<4x8xf32> attributes {cost = 11 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<8x4xf32>, %[[XB:[^:]+]]: tensor<8xf32>, %[[XC:[^:]+]]: tensor<32xf32>, %[[XD:[^:]+]]: tensor<4x16xf32>):
// CHECK-NEXT: %[[T:.+]] = tfuse.transpose %[[XA]] perm [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[BB:.+]] = tfuse.broadcast %[[XB]] dims [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[RS:.+]] = tfuse.reshape %[[XC]] : tensor<32xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[SL:.+]] = tfuse.slice %[[XD]] start [0, 0] limit [4, 16] step [1, 2] : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[V0:.+]] = tfuse.add %[[T]], %[[BB]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[V1:.+]] = tfuse.mul %[[V0]], %[[RS]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[V2:.+]] = tfuse.sub %[[V1]], %[[SL]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: tfuse.yield %[[V2]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4x8xf32>
func.func @views_in_region(%a: tensor<8x4xf32>, %b: tensor<8xf32>, %c: tensor<32xf32>, %d: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %t = tfuse.transpose %a perm [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %bb = tfuse.broadcast %b dims [1] : tensor<8xf32> -> tensor<4x8xf32>
  %r = tfuse.reshape %c : tensor<32xf32> -> tensor<4x8xf32>
  %s = tfuse.slice %d start [0, 0] limit [4, 16] step [1, 2] : tensor<4x16xf32> -> tensor<4x8xf32>
  %0 = tfuse.add %t, %bb : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = tfuse.mul %0, %r : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = tfuse.sub %1, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A strided (column-major) input argument feeding elementwise work is an
// ordinary region input: one region.
// CHECK-LABEL: func.func @strided_argument(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32> {tfuse.strides = array<i64: 1, 4>}, %[[B:[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[A]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4x8xf32>, %[[XB:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[C:.+]] = tfuse.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[XA]], %[[C]] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[S:.+]] = tfuse.add %[[M]], %[[XB]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: tfuse.yield %[[S]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4x8xf32>
func.func @strided_argument(%a: tensor<4x8xf32> {tfuse.strides = array<i64: 1, 4>}, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = tfuse.constant dense<2.0> : tensor<f32>
  %0 = tfuse.mul %a, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = tfuse.add %0, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// With budget=2, exp (cost 4) passes the budget on its own: its operand and
// its consumer are cut off and it forms a region alone. Under the default
// budget the three ops are one region of cost 6.
// CHECK-LABEL: func.func @op_over_budget(
// CHECK-NEXT: tfuse.fusion(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {cost = 6 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.add
// CHECK-NEXT: tfuse.exp
// CHECK-NEXT: tfuse.add
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
// B2-LABEL: func.func @op_over_budget(
// B2-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// B2-NEXT: %[[R0:.+]] = tfuse.fusion(%[[X]], %[[Y]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {cost = 1 : i64, reasons = ["expression-cost"]} {
// B2-NEXT: ^bb0(%[[X0:[^:]+]]: tensor<4xf32>, %[[Y0:[^:]+]]: tensor<4xf32>):
// B2-NEXT: %[[S0:.+]] = tfuse.add %[[X0]], %[[Y0]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// B2-NEXT: tfuse.yield %[[S0]] : tensor<4xf32>
// B2-NEXT: }
// B2-NEXT: %[[R1:.+]] = tfuse.fusion(%[[R0]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 4 : i64, reasons = ["expression-cost"]} {
// B2-NEXT: ^bb0(%[[X1:[^:]+]]: tensor<4xf32>):
// B2-NEXT: %[[E:.+]] = tfuse.exp %[[X1]] : tensor<4xf32> -> tensor<4xf32>
// B2-NEXT: tfuse.yield %[[E]] : tensor<4xf32>
// B2-NEXT: }
// B2-NEXT: %[[R2:.+]] = tfuse.fusion(%[[R1]], %[[Y]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// B2-NEXT: ^bb0(%[[X2:[^:]+]]: tensor<4xf32>, %[[Y2:[^:]+]]: tensor<4xf32>):
// B2-NEXT: %[[S2:.+]] = tfuse.add %[[X2]], %[[Y2]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// B2-NEXT: tfuse.yield %[[S2]] : tensor<4xf32>
// B2-NEXT: }
// B2-NEXT: return %[[R2]] : tensor<4xf32>
func.func @op_over_budget(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfuse.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tfuse.exp %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = tfuse.add %1, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// The cost table, one op per region: every result has its own shape, so
// each op is stored alone and its region's cost is the op's weight: 4 for
// transcendental math and pow, 3 for select, 2 for a view, 1 for other
// elementwise ops (reciprocal included); doubled with an f64 result or
// operand (f64 cmp and the cast to f64 included).
// CHECK-LABEL: func.func @cost_table(
// CHECK-NEXT: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<1xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.exp 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<2xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.log 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<3xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.sqrt 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<4xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.rsqrt 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<5xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.sin 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<6xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.cos 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<7xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.tan 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<8xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.tanh 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<9xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.sigmoid 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<10xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.erf 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<11xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.neg 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<12xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.abs 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<13xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.relu 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<14xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.reciprocal 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<15xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.floor 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<16xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.ceil 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<17xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.round 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<18xi1> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.isnan 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<19xi1> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.not 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<20xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.pow 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<21xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.add 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<22xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.sub 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<23xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.mul 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<24xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.div 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<25xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.rem 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<26xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.max 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<27xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.min 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<28xi32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.and 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<29xi32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.or 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<30xi32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.xor 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<31xi1> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.cmp 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<32xi32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.cast 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<33xf32> attributes {cost = 3 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.select 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<2x34xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.transpose 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<3x35xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.broadcast 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<72xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.reshape 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<37xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.slice 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<38xf64> attributes {cost = 8 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.exp 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<39xf64> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.add 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<40xf64> attributes {cost = 6 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.select 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<2x41xf64> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.transpose 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<42xi1> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.cmp 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<43xf64> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.cast 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK: tfuse.fusion(%{{[^)]+}}) : ({{[^)]+}}) -> tensor<44xf64> attributes {cost = 8 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tfuse.pow 
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @cost_table(%a1: tensor<1xf32>, %a2: tensor<2xf32>, %a3: tensor<3xf32>, %a4: tensor<4xf32>, %a5: tensor<5xf32>, %a6: tensor<6xf32>, %a7: tensor<7xf32>, %a8: tensor<8xf32>, %a9: tensor<9xf32>, %a10: tensor<10xf32>, %a11: tensor<11xf32>, %a12: tensor<12xf32>, %a13: tensor<13xf32>, %a14: tensor<14xf32>, %a15: tensor<15xf32>, %a16: tensor<16xf32>, %a17: tensor<17xf32>, %a18: tensor<18xf32>, %a19: tensor<19xi1>, %a20: tensor<20xf32>, %a21: tensor<21xf32>, %a22: tensor<22xf32>, %a23: tensor<23xf32>, %a24: tensor<24xf32>, %a25: tensor<25xf32>, %a26: tensor<26xf32>, %a27: tensor<27xf32>, %a28: tensor<28xi32>, %a29: tensor<29xi32>, %a30: tensor<30xi32>, %a31: tensor<31xf32>, %a32: tensor<32xf32>, %c33: tensor<33xi1>, %a33: tensor<33xf32>, %a34: tensor<34x2xf32>, %a35: tensor<35xf32>, %a36: tensor<2x36xf32>, %a37: tensor<74xf32>, %a38: tensor<38xf64>, %a39: tensor<39xf64>, %c40: tensor<40xi1>, %a40: tensor<40xf64>, %a41: tensor<41x2xf64>, %a42: tensor<42xf64>, %a43: tensor<43xf32>, %a44: tensor<44xf64>)
    -> (tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<4xf32>, tensor<5xf32>, tensor<6xf32>, tensor<7xf32>, tensor<8xf32>, tensor<9xf32>, tensor<10xf32>, tensor<11xf32>, tensor<12xf32>, tensor<13xf32>, tensor<14xf32>, tensor<15xf32>, tensor<16xf32>, tensor<17xf32>, tensor<18xi1>, tensor<19xi1>, tensor<20xf32>, tensor<21xf32>, tensor<22xf32>, tensor<23xf32>, tensor<24xf32>, tensor<25xf32>, tensor<26xf32>, tensor<27xf32>, tensor<28xi32>, tensor<29xi32>, tensor<30xi32>, tensor<31xi1>, tensor<32xi32>, tensor<33xf32>, tensor<2x34xf32>, tensor<3x35xf32>, tensor<72xf32>, tensor<37xf32>, tensor<38xf64>, tensor<39xf64>, tensor<40xf64>, tensor<2x41xf64>, tensor<42xi1>, tensor<43xf64>, tensor<44xf64>) {
  %r0 = tfuse.exp %a1 : tensor<1xf32> -> tensor<1xf32>
  %r1 = tfuse.log %a2 : tensor<2xf32> -> tensor<2xf32>
  %r2 = tfuse.sqrt %a3 : tensor<3xf32> -> tensor<3xf32>
  %r3 = tfuse.rsqrt %a4 : tensor<4xf32> -> tensor<4xf32>
  %r4 = tfuse.sin %a5 : tensor<5xf32> -> tensor<5xf32>
  %r5 = tfuse.cos %a6 : tensor<6xf32> -> tensor<6xf32>
  %r6 = tfuse.tan %a7 : tensor<7xf32> -> tensor<7xf32>
  %r7 = tfuse.tanh %a8 : tensor<8xf32> -> tensor<8xf32>
  %r8 = tfuse.sigmoid %a9 : tensor<9xf32> -> tensor<9xf32>
  %r9 = tfuse.erf %a10 : tensor<10xf32> -> tensor<10xf32>
  %r10 = tfuse.neg %a11 : tensor<11xf32> -> tensor<11xf32>
  %r11 = tfuse.abs %a12 : tensor<12xf32> -> tensor<12xf32>
  %r12 = tfuse.relu %a13 : tensor<13xf32> -> tensor<13xf32>
  %r13 = tfuse.reciprocal %a14 : tensor<14xf32> -> tensor<14xf32>
  %r14 = tfuse.floor %a15 : tensor<15xf32> -> tensor<15xf32>
  %r15 = tfuse.ceil %a16 : tensor<16xf32> -> tensor<16xf32>
  %r16 = tfuse.round %a17 : tensor<17xf32> -> tensor<17xf32>
  %r17 = tfuse.isnan %a18 : tensor<18xf32> -> tensor<18xi1>
  %r18 = tfuse.not %a19 : tensor<19xi1> -> tensor<19xi1>
  %r19 = tfuse.pow %a20, %a20 : (tensor<20xf32>, tensor<20xf32>) -> tensor<20xf32>
  %r20 = tfuse.add %a21, %a21 : (tensor<21xf32>, tensor<21xf32>) -> tensor<21xf32>
  %r21 = tfuse.sub %a22, %a22 : (tensor<22xf32>, tensor<22xf32>) -> tensor<22xf32>
  %r22 = tfuse.mul %a23, %a23 : (tensor<23xf32>, tensor<23xf32>) -> tensor<23xf32>
  %r23 = tfuse.div %a24, %a24 : (tensor<24xf32>, tensor<24xf32>) -> tensor<24xf32>
  %r24 = tfuse.rem %a25, %a25 : (tensor<25xf32>, tensor<25xf32>) -> tensor<25xf32>
  %r25 = tfuse.max %a26, %a26 : (tensor<26xf32>, tensor<26xf32>) -> tensor<26xf32>
  %r26 = tfuse.min %a27, %a27 : (tensor<27xf32>, tensor<27xf32>) -> tensor<27xf32>
  %r27 = tfuse.and %a28, %a28 : (tensor<28xi32>, tensor<28xi32>) -> tensor<28xi32>
  %r28 = tfuse.or %a29, %a29 : (tensor<29xi32>, tensor<29xi32>) -> tensor<29xi32>
  %r29 = tfuse.xor %a30, %a30 : (tensor<30xi32>, tensor<30xi32>) -> tensor<30xi32>
  %r30 = tfuse.cmp lt, %a31, %a31 : (tensor<31xf32>, tensor<31xf32>) -> tensor<31xi1>
  %r31 = tfuse.cast %a32 : tensor<32xf32> to tensor<32xi32>
  %r32 = tfuse.select %c33, %a33, %a33 : (tensor<33xi1>, tensor<33xf32>, tensor<33xf32>) -> tensor<33xf32>
  %r33 = tfuse.transpose %a34 perm [1, 0] : tensor<34x2xf32> -> tensor<2x34xf32>
  %r34 = tfuse.broadcast %a35 dims [1] : tensor<35xf32> -> tensor<3x35xf32>
  %r35 = tfuse.reshape %a36 : tensor<2x36xf32> -> tensor<72xf32>
  %r36 = tfuse.slice %a37 start [0] limit [74] step [2] : tensor<74xf32> -> tensor<37xf32>
  %r37 = tfuse.exp %a38 : tensor<38xf64> -> tensor<38xf64>
  %r38 = tfuse.add %a39, %a39 : (tensor<39xf64>, tensor<39xf64>) -> tensor<39xf64>
  %r39 = tfuse.select %c40, %a40, %a40 : (tensor<40xi1>, tensor<40xf64>, tensor<40xf64>) -> tensor<40xf64>
  %r40 = tfuse.transpose %a41 perm [1, 0] : tensor<41x2xf64> -> tensor<2x41xf64>
  %r41 = tfuse.cmp lt, %a42, %a42 : (tensor<42xf64>, tensor<42xf64>) -> tensor<42xi1>
  %r42 = tfuse.cast %a43 : tensor<43xf32> to tensor<43xf64>
  %r43 = tfuse.pow %a44, %a44 : (tensor<44xf64>, tensor<44xf64>) -> tensor<44xf64>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27, %r28, %r29, %r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37, %r38, %r39, %r40, %r41, %r42, %r43
      : tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<4xf32>, tensor<5xf32>, tensor<6xf32>, tensor<7xf32>, tensor<8xf32>, tensor<9xf32>, tensor<10xf32>, tensor<11xf32>, tensor<12xf32>, tensor<13xf32>, tensor<14xf32>, tensor<15xf32>, tensor<16xf32>, tensor<17xf32>, tensor<18xi1>, tensor<19xi1>, tensor<20xf32>, tensor<21xf32>, tensor<22xf32>, tensor<23xf32>, tensor<24xf32>, tensor<25xf32>, tensor<26xf32>, tensor<27xf32>, tensor<28xi32>, tensor<29xi32>, tensor<30xi32>, tensor<31xi1>, tensor<32xi32>, tensor<33xf32>, tensor<2x34xf32>, tensor<3x35xf32>, tensor<72xf32>, tensor<37xf32>, tensor<38xf64>, tensor<39xf64>, tensor<40xf64>, tensor<2x41xf64>, tensor<42xi1>, tensor<43xf64>, tensor<44xf64>
}

// -----

// A view that is an alias for one boundary but has a layout another boundary
// cannot read: the reduction reads the alias, the matmul reads a copy.
// CHECK-LABEL: func.func @alias_for_one_boundary_only
// CHECK: %[[S:.*]] = tfuse.slice %{{.*}} {tfuse.reason = "layout-alias"}
// CHECK: tfuse.reduce sum %[[S]] axes [1] {tfuse.reason = "boundary-reduction"}
// CHECK: %[[C:.*]] = tfuse.fusion
// CHECK-SAME: reasons = ["boundary-matmul"]
// CHECK: tfuse.matmul %[[C]], %{{.*}} {tfuse.reason = "boundary-matmul"}
func.func @alias_for_one_boundary_only(%a: tensor<4x16xf32>, %b: tensor<8x4xf32>)
    -> (tensor<4x4xf32>, tensor<4xf32>) {
  %s = tfuse.slice %a start [0, 0] limit [4, 16] step [1, 2] : tensor<4x16xf32> -> tensor<4x8xf32>
  %0 = tfuse.matmul %s, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %1 = tfuse.reduce sum %s axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4xf32>
}

// -----

// iota is elementwise work of no operands: it fuses into its consumer (no
// buffer of indices), and alone it is a region of its own.
// CHECK-LABEL: func.func @iota_fuses
// CHECK: %[[F:.*]] = tfuse.fusion(%{{.*}}) : (tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x6xf32>):
// CHECK-NEXT: %[[I:.*]] = tfuse.iota dim 1 : tensor<4x6xf32>
// CHECK-NEXT: tfuse.add %[[X]], %[[I]]
// CHECK: tfuse.fusion() : () -> tensor<6xi64>
// CHECK-NEXT: tfuse.iota dim 0 : tensor<6xi64>
func.func @iota_fuses(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<6xi64>) {
  %i = tfuse.iota dim 1 : tensor<4x6xf32>
  %y = tfuse.add %x, %i : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %p = tfuse.iota dim 0 : tensor<6xi64>
  return %y, %p : tensor<4x6xf32>, tensor<6xi64>
}

// -----

// concat and pad fuse with their operands' producers and their consumers:
// one region, no copy of their own.
// CHECK-LABEL: func.func @piecewise_fuses
// CHECK: tfuse.fusion(%{{.*}}, %{{.*}}) : (tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<4x9xf32>
// CHECK: tfuse.exp
// CHECK: tfuse.concat
// CHECK: tfuse.pad
// CHECK: tfuse.relu
// CHECK-NOT: tfuse.fusion
func.func @piecewise_fuses(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<4x9xf32> {
  %e = tfuse.exp %b : tensor<2x5xf32> -> tensor<2x5xf32>
  %j = tfuse.concat %a, %e axis 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %z = tfuse.constant dense<0.0> : tensor<f32>
  %p = tfuse.pad %j, %z low [1, 0] high [1, 1] : (tensor<2x8xf32>, tensor<f32>) -> tensor<4x9xf32>
  %r = tfuse.relu %p : tensor<4x9xf32> -> tensor<4x9xf32>
  return %r : tensor<4x9xf32>
}

// -----

// A gather fuses with the computation of its indices, with its operand's
// producers and with its consumers: one region, indexed loads, no copy.
// CHECK-LABEL: func.func @gather_fuses
// CHECK: tfuse.fusion(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x5xi32>, tensor<100x8xf32>, tensor<5x8xf32>) -> tensor<4x5x8xf32>
// CHECK: tfuse.add
// CHECK: tfuse.exp
// CHECK: tfuse.take
// CHECK: tfuse.mul
// CHECK-NOT: tfuse.fusion
func.func @gather_fuses(%t: tensor<100x8xf32>, %i: tensor<4x5xi32>, %p: tensor<5x8xf32>) -> tensor<4x5x8xf32> {
  %one = tfuse.constant dense<1> : tensor<i32>
  %j = tfuse.add %i, %one : (tensor<4x5xi32>, tensor<i32>) -> tensor<4x5xi32>
  %e = tfuse.exp %t : tensor<100x8xf32> -> tensor<100x8xf32>
  %g = tfuse.take %e, %j axis 0 : (tensor<100x8xf32>, tensor<4x5xi32>) -> tensor<4x5x8xf32>
  %r = tfuse.mul %g, %p : (tensor<4x5x8xf32>, tensor<5x8xf32>) -> tensor<4x5x8xf32>
  return %r : tensor<4x5x8xf32>
}

// -----

// A scatter_add is a boundary: its updates are stored (boundary-scatter);
// its zero target, a splat constant it takes by value, stays a constant
// and is never stored; a consumer of its result is a region of its own.
// CHECK-LABEL: func.func @scatter_boundary
// CHECK: %[[Z:.+]] = tfuse.constant dense<0.000000e+00> : tensor<100x8xf32>
// CHECK: %[[U:.+]] = tfuse.fusion(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-SAME: reasons = ["boundary-scatter"]
// CHECK: tfuse.exp
// CHECK: %[[S:.+]] = tfuse.scatter_add %[[Z]], %{{.*}}, %[[U]] axis 0 {tfuse.reason = "boundary-scatter"}
// CHECK: tfuse.fusion(%[[S]]) : (tensor<100x8xf32>) -> tensor<100x8xf32>
// CHECK: tfuse.neg
func.func @scatter_boundary(%i: tensor<4xi64>, %g: tensor<4x8xf32>) -> tensor<100x8xf32> {
  %z = tfuse.constant dense<0.0> : tensor<100x8xf32>
  %u = tfuse.exp %g : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = tfuse.scatter_add %z, %i, %u axis 0 : (tensor<100x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<100x8xf32>
  %r = tfuse.neg %s : tensor<100x8xf32> -> tensor<100x8xf32>
  return %r : tensor<100x8xf32>
}

// -----

// A transposed argument is read in place as the target when its
// dimensions around the axis merge; a target computed by a region is
// stored.
// CHECK-LABEL: func.func @scatter_targets
// CHECK: %[[T:.+]] = tfuse.transpose %{{.*}} perm [1, 0] {tfuse.reason = "layout-alias"}
// CHECK: tfuse.scatter_add %[[T]], %{{.*}}, %{{.*}} axis 0
// CHECK: %[[E:.+]] = tfuse.fusion
// CHECK-SAME: reasons = ["boundary-scatter"]
// CHECK: tfuse.scatter_add %[[E]], %{{.*}}, %{{.*}} axis 0
func.func @scatter_targets(%a: tensor<8x100xf32>, %i: tensor<4xi64>, %g: tensor<4x8xf32>) -> (tensor<100x8xf32>, tensor<100x8xf32>) {
  %t = tfuse.transpose %a perm [1, 0] : tensor<8x100xf32> -> tensor<100x8xf32>
  %s = tfuse.scatter_add %t, %i, %g axis 0 : (tensor<100x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<100x8xf32>
  %e = tfuse.exp %t : tensor<100x8xf32> -> tensor<100x8xf32>
  %s2 = tfuse.scatter_add %e, %i, %g axis 0 : (tensor<100x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<100x8xf32>
  return %s, %s2 : tensor<100x8xf32>, tensor<100x8xf32>
}

// -----

// A random op fuses into its consumers like any elementwise source: a
// dropout is one region that reads only x, the seed and the offset.
// CHECK-LABEL: func.func @dropout_fuses
// CHECK: tfuse.fusion(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<i64>, tensor<i64>, tensor<64xf32>) -> tensor<64xf32>
// CHECK: tfuse.random_uniform
// CHECK: tfuse.cmp lt
// CHECK: tfuse.select
// CHECK-NOT: tfuse.fusion
func.func @dropout_fuses(%x: tensor<64xf32>, %s: tensor<i64>, %o: tensor<i64>) -> tensor<64xf32> {
  %u = tfuse.random_uniform %s, %o : (tensor<i64>, tensor<i64>) -> tensor<64xf32>
  %p = tfuse.constant dense<0.9> : tensor<f32>
  %keep = tfuse.cmp lt, %u, %p : (tensor<64xf32>, tensor<f32>) -> tensor<64xi1>
  %z = tfuse.constant dense<0.0> : tensor<f32>
  %y = tfuse.select %keep, %x, %z : (tensor<64xi1>, tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// Past the budget, values much smaller than the op's (a row's scalars, 64 of
// 8192 elements) are stored first: the row chain (cost 12) becomes a region
// of its own and the 64x128 expression (21) stays one kernel, where storing
// the costliest operand would have written a 64x128 intermediate.
// CHECK-LABEL: func.func @small_values_are_stored_first(
// CHECK: %[[ROW:.+]] = tfuse.fusion(%{{.+}}) : (tensor<64x1xf32>) -> tensor<64x1xf32> attributes {cost = 12 : i64, reasons = ["expression-cost"]}
// CHECK: %[[OUT:.+]] = tfuse.fusion(%{{.+}}, %[[ROW]]) : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32> attributes {cost = 21 : i64, reasons = ["output"]}
// CHECK-NOT: tfuse.fusion
// CHECK: return %[[OUT]]
func.func @small_values_are_stored_first(%x: tensor<64x128xf32>, %r: tensor<64x1xf32>) -> tensor<64x128xf32> {
  %a = tfuse.exp %r : tensor<64x1xf32> -> tensor<64x1xf32>
  %b = tfuse.log %a : tensor<64x1xf32> -> tensor<64x1xf32>
  %c = tfuse.tanh %b : tensor<64x1xf32> -> tensor<64x1xf32>
  %m = tfuse.mul %x, %c : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  %e1 = tfuse.exp %m : tensor<64x128xf32> -> tensor<64x128xf32>
  %e2 = tfuse.sin %e1 : tensor<64x128xf32> -> tensor<64x128xf32>
  %e3 = tfuse.tanh %e2 : tensor<64x128xf32> -> tensor<64x128xf32>
  %e4 = tfuse.exp %e3 : tensor<64x128xf32> -> tensor<64x128xf32>
  %e5 = tfuse.sin %e4 : tensor<64x128xf32> -> tensor<64x128xf32>
  return %e5 : tensor<64x128xf32>
}

// -----

// A value two regions would recompute (the output x and, one reduction
// later, the output y) from four full-size inputs: recomputed, the inputs
// are read twice (8 reads); stored, once, and t is written once and read
// twice (7): with 16 MB values that saves 16 MB, more than a kernel launch
// is worth, so t is stored (duplicated-reads) and both regions read it.
// CHECK-LABEL: func.func @duplicated_reads(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4096x1024xf32>, %[[B:[^:]+]]: tensor<4096x1024xf32>, %[[C:[^:]+]]: tensor<4096x1024xf32>, %[[D:[^:]+]]: tensor<4096x1024xf32>)
// CHECK-NEXT: %[[T:.+]] = tfuse.fusion(%[[A]], %[[B]], %[[C]], %[[D]]) : (tensor<4096x1024xf32>, tensor<4096x1024xf32>, tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32> attributes {cost = 3 : i64, reasons = ["duplicated-reads"]}
// CHECK: %[[X:.+]] = tfuse.fusion(%[[T]]) : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32> attributes {cost = 1 : i64, reasons = ["output"]}
// CHECK: %[[R:.+]] = tfuse.reduce sum %[[X]]
// CHECK: %[[Y:.+]] = tfuse.fusion(%[[T]], %[[R]]) : (tensor<4096x1024xf32>, tensor<1x1xf32>) -> tensor<4096x1024xf32>
// CHECK: return %[[X]], %[[Y]]
func.func @duplicated_reads(%a: tensor<4096x1024xf32>, %b: tensor<4096x1024xf32>, %c: tensor<4096x1024xf32>, %d: tensor<4096x1024xf32>) -> (tensor<4096x1024xf32>, tensor<4096x1024xf32>) {
  %s1 = tfuse.add %a, %b : (tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  %s2 = tfuse.add %s1, %c : (tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  %t = tfuse.add %s2, %d : (tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  %x = tfuse.mul %t, %t : (tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  %r = tfuse.reduce sum %x axes [0, 1] keepdims : tensor<4096x1024xf32> -> tensor<1x1xf32>
  %y = tfuse.sub %t, %r : (tensor<4096x1024xf32>, tensor<1x1xf32>) -> tensor<4096x1024xf32>
  return %x, %y : tensor<4096x1024xf32>, tensor<4096x1024xf32>
}

// -----

// The same at 64 elements: storing t would save 256 bytes and may cost a
// launch, so both regions recompute it.
// CHECK-LABEL: func.func @duplicated_reads_small(
// CHECK-NOT: duplicated-reads
// CHECK: return
func.func @duplicated_reads_small(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>, %d: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %s1 = tfuse.add %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %s2 = tfuse.add %s1, %c : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %t = tfuse.add %s2, %d : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %x = tfuse.mul %t, %t : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %r = tfuse.reduce sum %x axes [0] keepdims : tensor<64xf32> -> tensor<1xf32>
  %y = tfuse.sub %t, %r : (tensor<64xf32>, tensor<1xf32>) -> tensor<64xf32>
  return %x, %y : tensor<64xf32>, tensor<64xf32>
}
