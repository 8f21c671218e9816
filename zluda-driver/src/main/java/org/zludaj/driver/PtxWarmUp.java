package org.zludaj.driver;

/**
 * Reading PTX before the application's first module: the start-up archive's training run reads a sample module
 * (CdsTrainMain: the archive then holds the parser's classes, ANTLR's among them, and on JDK 25 their profiles), and
 * on the GPU backends a daemon thread reads it once while the application starts (ANTLR builds its prediction tables
 * at a parser's first use in a process: 150-200 ms of a cold process's first kernel, measured on ggml's modules), so
 * that the first module load finds the parser warm. The sample holds lookup tables as nvcc writes them: reading
 * ggml's tables (54,000 tokens a module) took a cold JVM 240 ms, a warm one 10. ZLUDA_PARSER_WARMUP=0 turns the thread off, =1 on for every backend.
 */
final class PtxWarmUp {
    private PtxWarmUp() {}

    /** Set at the application's first module load: the thread stops after its current round (it only helps ahead of it). */
    private static volatile boolean stop;

    /** The application reads its own PTX now: the warm-up thread leaves the cores to it after its current round. */
    static void stop() {
        stop = true;
    }

    /** Starts the warm-up thread (once per process). */
    static void start() {
        Thread t = new Thread(() -> {
            try {
                // cudart's integrity check, soon after its cuInit, was the first use of the JDK's security providers
                // (MD2's lookup): 12-27 ms of the call on this machine, 13 on an H100's; made here while NVIDIA's cuInit runs
                Integrity.hmacMd2(Integrity.KEY, new byte[16]);
                // the compiler's build digest (a hash of its jar), which every compile cache key holds: the first module
                // load, found by its record, otherwise waited 10-20 ms for it
                if (org.zludaj.ptx.Build.ID.isEmpty()) throw new IllegalStateException("no compiler build digest");
                read(3);
            } catch (RuntimeException e) {
                org.zludaj.api.Log.of(PtxWarmUp.class).debug("parser warm-up: {}", e.toString());
            }
        }, "zluda-parser-warmup");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    /**
     * Does {@code times} over (fewer once the application reads its own PTX) what a module load and a kernel's first
     * use do before any compilation: index a module, hash it, parse it whole, parse its variables' declarations, hash its
     * variables text, parse a kernel's unit and print the unit for its cache key and hash it.
     */
    static void read(int times) {
        StringBuilder text = new StringBuilder(".version 8.0\n.target sm_75\n.address_size 64\n"
                + ".global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n.extern .shared .align 16 .b8 smem[];\n");
        // lookup tables as nvcc writes them (ggml's modules each carry 96 KB of them: most of a module's variables unit)
        java.util.Random r = new java.util.Random(1);
        for (int t = 0; t < 4; t++) {
            text.append(".global .align 8 .b8 grid").append(t).append("[2048] = {");
            for (int i = 0; i < 2048; i++) text.append(i == 0 ? "" : ", ").append(r.nextInt(256));
            text.append("};\n");
        }
        for (int k = 0; k < 8; k++) kernel(text, "k" + k);
        String ptx = text.toString();
        if (times > 0) index();
        for (int i = 0; i < times && !stop; i++) {
            org.zludaj.ptx.PtxIndex index = org.zludaj.ptx.PtxIndex.of(ptx);
            org.zludaj.ptx.cache.CompileCache.key("parsed-without-error", org.zludaj.ptx.Build.ID, ptx);  // CodeLoader.ParseMarks
            org.zludaj.ptx.Ptx.Parsed whole = org.zludaj.ptx.Ptx.parseLenient("train", ptx);  // a small module's first load
            org.zludaj.ptx.Ptx.Parsed declarations = org.zludaj.ptx.Ptx.parseLenient("train", index.declarationsText());
            org.zludaj.ptx.cache.CompileCache.sourceKey("nvptx", "sm_90", index.variablesText());  // Backend.loadVariables
            String name = "k" + (i % 8);
            org.zludaj.ptx.Ptx.Parsed unit = org.zludaj.ptx.Ptx.parseLenient("train", index.kernelText(name));
            if (!whole.ok() || !declarations.ok() || !unit.ok())
                throw new IllegalStateException("the training PTX does not parse: " + whole.log() + declarations.log() + unit.log());
            org.zludaj.ptx.cache.CompileCache.unitKey("nvptx", "sm_90", org.zludaj.ptx.PtxIndex.asKernelUnit(unit.module(), name));
        }
    }

    /**
     * Decompresses (zstd, as nvcc compresses a fatbin's PTX) and indexes a module of 1,000 kernels (1.5 MB) twice, so
     * that the JIT has compiled the decompressor and the indexer (Chunks, PtxIndex) before the application's first
     * module: cold, ggml's 7 MB mul_mat_vec module took 117 ms to decompress (16 warm) and 70 ms to index (13 warm).
     */
    static void index() {
        StringBuilder text = new StringBuilder(".version 8.0\n.target sm_75\n.address_size 64\n.extern .shared .align 16 .b8 smem[];\n");
        for (int k = 0; k < 1000; k++) {
            text.append("\t// .globl\tbulk").append(k).append('\n');
            kernel(text, "bulk" + k);
        }
        String ptx = text.toString();
        byte[] bytes = ptx.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        io.airlift.compress.zstd.ZstdCompressor zstd = new io.airlift.compress.zstd.ZstdCompressor();
        byte[] packed = new byte[zstd.maxCompressedLength(bytes.length)];
        int size = zstd.compress(bytes, 0, bytes.length, packed, 0, packed.length);
        for (int i = 0; i < 2 && !stop; i++) {
            byte[] unpacked = new byte[bytes.length];
            int n = new io.airlift.compress.zstd.ZstdDecompressor().decompress(packed, 0, size, unpacked, 0, unpacked.length);
            if (n != bytes.length) throw new IllegalStateException("the warm-up module decompresses to " + n + " bytes");
            org.zludaj.ptx.PtxIndex index = org.zludaj.ptx.PtxIndex.of(new String(unpacked, java.nio.charset.StandardCharsets.UTF_8));
            if (index.kernels().size() != 1000) throw new IllegalStateException("the warm-up module indexes as " + index.kernels().size() + " kernels");
        }
    }

    /** A kernel as nvcc writes them: shuffles, shared memory, half precision, conversions. */
    private static void kernel(StringBuilder text, String name) {
        text.append(".visible .entry ").append(name).append("(.param .u64 p, .param .u32 n)\n{\n")
                .append("\t.reg .pred %p<4>;\n\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<16>;\n\t.reg .f32 %f<16>;\n\t.reg .b64 %rd<8>;\n")
                .append("\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, %tid.x;\n\tmov.u32 %r3, %ctaid.x;\n")
                .append("\tmad.lo.s32 %r4, %r3, 256, %r2;\n\tsetp.ge.s32 %p1, %r4, %r1;\n\t@%p1 bra DONE;\n")
                .append("\tcvta.to.global.u64 %rd2, %rd1;\n\tmul.wide.s32 %rd3, %r4, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n")
                .append("\tld.global.nc.f32 %f1, [%rd4];\n\tld.global.nc.u16 %rs1, [%rd4+2];\n\tcvt.f32.f16 %f2, %rs1;\n")
                .append("\tfma.rn.ftz.f32 %f3, %f1, %f2, 0f3F800000;\n\tmov.b32 %r5, %f3;\n")
                .append("\tshfl.sync.bfly.b32 %r6|%p2, %r5, 16, 31, -1;\n\tmov.b32 %f4, %r6;\n\tadd.ftz.f32 %f5, %f3, %f4;\n")
                .append("\tshl.b32 %r7, %r2, 2;\n\tmov.u32 %r8, smem;\n\tadd.s32 %r9, %r8, %r7;\n\tst.shared.f32 [%r9], %f5;\n")
                .append("\tbar.sync 0;\n\tld.shared.f32 %f6, [%r9];\n\tmax.ftz.f32 %f7, %f6, %f5;\n\tex2.approx.ftz.f32 %f8, %f7;\n")
                .append("\tcvt.rzi.s32.f32 %r10, %f8;\n\tprmt.b32 %r11, %r10, %r5, 0x5140;\n\tdp4a.s32.s32 %r12, %r11, %r10, %r4;\n")
                .append("\tsetp.lt.f32 %p3, %f8, %f1;\n\tselp.b32 %r13, %r12, %r11, %p3;\n\tst.global.u32 [%rd4], %r13;\n")
                .append("\tmov.b64 {%r14, %r15}, %rd4;\n\tst.global.v2.u32 [%rd4+8], {%r14, %r15};\n")
                .append("DONE:\n\tret;\n}\n");
    }
}
