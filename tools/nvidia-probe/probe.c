/* ZLUDA-J: records NVIDIA's driver answers that ZLUDA-J keeps as data.
 * Run on a machine with NVIDIA's libcuda.so.1. Writes to the directory given as argv[1]:
 *   exports.txt    every dynamic symbol the driver exports: "F name" or "O name size"
 *   procaddr.txt   for every base name x flag: breakpoints "name flag version export|-" (version ascending)
 *   errors.txt     "code name|string" for each CUresult the driver names
 * Build: gcc -O2 -o probe probe.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

typedef int (*gpa2_t)(const char *, void **, int, unsigned long long, int *);
typedef int (*errfn_t)(int, const char **);

static char *names[4096]; static int nnames;
static int is_version_suffix(const char *s) { /* "_v" digits */
    if (s[0] != '_' || s[1] != 'v' || !s[2]) return 0;
    for (const char *p = s + 2; *p; p++) if (*p < '0' || *p > '9') return 0;
    return 1;
}
static void add_base(const char *n) {
    char b[256]; snprintf(b, sizeof b, "%s", n);
    for (;;) {
        size_t l = strlen(b);
        if (l > 5 && (!strcmp(b + l - 5, "_ptds") || !strcmp(b + l - 5, "_ptsz"))) { b[l - 5] = 0; continue; }
        char *u = strrchr(b, '_');
        if (u && is_version_suffix(u)) { *u = 0; continue; }
        break;
    }
    for (int i = 0; i < nnames; i++) if (!strcmp(names[i], b)) return;
    names[nnames++] = strdup(b);
    /* keep the full name too: some requests use suffixed names */
    if (strcmp(b, n)) { for (int i = 0; i < nnames; i++) if (!strcmp(names[i], n)) return; names[nnames++] = strdup(n); }
}

int main(int argc, char **argv) {
    const char *outdir = argc > 1 ? argv[1] : ".";
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    struct link_map *lm; dlinfo(h, RTLD_DI_LINKMAP, &lm);
    char real[4096]; if (!realpath(lm->l_name, real)) snprintf(real, sizeof real, "%s", lm->l_name);
    char p[4096];
    /* exports from the file's .dynsym */
    int fd = open(real, O_RDONLY); struct stat st; fstat(fd, &st);
    unsigned char *f = mmap(0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    Elf64_Ehdr *eh = (Elf64_Ehdr *)f; Elf64_Shdr *sh = (Elf64_Shdr *)(f + eh->e_shoff);
    snprintf(p, sizeof p, "%s/exports.txt", outdir); FILE *ex = fopen(p, "w");
    fprintf(ex, "# driver %s\n", real);
    for (int i = 0; i < eh->e_shnum; i++) if (sh[i].sh_type == SHT_DYNSYM) {
        Elf64_Sym *sy = (Elf64_Sym *)(f + sh[i].sh_offset); const char *strs = (const char *)(f + sh[sh[i].sh_link].sh_offset);
        int n = sh[i].sh_size / sizeof(Elf64_Sym);
        for (int j = 0; j < n; j++) {
            if (sy[j].st_shndx == SHN_UNDEF || ELF64_ST_BIND(sy[j].st_info) == STB_LOCAL) continue;
            const char *nm = strs + sy[j].st_name; if (!*nm) continue;
            if (ELF64_ST_TYPE(sy[j].st_info) == STT_FUNC) { fprintf(ex, "F %s\n", nm); if (!strncmp(nm, "cu", 2)) add_base(nm); }
            else fprintf(ex, "O %s %lu\n", nm, (unsigned long)sy[j].st_size);
        }
    }
    fclose(ex);
    gpa2_t gpa = (gpa2_t)dlsym(h, "cuGetProcAddress_v2");
    snprintf(p, sizeof p, "%s/procaddr.txt", outdir); FILE *pa = fopen(p, "w"); setvbuf(pa, NULL, _IOLBF, 0);
    fprintf(pa, "# name flag fromVersion result   (result: export name, or -rc/status when not found)\n");
    for (int i = 0; i < nnames; i++) for (int flag = 0; flag <= 2; flag++) {
        char prev[300] = "";
        for (int v = 1000; v <= 13000; v += 10) {
            void *fp = 0; int status = -1; int rc = gpa(names[i], &fp, v, flag, &status);
            char cur[300];
            if (rc == 0 && fp) { Dl_info di; if (dladdr(fp, &di) && di.dli_sname) snprintf(cur, sizeof cur, "%s", di.dli_sname); else snprintf(cur, sizeof cur, "?%p", fp); }
            else snprintf(cur, sizeof cur, "-%d/%d", rc, status);
            if (strcmp(cur, prev)) { fprintf(pa, "%s %d %d %s\n", names[i], flag, v, cur); strcpy(prev, cur); }
        }
    }
    /* special probes */
    { void *fp = (void *)1; int status = -7; int rc = gpa("", &fp, 0, 0, &status); fprintf(pa, "#probe empty rc=%d p=%p status=%d\n", rc, fp, status); }
    { void *fp = (void *)1; int status = -7; int rc = gpa("cuNoSuchFunction", &fp, 13000, 0, &status); fprintf(pa, "#probe unknown rc=%d p=%p status=%d\n", rc, fp, status); }
    { void *fp = (void *)1; int status = -7; int rc = gpa("cuInit", &fp, 13000, 4, &status); fprintf(pa, "#probe badflag rc=%d p=%p status=%d\n", rc, fp, status); }
    { void *fp = (void *)1; int status = -7; int rc = gpa("cuMemAllocAsync", &fp, 11000, 0, &status); fprintf(pa, "#probe lowversion rc=%d p=%p status=%d\n", rc, fp, status); }
    { void *fp = (void *)1; int rc = gpa("cuInit", &fp, 13000, 0, NULL); fprintf(pa, "#probe nullstatus rc=%d\n", rc); }
    /* NULL pfn or NULL name: NVIDIA 580 dereferences them and crashes (not probed). */
    fclose(pa);
    errfn_t en = (errfn_t)dlsym(h, "cuGetErrorName"), es = (errfn_t)dlsym(h, "cuGetErrorString");
    snprintf(p, sizeof p, "%s/errors.txt", outdir); FILE *er = fopen(p, "w");
    for (int c = 0; c < 1100; c++) {
        const char *a = 0, *b = 0; int r1 = en(c, &a), r2 = es(c, &b);
        if (r1 == 0 && a) fprintf(er, "%d %s|%s\n", c, a, (r2 == 0 && b) ? b : "");
    }
    fclose(er);
    printf("names probed: %d\n", nnames);
    return 0;
}
