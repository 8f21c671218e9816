package org.zludaj.driver.cublas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.zludaj.driver.backend.Blas.Field;

/**
 * DirectBlas's table of where each field is among an entry point's arguments, against cublas.api's declarations (the
 * shim takes sizes, pointers and scalars from exactly those positions: a wrong index would pass one size for another),
 * and the functions it names are the @direct ones.
 */
class DirectBlasTest {
    /** The parameter names a field may have (pointer-array entry points name their matrices Aarray...). */
    private static final Map<Field, List<String>> NAMES = Map.ofEntries(Map.entry(Field.M, List.of("m")), Map.entry(Field.N, List.of("n")),
            Map.entry(Field.K, List.of("k")), Map.entry(Field.A, List.of("A", "Aarray")), Map.entry(Field.LDA, List.of("lda")),
            Map.entry(Field.STRIDE_A, List.of("strideA")), Map.entry(Field.B, List.of("B", "Barray")), Map.entry(Field.LDB, List.of("ldb")),
            Map.entry(Field.STRIDE_B, List.of("strideB")), Map.entry(Field.C, List.of("C", "Carray")), Map.entry(Field.LDC, List.of("ldc")),
            Map.entry(Field.STRIDE_C, List.of("strideC")), Map.entry(Field.BATCH, List.of("batchCount")),
            Map.entry(Field.ALPHA, List.of("alpha")), Map.entry(Field.BETA, List.of("beta")));

    private static List<String> api() throws Exception {
        return Files.readAllLines(Path.of(System.getProperty("user.dir")).resolve("../zluda-native/src/main/api/cublas.api"));
    }

    /** The parameter names of cublas.api's declaration of {@code function}. */
    private static List<String> parameters(List<String> api, String function) {
        for (String line : api) {
            int open = line.indexOf(" " + function + "(");
            if (open < 0 || line.startsWith("#")) continue;
            String list = line.substring(line.indexOf('(', open) + 1, line.lastIndexOf(')'));
            return java.util.Arrays.stream(list.split(",")).map(p -> p.strip().substring(p.strip().lastIndexOf(' ') + 1)).toList();
        }
        return null;
    }

    @Test
    void everyFieldIndexNamesThatArgumentOfTheDeclaration() throws Exception {
        List<String> api = api();
        for (var e : DirectBlas.ENTRIES.entrySet()) {
            String exported = e.getKey().equals("cublasSgemm") ? "cublasSgemm_v2" : e.getKey();
            List<String> params = parameters(api, exported);
            assertNotNull(params, exported + " in cublas.api");
            assertEquals(params.size(), e.getValue().arguments(), exported);
            assertEquals("handle", params.get(0), exported);
            assertEquals("transa", params.get(1), exported);
            assertEquals("transb", params.get(2), exported);
            for (Field f : Field.values()) {
                int at = e.getValue().at(f);
                if (at < 0) {
                    assertTrue(params.stream().noneMatch(NAMES.get(f)::contains), exported + " has " + f + " but the table says none");
                } else {
                    assertTrue(NAMES.get(f).contains(params.get(at)), exported + ": " + f + " at " + at + " is " + params.get(at));
                }
            }
        }
    }

    @Test
    void theTablesFunctionsAreTheDirectOnes() throws Exception {
        String direct = api().stream().filter(l -> l.startsWith("@direct ")).findFirst().orElseThrow();
        List<String> names = List.of(direct.substring(8).trim().split("\\s+"));
        assertEquals(DirectBlas.ENTRIES.size(), names.size());
        for (String key : DirectBlas.ENTRIES.keySet())
            assertTrue(names.contains(key.equals("cublasSgemm") ? "cublasSgemm_v2" : key), key + " is not @direct");
    }
}
