; ModuleID = 'k.ptx'
source_filename = "k.ptx"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__zluda_named_barriers = internal addrspace(3) global [512 x i8] undef, align 8

define amdgpu_kernel void @k(i64 %0, i64 %1) #0 {
entry:
  %param0 = alloca i64, align 8, addrspace(5)
  store i64 %0, ptr addrspace(5) %param0, align 8
  %param1 = alloca i64, align 8, addrspace(5)
  store i64 %1, ptr addrspace(5) %param1, align 8
  %__zb_t = alloca i32, align 4, addrspace(5)
  %__zb_n = alloca i32, align 4, addrspace(5)
  %__zb_a = alloca i64, align 8, addrspace(5)
  %__zb_e = alloca i64, align 8, addrspace(5)
  %__zb_p = alloca i1, align 1, addrspace(5)
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
  %__zb_m = alloca i32, align 4, addrspace(5)
  %__zb_l = alloca i32, align 4, addrspace(5)
  %__zb_c = alloca i32, align 4, addrspace(5)
  %__zb_n1 = alloca i32, align 4, addrspace(5)
  %__zb_v = alloca i32, align 4, addrspace(5)
  %__zb_r = alloca i32, align 4, addrspace(5)
  %__zb_a2 = alloca i64, align 8, addrspace(5)
  %__zb_w = alloca i64, align 8, addrspace(5)
  %__zb_old = alloca i64, align 8, addrspace(5)
  %__zb_g = alloca i64, align 8, addrspace(5)
  %__zb_t3 = alloca i64, align 8, addrspace(5)
  %__zb_now = alloca i64, align 8, addrspace(5)
  %__zb_c64 = alloca i64, align 8, addrspace(5)
  %__zb_s = alloca i64, align 8, addrspace(5)
  %__zb_p4 = alloca i1, align 1, addrspace(5)
  %__zb_q = alloca i1, align 1, addrspace(5)
  br label %start

"$zluda_bar_1_zero":                              ; preds = %"$zluda_bar_1_zero", %177
  %2 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %3 = inttoptr i64 %2 to ptr addrspace(3)
  store i64 0, ptr addrspace(3) %3, align 8
  %4 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %5 = add i64 %4, 8
  store i64 %5, ptr addrspace(5) %__zb_a2, align 8
  %6 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %7 = load i64, ptr addrspace(5) %__zb_e, align 8
  %8 = icmp ult i64 %6, %7
  %9 = xor i1 %8, true
  store i1 %8, ptr addrspace(5) %__zb_p4, align 1
  %10 = load i1, ptr addrspace(5) %__zb_p4, align 1
  br i1 %10, label %"$zluda_bar_1_zero", label %180

