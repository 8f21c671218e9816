/* ZLUDA-J LD_AUDIT library: redirects the loader's search for NVIDIA's libraries to ZLUDA-J's.
 *
 *   LD_AUDIT=<dist>/lib/libzluda_ld.so app ...     (bin/zluda run does this)
 *
 * la_objsearch sees every name the loader looks up, before it searches. A request for libcuda.so / libcuda.so.1
 * made from the base namespace is answered with our libcuda.so.1 next to this file. Requests whose name holds a '/'
 * (our backends load NVIDIA's or AMD's real libraries by absolute path) and requests from other namespaces
 * (dlmopen) pass through untouched. A library with SONAME libcuda.so.1 already in the process is reused by the
 * loader before any audit hook runs: the redirect must be in place from process start (LD_AUDIT does that).
 * ZLUDA_LD_TARGET_DIR overrides the directory of the replacements. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char target_dir[PATH_MAX];

unsigned int la_version(unsigned int version) {
    const char *env = getenv("ZLUDA_LD_TARGET_DIR");
    if (env && *env) {
        snprintf(target_dir, sizeof target_dir, "%s", env);
    } else {
        Dl_info info;
        char real[PATH_MAX];
        if (dladdr((void *)la_version, &info) && info.dli_fname && realpath(info.dli_fname, real)) {
            char *slash = strrchr(real, '/');
            if (slash) *slash = 0;
            snprintf(target_dir, sizeof target_dir, "%s", real);
        }
    }
    return version;  /* LAV_CURRENT of the running glibc */
}

/* Libraries we replace: the requested name -> the file in target_dir. */
static const char *replacement(const char *name) {
    static const struct { const char *from, *to; } map[] = {
        {"libcuda.so.1", "libcuda.so.1"},
        {"libcuda.so", "libcuda.so.1"},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(name, map[i].from)) return map[i].to;
    return NULL;
}

static Lmid_t base_lmid_cookie_unknown = -1;

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie) {
    (void)map; (void)cookie; (void)base_lmid_cookie_unknown;
    return 0;  /* no symbol binding audit: no per-call cost */
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag) {
    (void)cookie;
    if (flag != LA_SER_ORIG || !target_dir[0] || strchr(name, '/')) return (char *)name;
    const char *to = replacement(name);
    if (!to) return (char *)name;
    static __thread char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s", target_dir, to);
    if (n < 0 || (size_t)n >= sizeof path) return (char *)name;  /* too long: leave the search as it was */
    return path;
}
