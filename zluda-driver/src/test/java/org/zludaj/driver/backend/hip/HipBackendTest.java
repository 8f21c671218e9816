package org.zludaj.driver.backend.hip;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Backend;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.llvm.Tools;

/**
 * The hip backend against a recording fake of the HIP table: the exact HIP calls for opening, a module load, a
 * launch and a copy (our side of the contract, not AMD's), the device description, and the kernarg layout of the
 * code object handed to HIP (the C layout kernelParams supply, hidden arguments after).
 */
class HipBackendTest {
    /** One gfx90a (skipped: wave64) and one gfx1100; every call is written down. */
    static class RecordingHip implements Hip {
        final List<String> calls = new ArrayList<>();
        byte[] codeObject;

        @Override public String open() { calls.add("open"); return null; }
        @Override public int init(int[] count) { calls.add("init"); count[0] = 2; return 0; }
        @Override public int setDevice(int d) { calls.add("setDevice " + d); return 0; }
        @Override public int attribute(int d, int a, int[] out) { out[0] = a == 87 ? 32 : 1000 + a; return 0; }
        @Override public String name(int d) { calls.add("name " + d); return d == 0 ? "AMD Instinct MI210" : "AMD Radeon RX 7900 XTX"; }
        @Override public long totalMemory(int d) { calls.add("totalMemory " + d); return 24L << 30; }
        @Override public String archName(int d) { calls.add("archName " + d); return d == 0 ? "gfx90a:sramecc+:xnack-" : "gfx1100"; }
        @Override public int alloc(int kind, long size, long[] out) { calls.add("alloc " + kind + " " + size); out[0] = 0x7000_0000L; return 0; }
        @Override public int free(int kind, long a) { calls.add("free " + kind); return 0; }
        @Override public int copy(long dst, long src, long n) { calls.add("copy " + Long.toHexString(dst) + " " + n); return 0; }
        @Override public int fill(long dst, int size, int value, long count) { calls.add("fill " + size + " " + value + " " + count); return 0; }
        @Override public int copyAsync(long dst, long src, long n, long stream) {
            calls.add("copyAsync " + Long.toHexString(dst) + " " + n + " on " + Long.toHexString(stream));
            return 0;
        }
        @Override public int fillAsync(long dst, int size, int value, long count, long stream) {
            calls.add("fillAsync " + size + " " + value + " " + count + " on " + Long.toHexString(stream));
            return 0;
        }
        @Override public int copy2D(long dst, long dp, long src, long sp, long w, long h) {
            calls.add("copy2D " + Long.toHexString(dst) + " " + dp + " " + Long.toHexString(src) + " " + sp + " " + w + "x" + h);
            return 0;
        }
        @Override public int moduleLoad(byte[] code, long[] out) { calls.add("moduleLoad"); codeObject = code; out[0] = 0x5000; return 0; }
        @Override public int function(long m, String name, long[] out) { calls.add("function " + name); out[0] = 0x6000 + 0x100 * functions++; return 0; }
        int functions;
        @Override public int global(long m, String name, long[] out) { calls.add("global " + name); out[0] = 0x5100; out[1] = 4; return 0; }
        @Override public int launch(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long params, long stream) {
            calls.add("launch " + Long.toHexString(f) + " " + gx + "x" + gy + "x" + gz + " " + bx + "x" + by + "x" + bz + " " + shared
                    + (stream == 0 ? "" : " on " + Long.toHexString(stream)));
            return 0;
        }
        @Override public int streamCreate(long[] out) { calls.add("streamCreate"); out[0] = 0x3000 + 0x10 * streams++; return 0; }
        @Override public int launchCooperative(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long params) {
            calls.add("launchCooperative " + Long.toHexString(f) + " " + gx + "x" + gy + "x" + gz + " " + bx + "x" + by + "x" + bz);
            return cooperativeResult;
        }
        @Override public boolean hasCooperativeLaunch() { return cooperative; }
        /** The fake's kernels use 128 VGPRs: 4 blocks of 256 threads per compute unit, 256 threads a block at most. */
        @Override public int occupancy(long f, int blockSize, long shared) {
            calls.add("occupancy " + Long.toHexString(f) + " " + blockSize + " " + shared);
            return blockSize <= 256 ? 1024 / blockSize : 0;
        }
        @Override public int functionAttribute(long f, int attribute) { return attribute == 4 ? 128 : attribute == 0 ? 256 : -1; }
        boolean cooperative = true;
        int cooperativeResult;
        @Override public int streamDestroy(long s) { calls.add("streamDestroy " + Long.toHexString(s)); return 0; }
        @Override public int streamSynchronize(long s) { calls.add("streamSynchronize " + Long.toHexString(s)); return syncResult; }
        int streams;
        @Override public int synchronize() { calls.add("synchronize"); return syncResult; }
        @Override public int printfInit(long global, long buffer, long capacity) {
            calls.add("printfInit " + Long.toHexString(global) + " " + Long.toHexString(buffer) + " " + capacity);
            return 0;
        }
        @Override public long printfDrain(long buffer) { calls.add("printfDrain " + Long.toHexString(buffer)); return drained; }
        int syncResult;
        long drained;
        @Override public int peer(int op, int device, int peer, int[] out) {
            calls.add(new String[] {"canAccessPeer", "enablePeerAccess", "disablePeerAccess"}[op] + " " + device + " " + peer);
            out[0] = 1;
            return 0;
        }
        @Override public boolean hasVirtualMemory() { return virtualMemory; }
        boolean virtualMemory = true;
        int vmmResult;
        @Override public int vmm(int op, int device, long a, long b, long c, long d, long[] out) {
            if (op != org.zludaj.nativ.GpuVmm.GRANULARITY) calls.add("hipMem" + org.zludaj.nativ.GpuVmm.name(op) + " dev " + device + " "
                    + Long.toHexString(a) + " " + Long.toHexString(b) + " " + Long.toHexString(c) + " " + Long.toHexString(d));
            out[0] = switch (op) {
                case org.zludaj.nativ.GpuVmm.GRANULARITY -> 2L << 20;
                case org.zludaj.nativ.GpuVmm.CREATE -> 0xa110c;
                case org.zludaj.nativ.GpuVmm.RESERVE -> 0x7f00_0000_0000L;
                default -> 0;
            };
            return vmmResult;
        }
    }