"$zluda_bar_1_ready":                             ; preds = %180, %start
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %11 = load i64, ptr addrspace(5) %param0, align 8
  store i64 %11, ptr addrspace(5) %rd1, align 8
  %12 = load i64, ptr addrspace(5) %param1, align 8
  store i64 %12, ptr addrspace(5) %rd2, align 8
  %13 = load i64, ptr addrspace(5) %rd2, align 8
  %14 = inttoptr i64 %13 to ptr addrspace(1)
  %15 = load i64, ptr addrspace(1) %14, align 8
  store i64 %15, ptr addrspace(5) %rd3, align 8
  %16 = load i64, ptr addrspace(5) %rd2, align 8
  %17 = inttoptr i64 %16 to ptr addrspace(1)
  %18 = getelementptr i8, ptr addrspace(1) %17, i64 8
  %19 = load i32, ptr addrspace(1) %18, align 4
  store i32 %19, ptr addrspace(5) %r1, align 4
  %20 = load i64, ptr addrspace(5) %rd2, align 8
  %21 = inttoptr i64 %20 to ptr addrspace(1)
  %22 = getelementptr i8, ptr addrspace(1) %21, i64 12
  %23 = load i32, ptr addrspace(1) %22, align 4
  store i32 %23, ptr addrspace(5) %r2, align 4
  %24 = load i64, ptr addrspace(5) %rd2, align 8
  %25 = inttoptr i64 %24 to ptr addrspace(1)
  %26 = getelementptr i8, ptr addrspace(1) %25, i64 16
  %27 = load float, ptr addrspace(1) %26, align 4
  store float %27, ptr addrspace(5) %f1, align 4
  %28 = load i64, ptr addrspace(5) %rd2, align 8
  %29 = inttoptr i64 %28 to ptr addrspace(1)
  %30 = getelementptr i8, ptr addrspace(1) %29, i64 20
  %31 = load float, ptr addrspace(1) %30, align 4
  store float %31, ptr addrspace(5) %f2, align 4
  %32 = load i64, ptr addrspace(5) %rd2, align 8
  %33 = inttoptr i64 %32 to ptr addrspace(1)
  %34 = getelementptr i8, ptr addrspace(1) %33, i64 24
  %35 = load double, ptr addrspace(1) %34, align 8
  store double %35, ptr addrspace(5) %fd1, align 8
  %36 = load i64, ptr addrspace(5) %rd2, align 8
  %37 = inttoptr i64 %36 to ptr addrspace(1)
  %38 = getelementptr i8, ptr addrspace(1) %37, i64 32
  %39 = load double, ptr addrspace(1) %38, align 8
  store double %39, ptr addrspace(5) %fd2, align 8
  %40 = load i32, ptr addrspace(5) %r1, align 4
  %41 = zext i32 %40 to i64
  %42 = trunc i64 %41 to i32
  %43 = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %44 = and i32 %43, -1
  %45 = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %46 = and i32 %45, 0
  %47 = or i32 %46, 31
  %48 = and i32 %45, 0
  %49 = xor i32 %45, 1
  %50 = icmp sle i32 %49, %47
  %51 = select i1 %50, i32 %49, i32 %45
  %52 = shl i32 %51, 2
  %53 = call i32 @llvm.amdgcn.ds.bpermute(i32 %52, i32 %42)
  %54 = zext i32 %53 to i64
  %55 = zext i1 %50 to i64
  %56 = shl i64 %55, 32
  %57 = or i64 %54, %56
  %58 = trunc i64 %57 to i32
  %59 = lshr i64 %57, 32
  %60 = trunc i64 %59 to i1
  store i32 %58, ptr addrspace(5) %r3, align 4
  store i1 %60, ptr addrspace(5) %p1, align 1
  %61 = load i1, ptr addrspace(5) %p1, align 1
  %62 = zext i1 %61 to i64
  %63 = trunc i64 %62 to i32
  %64 = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %65 = and i32 %64, -1
  %66 = icmp ne i64 %62, 0
  %67 = call i32 @llvm.amdgcn.ballot.i32(i1 %66)
  %68 = and i32 %67, -1
  %69 = zext i32 %68 to i64
  %70 = trunc i64 %69 to i32
  %71 = lshr i64 %69, 32
  %72 = trunc i64 %71 to i1
  store i32 %70, ptr addrspace(5) %r4, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  fence seq_cst
  %73 = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %74 = and i32 %73, -1
  %75 = zext i32 %73 to i64
  %76 = trunc i64 %75 to i32
  %77 = lshr i64 %75, 32
  %78 = trunc i64 %77 to i1
  store i32 %76, ptr addrspace(5) %__zb_m, align 4
  %79 = load i1, ptr addrspace(5) %p1, align 1
  %80 = zext i1 %79 to i64
  %81 = load i32, ptr addrspace(5) %__zb_m, align 4
  %82 = trunc i64 %80 to i32
  %83 = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %84 = and i32 %83, %81
  %85 = icmp ne i64 %80, 0
  %86 = call i32 @llvm.amdgcn.ballot.i32(i1 %85)
  %87 = and i32 %86, %81
  %88 = zext i32 %87 to i64
  %89 = trunc i64 %88 to i32
  %90 = lshr i64 %88, 32
  %91 = trunc i64 %90 to i1
  store i32 %89, ptr addrspace(5) %__zb_v, align 4
  %92 = load i32, ptr addrspace(5) %__zb_v, align 4
  %93 = call i32 @llvm.ctpop.i32(i32 %92)
  store i32 %93, ptr addrspace(5) %__zb_v, align 4
  store i32 0, ptr addrspace(5) %__zb_r, align 4
  %94 = load i32, ptr addrspace(5) %__zb_m, align 4
  %95 = sub i32 0, %94
  store i32 %95, ptr addrspace(5) %__zb_l, align 4
  %96 = load i32, ptr addrspace(5) %__zb_l, align 4
  %97 = load i32, ptr addrspace(5) %__zb_m, align 4
  %98 = and i32 %96, %97
  store i32 %98, ptr addrspace(5) %__zb_l, align 4
  %99 = load i32, ptr addrspace(5) %__zb_l, align 4
  %100 = call i32 @llvm.ctlz.i32(i32 %99, i1 false)
  %101 = sub i32 31, %100
  %102 = icmp eq i32 %99, 0
  %103 = select i1 %102, i32 -1, i32 %101
  store i32 %103, ptr addrspace(5) %__zb_l, align 4
  %104 = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  store i32 %104, ptr addrspace(5) %__zb_n1, align 4
  %105 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %106 = load i32, ptr addrspace(5) %__zb_l, align 4
  %107 = icmp eq i32 %105, %106
  %108 = xor i1 %107, true
  store i1 %107, ptr addrspace(5) %__zb_p4, align 1
  %109 = load i1, ptr addrspace(5) %__zb_p4, align 1
  %110 = xor i1 %109, true
  br i1 %110, label %"$zluda_bar_0_done", label %181

