package org.zludaj.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files under src/test/resources/golden: a test's output must equal the file. After an intended change,
 * {@code mvn test -Dgolden.update=true} rewrites them; review the diff before committing.
 */
public final class Golden {
    private Golden() {}

    static final Path DIR = Path.of("src/test/resources/golden");

    public static void check(String name, String actual) throws IOException {
        Path f = DIR.resolve(name);
        if (Boolean.getBoolean("golden.update")) {
            Files.createDirectories(DIR);
            Files.writeString(f, actual);
            return;
        }
        assertTrue(Files.exists(f), "golden file " + f + " missing (create it with -Dgolden.update=true)");
        assertEquals(Files.readString(f), actual, "output differs from " + f);
    }
}
