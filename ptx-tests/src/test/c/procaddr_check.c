/* ZLUDA-J test harness: answers cuGetProcAddress_v2 requests read from stdin, one per line:
 *   NAME VERSION FLAGS        (NAME "-" stands for the empty string)
 * and prints, per line: NAME VERSION FLAGS RC STATUS EXPORT   (EXPORT = dladdr name of the pointer, or NULL).
 * Build: gcc -o procaddr_check procaddr_check.c -L<dist>/lib -lcuda -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, unsigned long long flags, int *status);

int main(void) {
    char name[256];
    int version;
    unsigned long long flags;
    while (scanf("%255s %d %llu", name, &version, &flags) == 3) {
        const char *sym = strcmp(name, "-") ? name : "";
        void *p = NULL;
        int status = -1;
        int rc = cuGetProcAddress_v2(sym, &p, version, flags, &status);
        Dl_info info;
        const char *exp = "NULL";
        if (p && dladdr(p, &info) && info.dli_sname) exp = info.dli_sname;
        else if (p) exp = "?";
        printf("%s %d %llu %d %d %s\n", name, version, flags, rc, status, exp);
    }
    return 0;
}