"$zluda_bar_0_wait":                              ; preds = %271, %256, %181
  %111 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %112 = inttoptr i64 %111 to ptr addrspace(3)
  %113 = load volatile i64, ptr addrspace(3) %112, align 8
  store i64 %113, ptr addrspace(5) %__zb_now, align 8
  %114 = load i64, ptr addrspace(5) %__zb_now, align 8
  %115 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %116 = icmp uge i64 %114, %115
  %117 = xor i1 %116, true
  store i1 %116, ptr addrspace(5) %__zb_q, align 1
  %118 = load i1, ptr addrspace(5) %__zb_q, align 1
  br i1 %118, label %"$zluda_bar_0_arrived", label %271

"$zluda_bar_0_arrived":                           ; preds = %"$zluda_bar_0_wait"
  fence seq_cst
  %119 = load i64, ptr addrspace(5) %__zb_s, align 8
  %120 = inttoptr i64 %119 to ptr addrspace(3)
  %121 = getelementptr i8, ptr addrspace(3) %120, i64 8
  %122 = load volatile i32, ptr addrspace(3) %121, align 4
  store i32 %122, ptr addrspace(5) %__zb_r, align 4
  br label %"$zluda_bar_0_done"

"$zluda_bar_0_done":                              ; preds = %"$zluda_bar_0_arrived", %"$zluda_bar_1_ready"
  %123 = load i32, ptr addrspace(5) %__zb_r, align 4
  %124 = zext i32 %123 to i64
  %125 = load i32, ptr addrspace(5) %__zb_l, align 4
  %126 = load i32, ptr addrspace(5) %__zb_m, align 4
  %127 = trunc i64 %124 to i32
  %128 = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %129 = and i32 %128, %126
  %130 = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %131 = and i32 %125, 31
  %132 = and i32 %130, 0
  %133 = or i32 %132, 31
  %134 = and i32 %130, 0
  %135 = and i32 %131, -1
  %136 = or i32 %134, %135
  %137 = icmp sle i32 %136, %133
  %138 = select i1 %137, i32 %136, i32 %130
  %139 = shl i32 %138, 2
  %140 = call i32 @llvm.amdgcn.ds.bpermute(i32 %139, i32 %127)
  %141 = zext i32 %140 to i64
  %142 = zext i1 %137 to i64
  %143 = shl i64 %142, 32
  %144 = or i64 %141, %143
  %145 = trunc i64 %144 to i32
  %146 = lshr i64 %144, 32
  %147 = trunc i64 %146 to i1
  store i32 %145, ptr addrspace(5) %__zb_r, align 4
  fence seq_cst
  %148 = load i32, ptr addrspace(5) %__zb_r, align 4
  store i32 %148, ptr addrspace(5) %r5, align 4
  %149 = load i32, ptr addrspace(5) %r3, align 4
  %150 = load i32, ptr addrspace(5) %r4, align 4
  %151 = add i32 %149, %150
  store i32 %151, ptr addrspace(5) %r6, align 4
  %152 = load i32, ptr addrspace(5) %r6, align 4
  %153 = load i32, ptr addrspace(5) %r5, align 4
  %154 = add i32 %152, %153
  store i32 %154, ptr addrspace(5) %r6, align 4
  %155 = load i64, ptr addrspace(5) %rd1, align 8
  %156 = inttoptr i64 %155 to ptr addrspace(1)
  %157 = load i32, ptr addrspace(5) %r6, align 4
  store i32 %157, ptr addrspace(1) %156, align 4
  ret void

