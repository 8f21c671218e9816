package org.zludaj.tests;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Builds test programs with gcc or nvcc and runs them through the ZLUDA-J distribution. */
final class Programs {
    private Programs() {}

    static final Path DIST = Path.of(System.getProperty("zluda.dist", "dist")).toAbsolutePath();
    static final Path TESTS = Path.of(System.getProperty("ptx.tests.dir", "src/test")).toAbsolutePath();

    record Result(int exit, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    static File onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File f = new File(d, tool);
            if (f.canExecute()) return f;
        }
        return null;
    }

    static void requireNvcc() {
        assumeTrue(onPath("nvcc") != null, "nvcc (CUDA toolkit) is not installed: CUDA programs are not built here");
    }

    static Result run(List<String> cmd, Map<String, String> env, Path dir) throws IOException, InterruptedException {
        return run(cmd, env, dir, 300);
    }

    static Result run(List<String> cmd, Map<String, String> env, Path dir, int timeoutSeconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().putAll(env);
        Path out = Files.createTempFile(dir, "out", ".txt"), err = Files.createTempFile(dir, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + cmd);
        }
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** Compiles, failing the test with the compiler's output when it fails. */
    static Path build(List<String> cmd, Path output, Path dir) throws IOException, InterruptedException {
        Result r = run(cmd, Map.of(), dir);
        if (r.exit != 0) throw new AssertionError("build failed: " + cmd + "\n" + r);
        return output;
    }

    static Path nvcc(Path dir, String source, String name, String... options) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("nvcc", "-o", dir.resolve(name).toString()));
        cmd.addAll(List.of(options));
        cmd.add(TESTS.resolve("cuda").resolve(source).toString());
        return build(cmd, dir.resolve(name), dir);
    }

    static Path gccAgainstDist(Path dir, String source, String name) throws IOException, InterruptedException {
        return build(List.of("gcc", "-O1", "-Wall", "-o", dir.resolve(name).toString(), TESTS.resolve("c").resolve(source).toString(),
                "-L" + DIST.resolve("lib"), "-lcuda"), dir.resolve(name), dir);
    }

    /** Runs a program with our libcuda.so.1 first on LD_LIBRARY_PATH. */
    static Result withShim(Path program, Map<String, String> extraEnv, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(program.toString()));
        cmd.addAll(List.of(args));
        var env = new java.util.HashMap<>(extraEnv);
        String cudaLib = Files.isDirectory(Path.of("/usr/local/cuda/lib64")) ? ":/usr/local/cuda/lib64" : "";
        env.put("LD_LIBRARY_PATH", DIST.resolve("lib") + cudaLib);
        return run(cmd, env, program.getParent());
    }

    /** Runs a program through the launcher: bin/zluda run -- program. */
    static Result withLauncher(Path program, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(DIST.resolve("bin/zluda").toString(), "run", "--"));
        cmd.add(program.toString());
        cmd.addAll(List.of(args));
        String cudaLib = Files.isDirectory(Path.of("/usr/local/cuda/lib64")) ? "/usr/local/cuda/lib64" : "";
        return run(cmd, Map.of("LD_LIBRARY_PATH", cudaLib), program.getParent());
    }
}