    @Test
    void virtualMemoryMapsOneToOneOntoHipsFunctions() throws Exception {
        RecordingHip hip = new RecordingHip();
        HipBackend b = HipBackend.open(hip, 8, 6, null);
        assertEquals(2L << 20, b.granularity(0), "HIP's granularity");
        hip.calls.clear();
        long va = b.reserveAddress(8L << 20, 2L << 20, 0);
        long h = b.createPhysical(0, 4L << 20);
        b.map(va + (2L << 20), 4L << 20, h, 0);
        b.setAccess(va + (2L << 20), 4L << 20, 0, 3);
        b.unmap(va + (2L << 20), 4L << 20);
        b.releasePhysical(h);
        b.freeAddress(va, 8L << 20);
        // HIP device 1 is CUDA's device 0 (device 0, a gfx90a, is skipped)
        assertEquals(List.of("hipMemAddressReserve dev 1 800000 200000 0 0", "hipMemCreate dev 1 400000 0 0 0",
                "hipMemMap dev 1 7f0000200000 400000 0 a110c", "hipMemSetAccess dev 1 7f0000200000 400000 3 0",
                "hipMemUnmap dev 1 7f0000200000 400000 0 0", "hipMemRelease dev 1 a110c 0 0 0", "hipMemAddressFree dev 1 7f0000000000 800000 0 0"),
                hip.calls);
        hip.vmmResult = 2;  // hipErrorOutOfMemory
        assertEquals(org.zludaj.api.CuResult.CUDA_ERROR_OUT_OF_MEMORY, assertThrows(CudaException.class, () -> b.createPhysical(0, 1L << 40)).result());
        assertEquals(org.zludaj.api.CuResult.CUDA_ERROR_INVALID_DEVICE, assertThrows(CudaException.class, () -> b.createPhysical(3, 2L << 20)).result());

        RecordingHip old = new RecordingHip();
        old.virtualMemory = false;
        HipBackend without = HipBackend.open(old, 8, 6, null);
        assertEquals(0, without.devices().get(0).attribute(102), "a runtime without hipMemCreate: no VMM, so ggml's pool uses cuMemAlloc");
        assertEquals(org.zludaj.api.CuResult.CUDA_ERROR_NOT_SUPPORTED,
                assertThrows(CudaException.class, () -> without.createPhysical(0, 2L << 20)).result());
    }

    static final String PTX = """
            .version 7.0
            .target sm_75
            .address_size 64
            .visible .global .u32 counter;
            .visible .entry k(.param .u8 a, .param .u64 b, .param .f32 c, .param .align 4 .b8 d[12], .param .u16 e)
            {
            \t.reg .u64 %rd<2>;
            \tld.param.u64 %rd1, [b];
            \tst.global.u32 [%rd1], 1;
            \tret;
            }
            """;

