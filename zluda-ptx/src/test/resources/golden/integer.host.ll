; ModuleID = 'k.ptx'
source_filename = "k.ptx"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define void @k(ptr %0, ptr %1) {
entry:
  %cc.cf = alloca i1, align 1
  store i1 false, ptr %cc.cf, align 1
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
  %34 = load i64, ptr %rd3, align 8
  %35 = load i32, ptr %r1, align 4
  %36 = zext i32 %35 to i64
  %37 = load i32, ptr %r2, align 4
  %38 = zext i32 %37 to i64
  %39 = icmp uge i64 %36, 64
  %40 = select i1 %39, i64 0, i64 %36
  %41 = lshr i64 %34, %40
  %42 = select i1 %39, i64 0, i64 %41
  %43 = sub i64 64, %36
  %44 = icmp ult i64 %38, %43
  %45 = select i1 %44, i64 %38, i64 %43
  %46 = select i1 %39, i64 0, i64 %45
  %47 = icmp uge i64 %46, 64
  %48 = select i1 %47, i64 0, i64 %46
  %49 = shl i64 1, %48
  %50 = sub i64 %49, 1
  %51 = select i1 %47, i64 -1, i64 %50
  %52 = and i64 %42, %51
  store i64 %52, ptr %rd4, align 8
  %53 = load i32, ptr %r1, align 4
  %54 = load i32, ptr %r2, align 4
  %55 = load i32, ptr %r1, align 4
  %56 = zext i32 %54 to i64
  %57 = shl i64 %56, 32
  %58 = zext i32 %53 to i64
  %59 = or i64 %57, %58
  %60 = and i32 %55, 3
  %61 = mul i32 %60, 16
  %62 = add i32 %61, 0
  %63 = zext i32 %62 to i64
  %64 = lshr i64 7296768396121682448, %63
  %65 = and i64 %64, 7
  %66 = trunc i64 %65 to i32
  %67 = mul i32 %66, 8
  %68 = zext i32 %67 to i64
  %69 = lshr i64 %59, %68
  %70 = and i64 %69, 255
  %71 = trunc i64 %70 to i32
  %72 = shl i32 %71, 0
  %73 = or i32 0, %72
  %74 = and i32 %55, 3
  %75 = mul i32 %74, 16
  %76 = add i32 %75, 4
  %77 = zext i32 %76 to i64
  %78 = lshr i64 7296768396121682448, %77
  %79 = and i64 %78, 7
  %80 = trunc i64 %79 to i32
  %81 = mul i32 %80, 8
  %82 = zext i32 %81 to i64
  %83 = lshr i64 %59, %82
  %84 = and i64 %83, 255
  %85 = trunc i64 %84 to i32
  %86 = shl i32 %85, 8
  %87 = or i32 %73, %86
  %88 = and i32 %55, 3
  %89 = mul i32 %88, 16
  %90 = add i32 %89, 8
  %91 = zext i32 %90 to i64
  %92 = lshr i64 7296768396121682448, %91
  %93 = and i64 %92, 7
  %94 = trunc i64 %93 to i32
  %95 = mul i32 %94, 8
  %96 = zext i32 %95 to i64
  %97 = lshr i64 %59, %96
  %98 = and i64 %97, 255
  %99 = trunc i64 %98 to i32
  %100 = shl i32 %99, 16
  %101 = or i32 %87, %100
  %102 = and i32 %55, 3
  %103 = mul i32 %102, 16
  %104 = add i32 %103, 12
  %105 = zext i32 %104 to i64
  %106 = lshr i64 7296768396121682448, %105
  %107 = and i64 %106, 7
  %108 = trunc i64 %107 to i32
  %109 = mul i32 %108, 8
  %110 = zext i32 %109 to i64
  %111 = lshr i64 %59, %110
  %112 = and i64 %111, 255
  %113 = trunc i64 %112 to i32
  %114 = shl i32 %113, 24
  %115 = or i32 %101, %114
  store i32 %115, ptr %r3, align 4
  %116 = load i32, ptr %r1, align 4
  %117 = load i32, ptr %r2, align 4
  %118 = add i32 %116, %117
  %119 = add i32 %118, 0
  %120 = icmp ult i32 %118, %116
  %121 = icmp ult i32 %119, %118
  %122 = or i1 %120, %121
  store i1 %122, ptr %cc.cf, align 1
  store i32 %119, ptr %r4, align 4
  %123 = load i1, ptr %cc.cf, align 1
  %124 = load i32, ptr %r1, align 4
  %125 = load i32, ptr %r2, align 4
  %126 = add i32 %124, %125
  %127 = zext i1 %123 to i32
  %128 = add i32 %126, %127
  %129 = icmp ult i32 %126, %124
  %130 = icmp ult i32 %128, %126
  %131 = or i1 %129, %130
  store i32 %128, ptr %r5, align 4
  %132 = load i64, ptr %rd1, align 8
  %133 = inttoptr i64 %132 to ptr
  %134 = load i64, ptr %rd4, align 8
  store i64 %134, ptr %133, align 8
  %135 = load i64, ptr %rd1, align 8
  %136 = inttoptr i64 %135 to ptr
  %137 = getelementptr i8, ptr %136, i64 8
  %138 = load i32, ptr %r3, align 4
  %139 = insertelement <2 x i32> undef, i32 %138, i32 0
  %140 = load i32, ptr %r5, align 4
  %141 = insertelement <2 x i32> %139, i32 %140, i32 1
  store <2 x i32> %141, ptr %137, align 8
  ret void
}
