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

    /**
     * The text's top-level pieces. It jumps from one character that matters to the next with {@link String#indexOf}
     * (a vectorized search, fast even before the JIT has compiled this method: a module is indexed at its load, in a
     * process that has just started): '{' and '}' everywhere, '/' (comments), '"' (strings), ';' at depth 0 only, so
     * the semicolons of a function's body (megabytes, in ggml's modules) are never looked at one by one. A chunk's
     * line is one plus the line feeds before it, counted forward from the chunk before.
     */
    static List<Chunk> split(String t) {
        return split(t, true);
    }

    /** As {@link #split(String)}; without {@code lines}, every chunk's line is 0 (not counted). */
    static List<Chunk> split(String t, boolean lines) {
        List<Chunk> out = new ArrayList<>();
        int n = t.length(), depth = 0, start = 0, i = 0;
        int open = -1, close = -1, slash = -1, quote = -1, semi = -1;  // the next of each at or after i (n: none)
        LineCounter counter = new LineCounter(t, lines);
        while (true) {
            if (open < i) open = next(t, '{', i);
            if (close < i) close = next(t, '}', i);
            if (slash < i) slash = next(t, '/', i);
            if (quote < i) quote = next(t, '"', i);
            int p = Math.min(Math.min(open, close), Math.min(slash, quote));
            if (depth == 0) {
                if (semi < i) semi = next(t, ';', i);
                p = Math.min(p, semi);
            }
            if (p >= n) break;
            i = p + 1;
            switch (t.charAt(p)) {
                case '/' -> {
                    if (p + 1 < n && t.charAt(p + 1) == '/') {
                        int e = t.indexOf('\n', p);
                        i = e < 0 ? n : e;
                    } else if (p + 1 < n && t.charAt(p + 1) == '*') {
                        int e = t.indexOf("*/", p + 2);
                        i = e < 0 ? n : e + 2;
                    }
                }
                case '"' -> {
                    int j = p + 1;
                    while (j < n && t.charAt(j) != '"' && t.charAt(j) != '\n') j += t.charAt(j) == '\\' ? 2 : 1;
                    i = j < n && t.charAt(j) == '"' ? j + 1 : Math.min(j, n);
                }
                case '{' -> depth++;
                case '}' -> {
                    depth = Math.max(0, depth - 1);
                    if (depth == 0) {
                        int k = p + 1;
                        while (k < n && Character.isWhitespace(t.charAt(k))) k++;
                        boolean initializer = k < n && (t.charAt(k) == ';' || t.charAt(k) == ',');
                        if (!initializer) {
                            out.add(new Chunk(start, p + 1, counter.at(start)));
                            start = p + 1;
                        }
                    }
                }
                default -> {  // ';' at depth 0
                    out.add(new Chunk(start, p + 1, counter.at(start)));
                    start = p + 1;
                }
            }
        }
        if (out.isEmpty() || hasContent(t, start, n)) out.add(new Chunk(start, n, counter.at(start)));
        return out;
    }

    private static int next(String t, char c, int from) {
        int i = t.indexOf(c, from);
        return i < 0 ? t.length() : i;
    }

    /** Whether {@code [from, to)} holds anything but blanks and comments. */
    private static boolean hasContent(String t, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = t.charAt(i);
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
            if (c == '/' && i + 1 < to && t.charAt(i + 1) == '/') {
                int e = t.indexOf('\n', i);
                i = e < 0 ? to : e;
            } else if (c == '/' && i + 1 < to && t.charAt(i + 1) == '*') {
                int e = t.indexOf("*/", i + 2);
                i = e < 0 ? to : e + 1;
            } else {
                return true;
            }
        }
        return false;
    }

    /** Line numbers of increasing offsets: one plus the line feeds before the offset. */
    private static final class LineCounter {
        private final String t;
        private final boolean count;
        private int at, line = 1;

        LineCounter(String t, boolean count) {
            this.t = t;
            this.count = count;
        }

        int at(int offset) {
            if (!count) return 0;
            while (at < offset) {
                int e = t.indexOf('\n', at);
                if (e < 0 || e >= offset) {
                    at = offset;
                    break;
                }
                line++;
                at = e + 1;
            }
            return line;
        }
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