    /**
     * The launches the shim submits itself (shim/launch.c, Backend.directLaunchFunction) call HIP's C launch where a
     * launch is nothing more: with one GPU and until a module prints (a printing module's launches end with a fence
     * and a drain), and never with several GPUs (a launch first makes its kernel's GPU current).
     */
    @Test
    void theShimSubmitsLaunchesOnlyWhereALaunchIsHipsLaunchAlone() throws Exception {
        RecordingHip hip = new RecordingHip() {
            @Override public long directLaunchFunction() { return 0x4242; }
        };
        HipBackend b = HipBackend.open(hip, 8, 6, null);
        Backend.Program.Kernel plain = b.load(0, Ptx.parse("k.ptx", PTX)).kernel("k");
        assertEquals(0x4242, b.directLaunchFunction(plain));
        Backend.Program.Kernel printing = b.load(0, Ptx.parse("p.ptx", PRINTF_PTX)).kernel("k");
        assertEquals(0, b.directLaunchFunction(printing));
        assertEquals(0, b.directLaunchFunction(plain), "once a module prints, every launch drains its buffer");
        RecordingHip two = new RecordingHip() {
            @Override public int init(int[] count) { calls.add("init"); count[0] = 2; return 0; }
            @Override public String archName(int d) { calls.add("archName " + d); return "gfx1100"; }
            @Override public long directLaunchFunction() { return 0x4242; }
        };
        HipBackend b2 = HipBackend.open(two, 8, 6, null);
        assertEquals(2, b2.devices().size());
        assertEquals(0, b2.directLaunchFunction(b2.load(0, Ptx.parse("k.ptx", PTX)).kernel("k")));
    }

    @Test
    void openLoadLaunchAndCopyMakeExactlyTheseHipCalls() throws Exception {
        RecordingHip hip = new RecordingHip();
        HipBackend b = HipBackend.open(hip, 8, 6, null);
        assertEquals("gfx1100", b.target());
        assertEquals(List.of("open", "init", "archName 0", "name 0", "archName 1", "setDevice 1", "name 1", "totalMemory 1"), hip.calls);
        var dev = b.devices().get(0);
        assertEquals("AMD Radeon RX 7900 XTX", dev.name());
        assertEquals(1000 + 56, dev.attribute(1), "MAX_THREADS_PER_BLOCK from hipDeviceAttributeMaxThreadsPerBlock");
        assertEquals(32, dev.attribute(10), "warp size");
        assertEquals(8, dev.attribute(75));
        assertEquals(6, dev.attribute(76), "compute capability as configured");
        assertEquals(1000 + 16, dev.attribute(18), "INTEGRATED from HIP");
        assertTrue(dev.attribute(21) > 0, "attributes HIP lacks keep defined values");
        assertEquals(1, dev.attribute(102), "VMM where HIP has it (hipDeviceAttributeVirtualMemoryManagementSupported)");
        assertEquals(1000 + 10, dev.attribute(95), "COOPERATIVE_LAUNCH from HIP where it has hipModuleLaunchCooperativeKernel");
        RecordingHip old = new RecordingHip();
        old.cooperative = false;
        assertEquals(0, HipBackend.open(old, 8, 6, null).devices().get(0).attribute(95),
                "a runtime without hipModuleLaunchCooperativeKernel: no cooperative launch (llama.cpp's soft_max takes its other path)");

        hip.calls.clear();
        Backend.Program p = b.load(0, Ptx.parse("k.ptx", PTX));
        Backend.Program.Kernel k = p.kernel("k");
        assertEquals(0x5100, p.global("counter").address());
        long buf = b.allocate(0, 1024);
        b.fill(buf, 4, 0, 256);
        b.launch(k, new int[] {2, 1, 1}, new int[] {64, 1, 1}, 0, 0x1234, 0);
        b.copy(0x4000, buf, 1024);
        // the launch is queued (HIP's null stream orders the copy after it); the driver's fence waits for the device
        b.fence();
        assertEquals(List.of("moduleLoad", "function k", "global counter", "alloc 0 1024", "fill 4 0 256", "launch 6000 2x1x1 64x1x1 0",
                "copy 4000 1024", "synchronize"), hip.calls);
        hip.syncResult = 700;
        assertEquals(org.zludaj.api.CuResult.CUDA_ERROR_ILLEGAL_ADDRESS, assertThrows(CudaException.class, b::fence).result(),
                "a kernel's fault is reported by the fence, as an asynchronous error");
        hip.syncResult = 0;

        // the code object HIP received: AMDGPU ELF for gfx1100, kernarg layout = C layout of the parameters
        byte[] co = hip.codeObject;
        assertEquals(0x7f, co[0]);
        assertEquals(224, (co[18] & 0xff) | (co[19] & 0xff) << 8, "e_machine EM_AMDGPU");
        Path f = Files.createTempFile("k", ".hsaco");
        Files.write(f, co);
        String notes = Tools.run("llvm-readobj", List.of("--notes", f.toString()));
        Files.delete(f);
        assertTrue(notes.contains("EF_AMDGPU_MACH_AMDGCN_GFX1100") || notes.contains("gfx1100"), notes);
        List<long[]> explicit = new ArrayList<>();
        List<Long> hidden = new ArrayList<>();
        Matcher m = Pattern.compile("\\.offset:\\s*(\\d+)\\s*\\n\\s*\\.size:\\s*(\\d+)\\s*\\n\\s*\\.value_kind:\\s*(\\w+)").matcher(notes);
        while (m.find()) {
            if (m.group(3).startsWith("hidden_")) hidden.add(Long.parseLong(m.group(1)));
            else explicit.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
        }
        assertEquals(List.of("0:1", "8:8", "16:4", "20:12", "32:2"), explicit.stream().map(a -> a[0] + ":" + a[1]).toList(),
                "u8 @0, u64 @8, f32 @16, b8[12] align 4 @20, u16 @32: " + notes);
        for (long off : hidden) assertTrue(off >= 34, "hidden arguments (for HIP to fill) only after the explicit ones: " + off);
        Matcher size = Pattern.compile("\\.kernarg_segment_size:\\s*(\\d+)").matcher(notes);
        assertTrue(size.find() && Long.parseLong(size.group(1)) >= 34, notes);
    }

