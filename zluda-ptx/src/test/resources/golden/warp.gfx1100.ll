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

"$zluda_bar_1_zero":                              ; preds = %"$zluda_bar_1_zero", %175
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
  br i1 %10, label %"$zluda_bar_1_zero", label %178

"$zluda_bar_1_ready":                             ; preds = %178, %start
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
  %48 = xor i32 %45, 1
  %49 = icmp sle i32 %48, %47
  %50 = select i1 %49, i32 %48, i32 %45
  %51 = shl i32 %50, 2
  %52 = call i32 @llvm.amdgcn.ds.bpermute(i32 %51, i32 %42)
  %53 = zext i32 %52 to i64
  %54 = zext i1 %49 to i64
  %55 = shl i64 %54, 32
  %56 = or i64 %53, %55
  %57 = trunc i64 %56 to i32
  %58 = lshr i64 %56, 32
  %59 = trunc i64 %58 to i1
  store i32 %57, ptr addrspace(5) %r3, align 4
  store i1 %59, ptr addrspace(5) %p1, align 1
  %60 = load i1, ptr addrspace(5) %p1, align 1
  %61 = zext i1 %60 to i64
  %62 = trunc i64 %61 to i32
  %63 = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %64 = and i32 %63, -1
  %65 = icmp ne i64 %61, 0
  %66 = call i32 @llvm.amdgcn.ballot.i32(i1 %65)
  %67 = and i32 %66, -1
  %68 = zext i32 %67 to i64
  %69 = trunc i64 %68 to i32
  %70 = lshr i64 %68, 32
  %71 = trunc i64 %70 to i1
  store i32 %69, ptr addrspace(5) %r4, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  fence seq_cst
  %72 = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %73 = and i32 %72, -1
  %74 = zext i32 %72 to i64
  %75 = trunc i64 %74 to i32
  %76 = lshr i64 %74, 32
  %77 = trunc i64 %76 to i1
  store i32 %75, ptr addrspace(5) %__zb_m, align 4
  %78 = load i1, ptr addrspace(5) %p1, align 1
  %79 = zext i1 %78 to i64
  %80 = load i32, ptr addrspace(5) %__zb_m, align 4
  %81 = trunc i64 %79 to i32
  %82 = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %83 = and i32 %82, %80
  %84 = icmp ne i64 %79, 0
  %85 = call i32 @llvm.amdgcn.ballot.i32(i1 %84)
  %86 = and i32 %85, %80
  %87 = zext i32 %86 to i64
  %88 = trunc i64 %87 to i32
  %89 = lshr i64 %87, 32
  %90 = trunc i64 %89 to i1
  store i32 %88, ptr addrspace(5) %__zb_v, align 4
  %91 = load i32, ptr addrspace(5) %__zb_v, align 4
  %92 = call i32 @llvm.ctpop.i32(i32 %91)
  store i32 %92, ptr addrspace(5) %__zb_v, align 4
  store i32 0, ptr addrspace(5) %__zb_r, align 4
  %93 = load i32, ptr addrspace(5) %__zb_m, align 4
  %94 = sub i32 0, %93
  store i32 %94, ptr addrspace(5) %__zb_l, align 4
  %95 = load i32, ptr addrspace(5) %__zb_l, align 4
  %96 = load i32, ptr addrspace(5) %__zb_m, align 4
  %97 = and i32 %95, %96
  store i32 %97, ptr addrspace(5) %__zb_l, align 4
  %98 = load i32, ptr addrspace(5) %__zb_l, align 4
  %99 = call i32 @llvm.ctlz.i32(i32 %98, i1 false)
  %100 = sub i32 31, %99
  %101 = icmp eq i32 %98, 0
  %102 = select i1 %101, i32 -1, i32 %100
  store i32 %102, ptr addrspace(5) %__zb_l, align 4
  %103 = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  store i32 %103, ptr addrspace(5) %__zb_n1, align 4
  %104 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %105 = load i32, ptr addrspace(5) %__zb_l, align 4
  %106 = icmp eq i32 %104, %105
  %107 = xor i1 %106, true
  store i1 %106, ptr addrspace(5) %__zb_p4, align 1
  %108 = load i1, ptr addrspace(5) %__zb_p4, align 1
  %109 = xor i1 %108, true
  br i1 %109, label %"$zluda_bar_0_done", label %179

