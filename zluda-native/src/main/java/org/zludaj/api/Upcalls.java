package org.zludaj.api;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The cheaper way into the JVM where the running JDK has one: an upcall stub of Java's foreign-function API (final
 * since JDK 22) for a Dispatch class's {@code callRaw}, a plain C function the shim calls instead of JNI's
 * {@code CallStatic*Method} (31 against 105 ns a call on the development machine, Temurin 25). The shim asks for one
 * per Dispatch class ({@link #request}); it is made on a thread of its own, so that start-up does not wait for it, and
 * its address is written where the shim looks before each call (until then calls go through JNI). On JDK 17 to 21
 * nothing happens: the code is compiled for Java 17 and reaches the API by reflection. {@code ZLUDA_UPCALLS=0} keeps
 * JNI (to compare the two); {@code ZLUDA_UPCALLS=sync} makes each stub before the call that asked for it returns
 * (every call then takes the stub: tests, benchmarks).
 */
public final class Upcalls {
    private Upcalls() {}

    private static final Log LOG = Log.of(Upcalls.class);
    private static final int FEATURE = Runtime.version().feature();
    private static final String MODE = System.getenv("ZLUDA_UPCALLS");
    private static final boolean ENABLED = FEATURE >= 22 && !"0".equals(MODE);
    private static ExecutorService maker;

    /** Whether this JVM makes upcall stubs. */
    public static boolean available() {
        return ENABLED;
    }

    /**
     * Called by the shim: makes an upcall stub of {@code className}'s static {@code callRaw(int, long)} (returning int,
     * or long when {@code longResult}) and writes its address at {@code slot} (a pointer in the shim). Any throwable
     * from the method becomes {@code fallback}: an exception must never leave an upcall (the JVM would end the process).
     */
    public static synchronized void request(String className, boolean longResult, long slot, long fallback) {
        if (!ENABLED || slot == 0) return;
        Runnable make = () -> {
            try {
                long stub = make(Class.forName(className.replace('/', '.')), longResult, fallback);
                org.zludaj.nativ.HostRuntime.putLongVolatile(slot, stub);
                LOG.debug("upcall stub for {}.callRaw made", className);
            } catch (Throwable t) {
                LOG.debug("no upcall stub for {}: {}", className, t.toString());
            }
        };
        if ("sync".equals(MODE)) {
            make.run();
            return;
        }
        if (maker == null) {
            maker = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "zluda-upcalls");
                t.setDaemon(true);
                return t;
            });
        }
        maker.execute(make);
    }

    /** The stub's address (made now, on the calling thread). */
    static long make(Class<?> dispatch, boolean longResult, long fallback) throws Throwable {
        Class<?> result = longResult ? long.class : int.class;
        MethodHandle target = MethodHandles.publicLookup().findStatic(dispatch, "callRaw", MethodType.methodType(result, int.class, long.class));
        MethodHandle answer = MethodHandles.dropArguments(
                MethodHandles.constant(result, longResult ? (Object) fallback : (Object) (int) fallback), 0, Throwable.class, int.class, long.class);
        target = MethodHandles.catchException(target, Throwable.class, answer);

        Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
        Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
        Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
        Class<?> descriptorClass = Class.forName("java.lang.foreign.FunctionDescriptor");
        Class<?> arenaClass = Class.forName("java.lang.foreign.Arena");
        Class<?> optionClass = Class.forName("java.lang.foreign.Linker$Option");
        Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
        Object javaInt = valueLayout.getField("JAVA_INT").get(null), javaLong = valueLayout.getField("JAVA_LONG").get(null);
        Object parameters = Array.newInstance(layoutClass, 2);
        Array.set(parameters, 0, javaInt);
        Array.set(parameters, 1, javaLong);
        Object descriptor = descriptorClass.getMethod("of", layoutClass, parameters.getClass())
                .invoke(null, longResult ? javaLong : javaInt, parameters);
        Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
        Object arena = arenaClass.getMethod("global").invoke(null);
        Object options = Array.newInstance(optionClass, 0);
        Object segment = linkerClass.getMethod("upcallStub", MethodHandle.class, descriptorClass, arenaClass, options.getClass())
                .invoke(linker, target, descriptor, arena, options);
        return (long) segmentClass.getMethod("address").invoke(segment);
    }
}