start:                                            ; preds = %entry
  %158 = call i32 @llvm.amdgcn.workitem.id.x()
  %159 = zext i32 %158 to i64
  store i64 %159, ptr addrspace(5) %__zb_t3, align 8
  %160 = call i32 @llvm.amdgcn.workitem.id.y()
  store i32 %160, ptr addrspace(5) %__zb_n1, align 4
  %161 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %162 = trunc i64 %161 to i32
  %163 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %164 = or i32 %162, %163
  %165 = zext i32 %164 to i64
  store i64 %165, ptr addrspace(5) %__zb_t3, align 8
  %166 = call i32 @llvm.amdgcn.workitem.id.z()
  store i32 %166, ptr addrspace(5) %__zb_n1, align 4
  %167 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %168 = trunc i64 %167 to i32
  %169 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %170 = or i32 %168, %169
  %171 = zext i32 %170 to i64
  store i64 %171, ptr addrspace(5) %__zb_t3, align 8
  %172 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %173 = trunc i64 %172 to i32
  %174 = icmp ne i32 %173, 0
  %175 = xor i1 %174, true
  store i1 %174, ptr addrspace(5) %__zb_p4, align 1
  %176 = load i1, ptr addrspace(5) %__zb_p4, align 1
  br i1 %176, label %"$zluda_bar_1_ready", label %177

177:                                              ; preds = %start
  store i64 ptrtoint (ptr addrspace(3) @__zluda_named_barriers to i64), ptr addrspace(5) %__zb_a2, align 8
  %178 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %179 = add i64 %178, 512
  store i64 %179, ptr addrspace(5) %__zb_e, align 8
  br label %"$zluda_bar_1_zero"

180:                                              ; preds = %"$zluda_bar_1_zero"
  br label %"$zluda_bar_1_ready"