    /**
     * Every GPU we can target is a CUDA device, in HIP's order (wave64 ones skipped); operations make their GPU
     * current on the calling thread first (HIP's current device is per thread), compile for its own target, and launch
     * on the GPU the kernel was loaded on. A 2-D copy is one hipMemcpy2D.
     */
    @Test
    void everyUsableGpuIsADeviceAndOperationsSelectIt() throws Exception {
        RecordingHip hip = new RecordingHip() {
            @Override public int init(int[] count) { calls.add("init"); count[0] = 3; return 0; }
            @Override public String archName(int d) { calls.add("archName " + d); return new String[] {"gfx1100", "gfx90a", "gfx1030"}[d]; }
            @Override public String name(int d) { calls.add("name " + d); return "GPU " + d; }
        };
        HipBackend b = HipBackend.open(hip, 8, 6, null);
        assertEquals(List.of("GPU 0", "GPU 2"), b.devices().stream().map(org.zludaj.driver.backend.Device::name).toList());
        hip.calls.clear();
        Backend.Program p = b.load(1, Ptx.parse("k.ptx", PTX));
        assertEquals("moduleLoad", hip.calls.get(0), "GPU 2 is current already (the last one opened): " + hip.calls);
        assertEquals(0x36, hip.codeObject[48] & 0xff, "compiled for device 1's gfx1030 (EF_AMDGPU_MACH in e_flags)");
        Backend.Program.Kernel k1 = p.kernel("k");
        b.allocate(0, 64);
        Backend.Program.Kernel k0 = b.load(0, Ptx.parse("k.ptx", PTX)).kernel("k");
        assertEquals(0x41, hip.codeObject[48] & 0xff, "device 0 is a gfx1100");
        hip.calls.clear();
        b.launch(k1, new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, 0x10, 0);
        b.launch(k0, new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, 0x10, 0);
        b.copy2D(0x9000, 256, 0x8000, 128, 100, 4);
        b.copy2D(0x9000, 100, 0x8000, 100, 0, 4);
        assertEquals(List.of("setDevice 2", "launch 6000 1x1x1 32x1x1 0", "setDevice 0", "launch 6100 1x1x1 32x1x1 0",
                "copy2D 9000 256 8000 128 100x4"), hip.calls);
        // peer access between the two usable GPUs (HIP 0 and 2): asked of HIP, enabled with the device current
        hip.calls.clear();
        assertTrue(b.canAccessPeer(0, 1));
        assertFalse(b.canAccessPeer(1, 1), "a GPU is not its own peer");
        b.peerAccess(1, 0, true);
        assertEquals(List.of("canAccessPeer 0 2", "setDevice 2", "enablePeerAccess 2 0"), hip.calls);
        // another thread starts with no device of its own: it selects before it allocates
        hip.calls.clear();
        Thread t = new Thread(() -> {
            try {
                b.allocate(1, 32);
                b.fence();
            } catch (CudaException e) {
                throw new RuntimeException(e);
            }
        });
        t.start();
        t.join();
        assertEquals(List.of("setDevice 2", "alloc 0 32", "setDevice 0", "synchronize", "setDevice 2", "synchronize"), hip.calls,
                "the fence waits for every GPU");
    }

