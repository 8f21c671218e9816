; ModuleID = 'k.ptx'
source_filename = "k.ptx"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define void @k(ptr %0, ptr %1) {
entry:
  %2 = getelementptr ptr, ptr %0, i64 0
  %param0 = load ptr, ptr %2, align 8
  %3 = getelementptr ptr, ptr %0, i64 1
  %param1 = load ptr, ptr %3, align 8
  %4 = getelementptr i8, ptr %1, i32 48
  %shared = load ptr, ptr %4, align 8
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

"$zluda_skip_0":                                  ; preds = %41, %start
  %5 = load i1, ptr %p1, align 1
  br i1 %5, label %"$zluda_skip_1", label %44

"$zluda_skip_1":                                  ; preds = %44, %"$zluda_skip_0"
  ret void

start:                                            ; preds = %entry
  %6 = load i64, ptr %param0, align 8
  store i64 %6, ptr %rd1, align 8
  %7 = load i64, ptr %param1, align 8
  store i64 %7, ptr %rd2, align 8
  %8 = load i64, ptr %rd2, align 8
  %9 = inttoptr i64 %8 to ptr
  %10 = load i64, ptr %9, align 8
  store i64 %10, ptr %rd3, align 8
  %11 = load i64, ptr %rd2, align 8
  %12 = inttoptr i64 %11 to ptr
  %13 = getelementptr i8, ptr %12, i64 8
  %14 = load i32, ptr %13, align 4
  store i32 %14, ptr %r1, align 4
  %15 = load i64, ptr %rd2, align 8
  %16 = inttoptr i64 %15 to ptr
  %17 = getelementptr i8, ptr %16, i64 12
  %18 = load i32, ptr %17, align 4
  store i32 %18, ptr %r2, align 4
  %19 = load i64, ptr %rd2, align 8
  %20 = inttoptr i64 %19 to ptr
  %21 = getelementptr i8, ptr %20, i64 16
  %22 = load float, ptr %21, align 4
  store float %22, ptr %f1, align 4
  %23 = load i64, ptr %rd2, align 8
  %24 = inttoptr i64 %23 to ptr
  %25 = getelementptr i8, ptr %24, i64 20
  %26 = load float, ptr %25, align 4
  store float %26, ptr %f2, align 4
  %27 = load i64, ptr %rd2, align 8
  %28 = inttoptr i64 %27 to ptr
  %29 = getelementptr i8, ptr %28, i64 24
  %30 = load double, ptr %29, align 8
  store double %30, ptr %fd1, align 8
  %31 = load i64, ptr %rd2, align 8
  %32 = inttoptr i64 %31 to ptr
  %33 = getelementptr i8, ptr %32, i64 32
  %34 = load double, ptr %33, align 8
  store double %34, ptr %fd2, align 8
  %35 = load i32, ptr %r1, align 4
  %36 = load i32, ptr %r2, align 4
  %37 = icmp ult i32 %35, %36
  %38 = xor i1 %37, true
  store i1 %37, ptr %p1, align 1
  %39 = load i1, ptr %p1, align 1
  %40 = xor i1 %39, true
  br i1 %40, label %"$zluda_skip_0", label %41

41:                                               ; preds = %start
  %42 = load i32, ptr %r1, align 4
  %43 = add i32 %42, 1
  store i32 %43, ptr %r3, align 4
  br label %"$zluda_skip_0"

44:                                               ; preds = %"$zluda_skip_0"
  %45 = load i64, ptr %rd1, align 8
  %46 = inttoptr i64 %45 to ptr
  %47 = load i32, ptr %r3, align 4
  store i32 %47, ptr %46, align 4
  br label %"$zluda_skip_1"
}
