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
  %31 = load i32, ptr %r1, align 4
  %32 = zext i32 %31 to i64
  %33 = trunc i64 %32 to i32
  %34 = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %35 = and i32 %34, 0
  %36 = or i32 %35, 31
  %37 = xor i32 %34, 1
  %38 = icmp sle i32 %37, %36
  %39 = call i32 asm sideeffect "shfl.sync.bfly.b32 $0, $1, $2, $3, $4; // 0", "=r,r,r,r,r"(i32 %33, i32 1, i32 31, i32 -1) #1
  %40 = zext i32 %39 to i64
  %41 = zext i1 %38 to i64
  %42 = shl i64 %41, 32
  %43 = or i64 %40, %42
  %44 = trunc i64 %43 to i32
  %45 = lshr i64 %43, 32
  %46 = trunc i64 %45 to i1
  store i32 %44, ptr %r3, align 4
  store i1 %46, ptr %p1, align 1
  %47 = load i1, ptr %p1, align 1
  %48 = zext i1 %47 to i64
  %49 = trunc i64 %48 to i32
  %50 = call i32 asm sideeffect "{ .reg .pred %zp; setp.ne.u32 %zp, $1, 0; vote.sync.ballot.b32 $0, %zp, $2; } // 1", "=r,r,r"(i32 %49, i32 -1) #1
  %51 = zext i32 %50 to i64
  %52 = trunc i64 %51 to i32
  %53 = lshr i64 %51, 32
  %54 = trunc i64 %53 to i1
  store i32 %52, ptr %r4, align 4
  call void asm sideeffect "barrier.sync.aligned $0;", "r,~{memory}"(i32 0) #1
  %55 = load i1, ptr %p1, align 1
  %56 = zext i1 %55 to i32
  %57 = call i32 asm sideeffect "{ .reg .pred %zp; setp.ne.u32 %zp, $3, 0; barrier.red.popc.aligned.u32 $0, $1, %zp; }", "=r,r,r,r,~{memory}"(i32 0, i32 0, i32 %56) #1
  store i32 %57, ptr %r5, align 4
  %58 = load i32, ptr %r3, align 4
  %59 = load i32, ptr %r4, align 4
  %60 = add i32 %58, %59
  store i32 %60, ptr %r6, align 4
  %61 = load i32, ptr %r6, align 4
  %62 = load i32, ptr %r5, align 4
  %63 = add i32 %61, %62
  store i32 %63, ptr %r6, align 4
  %64 = load i64, ptr %rd1, align 8
  %65 = inttoptr i64 %64 to ptr addrspace(1)
  %66 = load i32, ptr %r6, align 4
  store i32 %66, ptr addrspace(1) %65, align 4
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.laneid() #0

attributes #0 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #1 = { convergent }

!zluda.warp.sites = !{!0, !0}

!0 = !{}