"$zluda_bar_0_wait":                              ; preds = %269, %254, %179
  %110 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %111 = inttoptr i64 %110 to ptr addrspace(3)
  %112 = load volatile i64, ptr addrspace(3) %111, align 8
  store i64 %112, ptr addrspace(5) %__zb_now, align 8
  %113 = load i64, ptr addrspace(5) %__zb_now, align 8
  %114 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %115 = icmp uge i64 %113, %114
  %116 = xor i1 %115, true
  store i1 %115, ptr addrspace(5) %__zb_q, align 1
  %117 = load i1, ptr addrspace(5) %__zb_q, align 1
  br i1 %117, label %"$zluda_bar_0_arrived", label %269

"$zluda_bar_0_arrived":                           ; preds = %"$zluda_bar_0_wait"
  fence seq_cst
  %118 = load i64, ptr addrspace(5) %__zb_s, align 8
  %119 = inttoptr i64 %118 to ptr addrspace(3)
  %120 = getelementptr i8, ptr addrspace(3) %119, i64 8
  %121 = load volatile i32, ptr addrspace(3) %120, align 4
  store i32 %121, ptr addrspace(5) %__zb_r, align 4
  br label %"$zluda_bar_0_done"

"$zluda_bar_0_done":                              ; preds = %"$zluda_bar_0_arrived", %"$zluda_bar_1_ready"
  %122 = load i32, ptr addrspace(5) %__zb_r, align 4
  %123 = zext i32 %122 to i64
  %124 = load i32, ptr addrspace(5) %__zb_l, align 4
  %125 = load i32, ptr addrspace(5) %__zb_m, align 4
  %126 = trunc i64 %123 to i32
  %127 = call i32 @llvm.amdgcn.ballot.i32(i1 true)
  %128 = and i32 %127, %125
  %129 = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %130 = and i32 %124, 31
  %131 = and i32 %129, 0
  %132 = or i32 %131, 31
  %133 = and i32 %130, -1
  %134 = or i32 %131, %133
  %135 = icmp sle i32 %134, %132
  %136 = select i1 %135, i32 %134, i32 %129
  %137 = shl i32 %136, 2
  %138 = call i32 @llvm.amdgcn.ds.bpermute(i32 %137, i32 %126)
  %139 = zext i32 %138 to i64
  %140 = zext i1 %135 to i64
  %141 = shl i64 %140, 32
  %142 = or i64 %139, %141
  %143 = trunc i64 %142 to i32
  %144 = lshr i64 %142, 32
  %145 = trunc i64 %144 to i1
  store i32 %143, ptr addrspace(5) %__zb_r, align 4
  fence seq_cst
  %146 = load i32, ptr addrspace(5) %__zb_r, align 4
  store i32 %146, ptr addrspace(5) %r5, align 4
  %147 = load i32, ptr addrspace(5) %r3, align 4
  %148 = load i32, ptr addrspace(5) %r4, align 4
  %149 = add i32 %147, %148
  store i32 %149, ptr addrspace(5) %r6, align 4
  %150 = load i32, ptr addrspace(5) %r6, align 4
  %151 = load i32, ptr addrspace(5) %r5, align 4
  %152 = add i32 %150, %151
  store i32 %152, ptr addrspace(5) %r6, align 4
  %153 = load i64, ptr addrspace(5) %rd1, align 8
  %154 = inttoptr i64 %153 to ptr addrspace(1)
  %155 = load i32, ptr addrspace(5) %r6, align 4
  store i32 %155, ptr addrspace(1) %154, align 4
  ret void

start:                                            ; preds = %entry
  %156 = call i32 @llvm.amdgcn.workitem.id.x()
  %157 = zext i32 %156 to i64
  store i64 %157, ptr addrspace(5) %__zb_t3, align 8
  %158 = call i32 @llvm.amdgcn.workitem.id.y()
  store i32 %158, ptr addrspace(5) %__zb_n1, align 4
  %159 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %160 = trunc i64 %159 to i32
  %161 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %162 = or i32 %160, %161
  %163 = zext i32 %162 to i64
  store i64 %163, ptr addrspace(5) %__zb_t3, align 8
  %164 = call i32 @llvm.amdgcn.workitem.id.z()
  store i32 %164, ptr addrspace(5) %__zb_n1, align 4
  %165 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %166 = trunc i64 %165 to i32
  %167 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %168 = or i32 %166, %167
  %169 = zext i32 %168 to i64
  store i64 %169, ptr addrspace(5) %__zb_t3, align 8
  %170 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %171 = trunc i64 %170 to i32
  %172 = icmp ne i32 %171, 0
  %173 = xor i1 %172, true
  store i1 %172, ptr addrspace(5) %__zb_p4, align 1
  %174 = load i1, ptr addrspace(5) %__zb_p4, align 1
  br i1 %174, label %"$zluda_bar_1_ready", label %175