181:                                              ; preds = %"$zluda_bar_1_ready"
  %182 = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %183 = getelementptr i8, ptr addrspace(4) %182, i32 12
  %ntid.x = load i16, ptr addrspace(4) %183, align 2
  %184 = zext i16 %ntid.x to i32
  store i32 %184, ptr addrspace(5) %__zb_c, align 4
  %185 = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %186 = getelementptr i8, ptr addrspace(4) %185, i32 14
  %ntid.y = load i16, ptr addrspace(4) %186, align 2
  %187 = zext i16 %ntid.y to i32
  store i32 %187, ptr addrspace(5) %__zb_n1, align 4
  %188 = load i32, ptr addrspace(5) %__zb_c, align 4
  %189 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %190 = mul i32 %188, %189
  store i32 %190, ptr addrspace(5) %__zb_c, align 4
  %191 = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %192 = getelementptr i8, ptr addrspace(4) %191, i32 16
  %ntid.z = load i16, ptr addrspace(4) %192, align 2
  %193 = zext i16 %ntid.z to i32
  store i32 %193, ptr addrspace(5) %__zb_n1, align 4
  %194 = load i32, ptr addrspace(5) %__zb_c, align 4
  %195 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %196 = mul i32 %194, %195
  store i32 %196, ptr addrspace(5) %__zb_c, align 4
  %197 = load i32, ptr addrspace(5) %__zb_c, align 4
  %198 = add i32 %197, 31
  store i32 %198, ptr addrspace(5) %__zb_c, align 4
  %199 = load i32, ptr addrspace(5) %__zb_c, align 4
  %200 = and i32 %199, -32
  store i32 %200, ptr addrspace(5) %__zb_c, align 4
  %201 = load i32, ptr addrspace(5) %__zb_c, align 4
  %202 = zext i32 %201 to i65
  %203 = trunc i65 %202 to i64
  store i64 %203, ptr addrspace(5) %__zb_c64, align 8
  store i32 0, ptr addrspace(5) %__zb_n1, align 4
  %204 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %205 = and i32 %204, 15
  store i32 %205, ptr addrspace(5) %__zb_n1, align 4
  %206 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %207 = zext i32 %206 to i64
  %208 = mul i64 %207, 32
  store i64 %208, ptr addrspace(5) %__zb_a2, align 8
  store i64 ptrtoint (ptr addrspace(3) @__zluda_named_barriers to i64), ptr addrspace(5) %__zb_w, align 8
  %209 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %210 = load i64, ptr addrspace(5) %__zb_w, align 8
  %211 = add i64 %209, %210
  store i64 %211, ptr addrspace(5) %__zb_a2, align 8
  %212 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %213 = inttoptr i64 %212 to ptr addrspace(3)
  %214 = load volatile i64, ptr addrspace(3) %213, align 8
  store i64 %214, ptr addrspace(5) %__zb_now, align 8
  %215 = load i64, ptr addrspace(5) %__zb_now, align 8
  %216 = load i64, ptr addrspace(5) %__zb_c64, align 8
  %217 = icmp eq i64 %216, 0
  %218 = select i1 %217, i64 1, i64 %216
  %219 = udiv i64 %215, %218
  %220 = select i1 %217, i64 -1, i64 %219
  store i64 %220, ptr addrspace(5) %__zb_g, align 8
  %221 = load i64, ptr addrspace(5) %__zb_g, align 8
  %222 = urem i64 %221, 3
  %223 = select i1 false, i64 -1, i64 %222
  store i64 %223, ptr addrspace(5) %__zb_s, align 8
  %224 = load i64, ptr addrspace(5) %__zb_s, align 8
  %225 = shl i64 %224, 2
  %226 = select i1 false, i64 0, i64 %225
  store i64 %226, ptr addrspace(5) %__zb_s, align 8
  %227 = load i64, ptr addrspace(5) %__zb_s, align 8
  %228 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %229 = add i64 %227, %228
  store i64 %229, ptr addrspace(5) %__zb_s, align 8
  %230 = load i64, ptr addrspace(5) %__zb_s, align 8
  %231 = inttoptr i64 %230 to ptr addrspace(3)
  %232 = getelementptr i8, ptr addrspace(3) %231, i64 8
  %233 = load i32, ptr addrspace(5) %__zb_v, align 4
  %234 = atomicrmw add ptr addrspace(3) %232, i32 %233 monotonic, align 4
  store i32 %234, ptr addrspace(5) %__zb_n1, align 4
  fence seq_cst
  %235 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %236 = inttoptr i64 %235 to ptr addrspace(3)
  %237 = atomicrmw add ptr addrspace(3) %236, i64 32 monotonic, align 8
  store i64 %237, ptr addrspace(5) %__zb_old, align 8
  %238 = load i64, ptr addrspace(5) %__zb_old, align 8
  %239 = load i64, ptr addrspace(5) %__zb_c64, align 8
  %240 = icmp eq i64 %239, 0
  %241 = select i1 %240, i64 1, i64 %239
  %242 = udiv i64 %238, %241
  %243 = select i1 %240, i64 -1, i64 %242
  store i64 %243, ptr addrspace(5) %__zb_g, align 8
  %244 = load i64, ptr addrspace(5) %__zb_g, align 8
  %245 = add i64 %244, 1
  store i64 %245, ptr addrspace(5) %__zb_t3, align 8
  %246 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %247 = load i64, ptr addrspace(5) %__zb_c64, align 8
  %248 = mul i64 %246, %247
  store i64 %248, ptr addrspace(5) %__zb_t3, align 8
  %249 = load i64, ptr addrspace(5) %__zb_old, align 8
  %250 = add i64 %249, 32
  store i64 %250, ptr addrspace(5) %__zb_now, align 8
  %251 = load i64, ptr addrspace(5) %__zb_now, align 8
  %252 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %253 = icmp ult i64 %251, %252
  %254 = xor i1 %253, true
  store i1 %253, ptr addrspace(5) %__zb_q, align 1
  %255 = load i1, ptr addrspace(5) %__zb_q, align 1
  br i1 %255, label %"$zluda_bar_0_wait", label %256

