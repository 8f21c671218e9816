package org.zludaj.ptx.llvm;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.llvm.global.LLVM;

/**
 * LLVM's command-line tools shipped in org.bytedeco:llvm (ld.lld, llvm-objdump, llvm-readobj), extracted from the
 * jar on first use. The 1.5.12 packaging links them against libLLVM.so.20.1 while the cache holds libLLVM.so, so
 * they run with a private directory of the right link on LD_LIBRARY_PATH.
 */
public final class Tools {
    private Tools() {}

    private static Path libDir;

    private static synchronized Path libDir() throws IOException {
        if (libDir == null) {
            Loader.load(LLVM.class);
            File llvm = Loader.cacheResource(LLVM.class, "/org/bytedeco/llvm/" + Loader.getPlatform() + "/libLLVM.so");
            Path dir = Files.createTempDirectory("zluda-llvm");
            Files.createSymbolicLink(dir.resolve("libLLVM.so.20.1"), llvm.toPath());
            dir.toFile().deleteOnExit();
            dir.resolve("libLLVM.so.20.1").toFile().deleteOnExit();
            libDir = dir;
        }
        return libDir;
    }

    /** Path of a bundled tool, extracted and made executable. */
    public static synchronized Path tool(String name) throws IOException {
        File f = Loader.cacheResource(LLVM.class, "/org/bytedeco/llvm/" + Loader.getPlatform() + "/" + name);
        if (f == null) throw new IOException("LLVM tool " + name + " is not in the org.bytedeco:llvm jar");
        if (!f.canExecute() && !f.setExecutable(true)) throw new IOException("cannot make " + f + " executable");
        return f.toPath();
    }

    /** Runs a tool (at most 120 s); returns its stdout, or throws with its stderr. */
    public static String run(String name, List<String> args) throws IOException {
        return run(name, args, 120);
    }

    /** Runs a tool for at most {@code seconds}; returns its stdout, or throws with its stderr. */
    public static String run(String name, List<String> args, int seconds) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(tool(name).toString());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("LD_LIBRARY_PATH", libDir().toString());
        Path err = Files.createTempFile("zluda-tool", ".err");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        try {
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(name + " timed out");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(name + " interrupted");
        }
        String stderr = Files.readString(err);
        Files.deleteIfExists(err);
        if (p.exitValue() != 0) throw new IOException(name + " failed (" + p.exitValue() + "): " + stderr);
        return out;
    }
}
