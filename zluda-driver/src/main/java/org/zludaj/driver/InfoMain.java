package org.zludaj.driver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;
import org.zludaj.driver.backend.Backend;
import org.zludaj.driver.backend.Device;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.cache.CompileCache;
import org.zludaj.ptx.target.AmdgpuTarget;
import org.zludaj.ptx.target.HostTarget;

/**
 * {@code zluda info}: the backends and their devices, the compile targets, the JDK and LLVM in use, the compile cache.
 */
public final class InfoMain {
    private InfoMain() {}

    public static void main(String[] args) {
        System.out.println("JDK: " + System.getProperty("java.version") + " (" + System.getProperty("java.home") + ")");
        int[] major = new int[1], minor = new int[1], patch = new int[1];
        org.bytedeco.llvm.global.LLVM.LLVMGetVersion(major, minor, patch);
        System.out.println("LLVM: " + major[0] + "." + minor[0] + "." + patch[0] + " (org.bytedeco:llvm), compiler build " + Compiler.BUILD_ID);
        Backend host = new org.zludaj.driver.backend.host.HostBackend(8, 6);
        System.out.println(ApiCoverage.describe(new Driver(host).apis()) + ", " + ApiCoverage.IN_C.size() + " of them in the shim's C");
        System.out.println("backends:");
        for (Device d : host.devices()) {
            System.out.printf(Locale.ROOT, "  host: available: %s, compute capability %d.%d, %d SMs, %.1f GiB%n", d.name(), d.attribute(75),
                    d.attribute(76), d.attribute(16), d.totalMemory() / (double) (1L << 30));
        }
        org.zludaj.driver.backend.hip.NativeHip hip = new org.zludaj.driver.backend.hip.NativeHip();
        String why = hip.open();
        if (why != null) {
            System.out.println("  hip: unavailable: " + why);
        } else {
            try {
                var b = org.zludaj.driver.backend.hip.HipBackend.open(new org.zludaj.driver.backend.hip.NativeHip(), 8, 6, null);
                System.out.println("  hip: available: " + b.devices().get(0).name() + ", target " + b.target() + " (" + hip.library() + ")");
            } catch (CudaException e) {
                System.out.println("  hip: " + hip.library() + " loaded, but " + e.getMessage());
            }
        }
        System.out.println("  cuda: NVIDIA loopback, ZLUDA_BACKEND=cuda (NVIDIA's driver: "
                + System.getenv().getOrDefault("ZLUDA_NVIDIA_LIB", "the system's libcuda.so.1") + ")");
        System.out.println("selected: " + Driver.selectBackend().name() + (System.getenv("ZLUDA_BACKEND") == null ? " (default)"
                : " (ZLUDA_BACKEND=" + System.getenv("ZLUDA_BACKEND") + ")"));
        HostTarget t = HostTarget.native_();
        System.out.println("compile targets: host " + t.triple() + " (" + t.cpu() + "); AMD " + String.join(" ", AmdgpuTarget.SUPPORTED.stream().sorted().toList())
                + " (wave32, code object v5); NVIDIA sm_XX (NVPTX)");
        CompileCache cache = CompileCache.fromEnvironment();
        if (cache == null) {
            System.out.println("compile cache: off");
            return;
        }
        long entries;
        try (Stream<Path> files = Files.walk(cache.directory(), 2)) {
            entries = files.filter(f -> f.getFileName().toString().matches("[0-9a-f]{64}")).count();
        } catch (java.io.IOException e) {
            entries = -1;
        }
        System.out.printf(Locale.ROOT, "compile cache: %s (%d entries, %.1f of %d MiB)%n", cache.directory(), entries,
                cache.size() / (double) (1 << 20), cache.maxBytes() >> 20);
    }
}
