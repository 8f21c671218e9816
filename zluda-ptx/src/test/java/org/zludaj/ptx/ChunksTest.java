package org.zludaj.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Chunks#split}: top-level pieces of PTX text, against a plain character-by-character reading of the same
 * rules (the specification below), on hand-made edge cases and on random texts made of PTX's troublesome parts.
 */
class ChunksTest {
    /** The rules, one character at a time: what split must equal. */
    static List<Chunks.Chunk> reference(String t) {
        List<Chunks.Chunk> out = new ArrayList<>();
        int depth = 0, start = 0, line = 1, startLine = 1, n = t.length();
        boolean content = false;
        for (int i = 0; i < n; i++) {
            char c = t.charAt(i);
            if (c == '\n') {
                line++;
            } else if (c == '/' && i + 1 < n && t.charAt(i + 1) == '/') {
                while (i + 1 < n && t.charAt(i + 1) != '\n') i++;
            } else if (c == '/' && i + 1 < n && t.charAt(i + 1) == '*') {
                int e = t.indexOf("*/", i + 2), stop = e < 0 ? n : e + 2;
                for (int k = i; k < stop; k++) if (t.charAt(k) == '\n') line++;
                i = stop - 1;
            } else if (c == '"') {
                content = true;
                while (i + 1 < n && t.charAt(i + 1) != '"' && t.charAt(i + 1) != '\n') i += t.charAt(i + 1) == '\\' ? 2 : 1;
                if (i + 1 < n && t.charAt(i + 1) == '"') i++;
            } else if (c == '{') {
                depth++;
                content = true;
            } else if (c == '}' || (c == ';' && depth == 0)) {
                boolean split = true;
                if (c == '}') {
                    depth = Math.max(0, depth - 1);
                    int next = i + 1;
                    while (next < n && Character.isWhitespace(t.charAt(next))) next++;
                    split = depth == 0 && !(next < n && (t.charAt(next) == ';' || t.charAt(next) == ','));
                }
                if (split) {
                    out.add(new Chunks.Chunk(start, i + 1, startLine));
                    start = i + 1;
                    startLine = line;
                    content = false;
                }
            } else if (c != ' ' && c != '\t' && c != '\r') {
                content = true;
            }
        }
        if (content || out.isEmpty()) out.add(new Chunks.Chunk(start, n, startLine));
        return out;
    }

    @Test
    void handMadeCases() {
        for (String t : List.of("", "   \n", "// only a comment", ".version 8.0\n.target sm_80;",
                ".global .u32 a[2] = {1, 2};\n.entry k() { ret; }\n",
                ".global .u32 a[2] = {1, 2}, b;\n.func f() { { ret; } }",
                ".entry k() { // } not a brace\n /* } nor this\n */ ret; }\n// trailing",
                ".entry k() { \"}\\\"}\" ; }", "} ; }", ".entry k() { ret;", "a; /* unterminated",
                "\"unterminated\n;\n", "x \"esc\\", "/", "a;/", ".entry k()\n{\n}\n\n;\n")) {
            assertEquals(reference(t), Chunks.split(t), t);
        }
    }

    @Test
    void randomTextsSplitAsTheRulesSay() {
        String[] parts = {"{", "}", ";", ",", " ", "\n", "\t", "//c}{;\n", "// end", "/*c\n}{;*/", "/* open", "/", "\"s}{;\"",
                "\"e\\\"}\"", "\"nl\n", "\\", ".entry k()", "ret", "= {1, 2}", "} ;", "} ,", "x", "\r\n"};
        Random r = new Random(20261127);
        for (int round = 0; round < 20_000; round++) {
            StringBuilder s = new StringBuilder();
            int len = r.nextInt(30);
            for (int i = 0; i < len; i++) s.append(parts[r.nextInt(parts.length)]);
            String t = s.toString();
            assertEquals(reference(t), Chunks.split(t), t);
            assertEquals(reference(t).stream().map(c -> new Chunks.Chunk(c.start(), c.end(), 0)).toList(), Chunks.split(t, false), t);
        }
    }
}
