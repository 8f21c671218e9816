package org.zludaj.ptx;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits PTX text at top-level boundaries (a ';' or '}' at brace depth 0, outside comments and strings), so that
 * the pieces of a large module parse in parallel and a syntax error stays inside its own piece.
 */
final class Chunks {
    private Chunks() {}

    /** {@code [start, end)} of the text, beginning on {@code line} (1-based). */
    record Chunk(int start, int end, int line) {}

    static List<Chunk> split(String t) {
        List<Chunk> out = new ArrayList<>();
        int depth = 0, start = 0, line = 1, startLine = 1, n = t.length();
        boolean content = false;
        for (int i = 0; i < n; i++) {
            char c = t.charAt(i);
            switch (c) {
                case '\n' -> line++;
                case '/' -> {
                    if (i + 1 < n && t.charAt(i + 1) == '/') {
                        while (i + 1 < n && t.charAt(i + 1) != '\n') i++;
                    } else if (i + 1 < n && t.charAt(i + 1) == '*') {
                        int e = t.indexOf("*/", i + 2);
                        int stop = e < 0 ? n : e + 2;
                        for (int k = i; k < stop; k++) if (t.charAt(k) == '\n') line++;
                        i = stop - 1;
                    } else {
                        content = true;
                    }
                }
                case '"' -> {
                    content = true;
                    while (i + 1 < n && t.charAt(i + 1) != '"' && t.charAt(i + 1) != '\n') i += t.charAt(i + 1) == '\\' ? 2 : 1;
                    if (i + 1 < n && t.charAt(i + 1) == '"') i++;
                }
                case '{' -> { depth++; content = true; }
                case '}' -> {
                    depth = Math.max(0, depth - 1);
                    int next = i + 1;
                    while (next < n && Character.isWhitespace(t.charAt(next))) next++;
                    boolean initializer = next < n && (t.charAt(next) == ';' || t.charAt(next) == ',');
                    if (depth == 0 && !initializer) {
                        out.add(new Chunk(start, i + 1, startLine));
                        start = i + 1;
                        startLine = line;
                        content = false;
                    }
                }
                case ';' -> {
                    if (depth == 0) {
                        out.add(new Chunk(start, i + 1, startLine));
                        start = i + 1;
                        startLine = line;
                        content = false;
                    }
                }
                case ' ', '\t', '\r' -> { }
                default -> content = true;
            }
        }
        if (content || out.isEmpty()) out.add(new Chunk(start, n, startLine));
        return out;
    }

    /** Groups consecutive chunks into batches of about {@code chars} characters. */
    static List<Chunk> batch(List<Chunk> chunks, int chars) {
        List<Chunk> out = new ArrayList<>();
        Chunk cur = null;
        for (Chunk c : chunks) {
            if (cur == null) cur = c;
            else if (c.end() - cur.start() > chars) {
                out.add(cur);
                cur = c;
            } else {
                cur = new Chunk(cur.start(), c.end(), cur.line());
            }
        }
        if (cur != null) out.add(cur);
        return out;
    }
}