256:                                              ; preds = %181
  %257 = load i64, ptr addrspace(5) %__zb_g, align 8
  %258 = add i64 %257, 2
  store i64 %258, ptr addrspace(5) %__zb_w, align 8
  %259 = load i64, ptr addrspace(5) %__zb_w, align 8
  %260 = urem i64 %259, 3
  %261 = select i1 false, i64 -1, i64 %260
  store i64 %261, ptr addrspace(5) %__zb_w, align 8
  %262 = load i64, ptr addrspace(5) %__zb_w, align 8
  %263 = shl i64 %262, 2
  %264 = select i1 false, i64 0, i64 %263
  store i64 %264, ptr addrspace(5) %__zb_w, align 8
  %265 = load i64, ptr addrspace(5) %__zb_w, align 8
  %266 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %267 = add i64 %265, %266
  store i64 %267, ptr addrspace(5) %__zb_w, align 8
  %268 = load i64, ptr addrspace(5) %__zb_w, align 8
  %269 = inttoptr i64 %268 to ptr addrspace(3)
  %270 = getelementptr i8, ptr addrspace(3) %269, i64 8
  store volatile i32 0, ptr addrspace(3) %270, align 4
  br label %"$zluda_bar_0_wait"

271:                                              ; preds = %"$zluda_bar_0_wait"
  call void @llvm.amdgcn.s.sleep(i32 1)
  br label %"$zluda_bar_0_wait"
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.x() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.y() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workitem.id.z() #1

; Function Attrs: convergent nocallback nofree nounwind willreturn
declare void @llvm.amdgcn.s.barrier() #2

; Function Attrs: convergent nocallback nofree nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.ballot.i32(i1) #3

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32) #4

; Function Attrs: convergent nocallback nofree nounwind willreturn memory(none)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32) #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.ctpop.i32(i32) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.ctlz.i32(i32, i1 immarg) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef align 4 ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr() #1

; Function Attrs: nocallback nofree nosync nounwind willreturn
declare void @llvm.amdgcn.s.sleep(i32 immarg) #5

attributes #0 = { "amdgpu-flat-work-group-size"="1,1024" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent nocallback nofree nounwind willreturn }
attributes #3 = { convergent nocallback nofree nounwind willreturn memory(none) }
attributes #4 = { nocallback nofree nosync nounwind willreturn memory(none) }
attributes #5 = { nocallback nofree nosync nounwind willreturn }

!llvm.module.flags = !{!0}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
