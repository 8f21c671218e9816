package org.zludaj.driver;

import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.zludaj.api.ApiSet;

/**
 * How much of the driver API is implemented, counted from the classes themselves: per API group, the functions its
 * generated interface declares and those the driver's class overrides (the rest answer CUDA_ERROR_NOT_SUPPORTED).
 * The shim implements three more in C (cuGetProcAddress, cuGetProcAddress_v2, cuGetExportTable).
 */
public final class ApiCoverage {
    private ApiCoverage() {}

    /** Functions the shim answers in C, outside the Java groups. */
    public static final List<String> IN_C = List.of("cuGetProcAddress", "cuGetProcAddress_v2", "cuGetExportTable");

    /** Group -> {implemented, declared}, for the ApiSet the driver installs. */
    public static Map<String, int[]> count(ApiSet apis) {
        Map<String, int[]> out = new TreeMap<>();
        for (RecordComponent rc : ApiSet.class.getRecordComponents()) {
            Class<?> group = rc.getType();
            Object impl;
            try {
                impl = rc.getAccessor().invoke(apis);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            int declared = 0, implemented = 0;
            for (Method m : group.getMethods()) {
                if (!m.getName().startsWith("cu") || !m.isDefault()) continue;
                if (IN_C.contains(m.getName())) continue;
                declared++;
                try {
                    Method actual = impl.getClass().getMethod(m.getName(), m.getParameterTypes());
                    if (!actual.getDeclaringClass().isInterface()) implemented++;
                } catch (NoSuchMethodException e) {
                    throw new IllegalStateException(e);
                }
            }
            out.put(group.getSimpleName(), new int[] {implemented, declared});
        }
        return out;
    }

    /** {implemented, declared} over all groups, the C functions included. */
    public static int[] total(ApiSet apis) {
        int[] t = {IN_C.size(), IN_C.size()};
        for (int[] g : count(apis).values()) {
            t[0] += g[0];
            t[1] += g[1];
        }
        return t;
    }

    static String describe(ApiSet apis) {
        int[] t = total(apis);
        StringBuilder s = new StringBuilder(String.format(java.util.Locale.ROOT, "driver API: %d of %d functions implemented (", t[0], t[1]));
        s.append(String.join(", ", count(apis).entrySet().stream().filter(e -> e.getValue()[1] > 0)
                .map(e -> e.getKey().replaceFirst("^Cu", "").replaceFirst("Api$", "") + " " + e.getValue()[0] + "/" + e.getValue()[1]).toList()));
        return s.append(")").toString();
    }
}
