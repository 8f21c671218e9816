; ModuleID = 'k.ptx'
source_filename = "k.ptx"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__zluda_bar_red = internal addrspace(3) global i32 undef, align 4

define amdgpu_kernel void @k(i64 %0, i64 %1) #0 {
entry:
  %param0 = alloca i64, align 8, addrspace(5)
  store i64 %0, ptr addrspace(5) %param0, align 8
  %param1 = alloca i64, align 8, addrspace(5)
  store i64 %1, ptr addrspace(5) %param1, align 8
  %p0 = alloca i1, align 1, addrspace(5)
  %p1 = alloca i1, align 1, addrspace(5)
  %p2 = alloca i1, align 1, addrspace(5)
  %p3 = alloca i1, align 1, addrspace(5)
  %h0 = alloca i16, align 2, addrspace(5)
  %h1 = alloca i16, align 2, addrspace(5)
  %h2 = alloca i16, align 2, addrspace(5)
  %h3 = alloca i16, align 2, addrspace(5)
  %r0 = alloca i32, align 4, addrspace(5)
  %r1 = alloca i32, align 4, addrspace(5)
  %r2 = alloca i32, align 4, addrspace(5)
  %r3 = alloca i32, align 4, addrspace(5)
  %r4 = alloca i32, align 4, addrspace(5)
  %r5 = alloca i32, align 4, addrspace(5)
  %r6 = alloca i32, align 4, addrspace(5)
  %r7 = alloca i32, align 4, addrspace(5)
  %r8 = alloca i32, align 4, addrspace(5)
  %r9 = alloca i32, align 4, addrspace(5)
  %r10 = alloca i32, align 4, addrspace(5)
  %r11 = alloca i32, align 4, addrspace(5)
  %r12 = alloca i32, align 4, addrspace(5)
  %r13 = alloca i32, align 4, addrspace(5)
  %r14 = alloca i32, align 4, addrspace(5)
  %r15 = alloca i32, align 4, addrspace(5)
  %rd0 = alloca i64, align 8, addrspace(5)
  %rd1 = alloca i64, align 8, addrspace(5)
  %rd2 = alloca i64, align 8, addrspace(5)
  %rd3 = alloca i64, align 8, addrspace(5)
  %rd4 = alloca i64, align 8, addrspace(5)
  %rd5 = alloca i64, align 8, addrspace(5)
  %rd6 = alloca i64, align 8, addrspace(5)
  %rd7 = alloca i64, align 8, addrspace(5)
  %rd8 = alloca i64, align 8, addrspace(5)
  %rd9 = alloca i64, align 8, addrspace(5)
  %rd10 = alloca i64, align 8, addrspace(5)
  %rd11 = alloca i64, align 8, addrspace(5)
  %rd12 = alloca i64, align 8, addrspace(5)
  %rd13 = alloca i64, align 8, addrspace(5)
  %rd14 = alloca i64, align 8, addrspace(5)
  %rd15 = alloca i64, align 8, addrspace(5)
  %f0 = alloca float, align 4, addrspace(5)
  %f1 = alloca float, align 4, addrspace(5)
  %f2 = alloca float, align 4, addrspace(5)
  %f3 = alloca float, align 4, addrspace(5)
  %f4 = alloca float, align 4, addrspace(5)
  %f5 = alloca float, align 4, addrspace(5)
  %f6 = alloca float, align 4, addrspace(5)
  %f7 = alloca float, align 4, addrspace(5)
  %fd0 = alloca double, align 8, addrspace(5)
  %fd1 = alloca double, align 8, addrspace(5)
  %fd2 = alloca double, align 8, addrspace(5)
  %fd3 = alloca double, align 8, addrspace(5)
  %fd4 = alloca double, align 8, addrspace(5)
  %fd5 = alloca double, align 8, addrspace(5)
  %fd6 = alloca double, align 8, addrspace(5)
  %fd7 = alloca double, align 8, addrspace(5)
  br label %start

