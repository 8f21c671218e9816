; ModuleID = 'k.ptx'
source_filename = "k.ptx"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(i64 %0, i64 %1) {
entry:
  %param0 = alloca i64, align 8
  store i64 %0, ptr %param0, align 8
  %param1 = alloca i64, align 8
  store i64 %1, ptr %param1, align 8
  %p0 = alloca i1, align 1
  %p1 = alloca i1, align 1
  %p2 = alloca i1, align 1
  %p3 = alloca i1, align 1
  %h0 = alloca i16, align 2
  %h1 = alloca i16, align 2
  %h2 = alloca i16, align 2
  %h3 = alloca i16, align 2
  %r0 = alloca i32, align 4
  %r1 = alloca i32, align 4
  %r2 = alloca i32, align 4
  %r3 = alloca i32, align 4
  %r4 = alloca i32, align 4
  %r5 = alloca i32, align 4
  %r6 = alloca i32, align 4
  %r7 = alloca i32, align 4
  %r8 = alloca i32, align 4
  %r9 = alloca i32, align 4
  %r10 = alloca i32, align 4
  %r11 = alloca i32, align 4
  %r12 = alloca i32, align 4
  %r13 = alloca i32, align 4
  %r14 = alloca i32, align 4
  %r15 = alloca i32, align 4
  %rd0 = alloca i64, align 8
  %rd1 = alloca i64, align 8
  %rd2 = alloca i64, align 8
  %rd3 = alloca i64, align 8
  %rd4 = alloca i64, align 8
  %rd5 = alloca i64, align 8
  %rd6 = alloca i64, align 8
  %rd7 = alloca i64, align 8
  %rd8 = alloca i64, align 8
  %rd9 = alloca i64, align 8
  %rd10 = alloca i64, align 8
  %rd11 = alloca i64, align 8
  %rd12 = alloca i64, align 8
  %rd13 = alloca i64, align 8
  %rd14 = alloca i64, align 8
  %rd15 = alloca i64, align 8
  %f0 = alloca float, align 4
  %f1 = alloca float, align 4
  %f2 = alloca float, align 4
  %f3 = alloca float, align 4
  %f4 = alloca float, align 4
  %f5 = alloca float, align 4
  %f6 = alloca float, align 4
  %f7 = alloca float, align 4
  %fd0 = alloca double, align 8
  %fd1 = alloca double, align 8
  %fd2 = alloca double, align 8
  %fd3 = alloca double, align 8
  %fd4 = alloca double, align 8
  %fd5 = alloca double, align 8
  %fd6 = alloca double, align 8
  %fd7 = alloca double, align 8
  br label %start

start:                                            ; preds = %entry
  %2 = load i64, ptr %param0, align 8
  store i64 %2, ptr %rd1, align 8
  %3 = load i64, ptr %param1, align 8
  store i64 %3, ptr %rd2, align 8
  %4 = load i64, ptr %rd2, align 8
  %5 = inttoptr i64 %4 to ptr addrspace(1)
  %6 = load i64, ptr addrspace(1) %5, align 8
  store i64 %6, ptr %rd3, align 8
  %7 = load i64, ptr %rd2, align 8
  %8 = inttoptr i64 %7 to ptr addrspace(1)
  %9 = getelementptr i8, ptr addrspace(1) %8, i64 8
  %10 = load i32, ptr addrspace(1) %9, align 4
  store i32 %10, ptr %r1, align 4
  %11 = load i64, ptr %rd2, align 8
  %12 = inttoptr i64 %11 to ptr addrspace(1)
  %13 = getelementptr i8, ptr addrspace(1) %12, i64 12
  %14 = load i32, ptr addrspace(1) %13, align 4
  store i32 %14, ptr %r2, align 4
  %15 = load i64, ptr %rd2, align 8
  %16 = inttoptr i64 %15 to ptr addrspace(1)
  %17 = getelementptr i8, ptr addrspace(1) %16, i64 16
  %18 = load float, ptr addrspace(1) %17, align 4
  store float %18, ptr %f1, align 4
  %19 = load i64, ptr %rd2, align 8
  %20 = inttoptr i64 %19 to ptr addrspace(1)
  %21 = getelementptr i8, ptr addrspace(1) %20, i64 20
  %22 = load float, ptr addrspace(1) %21, align 4
  store float %22, ptr %f2, align 4
  %23 = load i64, ptr %rd2, align 8
  %24 = inttoptr i64 %23 to ptr addrspace(1)
  %25 = getelementptr i8, ptr addrspace(1) %24, i64 24
  %26 = load double, ptr addrspace(1) %25, align 8
  store double %26, ptr %fd1, align 8
  %27 = load i64, ptr %rd2, align 8
  %28 = inttoptr i64 %27 to ptr addrspace(1)
  %29 = getelementptr i8, ptr addrspace(1) %28, i64 32
  %30 = load double, ptr addrspace(1) %29, align 8
  store double %30, ptr %fd2, align 8
  %31 = load double, ptr %fd1, align 8
  %32 = load double, ptr %fd2, align 8
  %33 = load double, ptr %fd1, align 8
  %34 = call double @llvm.nvvm.fma.rm.d(double %31, double %32, double %33)
  store double %34, ptr %fd3, align 8
  %35 = load float, ptr %f1, align 4
  %36 = load float, ptr %f2, align 4
  %37 = call float @llvm.nvvm.add.rz.ftz.f(float %35, float %36)
  store float %37, ptr %f3, align 4
  %38 = load float, ptr %f1, align 4
  %39 = load float, ptr %f2, align 4
  %40 = call float asm "max.ftz.f32 $0, $1, $2;", "=f,f,f"(float %38, float %39)
  store float %40, ptr %f4, align 4
  %41 = load float, ptr %f3, align 4
  %42 = load float, ptr %f4, align 4
  %43 = call float asm "min.NaN.f32 $0, $1, $2;", "=f,f,f"(float %41, float %42)
  %44 = fcmp uno float %43, %43
  %45 = bitcast float %43 to i32
  %46 = select i1 %44, i32 2147483647, i32 %45
  %47 = bitcast i32 %46 to float
  store float %47, ptr %f5, align 4
  %48 = load float, ptr %f5, align 4
  %49 = call float @llvm.nvvm.ex2.approx.ftz.f(float %48)
  store float %49, ptr %f6, align 4
  %50 = load float, ptr %f6, align 4
  %51 = load float, ptr %f1, align 4
  %52 = call float asm "mul.f32 $0, $1, $2;", "=f,f,f"(float %50, float %51)
  %53 = fcmp ogt float %52, 1.000000e+00
  %54 = select i1 %53, float 1.000000e+00, float %52
  %55 = fcmp olt float %54, 0.000000e+00
  %56 = select i1 %55, float 0.000000e+00, float %54
  %57 = fcmp oeq float %56, 0.000000e+00
  %58 = select i1 %57, float 0.000000e+00, float %56
  %59 = fcmp uno float %52, %52
  %60 = select i1 %59, float 0.000000e+00, float %58
  store float %60, ptr %f7, align 4
  %61 = load i64, ptr %rd1, align 8
  %62 = inttoptr i64 %61 to ptr addrspace(1)
  %63 = load double, ptr %fd3, align 8
  store double %63, ptr addrspace(1) %62, align 8
  %64 = load i64, ptr %rd1, align 8
  %65 = inttoptr i64 %64 to ptr addrspace(1)
  %66 = getelementptr i8, ptr addrspace(1) %65, i64 8
  %67 = load float, ptr %f3, align 4
  %68 = insertelement <2 x float> undef, float %67, i32 0
  %69 = load float, ptr %f7, align 4
  %70 = insertelement <2 x float> %68, float %69, i32 1
  store <2 x float> %70, ptr addrspace(1) %66, align 8
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.nvvm.fma.rm.d(double, double, double) #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.nvvm.add.rz.ftz.f(float, float) #0

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.ex2.approx.ftz.f(float) #1

attributes #0 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(none) }
