/* ZLUDA-J: AMD code objects linked through comgr (libamd_comgr), for org.zludaj.nativ.Comgr: by default for the
 * GPUs comgr lists (ld.lld for the others; a link in the process takes ~2 ms, an ld.lld process ~60), always with
 * ZLUDA_CODEOBJECT=comgr. The library is opened at run time (ZLUDA_COMGR_LIB, libamd_comgr.so.3, .so.2, the
 * unversioned name): nothing of ROCm is needed to build. We hand comgr the relocatable object our LLVM made, never
 * bitcode (ROCm's LLVM may be older than ours), and ask for AMD_COMGR_ACTION_LINK_RELOCATABLE_TO_EXECUTABLE. The
 * enum values used are the same in comgr 2 and 3: data kinds LOG 5, RELOCATABLE 7, EXECUTABLE 8; action LINK_RELOCATABLE_TO_EXECUTABLE 9. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JN(name) Java_org_zludaj_nativ_Comgr_##name

typedef struct { uint64_t handle; } cg_t; /* amd_comgr_data_t, _data_set_t, _action_info_t: one handle each */
typedef int cg_status;

enum { KIND_LOG = 5, KIND_RELOCATABLE = 7, KIND_EXECUTABLE = 8, LINK_TO_EXECUTABLE = 9 };

#define COMGR_FUNCTIONS(X)                                              \
    X(amd_comgr_get_version, void, (size_t *, size_t *))               \
    X(amd_comgr_create_data, cg_status, (int, cg_t *))                  \
    X(amd_comgr_release_data, cg_status, (cg_t))                        \
    X(amd_comgr_set_data, cg_status, (cg_t, size_t, const char *))      \
    X(amd_comgr_set_data_name, cg_status, (cg_t, const char *))         \
    X(amd_comgr_get_data, cg_status, (cg_t, size_t *, char *))          \
    X(amd_comgr_create_data_set, cg_status, (cg_t *))                   \
    X(amd_comgr_destroy_data_set, cg_status, (cg_t))                    \
    X(amd_comgr_data_set_add, cg_status, (cg_t, cg_t))                  \
    X(amd_comgr_action_data_count, cg_status, (cg_t, int, size_t *))    \
    X(amd_comgr_action_data_get_data, cg_status, (cg_t, int, size_t, cg_t *)) \
    X(amd_comgr_create_action_info, cg_status, (cg_t *))                \
    X(amd_comgr_destroy_action_info, cg_status, (cg_t))                 \
    X(amd_comgr_action_info_set_isa_name, cg_status, (cg_t, const char *)) \
    X(amd_comgr_action_info_set_logging, cg_status, (cg_t, _Bool))      \
    X(amd_comgr_do_action, cg_status, (int, cg_t, cg_t, cg_t))

#define DECLARE(name, ret, args) static ret(*p_##name) args;
COMGR_FUNCTIONS(DECLARE)

/* The ISAs comgr knows (comgr 2.0 on): looked up but not required. */
static cg_status (*p_amd_comgr_get_isa_count)(size_t *);
static cg_status (*p_amd_comgr_get_isa_name)(size_t, const char **);

/* comgr links with lld inside the process, and lld keeps global state: one link at a time (a link takes ~2 ms). */
static pthread_mutex_t link_lock = PTHREAD_MUTEX_INITIALIZER;

