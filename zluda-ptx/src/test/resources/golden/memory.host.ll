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

start:                                            ; preds = %entry
  %5 = load i64, ptr %param0, align 8
  store i64 %5, ptr %rd1, align 8
  %6 = load i64, ptr %param1, align 8
  store i64 %6, ptr %rd2, align 8
  %7 = load i64, ptr %rd2, align 8
  %8 = inttoptr i64 %7 to ptr
  %9 = load i64, ptr %8, align 8
  store i64 %9, ptr %rd3, align 8
  %10 = load i64, ptr %rd2, align 8
  %11 = inttoptr i64 %10 to ptr
  %12 = getelementptr i8, ptr %11, i64 8
  %13 = load i32, ptr %12, align 4
  store i32 %13, ptr %r1, align 4
  %14 = load i64, ptr %rd2, align 8
  %15 = inttoptr i64 %14 to ptr
  %16 = getelementptr i8, ptr %15, i64 12
  %17 = load i32, ptr %16, align 4
  store i32 %17, ptr %r2, align 4
  %18 = load i64, ptr %rd2, align 8
  %19 = inttoptr i64 %18 to ptr
  %20 = getelementptr i8, ptr %19, i64 16
  %21 = load float, ptr %20, align 4
  store float %21, ptr %f1, align 4
  %22 = load i64, ptr %rd2, align 8
  %23 = inttoptr i64 %22 to ptr
  %24 = getelementptr i8, ptr %23, i64 20
  %25 = load float, ptr %24, align 4
  store float %25, ptr %f2, align 4
  %26 = load i64, ptr %rd2, align 8
  %27 = inttoptr i64 %26 to ptr
  %28 = getelementptr i8, ptr %27, i64 24
  %29 = load double, ptr %28, align 8
  store double %29, ptr %fd1, align 8
  %30 = load i64, ptr %rd2, align 8
  %31 = inttoptr i64 %30 to ptr
  %32 = getelementptr i8, ptr %31, i64 32
  %33 = load double, ptr %32, align 8
  store double %33, ptr %fd2, align 8
  %34 = load i64, ptr %rd1, align 8
  store i64 %34, ptr %rd4, align 8
  %35 = load i64, ptr %rd1, align 8
  %36 = inttoptr i64 %35 to ptr
  %37 = getelementptr i8, ptr %1, i32 48
  %shared1 = load ptr, ptr %37, align 8
  %38 = ptrtoint ptr %shared1 to i64
  %39 = getelementptr i8, ptr %1, i32 56
  %40 = load i64, ptr %39, align 8
  %41 = ptrtoint ptr %36 to i64
  %42 = icmp uge i64 %41, %38
  %43 = add i64 %38, %40
  %44 = icmp ult i64 %41, %43
  %45 = and i1 %42, %44
  %46 = getelementptr i8, ptr %1, i32 88
  %47 = load i64, ptr %46, align 8
  %48 = getelementptr i8, ptr %1, i32 96
  %49 = load i64, ptr %48, align 8
  %50 = icmp uge i64 %41, %47
  %51 = icmp ult i64 %41, %49
  %52 = and i1 %50, %51
  %53 = getelementptr i8, ptr %1, i32 104
  %54 = load i64, ptr %53, align 8
  %55 = getelementptr i8, ptr %1, i32 112
  %56 = load i64, ptr %55, align 8
  %57 = icmp uge i64 %41, %54
  %58 = icmp ult i64 %41, %56
  %59 = and i1 %57, %58
  %60 = xor i1 %59, true
  %61 = and i1 %52, %60
  %62 = or i1 %45, %61
  %63 = xor i1 %62, true
  %64 = and i1 %63, true
  store i1 %64, ptr %p1, align 1
  %65 = load i64, ptr %rd4, align 8
  %66 = inttoptr i64 %65 to ptr
  %67 = load i32, ptr %r1, align 4
  %68 = atomicrmw add ptr %66, i32 %67 monotonic, align 4
  store i32 %68, ptr %r3, align 4
  %69 = load i64, ptr %rd4, align 8
  %70 = inttoptr i64 %69 to ptr
  %71 = getelementptr i8, ptr %70, i64 4
  %72 = load volatile i32, ptr %71, align 4
  store i32 %72, ptr %r4, align 4
  %73 = load i1, ptr %p1, align 1
  %74 = load i32, ptr %r3, align 4
  %75 = load i32, ptr %r4, align 4
  %76 = select i1 %73, i32 %74, i32 %75
  store i32 %76, ptr %r5, align 4
  %77 = load i64, ptr %rd4, align 8
  %78 = inttoptr i64 %77 to ptr
  %79 = getelementptr i8, ptr %78, i64 8
  %80 = load i32, ptr %r5, align 4
  store atomic i32 %80, ptr %79 monotonic, align 4
  ret void
}