    /**
     * Compile on demand on the GPU: the module's variables unit is one code object, each kernel's unit another that
     * reaches the variables through a slot; loading the unit writes the variable's address into the slot.
     */
    @Test
    void kernelUnitsReachTheirModulesVariablesThroughSlots() throws Exception {
        RecordingHip hip = new RecordingHip() {
            @Override public int global(long m, String name, long[] out) {
                calls.add("global " + name);
                out[0] = name.startsWith("__zluda_got$") ? 0x5200 : 0x0123_4567_89ab_cdefL;
                out[1] = 8;
                return 0;
            }
        };
        HipBackend b = HipBackend.open(hip, 8, 6, null);
        assertTrue(b.compilesOnDemand());
        var whole = Ptx.parse("k.ptx", PTX);
        var index = org.zludaj.ptx.PtxIndex.of(PTX);
        hip.calls.clear();
        Backend.Program vars = b.load(0, org.zludaj.ptx.PtxIndex.restrict(whole, java.util.Set.of()));
        Backend.Program unit = b.loadUnit(vars, org.zludaj.ptx.PtxIndex.asKernelUnit(org.zludaj.ptx.PtxIndex.restrict(whole, index.closure("k")), "k"));
        assertNotNull(unit.kernel("k"));
        assertEquals(List.of("moduleLoad", "moduleLoad", "global __zluda_got$counter", "global counter", "fill 4 -1985229329 1",
                "fill 4 19088743 1", "function k"), hip.calls, "the slot gets 0x0123456789abcdef, low word first");
        Path f = Files.createTempFile("unit", ".hsaco");
        Files.write(f, hip.codeObject);
        String symbols = Tools.run("llvm-readobj", List.of("--dyn-symbols", f.toString()));
        Files.delete(f);
        assertTrue(symbols.contains("__zluda_got$counter") && !symbols.contains("Name: counter "), "the unit has the slot, not the variable: " + symbols);
    }

    /**
     * A module's variables unit is found in the compile cache by its text (Backend.loadVariables): the first load parses
     * and compiles it (or finds it by its model), a later one, in another process with the same cache, loads the very
     * same code object without parsing (ggml's modules carry 96 KB of tables each), the entry its model has too.
     */
    @Test
    void aVariablesUnitIsFoundByItsTextWithoutAParse(@TempDir Path dir) throws Exception {
        String ptx = PTX.replace(".visible .global .u32 counter;", ".visible .global .u32 counter = 7;\n.global .align 4 .b8 table[4] = {1, 2, 3, 4};");
        var index = org.zludaj.ptx.PtxIndex.of(ptx);
        var declarations = Ptx.parse("k.ptx", index.declarationsText());
        assertNull(declarations.globals().get(1).initializer(), "declared without the table");
        int[] parses = {0};
        Backend.Parse parse = () -> {
            parses[0]++;
            return Ptx.parseLenient("k.ptx", index.variablesText()).module();
        };
        var cache = new org.zludaj.ptx.cache.CompileCache(dir, 1 << 24);
        RecordingHip first = new RecordingHip();
        HipBackend.open(first, 8, 6, cache).loadVariables(0, declarations, org.zludaj.ptx.cache.CompileCache.textDigest(index.variablesText()), parse);
        assertEquals(1, parses[0]);
        RecordingHip again = new RecordingHip();
        HipBackend.open(again, 8, 6, cache).loadVariables(0, declarations, org.zludaj.ptx.cache.CompileCache.textDigest(index.variablesText()), parse);
        assertEquals(1, parses[0], "found by its text: not parsed");
        assertArrayEquals(first.codeObject, again.codeObject);
        RecordingHip byModel = new RecordingHip();
        HipBackend.open(byModel, 8, 6, cache).load(0, Ptx.parse("k.ptx", index.variablesText()));
        assertArrayEquals(first.codeObject, byModel.codeObject, "the same entry as the model's");
    }