175:                                              ; preds = %start
  store i64 ptrtoint (ptr addrspace(3) @__zluda_named_barriers to i64), ptr addrspace(5) %__zb_a2, align 8
  %176 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %177 = add i64 %176, 512
  store i64 %177, ptr addrspace(5) %__zb_e, align 8
  br label %"$zluda_bar_1_zero"

178:                                              ; preds = %"$zluda_bar_1_zero"
  br label %"$zluda_bar_1_ready"

179:                                              ; preds = %"$zluda_bar_1_ready"
  %180 = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %181 = getelementptr i8, ptr addrspace(4) %180, i32 12
  %ntid.x = load i16, ptr addrspace(4) %181, align 2
  %182 = zext i16 %ntid.x to i32
  store i32 %182, ptr addrspace(5) %__zb_c, align 4
  %183 = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %184 = getelementptr i8, ptr addrspace(4) %183, i32 14
  %ntid.y = load i16, ptr addrspace(4) %184, align 2
  %185 = zext i16 %ntid.y to i32
  store i32 %185, ptr addrspace(5) %__zb_n1, align 4
  %186 = load i32, ptr addrspace(5) %__zb_c, align 4
  %187 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %188 = mul i32 %186, %187
  store i32 %188, ptr addrspace(5) %__zb_c, align 4
  %189 = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %190 = getelementptr i8, ptr addrspace(4) %189, i32 16
  %ntid.z = load i16, ptr addrspace(4) %190, align 2
  %191 = zext i16 %ntid.z to i32
  store i32 %191, ptr addrspace(5) %__zb_n1, align 4
  %192 = load i32, ptr addrspace(5) %__zb_c, align 4
  %193 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %194 = mul i32 %192, %193
  store i32 %194, ptr addrspace(5) %__zb_c, align 4
  %195 = load i32, ptr addrspace(5) %__zb_c, align 4
  %196 = add i32 %195, 31
  store i32 %196, ptr addrspace(5) %__zb_c, align 4
  %197 = load i32, ptr addrspace(5) %__zb_c, align 4
  %198 = and i32 %197, -32
  store i32 %198, ptr addrspace(5) %__zb_c, align 4
  %199 = load i32, ptr addrspace(5) %__zb_c, align 4
  %200 = zext i32 %199 to i65
  %201 = trunc i65 %200 to i64
  store i64 %201, ptr addrspace(5) %__zb_c64, align 8
  store i32 0, ptr addrspace(5) %__zb_n1, align 4
  %202 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %203 = and i32 %202, 15
  store i32 %203, ptr addrspace(5) %__zb_n1, align 4
  %204 = load i32, ptr addrspace(5) %__zb_n1, align 4
  %205 = zext i32 %204 to i64
  %206 = mul i64 %205, 32
  store i64 %206, ptr addrspace(5) %__zb_a2, align 8
  store i64 ptrtoint (ptr addrspace(3) @__zluda_named_barriers to i64), ptr addrspace(5) %__zb_w, align 8
  %207 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %208 = load i64, ptr addrspace(5) %__zb_w, align 8
  %209 = add i64 %207, %208
  store i64 %209, ptr addrspace(5) %__zb_a2, align 8
  %210 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %211 = inttoptr i64 %210 to ptr addrspace(3)
  %212 = load volatile i64, ptr addrspace(3) %211, align 8
  store i64 %212, ptr addrspace(5) %__zb_now, align 8
  %213 = load i64, ptr addrspace(5) %__zb_now, align 8
  %214 = load i64, ptr addrspace(5) %__zb_c64, align 8
  %215 = icmp eq i64 %214, 0
  %216 = select i1 %215, i64 1, i64 %214
  %217 = udiv i64 %213, %216
  %218 = select i1 %215, i64 -1, i64 %217
  store i64 %218, ptr addrspace(5) %__zb_g, align 8
  %219 = load i64, ptr addrspace(5) %__zb_g, align 8
  %220 = urem i64 %219, 3
  %221 = select i1 false, i64 -1, i64 %220
  store i64 %221, ptr addrspace(5) %__zb_s, align 8
  %222 = load i64, ptr addrspace(5) %__zb_s, align 8
  %223 = shl i64 %222, 2
  %224 = select i1 false, i64 0, i64 %223
  store i64 %224, ptr addrspace(5) %__zb_s, align 8
  %225 = load i64, ptr addrspace(5) %__zb_s, align 8
  %226 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %227 = add i64 %225, %226
  store i64 %227, ptr addrspace(5) %__zb_s, align 8
  %228 = load i64, ptr addrspace(5) %__zb_s, align 8
  %229 = inttoptr i64 %228 to ptr addrspace(3)
  %230 = getelementptr i8, ptr addrspace(3) %229, i64 8
  %231 = load i32, ptr addrspace(5) %__zb_v, align 4
  %232 = atomicrmw add ptr addrspace(3) %230, i32 %231 monotonic, align 4
  store i32 %232, ptr addrspace(5) %__zb_n1, align 4
  fence seq_cst
  %233 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %234 = inttoptr i64 %233 to ptr addrspace(3)
  %235 = atomicrmw add ptr addrspace(3) %234, i64 32 monotonic, align 8
  store i64 %235, ptr addrspace(5) %__zb_old, align 8
  %236 = load i64, ptr addrspace(5) %__zb_old, align 8
  %237 = load i64, ptr addrspace(5) %__zb_c64, align 8
  %238 = icmp eq i64 %237, 0
  %239 = select i1 %238, i64 1, i64 %237
  %240 = udiv i64 %236, %239
  %241 = select i1 %238, i64 -1, i64 %240
  store i64 %241, ptr addrspace(5) %__zb_g, align 8
  %242 = load i64, ptr addrspace(5) %__zb_g, align 8
  %243 = add i64 %242, 1
  store i64 %243, ptr addrspace(5) %__zb_t3, align 8
  %244 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %245 = load i64, ptr addrspace(5) %__zb_c64, align 8
  %246 = mul i64 %244, %245
  store i64 %246, ptr addrspace(5) %__zb_t3, align 8
  %247 = load i64, ptr addrspace(5) %__zb_old, align 8
  %248 = add i64 %247, 32
  store i64 %248, ptr addrspace(5) %__zb_now, align 8
  %249 = load i64, ptr addrspace(5) %__zb_now, align 8
  %250 = load i64, ptr addrspace(5) %__zb_t3, align 8
  %251 = icmp ult i64 %249, %250
  %252 = xor i1 %251, true
  store i1 %251, ptr addrspace(5) %__zb_q, align 1
  %253 = load i1, ptr addrspace(5) %__zb_q, align 1
  br i1 %253, label %"$zluda_bar_0_wait", label %254

