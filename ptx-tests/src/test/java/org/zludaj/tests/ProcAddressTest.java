package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 440 cuGetProcAddress requests that CUDA 13's cudart makes, in order, with the export NVIDIA's driver 580
 * returned for each (shared/research/cudart13-driver-interface.md, Appendix A): ZLUDA-J's shim must return its own
 * export of the same name for every one.
 */
class ProcAddressTest {
    static final Pattern LINE = Pattern.compile("^\\s*(\\d+) (\\S*)@(\\d+)(/ptds)?(?: -> (\\S+))?.*$");

    record Request(String name, int version, int flags, String expected) {}

    static List<Request> appendixA() throws Exception {
        Path doc = Path.of("..", "..", "shared", "research", "cudart13-driver-interface.md");
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path c = p.resolve("shared/research/cudart13-driver-interface.md");
            if (Files.exists(c)) {
                doc = c;
                break;
            }
        }
        assumeTrue(Files.exists(doc), "shared/research/cudart13-driver-interface.md not found next to the repository");
        String text = Files.readString(doc);
        int a = text.indexOf("## Appendix A"), b = text.indexOf("## Appendix B");
        List<Request> out = new ArrayList<>();
        for (String line : text.substring(a, b).split("\n")) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) continue;
            String name = m.group(2).replace("\"", "");
            String expected = m.group(5) != null ? m.group(5) : name;
            out.add(new Request(name, Integer.parseInt(m.group(3)), m.group(4) != null ? 2 : 0, expected));
        }
        return out;
    }

    @Test
    void cudart13RequestsResolveAsOnNvidiasDriver(@TempDir Path dir) throws Exception {
        List<Request> requests = appendixA();
        assertEquals(440, requests.size(), "Appendix A lists 440 requests");
        Path exe = Programs.build(List.of("gcc", "-o", dir.resolve("procaddr_check").toString(),
                Programs.TESTS.resolve("c/procaddr_check.c").toString(), "-L" + Programs.DIST.resolve("lib"), "-lcuda", "-ldl"),
                dir.resolve("procaddr_check"), dir);
        StringBuilder in = new StringBuilder();
        for (Request r : requests) in.append(r.name.isEmpty() ? "-" : r.name).append(' ').append(r.version).append(' ').append(r.flags).append('\n');
        Path input = dir.resolve("requests.txt");
        Files.writeString(input, in);
        Programs.Result res = Programs.run(List.of("bash", "-c", exe + " < " + input), java.util.Map.of("LD_LIBRARY_PATH",
                Programs.DIST.resolve("lib").toString()), dir);
        assertEquals(0, res.exit(), res.toString());
        String[] lines = res.stdout().split("\n");
        assertEquals(requests.size(), lines.length, res.toString());
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            Request r = requests.get(i);
            String[] f = lines[i].split(" ");
            int rc = Integer.parseInt(f[3]), status = Integer.parseInt(f[4]);
            String export = f[5];
            boolean ok = r.name.isEmpty() ? rc == 0 && status == 1 && export.equals("NULL")
                    : rc == 0 && status == 0 && export.equals(r.expected);
            if (!ok) wrong.add(i + " " + r + " -> " + lines[i]);
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " requests differ from NVIDIA's answers:\n" + String.join("\n", wrong));
    }
}
