/* ZLUDA-J test programs over recording fakes (fake_nvidia.c, fake_cublas.c, fake_hip.c): the fakes append what they
 * were asked to a log file, one line each; these helpers add the program's own notes to it and compare its last lines
 * with what the fake must have been asked. Set log_path (the fake's log) first. Header-only: each program includes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *log_path;

/* appends "program: what" to the log */
static void note(const char *what) {
    FILE *log = fopen(log_path, "a");
    if (log) { fprintf(log, "program: %s\n", what); fclose(log); }
}

/* the log's last `count` lines joined by '|' */
static void last_lines(int count, char *out, size_t size) {
    static char text[1 << 22];
    FILE *f = fopen(log_path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = 0;
    while (n > 0 && text[n - 1] == '\n') text[--n] = 0;
    size_t start = n;
    for (int seen = 0; start > 0; start--)
        if (text[start - 1] == '\n' && ++seen == count) break;
    snprintf(out, size, "%s", text + start);
    for (char *p = out; *p; p++)
        if (*p == '\n') *p = '|';
}

/* the log's last `count` lines must be `want` (joined by '|'); else FAIL with both, and exit */
static void expect(int count, const char *want, const char *what) {
    static char got[16384];
    last_lines(count, got, sizeof got);
    if (strcmp(got, want)) {
        printf("FAIL: %s\n  want %s\n  got  %s\n", what, want, got);
        exit(1);
    }
}
