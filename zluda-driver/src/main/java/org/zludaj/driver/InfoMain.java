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
        System.out.println("backends:");
        Backend host = Driver.selectBackend();
        for (Device d : host.devices()) {
            System.out.printf(Locale.ROOT, "  host: available: %s, compute capability %d.%d, %d SMs, %.1f GiB%n", d.name(), d.attribute(75),
                    d.attribute(76), d.attribute(16), d.totalMemory() / (double) (1L << 30));
        }
        System.out.println("  hip: not in this build (AMD GPUs through HIP come with the hip backend)");
        System.out.println("  cuda: NVIDIA loopback, ZLUDA_BACKEND=cuda (NVIDIA's driver: "
                + System.getenv().getOrDefault("ZLUDA_NVIDIA_LIB", "the system's libcuda.so.1") + ")");
        String asked = System.getenv("ZLUDA_BACKEND");
        System.out.println("selected: " + host.name() + (asked == null ? " (default)" : " (ZLUDA_BACKEND=" + asked + ")"));
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
