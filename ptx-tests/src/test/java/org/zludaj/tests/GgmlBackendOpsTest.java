package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * llama.cpp's GPU code on the host backend: ggml's own {@code test-backend-ops test -b CUDA0}, which compares each op
 * of ggml's CUDA backend (through ZLUDA-J's driver and cuBLAS) with ggml's CPU backend, for the ops a llama model
 * runs in inference, every case of each (MUL_MAT and FLASH_ATTN_EXT: a subset, the whole runs are benchmarks), and the
 * matrix kernels again under the AMD GPUs' lowering (ZLUDA_HOST_WMMA: WMMA and lane permutes, emulated), MMQ too, as
 * llama.cpp's default build chooses it (c/ggml_use_mmq.c). Uses
 * the ggml build of ../shared/ggml/host (or ZLUDA_GGML_DIR) and CUDA's libcudart.so.13 (/usr/local/cuda/lib64, or
 * ZLUDA_CUDART_DIR); skipped, saying so, where either is absent. And a whole model: ggml's GPT-2 example with a small
 * random model (tools/gpt2-random-model.py) generates, greedily, the same text through ZLUDA-J as on ggml's CPU backend.
 */
class GgmlBackendOpsTest {
    private static final Pattern PASSED = Pattern.compile("(\\d+)/(\\d+) tests passed");

    static Path ggml() {
        String env = System.getenv("ZLUDA_GGML_DIR");
        return env != null && !env.isEmpty() ? Path.of(env) : Programs.DIST.getParent().getParent().resolve("shared/ggml/host");
    }

    static Path cudart() {
        String env = System.getenv("ZLUDA_CUDART_DIR");
        return Path.of(env != null && !env.isEmpty() ? env : "/usr/local/cuda/lib64");
    }

    @ParameterizedTest(name = "{0} {1} {2} {3}")
    @CsvSource(delimiter = ';', value = {
            "GET_ROWS,SET_ROWS,CPY,CONT,DUP,ADD,MUL,SCALE,RMS_NORM,NORM,SILU,GELU,SWIGLU,GEGLU,ARGMAX,SUM_ROWS;;;",
            "ROPE,SOFT_MAX;;;",
            "ARGSORT,TOP_K;;;",
            "MUL_MAT;type_a=(f32|f16|q4_0|q8_0),type_b=f32;;",
            "MUL_MAT_ID;type_a=(f16|q4_0),type_b=f32;;",
            "FLASH_ATTN_EXT;hsk=64,hsv=64,.*nb=1,.*type_K=(f16|q8_0),type_V=(f16|q8_0);;",
            // the AMD GPUs' lowering (ZLUDA_HOST_WMMA): the mma.sync flash-attention kernel (f16 K/V, 32 query rows)
            // and the mma matrix products of the experts (mul_mat_f, mul_mat_f_ids), as they run on an RDNA3 and an
            // RDNA4 GPU
            "FLASH_ATTN_EXT;hsk=64,hsv=64,nh=4,nr23=\\[1,1\\],kv=512,nb=32,.*type_K=f16;gfx1100;",
            "MUL_MAT_ID;type_a=f16,type_b=f32;gfx1201;",
            // llama.cpp's default build (MMQ): the int8 mma.sync kernel mul_mat_q of q4_0 weights, 16 columns, as it
            // runs on an RDNA3 GPU (WMMA iu8)
            "MUL_MAT;type_a=q4_0,type_b=f32,m=16,n=16,k=256,bs=\\[1,1\\],nr=\\[1,1\\],;gfx1100;default",
            // MMQ's other int8 dot products (q2_K's, q6_K's, and the iq types' q8_0_16) in RDNA4's WMMA layout, and
            // q4_0's and q6_K's on RDNA2, where the int8 mma becomes dot products (9 columns: one 16-column tile)
            "MUL_MAT;type_a=(q2_K|q6_K|iq2_xs),type_b=f32,m=16,n=9,k=256,;gfx1201;default",
            "MUL_MAT;type_a=(q4_0|q6_K),type_b=f32,m=16,n=9,k=256,;gfx1030;default"})
    void everyCasePassesAsOnTheCpuBackend(String ops, String pattern, String amdLowering, String build, @TempDir Path dir) throws Exception {
        Path bin = ggml().resolve("bin/test-backend-ops");
        assumeTrue(Files.isExecutable(bin), "ggml's test-backend-ops is not at " + bin + " (../shared/ggml, or set ZLUDA_GGML_DIR): skipped");
        assumeTrue(Files.exists(cudart().resolve("libcudart.so.13")),
                "CUDA's libcudart.so.13 is not in " + cudart() + " (set ZLUDA_CUDART_DIR): ggml cannot start, skipped");
        List<String> cmd = new ArrayList<>(List.of(Programs.DIST.resolve("bin/zluda").toString(), "run", "--", bin.toString(), "test",
                "-b", "CUDA0", "-o", ops));
        if (pattern != null && !pattern.isEmpty()) cmd.addAll(List.of("-p", pattern));
        String libs = ggml().resolve("lib") + ":" + cudart() + ":" + Programs.DIST.resolve("lib");
        Map<String, String> env = new java.util.HashMap<>(Map.of("LD_LIBRARY_PATH", libs));
        if (amdLowering != null && !amdLowering.isEmpty()) env.put("ZLUDA_HOST_WMMA", amdLowering);
        if ("default".equals(build)) {
            env.put("LD_PRELOAD", defaultBuildChoice(dir).toString());
            env.put("ZLUDA_PROFILE", "calls");  // the calls table says whether cuBLAS or ggml's own kernels did the products
        }
        Programs.Result r = Programs.run(cmd, env, dir, 900);
        String tail = r.stdout().length() > 4000 ? r.stdout().substring(r.stdout().length() - 4000) : r.stdout();
        List<String> failed = r.stdout().lines().filter(l -> l.contains("FAIL")).limit(20).toList();
        assertTrue(failed.isEmpty(), ops + ": failing cases\n" + String.join("\n", failed));
        Matcher m = PASSED.matcher(r.stdout());
        assertTrue(m.find(), ops + ": no summary line\n" + tail + "\n" + r.stderr());
        int passed = Integer.parseInt(m.group(1)), total = Integer.parseInt(m.group(2));
        assertTrue(total > 0, ops + ": no case ran");
        assertEquals(total, passed, ops + "\n" + tail);
        assertEquals(0, r.exit(), ops + "\n" + tail + "\n" + r.stderr());
        if ("default".equals(build)) {
            assertFalse(r.stderr().contains("cublasGemm"), "the default build's choice did not take: cuBLAS made the products\n" + r.stderr());
            assertTrue(r.stderr().contains("cuLaunchKernel"), "no kernel launched\n" + r.stderr());
        }
    }