254:                                              ; preds = %179
  %255 = load i64, ptr addrspace(5) %__zb_g, align 8
  %256 = add i64 %255, 2
  store i64 %256, ptr addrspace(5) %__zb_w, align 8
  %257 = load i64, ptr addrspace(5) %__zb_w, align 8
  %258 = urem i64 %257, 3
  %259 = select i1 false, i64 -1, i64 %258
  store i64 %259, ptr addrspace(5) %__zb_w, align 8
  %260 = load i64, ptr addrspace(5) %__zb_w, align 8
  %261 = shl i64 %260, 2
  %262 = select i1 false, i64 0, i64 %261
  store i64 %262, ptr addrspace(5) %__zb_w, align 8
  %263 = load i64, ptr addrspace(5) %__zb_w, align 8
  %264 = load i64, ptr addrspace(5) %__zb_a2, align 8
  %265 = add i64 %263, %264
  store i64 %265, ptr addrspace(5) %__zb_w, align 8
  %266 = load i64, ptr addrspace(5) %__zb_w, align 8
  %267 = inttoptr i64 %266 to ptr addrspace(3)
  %268 = getelementptr i8, ptr addrspace(3) %267, i64 8
  store volatile i32 0, ptr addrspace(3) %268, align 4
  br label %"$zluda_bar_0_wait"

269:                                              ; preds = %"$zluda_bar_0_wait"
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