/* Opens comgr: 0 and "file version" in msg, or -1 and the reason. */
JNIEXPORT jint JNICALL JN(open)(JNIEnv *e, jclass c, jbyteArray msg) {
    (void)c;
    const char *names[] = {getenv("ZLUDA_COMGR_LIB"), "libamd_comgr.so.3", "libamd_comgr.so.2", "libamd_comgr.so"};
    char buf[512] = {0};
    void *h = NULL;
    const char *found = NULL;
    for (size_t i = 0; i < sizeof names / sizeof *names && !h; i++) {
        if (!names[i] || !*names[i]) continue;
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) found = names[i];
    }
    int r = 0;
    if (!h) {
        snprintf(buf, sizeof buf, "no comgr library (libamd_comgr.so.3/.2; ZLUDA_COMGR_LIB names another)");
        r = -1;
    } else {
#define LOOKUP(name, ret, args) \
    if (!r && !(p_##name = (ret(*) args)dlsym(h, #name))) { snprintf(buf, sizeof buf, "%s lacks %s", found, #name); r = -1; }
        COMGR_FUNCTIONS(LOOKUP)
        if (!r) {
            size_t major = 0, minor = 0;
            p_amd_comgr_get_version(&major, &minor);
            p_amd_comgr_get_isa_count = (cg_status(*)(size_t *))dlsym(h, "amd_comgr_get_isa_count");
            p_amd_comgr_get_isa_name = (cg_status(*)(size_t, const char **))dlsym(h, "amd_comgr_get_isa_name");
            snprintf(buf, sizeof buf, "%s %zu.%zu", found, major, minor);
        }
    }
    (*e)->SetByteArrayRegion(e, msg, 0, (jsize)strlen(buf), (const jbyte *)buf);
    return r;
}

/* The ISA names comgr knows, one per line (e.g. amdgcn-amd-amdhsa--gfx1100), or null where it cannot list them. */
JNIEXPORT jstring JNICALL JN(isas)(JNIEnv *e, jclass c) {
    (void)c;
    size_t count = 0;
    if (!p_amd_comgr_get_isa_count || !p_amd_comgr_get_isa_name || p_amd_comgr_get_isa_count(&count)) return NULL;
    size_t cap = 64 * count + 1, len = 0;
    char *text = malloc(cap);
    text[0] = 0;
    for (size_t i = 0; i < count; i++) {
        const char *name = NULL;
        if (p_amd_comgr_get_isa_name(i, &name) || !name) continue;
        size_t n = strlen(name);
        if (len + n + 2 > cap) {
            cap = 2 * (len + n + 2);
            text = realloc(text, cap);
        }
        memcpy(text + len, name, n);
        len += n;
        text[len++] = '\n';
        text[len] = 0;
    }
    jstring s = (*e)->NewStringUTF(e, text);
    free(text);
    return s;
}

/* Links a relocatable object for isa (e.g. amdgcn-amd-amdhsa--gfx1100); the executable, or null with comgr's log
 * (or what failed) in log. */
JNIEXPORT jbyteArray JNICALL JN(link)(JNIEnv *e, jclass c, jbyteArray object, jstring isa, jbyteArray log) {
    (void)c;
    jsize n = (*e)->GetArrayLength(e, object);
    char *bytes = malloc((size_t)n);
    (*e)->GetByteArrayRegion(e, object, 0, n, (jbyte *)bytes);
    const char *isaName = (*e)->GetStringUTFChars(e, isa, NULL);
    cg_t in = {0}, set = {0}, out = {0}, info = {0}, exe = {0}, logData = {0};
    const char *failed = NULL;
    jbyteArray result = NULL;
    if (p_amd_comgr_create_data(KIND_RELOCATABLE, &in)) failed = "amd_comgr_create_data";
    else if (p_amd_comgr_set_data(in, (size_t)n, bytes) || p_amd_comgr_set_data_name(in, "zluda.o")) failed = "amd_comgr_set_data";
    else if (p_amd_comgr_create_data_set(&set) || p_amd_comgr_data_set_add(set, in)) failed = "amd_comgr_data_set_add";
    else if (p_amd_comgr_create_data_set(&out)) failed = "amd_comgr_create_data_set";
    else if (p_amd_comgr_create_action_info(&info) || p_amd_comgr_action_info_set_isa_name(info, isaName))
        failed = "amd_comgr_action_info_set_isa_name (an ISA this comgr does not know?)";
    else {
        p_amd_comgr_action_info_set_logging(info, 1);
        pthread_mutex_lock(&link_lock);
        int status = p_amd_comgr_do_action(LINK_TO_EXECUTABLE, info, set, out);
        pthread_mutex_unlock(&link_lock);
        size_t count = 0, size = 0;
        if (!status && !p_amd_comgr_action_data_count(out, KIND_EXECUTABLE, &count) && count == 1
            && !p_amd_comgr_action_data_get_data(out, KIND_EXECUTABLE, 0, &exe) && !p_amd_comgr_get_data(exe, &size, NULL)) {
            char *code = malloc(size);
            if (!p_amd_comgr_get_data(exe, &size, code)) {
                result = (*e)->NewByteArray(e, (jsize)size);
                (*e)->SetByteArrayRegion(e, result, 0, (jsize)size, (const jbyte *)code);
            }
            free(code);
        }
        if (!result) {
            failed = "amd_comgr_do_action(LINK_RELOCATABLE_TO_EXECUTABLE)";
            size_t logs = 0, len = 0;
            if (!p_amd_comgr_action_data_count(out, KIND_LOG, &logs) && logs > 0
                && !p_amd_comgr_action_data_get_data(out, KIND_LOG, 0, &logData) && !p_amd_comgr_get_data(logData, &len, NULL)) {
                jsize cap = (*e)->GetArrayLength(e, log);
                char *text = malloc(len + 1);
                if (!p_amd_comgr_get_data(logData, &len, text)) {
                    jsize m = (jsize)(len < (size_t)cap ? len : (size_t)cap);
                    (*e)->SetByteArrayRegion(e, log, 0, m, (const jbyte *)text);
                    failed = NULL;
                }
                free(text);
            }
        }
    }
    if (failed) (*e)->SetByteArrayRegion(e, log, 0, (jsize)strlen(failed), (const jbyte *)failed);
    if (logData.handle) p_amd_comgr_release_data(logData);
    if (exe.handle) p_amd_comgr_release_data(exe);
    if (info.handle) p_amd_comgr_destroy_action_info(info);
    if (out.handle) p_amd_comgr_destroy_data_set(out);
    if (set.handle) p_amd_comgr_destroy_data_set(set);
    if (in.handle) p_amd_comgr_release_data(in);
    (*e)->ReleaseStringUTFChars(e, isa, isaName);
    free(bytes);
    return result;
}