start:                                            ; preds = %entry
  %2 = load i64, ptr addrspace(5) %param0, align 8
  store i64 %2, ptr addrspace(5) %rd1, align 8
  %3 = load i64, ptr addrspace(5) %param1, align 8
  store i64 %3, ptr addrspace(5) %rd2, align 8
  %4 = load i64, ptr addrspace(5) %rd2, align 8
  %5 = inttoptr i64 %4 to ptr addrspace(1)
  %6 = load i64, ptr addrspace(1) %5, align 8
  store i64 %6, ptr addrspace(5) %rd3, align 8
  %7 = load i64, ptr addrspace(5) %rd2, align 8
  %8 = inttoptr i64 %7 to ptr addrspace(1)
  %9 = getelementptr i8, ptr addrspace(1) %8, i64 8
  %10 = load i32, ptr addrspace(1) %9, align 4
  store i32 %10, ptr addrspace(5) %r1, align 4
  %11 = load i64, ptr addrspace(5) %rd2, align 8
  %12 = inttoptr i64 %11 to ptr addrspace(1)
  %13 = getelementptr i8, ptr addrspace(1) %12, i64 12
  %14 = load i32, ptr addrspace(1) %13, align 4
  store i32 %14, ptr addrspace(5) %r2, align 4
  %15 = load i64, ptr addrspace(5) %rd2, align 8
  %16 = inttoptr i64 %15 to ptr addrspace(1)
  %17 = getelementptr i8, ptr addrspace(1) %16, i64 16
  %18 = load float, ptr addrspace(1) %17, align 4
  store float %18, ptr addrspace(5) %f1, align 4
  %19 = load i64, ptr addrspace(5) %rd2, align 8
  %20 = inttoptr i64 %19 to ptr addrspace(1)
  %21 = getelementptr i8, ptr addrspace(1) %20, i64 20
  %22 = load float, ptr addrspace(1) %21, align 4
  store float %22, ptr addrspace(5) %f2, align 4
  %23 = load i64, ptr addrspace(5) %rd2, align 8
  %24 = inttoptr i64 %23 to ptr addrspace(1)
  %25 = getelementptr i8, ptr addrspace(1) %24, i64 24
  %26 = load double, ptr addrspace(1) %25, align 8
  store double %26, ptr addrspace(5) %fd1, align 8
  %27 = load i64, ptr addrspace(5) %rd2, align 8
  %28 = inttoptr i64 %27 to ptr addrspace(1)
  %29 = getelementptr i8, ptr addrspace(1) %28, i64 32
  %30 = load double, ptr addrspace(1) %29, align 8
  store double %30, ptr addrspace(5) %fd2, align 8
  %31 = load i32, ptr addrspace(5) %r1, align 4
  %32 = zext i32 %31 to i64
  %33 = trunc i64 %32 to i32
  %34 = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %35 = and i32 %34, -1
  %36 = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %37 = and i32 %36, 0
  %38 = or i32 %37, 31
  %39 = and i32 %36, 0
  %40 = xor i32 %36, 1
  %41 = icmp sle i32 %40, %38
  %42 = select i1 %41, i32 %40, i32 %36
  %43 = shl i32 %42, 2
  %44 = call i32 @llvm.amdgcn.ds.bpermute(i32 %43, i32 %33)
  %45 = zext i32 %44 to i64
  %46 = zext i1 %41 to i64
  %47 = shl i64 %46, 32
  %48 = or i64 %45, %47
  %49 = trunc i64 %48 to i32
  %50 = lshr i64 %48, 32
  %51 = trunc i64 %50 to i1
  store i32 %49, ptr addrspace(5) %r3, align 4
  store i1 %51, ptr addrspace(5) %p1, align 1
  %52 = load i1, ptr addrspace(5) %p1, align 1
  %53 = zext i1 %52 to i64
  %54 = trunc i64 %53 to i32
  %55 = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %56 = and i32 %55, -1
  %57 = icmp ne i64 %53, 0
  %58 = call i32 @llvm.amdgcn.ballot.i32(i1 %57)
  %59 = and i32 %58, -1
  %60 = zext i32 %59 to i64
  %61 = trunc i64 %60 to i32
  %62 = lshr i64 %60, 32
  %63 = trunc i64 %62 to i1
  store i32 %61, ptr addrspace(5) %r4, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %64 = load i1, ptr addrspace(5) %p1, align 1
  %65 = zext i1 %64 to i32
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %66 = call i32 @llvm.amdgcn.workitem.id.x()
  %67 = icmp eq i32 %66, 0
  %68 = and i1 true, %67
  %69 = call i32 @llvm.amdgcn.workitem.id.y()
  %70 = icmp eq i32 %69, 0
  %71 = and i1 %68, %70
  %72 = call i32 @llvm.amdgcn.workitem.id.z()
  %73 = icmp eq i32 %72, 0
  %74 = and i1 %71, %73
  br i1 %74, label %bar.red.init, label %bar.red

bar.red.init:                                     ; preds = %start
  store i32 0, ptr addrspace(3) @__zluda_bar_red, align 4
  br label %bar.red

bar.red:                                          ; preds = %bar.red.init, %start
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %75 = atomicrmw add ptr addrspace(3) @__zluda_bar_red, i32 %65 syncscope("workgroup") monotonic, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %76 = load i32, ptr addrspace(3) @__zluda_bar_red, align 4
  store i32 %76, ptr addrspace(5) %r5, align 4
  %77 = load i32, ptr addrspace(5) %r3, align 4
  %78 = load i32, ptr addrspace(5) %r4, align 4
  %79 = add i32 %77, %78
  store i32 %79, ptr addrspace(5) %r6, align 4
  %80 = load i32, ptr addrspace(5) %r6, align 4
  %81 = load i32, ptr addrspace(5) %r5, align 4
  %82 = add i32 %80, %81
  store i32 %82, ptr addrspace(5) %r6, align 4
  %83 = load i64, ptr addrspace(5) %rd1, align 8
  %84 = inttoptr i64 %83 to ptr addrspace(1)
  %85 = load i32, ptr addrspace(5) %r6, align 4
  store i32 %85, ptr addrspace(1) %84, align 4
  ret void
}

; Function Attrs: convergent nocallback nofree nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.ballot.i32(i1) #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32) #2

; Function Attrs: convergent nocallback nofree nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32) #1

; Function Attrs: convergent nocallback nofree nounwind willreturn
declare void @llvm.amdgcn.s.barrier() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.x() #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.y() #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.z() #4

attributes #0 = { "amdgpu-flat-work-group-size"="1,1024" }
attributes #1 = { convergent nocallback nofree nounwind willreturn memory(none) }
attributes #2 = { nocallback nofree nosync nounwind willreturn memory(none) }
attributes #3 = { convergent nocallback nofree nounwind willreturn }
attributes #4 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