    /**
     * A kernel's unit is found in the compile cache by its text too (Backend.loadUnit by text, KernelUnits): the first
     * load parses and compiles it, a later process with the same cache loads the very same code object after parsing
     * only the unit's interface (the kernel's parameters, directives and shared declarations), its slots filled as
     * before; a unit whose code left the cache is parsed and compiled again.
     */
    @Test
    void aKernelUnitIsFoundByItsTextWithoutAParse(@TempDir Path dir) throws Exception {
        String ptx = PTX.replace("\t.reg .u64 %rd<2>;", "\t.reg .u64 %rd<2>;\n\t.shared .align 8 .b8 tile[40];\n\t{ .shared .u32 inner; }")
                .replace("\tret;", "\tbar.sync 0;\n\tret;");
        var index = org.zludaj.ptx.PtxIndex.of(ptx);
        String text = index.kernelText("k"), digest = org.zludaj.ptx.cache.CompileCache.textDigest(ptx);
        int[] parses = {0};
        Backend.Parse parse = () -> {
            parses[0]++;
            return org.zludaj.ptx.PtxIndex.asKernelUnit(Ptx.parseLenient("k.ptx", text).module(), "k");
        };
        var cache = new org.zludaj.ptx.cache.CompileCache(dir, 1 << 24);
        java.util.function.Supplier<RecordingHip> slotted = () -> new RecordingHip() {
            @Override public int global(long m, String name, long[] out) {
                calls.add("global " + name);
                out[0] = name.startsWith("__zluda_got$") ? 0x5200 : 0x77;
                out[1] = 8;
                return 0;
            }
        };
        RecordingHip first = slotted.get();
        HipBackend b1 = HipBackend.open(first, 8, 6, cache);
        Backend.Program vars1 = b1.load(0, org.zludaj.ptx.PtxIndex.restrict(Ptx.parse("k.ptx", ptx), java.util.Set.of()));
        first.calls.clear();
        Backend.Program.Kernel k1 = b1.loadUnit(vars1, "k", digest, parse).kernel("k");
        assertEquals(1, parses[0]);
        byte[] code = first.codeObject;
        List<String> calls = List.copyOf(first.calls);

        RecordingHip again = slotted.get();
        HipBackend b2 = HipBackend.open(again, 8, 6, cache);
        Backend.Program vars2 = b2.load(0, org.zludaj.ptx.PtxIndex.restrict(Ptx.parse("k.ptx", ptx), java.util.Set.of()));
        again.calls.clear();
        Backend.Program.Kernel k2 = b2.loadUnit(vars2, "k", digest, parse).kernel("k");
        assertEquals(1, parses[0], "found by its text: not parsed");
        assertArrayEquals(code, again.codeObject, "the same code object");
        assertEquals(calls, again.calls, "loaded, its slot filled and its kernel found as at the first load");
        java.util.function.Function<Backend.Program.Kernel, List<String>> params = k -> k.ptx().params().stream()
                .map(v -> v.type() + " " + v.name() + " " + v.size() + " " + v.align()).toList();
        assertEquals(params.apply(k1), params.apply(k2));
        assertEquals(5, params.apply(k2).size());
        assertEquals(k1.ptx().directives(), k2.ptx().directives());
        assertEquals(2, k2.ptx().body().size(), "the kernel's shared declarations, nested ones too: " + k2.ptx().body());

        try (var files = Files.walk(dir)) {  // the code leaves the cache, its entry by text stays
            for (Path f : files.filter(Files::isRegularFile).toList())
                if (new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1).contains("\u007fELF"))
                    Files.delete(f);
        }
        RecordingHip evicted = slotted.get();
        HipBackend b3 = HipBackend.open(evicted, 8, 6, cache);
        Backend.Program vars3 = b3.load(0, org.zludaj.ptx.PtxIndex.restrict(Ptx.parse("k.ptx", ptx), java.util.Set.of()));
        assertNotNull(b3.loadUnit(vars3, "k", digest, parse).kernel("k"));
        assertEquals(2, parses[0], "its code evicted: parsed and compiled again");
        assertArrayEquals(code, evicted.codeObject);
    }

    /**
     * Occupancy and the register-bound function attributes are HIP's answers for the loaded code object's kernel (its
     * VGPRs limit them): ggml splits attention work by the occupancy it is told.
     */
    @Test
    void occupancyIsHipsOwnCount() throws Exception {
        RecordingHip hip = new RecordingHip();
        HipBackend b = HipBackend.open(hip, 8, 6, null);
        Backend.Program.Kernel k = b.load(0, Ptx.parse("k.ptx", PTX)).kernel("k");
        hip.calls.clear();
        assertEquals(8, b.activeBlocks(k, 128, 512));
        assertEquals(List.of("occupancy 6000 128 512"), hip.calls);
        assertEquals(128, b.compiledAttribute(k, 4));
        assertEquals(256, b.compiledAttribute(k, 0));
        assertEquals(-1, b.compiledAttribute(k, 1), "shared memory sizes stay the driver's own");
    }

    /**
     * Each CUDA stream gets a (blocking) HIP stream of its GPU at its first launch, and the legacy stream HIP's null
     * stream (so HIP keeps CUDA's implicit synchronization between kernels): launches and asynchronous copies and sets
     * go there, a stream's fence waits for that stream only, the device fence for all of the GPU's work, and a
     * destroyed stream gives its HIP stream back (the null stream is never destroyed).
     */
    @Test
    void cudaStreamsBecomeHipStreams() throws Exception {
        RecordingHip hip = new RecordingHip();
        HipBackend b = HipBackend.open(hip, 8, 6, null);
        Backend.Program.Kernel k = b.load(0, Ptx.parse("k.ptx", PTX)).kernel("k");
        hip.calls.clear();
        long q1 = b.createQueue(0, false), q2 = b.createQueue(0, false), legacy = b.createQueue(0, true);
        assertEquals(0, legacy, "the legacy stream is HIP's null stream, which HIP's blocking streams synchronize with");
        b.launch(k, new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, 0x10, 0, q1);
        b.launch(k, new int[] {2, 1, 1}, new int[] {32, 1, 1}, 0, 0x10, 0, q2);
        b.launch(k, new int[] {3, 1, 1}, new int[] {32, 1, 1}, 0, 0x10, 0, legacy);
        b.copyAsync(0x7000, 0x8000, 64, q2);
        b.fillAsync(0x7000, 4, 5, 16, q1);
        b.fence(q2);
        b.fence(0);
        b.destroyQueue(q1);
        b.destroyQueue(legacy);
        assertEquals(List.of("streamCreate", "streamCreate", "launch 6000 1x1x1 32x1x1 0 on 3000",
                "launch 6000 2x1x1 32x1x1 0 on 3010", "launch 6000 3x1x1 32x1x1 0", "copyAsync 7000 64 on 3010",
                "fillAsync 4 5 16 on 3000", "streamSynchronize 3010", "synchronize",
                "streamDestroy 3000"), hip.calls);
        hip.syncResult = 700;
        assertEquals(org.zludaj.api.CuResult.CUDA_ERROR_ILLEGAL_ADDRESS, assertThrows(CudaException.class, () -> b.fence(q2)).result(),
                "a fault in the stream's kernel is the stream fence's error");
    }

    /**
     * A cooperative launch: a zeroed grid workspace whose address goes into the module's __zluda_envreg (which the
     * kernel reads as %envreg1:%envreg2), hipModuleLaunchCooperativeKernel, a wait, the workspace freed; a grid too
     * large to be resident is HIP's error, mapped to CUDA's.
     */
    @Test
    void cooperativeLaunchesSetTheGridWorkspace() throws Exception {
        String ptx = """
                .version 7.0
                .target sm_70
                .address_size 64
                .visible .entry k(.param .u64 out)
                {
                \t.reg .b32 %r<3>;
                \t.reg .b64 %rd<2>;
                \tld.param.u64 %rd1, [out];
                \tmov.u32 %r1, %envreg1;
                \tmov.u32 %r2, %envreg2;
                \tst.global.v2.u32 [%rd1], {%r1, %r2};
                \tret;
                }
                """;
        RecordingHip hip = new RecordingHip();
        HipBackend b = HipBackend.open(hip, 8, 6, null);
        Backend.Program.Kernel k = b.load(0, Ptx.parse("coop.ptx", ptx)).kernel("k");
        Path f = Files.createTempFile("coop", ".hsaco");
        Files.write(f, hip.codeObject);
        String symbols = Tools.run("llvm-readobj", List.of("--dyn-symbols", f.toString()));
        Files.delete(f);
        assertTrue(symbols.contains("__zluda_envreg"), "the kernel reads the workspace from the module: " + symbols);
        hip.calls.clear();
        b.launchCooperative(k, new int[] {8, 1, 1}, new int[] {64, 1, 1}, 0, 0x10, 0);
        assertEquals(List.of("global __zluda_envreg", "alloc 0 64", "fill 1 0 64", "fill 4 1879048192 1", "fill 4 0 1",
                "launchCooperative 6000 8x1x1 64x1x1", "synchronize", "free 0"), hip.calls);
        hip.cooperativeResult = 720;
        assertEquals(720, assertThrows(CudaException.class,
                () -> b.launchCooperative(k, new int[] {100000, 1, 1}, new int[] {1024, 1, 1}, 0, 0x10, 0)).result(),
                "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE");
    }

    static final String PRINTF_PTX = """
            .version 7.0
            .target sm_75
            .address_size 64
            .extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
            .extern .func __assertfail(.param .b64 a, .param .b64 b, .param .b32 c, .param .b64 d, .param .b64 e);
            .global .align 1 .b8 $str[6] = {104, 105, 32, 37, 100, 0};
            .visible .entry k(.param .u32 n)
            {
            	.local .align 8 .b8 __local_depot0[8];
            	.reg .b64 %SP, %SPL, %rd<5>;
            	.reg .b32 %r<3>;
            	mov.u64 %SPL, __local_depot0;
            	cvta.local.u64 %SP, %SPL;
            	add.u64 %rd1, %SP, 0;
            	add.u64 %rd2, %SPL, 0;
            	mov.u32 %r1, %tid.x;
            	st.local.u32 [%rd2], %r1;
            	mov.u64 %rd3, $str;
            	cvta.global.u64 %rd4, %rd3;
            	{ .param .b64 param0; st.param.b64 [param0], %rd4; .param .b64 param1; st.param.b64 [param1], %rd1;
            	.param .b32 retval0; call.uni (retval0), vprintf, (param0, param1); ld.param.b32 %r2, [retval0]; }
            	ret;
            }
            """;

    /**
     * A module that prints gets a device buffer whose address goes into its __zluda_printf (the code object exports
     * it); each launch drains it after the kernel, and a recorded assert fails the launch with CUDA_ERROR_ASSERT.
     */
    @Test
    void printingModulesGetABufferThatLaunchesDrain() throws Exception {
        RecordingHip hip = new RecordingHip();
        HipBackend b = HipBackend.open(hip, 8, 6, null);
        hip.calls.clear();
        Backend.Program p = b.load(0, Ptx.parse("p.ptx", PRINTF_PTX));
        Backend.Program.Kernel k = p.kernel("k");
        b.launch(k, new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, 0x1234, 0);
        assertEquals(List.of("moduleLoad", "global __zluda_printf", "alloc 0 1048576", "printfInit 5100 70000000 1048576", "function k",
                "launch 6000 1x1x1 32x1x1 0", "synchronize", "printfDrain 70000000"), hip.calls);
        Path f = Files.createTempFile("p", ".hsaco");
        Files.write(f, hip.codeObject);
        String symbols = Tools.run("llvm-readobj", List.of("--dyn-symbols", f.toString()));
        String asm = Tools.run("llvm-objdump", List.of("-d", f.toString()));
        Files.delete(f);
        assertTrue(symbols.contains("__zluda_printf"), "the code object exports the buffer variable: " + symbols);
        assertTrue(asm.contains("atomic_add"), "records are reserved with an atomic add");
        assertFalse(asm.contains("s_trap"), "printf alone does not trap");

        // a kernel that asserted: its trap makes HIP's synchronize fail, the drain finds the record
        hip.syncResult = 719;
        hip.drained = 1L << 32;
        CudaException e = assertThrows(CudaException.class, () -> b.launch(k, new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, 0x1234, 0));
        assertEquals(org.zludaj.api.CuResult.CUDA_ERROR_ASSERT, e.result(), e.getMessage());
        hip.drained = 0;
        e = assertThrows(CudaException.class, () -> b.launch(k, new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, 0x1234, 0));
        assertNotEquals(org.zludaj.api.CuResult.CUDA_ERROR_ASSERT, e.result(), "a fault without an assert record is the fault");
    }

    @Test
    void noRuntimeNoDeviceOrOnlyWave64GpusAreRefusedWithTheReason() {
        Hip missing = new RecordingHip() {
            @Override public String open() { return "no HIP runtime (libamdhip64.so.7/.6/.5)"; }
        };
        assertTrue(assertThrows(CudaException.class, () -> HipBackend.open(missing, 8, 6, null)).getMessage().contains("no HIP runtime"));
        Hip none = new RecordingHip() {
            @Override public int init(int[] count) { count[0] = 0; return 100; }
        };
        assertEquals(100, assertThrows(CudaException.class, () -> HipBackend.open(none, 8, 6, null)).result());
        Hip cdna = new RecordingHip() {
            @Override public String archName(int d) { return "gfx942:sramecc+:xnack-"; }
        };
        assertTrue(assertThrows(CudaException.class, () -> HipBackend.open(cdna, 8, 6, null)).getMessage().contains("no GPU that ZLUDA-J can target"));
    }

    /** The real runtime where the machine has one (Debian: libamdhip64-5): it loads, finds no GPU, and says so. */
    @Test
    void theRealHipRuntimeLoadsAndReportsNoGpuHere() {
        NativeHip hip = new NativeHip();
        String why = hip.open();
        org.junit.jupiter.api.Assumptions.assumeTrue(why == null, "no HIP runtime on this machine (" + why + "): apt-get install libamdhip64-5");
        assertTrue(hip.library().startsWith("libamdhip64"), hip.library());
        CudaException e = assertThrows(CudaException.class, () -> HipBackend.open(new NativeHip(), 8, 6, null));
        assertEquals(org.zludaj.api.CuResult.CUDA_ERROR_NO_DEVICE, e.result(), e.getMessage());
        assertTrue(e.getMessage().contains("HIP finds no GPU"), e.getMessage());
    }
}