    /**
     * ../shared/ggml's build forces cuBLAS; llama.cpp's default build differs from it only in mmq.cu's host choice of
     * MMQ for quantized weights (the device code is the same). The LD_PRELOAD library c/ggml_use_mmq.c makes that
     * choice as the default build does on our compute capability (8.6).
     */
    private static Path defaultBuildChoice(Path dir) throws Exception {
        Path lib = dir.resolve("libggml_use_mmq.so");
        return Programs.build(List.of("gcc", "-shared", "-fPIC", "-O1", "-Wall", "-o", lib.toString(),
                Programs.TESTS.resolve("c/ggml_use_mmq.c").toString()), lib, dir);
    }

    /**
     * f16 weights: the FORCE_CUBLAS build's products (cuBLAS for the prompt). q4_0 weights with llama.cpp's default
     * build's choice: MMQ for the prompt, MMVQ for each token, no cuBLAS GEMM for the weights (the attention's batched
     * products stay cuBLAS's in both builds).
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = ';', value = {"f16;", "q4_0;default"})
    void gpt2GeneratesWhatTheCpuBackendGenerates(String type, String build, @TempDir Path dir) throws Exception {
        Path bin = ggml().resolve("bin/gpt-2-backend");
        assumeTrue(Files.isExecutable(bin), "ggml's gpt-2-backend is not at " + bin + " (../shared/ggml, or set ZLUDA_GGML_DIR): skipped");
        assumeTrue(Files.exists(cudart().resolve("libcudart.so.13")), "CUDA's libcudart.so.13 is not in " + cudart() + ": skipped");
        Path model = dir.resolve("gpt2-tiny.bin");
        Programs.Result made = Programs.run(List.of("python3", Programs.DIST.getParent().resolve("tools/gpt2-random-model.py").toString(),
                model.toString(), "--layers", "2", "--embd", "128", "--heads", "4", "--ctx", "128", "--vocab", "2048", "--type", type),
                Map.of(), dir);
        assumeTrue(made.exit() == 0, "tools/gpt2-random-model.py needs python3 with numpy: skipped\n" + made);
        String libs = ggml().resolve("lib") + ":" + cudart() + ":" + Programs.DIST.resolve("lib");
        Map<String, String> env = new java.util.HashMap<>(Map.of("LD_LIBRARY_PATH", libs));
        if ("default".equals(build)) env.putAll(Map.of("LD_PRELOAD", defaultBuildChoice(dir).toString(), "ZLUDA_PROFILE", "calls"));
        String[] text = new String[2];
        for (int gpuLayers = 0; gpuLayers < 2; gpuLayers++) {  // 0: ggml's CPU backend; 1: its CUDA backend, through ZLUDA-J
            Programs.Result r = Programs.run(List.of(Programs.DIST.resolve("bin/zluda").toString(), "run", "--", bin.toString(), "-m",
                    model.toString(), "-p", "Hello world, this is a test", "-n", "32", "-ngl", String.valueOf(gpuLayers), "-t", "2", "-s",
                    "1", "--top_k", "1"), env, dir, 600);
            assertEquals(0, r.exit(), r.toString());
            assertEquals(gpuLayers == 1, r.stderr().contains("using CUDA backend"), r.toString());
            if (gpuLayers == 1 && "default".equals(build)) {
                assertTrue(r.stderr().contains("cuLaunchKernel"), "no calls table\n" + r.stderr());
                assertFalse(r.stderr().lines().anyMatch(l -> l.startsWith("cublasGemmEx ")),
                        "the default build's choice did not take: cuBLAS multiplied the weights\n" + r.stderr());
            }
            text[gpuLayers] = r.stdout().lines().filter(l -> l.startsWith("Hello world, this is a test")).findFirst().orElse(null);
            assertNotNull(text[gpuLayers], r.toString());
            assertTrue(text[gpuLayers].length() > "Hello world, this is a test".length() + 8, "generated text: " + r);
        }
        assertEquals(text[0], text[1], "greedy generation through ZLUDA-J differs from ggml's CPU backend (" + type + " weights)");
    }
}
