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
  %34 = load double, ptr %fd1, align 8
  %35 = bitcast double %34 to i64
  %36 = lshr i64 %35, 63
  %37 = and i64 %36, 1
  %38 = lshr i64 %35, 52
  %39 = and i64 %38, 2047
  %40 = and i64 %35, 4503599627370495
  %41 = icmp eq i64 %39, 2047
  %42 = icmp ne i64 %40, 0
  %43 = and i1 %41, %42
  %44 = icmp eq i64 %39, 0
  %45 = or i64 %40, 4503599627370496
  %46 = select i1 %44, i64 %40, i64 %45
  %47 = select i1 %44, i64 1, i64 %39
  %48 = sub i64 %47, 1023
  %49 = add i64 %48, 15
  %50 = icmp sge i64 %49, 1
  %51 = sub i64 0, %49
  %52 = add i64 43, %51
  %53 = select i1 %50, i64 42, i64 %52
  %54 = icmp sgt i64 %53, 62
  %55 = select i1 %54, i64 62, i64 %53
  %56 = lshr i64 %46, %55
  %57 = shl i64 1, %55
  %58 = sub i64 %57, 1
  %59 = and i64 %46, %58
  %60 = sub i64 %55, 1
  %61 = shl i64 1, %60
  %62 = icmp ne i64 %59, 0
  %63 = icmp eq i64 %37, 1
  %64 = icmp ugt i64 %59, %61
  %65 = icmp eq i64 %59, %61
  %66 = and i64 %56, 1
  %67 = icmp eq i64 %66, 1
  %68 = and i1 %65, %67
  %69 = or i1 %64, %68
  %70 = zext i1 %69 to i64
  %71 = add i64 %56, %70
  %72 = sub i64 %49, 1
  %73 = shl i64 %72, 10
  %74 = add i64 %73, %71
  %75 = select i1 %50, i64 %74, i64 %71
  %76 = icmp ugt i64 %75, 31743
  %77 = select i1 %76, i64 31744, i64 %75
  %78 = select i1 %41, i64 31744, i64 %77
  %79 = shl i64 %37, 15
  %80 = or i64 %79, %78
  %81 = select i1 %43, i64 32767, i64 %80
  %82 = lshr i64 %35, 48
  %83 = and i64 %82, 32768
  %84 = or i64 %83, 32256
  %85 = fcmp uno double %34, %34
  %86 = select i1 %85, i64 %84, i64 %81
  %87 = trunc i64 %86 to i16
  %88 = bitcast i16 %87 to half
  %89 = bitcast half %88 to i16
  store i16 %89, ptr %h1, align 2
  %90 = load float, ptr %f1, align 4
  %91 = bitcast float %90 to i32
  %92 = zext i32 %91 to i64
  %93 = lshr i64 %92, 31
  %94 = and i64 %93, 1
  %95 = lshr i64 %92, 23
  %96 = and i64 %95, 255
  %97 = and i64 %92, 8388607
  %98 = icmp eq i64 %96, 255
  %99 = icmp ne i64 %97, 0
  %100 = and i1 %98, %99
  %101 = icmp eq i64 %96, 0
  %102 = or i64 %97, 8388608
  %103 = select i1 %101, i64 %97, i64 %102
  %104 = select i1 %101, i64 1, i64 %96
  %105 = sub i64 %104, 127
  %106 = add i64 %105, 127
  %107 = icmp sge i64 %106, 1
  %108 = sub i64 0, %106
  %109 = add i64 14, %108
  %110 = select i1 %107, i64 13, i64 %109
  %111 = icmp sgt i64 %110, 62
  %112 = select i1 %111, i64 62, i64 %110
  %113 = lshr i64 %103, %112
  %114 = shl i64 1, %112
  %115 = sub i64 %114, 1
  %116 = and i64 %103, %115
  %117 = sub i64 %112, 1
  %118 = shl i64 1, %117
  %119 = icmp ne i64 %116, 0
  %120 = icmp eq i64 %94, 1
  %121 = icmp uge i64 %116, %118
  %122 = zext i1 %121 to i64
  %123 = add i64 %113, %122
  %124 = sub i64 %106, 1
  %125 = shl i64 %124, 10
  %126 = add i64 %125, %123
  %127 = select i1 %107, i64 %126, i64 %123
  %128 = icmp ugt i64 %127, 261119
  %129 = select i1 %128, i64 261120, i64 %127
  %130 = select i1 %98, i64 261120, i64 %129
  %131 = shl i64 %94, 18
  %132 = or i64 %131, %130
  %133 = select i1 %100, i64 262143, i64 %132
  %134 = trunc i64 %133 to i32
  %135 = bitcast float %90 to i32
  %136 = add i32 %135, 4096
  %137 = and i32 %136, -8192
  %138 = bitcast i32 %137 to float
  %139 = bitcast float %138 to i32
  store i32 %139, ptr %r3, align 4
  %140 = load float, ptr %f1, align 4
  %141 = call float @llvm.trunc.f32(float %140)
  %142 = fcmp uno float %141, %141
  %143 = bitcast float %141 to i32
  %144 = select i1 %142, i32 2147483647, i32 %143
  %145 = bitcast i32 %144 to float
  %146 = call i64 @llvm.fptoui.sat.i64.f32(float %145)
  %147 = fcmp uno float %140, %140
  %148 = select i1 %147, i64 -9223372036854775808, i64 %146
  store i64 %148, ptr %rd4, align 8
  %149 = load i64, ptr %rd1, align 8
  %150 = inttoptr i64 %149 to ptr
  %151 = load i16, ptr %h1, align 2
  store i16 %151, ptr %150, align 2
  %152 = load i64, ptr %rd1, align 8
  %153 = inttoptr i64 %152 to ptr
  %154 = getelementptr i8, ptr %153, i64 4
  %155 = load i32, ptr %r3, align 4
  store i32 %155, ptr %154, align 4
  %156 = load i64, ptr %rd1, align 8
  %157 = inttoptr i64 %156 to ptr
  %158 = getelementptr i8, ptr %157, i64 8
  %159 = load i64, ptr %rd4, align 8
  store i64 %159, ptr %158, align 8
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.trunc.f32(float) #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.fptoui.sat.i64.f32(float) #0

attributes #0 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
