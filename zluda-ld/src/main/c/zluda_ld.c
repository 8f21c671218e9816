/* ZLUDA-J LD_AUDIT library: redirects the loader's search for NVIDIA's libraries to ZLUDA-J's.
 *
 *   LD_AUDIT=<dist>/lib/libzluda_ld.so app ...     (bin/zluda run does this)
 *
 * la_objsearch sees every name the loader looks up, before it searches, with the cookie of the object that asked.
 * A request by bare name for one of NVIDIA's libraries (table below) is answered with the file of that name in our
 * directory (the directory of this file, or ZLUDA_LD_TARGET_DIR) when the distribution ships it; otherwise the search
 * goes on as it was. Left untouched:
 *  - names holding a '/' (our backends load NVIDIA's or AMD's real libraries by absolute path);
 *  - requests made from a namespace other than the base one (dlmopen: the cuda backend's private copy of NVIDIA's
 *    driver and whatever it loads);
 *  - requests made by our own libraries (those in our directory) and by the JVM they start.
 * A library with SONAME libcuda.so.1 already in the process is reused by the loader before any audit hook runs: the
 * redirect must be in place from process start (LD_AUDIT does that). ZLUDA_LD_DEBUG=1 prints each redirect. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char target_dir[PATH_MAX];
static size_t target_len;
static int debug;

unsigned int la_version(unsigned int version) {
    const char *env = getenv("ZLUDA_LD_TARGET_DIR");
    debug = getenv("ZLUDA_LD_DEBUG") != NULL;
    char real[PATH_MAX];
    if (env && *env) {
        snprintf(target_dir, sizeof target_dir, "%s", realpath(env, real) ? real : env);
    } else {
        /* dladdr works inside the audit namespace; the name may be relative or a link: resolve it */
        Dl_info info;
        if (dladdr((void *)la_version, &info) && info.dli_fname && realpath(info.dli_fname, real)) {
            char *slash = strrchr(real, '/');
            if (slash) *slash = 0;
            snprintf(target_dir, sizeof target_dir, "%s", real);
        }
    }
    target_len = strlen(target_dir);
    return version; /* LAV_CURRENT of the running glibc */
}

/* The libraries we replace, by the stem of their name: any "stem.so" or "stem.so.N" request is answered with the
 * same name in our directory, else with the default file, when one of them exists. */
static const struct { const char *stem, *file; } replaced[] = {
    {"libcuda", "libcuda.so.1"},
    {"libcublas", "libcublas.so.13"},
    {"libcublasLt", "libcublasLt.so.13"},
    {"libcudnn", "libcudnn.so.9"},
    {"libcufft", "libcufft.so.12"},
    {"libcusparse", "libcusparse.so.12"},
    {"libcurand", "libcurand.so.10"},
    {"libnvidia-ml", "libnvidia-ml.so.1"},
};

/* The table entry for a name "stem.so" or "stem.so.<digits and dots>", or -1. */
static int replaced_index(const char *name) {
    for (size_t i = 0; i < sizeof replaced / sizeof *replaced; i++) {
        size_t n = strlen(replaced[i].stem);
        if (strncmp(name, replaced[i].stem, n) || strncmp(name + n, ".so", 3)) continue;
        const char *rest = name + n + 3;
        if (*rest == 0) return (int)i;
        if (*rest != '.') continue;
        while (*++rest && ((*rest >= '0' && *rest <= '9') || *rest == '.')) {}
        if (*rest == 0) return (int)i;
    }
    return -1;
}

/* The cookie of each object carries two flags in its low bits (link_map pointers are aligned): it was loaded in
 * another namespace than the base one, or it is one of ours. */
enum { OTHER_NAMESPACE = 1, OURS = 2 };

static int is_ours(const char *path) {
    if (!path || !*path || !target_len) return 0;
    if (!strncmp(path, target_dir, target_len) && path[target_len] == '/') return 1;
    /* the JVM our libcuda starts, and the native libraries Java code loads (JavaCPP extracts them to its cache) */
    return strstr(path, "/lib/server/libjvm.so") || strstr(path, "/.javacpp/cache/");
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie) {
    uintptr_t flags = (lmid != LM_ID_BASE ? OTHER_NAMESPACE : 0) | (is_ours(map->l_name) ? OURS : 0);
    *cookie = (uintptr_t)map | flags;
    return 0; /* no symbol binding audit: no per-call cost */
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag) {
    if (flag != LA_SER_ORIG || !target_len || strchr(name, '/')) return (char *)name;
    if (cookie && (*cookie & (OTHER_NAMESPACE | OURS))) return (char *)name;
    int i = replaced_index(name);
    if (i < 0) return (char *)name;
    static __thread char path[PATH_MAX];
    const char *candidates[] = {name, replaced[i].file};
    for (int c = 0; c < 2; c++) {
        int n = snprintf(path, sizeof path, "%s/%s", target_dir, candidates[c]);
        if (n < 0 || (size_t)n >= sizeof path || access(path, R_OK) != 0) continue;
        if (debug) fprintf(stderr, "zluda_ld: %s -> %s\n", name, path);
        return path;
    }
    return (char *)name; /* not shipped: the search goes on as it was */
}
