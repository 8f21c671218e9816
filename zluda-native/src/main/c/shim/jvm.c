/* ZLUDA-J shim: starts the JVM inside the application and forwards driver calls to org.zludaj.api.Dispatch.
 *
 * The JVM is created lazily, on the first call that needs it, on a thread of our own with an 8 MiB stack (the
 * application's thread may have a tiny one: JNI_CreateJavaVM then exits the process). Threads attach once as
 * daemons, cache their JNIEnv, and detach when they end. If no JVM can start, one message goes to stderr and every
 * call answers CUDA_ERROR_NOT_INITIALIZED; the application is never aborted. */
#define _GNU_SOURCE
#include "shim.h"
#include "zluda_ids.h"
#include <dirent.h>
#include <dlfcn.h>
#include <jni.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef ZLUDA_BUILD_JAVA_HOME
#define ZLUDA_BUILD_JAVA_HOME ""
#endif

int zluda_trace;
static JavaVM *vm;
static jclass dispatch_class;
static jmethodID dispatch_call;
static int jvm_ok;
static volatile int shutting_down;
static pthread_once_t jvm_once = PTHREAD_ONCE_INIT;
static pthread_key_t detach_key;
static __thread JNIEnv *thread_env;
static char start_error[1024];
/* An upcall stub of Dispatch.callRaw (org.zludaj.api.Upcalls) once the JVM has made one: cheaper than JNI's call */
typedef jint (*driver_upcall_fn)(jint, jlong);
static driver_upcall_fn volatile driver_upcall;
static jclass upcalls_class;
static jmethodID upcalls_request;

static void detach_thread(void *unused) {
    (void)unused;
    if (vm) (*vm)->DetachCurrentThread(vm);
}

/* Directory holding this library (lib/ of the distribution), resolved through symlinks. */
static int shim_dir(char *out, size_t n) {
    Dl_info info;
    char real[PATH_MAX];
    if (!dladdr((void *)shim_dir, &info) || !info.dli_fname || !realpath(info.dli_fname, real)) return -1;
    char *slash = strrchr(real, '/');
    if (!slash) return -1;
    *slash = 0;
    snprintf(out, n, "%s", real);
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* "-Djava.class.path=" + every jar of lib/, sorted (the JNI invocation API does not expand wildcards). */
static char *class_path_option(const char *lib) {
    DIR *d = opendir(lib);
    if (!d) return NULL;
    char *names[1024];
    int n = 0;
    size_t len = strlen("-Djava.class.path=") + 1;
    struct dirent *e;
    while ((e = readdir(d)) && n < 1024) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".jar")) {
            names[n++] = strdup(e->d_name);
            len += strlen(lib) + l + 2;
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    char *cp = malloc(len);
    strcpy(cp, "-Djava.class.path=");
    for (int i = 0; i < n; i++) {
        if (i) strcat(cp, ":");
        strcat(cp, lib);
        strcat(cp, "/");
        strcat(cp, names[i]);
        free(names[i]);
    }
    return n ? cp : (free(cp), NULL);
}

static const char *java_home(void) {
    const char *h = getenv("ZLUDA_JAVA_HOME");
    if (h && *h) return h;
    if (*ZLUDA_BUILD_JAVA_HOME) return ZLUDA_BUILD_JAVA_HOME;
    h = getenv("JAVA_HOME");
    return h && *h ? h : NULL;
}

typedef jint (*create_vm_fn)(JavaVM **, void **, void *);

/* The feature version of the JDK at jh (its release file's JAVA_VERSION), 0 when unknown. */
static int jdk_feature(const char *jh) {
    char path[PATH_MAX + 16], line[256];
    snprintf(path, sizeof path, "%s/release", jh);
    FILE *f = fopen(path, "r");
    int v = 0;
    while (f && !v && fgets(line, sizeof line, f))
        if (!strncmp(line, "JAVA_VERSION=\"", 14)) v = atoi(line + 14);
    if (f) fclose(f);
    return v;
}

/* Upcall stubs are asked for after this many calls through JNI: a short-lived program does not pay for making them
 * (10-15 ms of a second thread at start-up); ZLUDA_UPCALLS=sync asks at once (and Upcalls makes them before answering) */
#define ZLUDA_UPCALL_AFTER 200
static int upcall_now;
static int driver_calls;

/* Asks the JVM for an upcall stub of a Dispatch class's callRaw, written at slot when made (Upcalls.request). */
static void request_upcall(JNIEnv *env, const char *cls, int long_result, void *slot, int64_t fallback) {
    /* the class is looked up here, at the first request, not at start: its lookup cost the start 8 ms on an H200 */
    static pthread_mutex_t lookup = PTHREAD_MUTEX_INITIALIZER;
    static int looked_up;
    pthread_mutex_lock(&lookup);
    if (!looked_up) {
        looked_up = 1;
        jclass up = (*env)->FindClass(env, "org/zludaj/api/Upcalls");
        jmethodID request = up ? (*env)->GetStaticMethodID(env, up, "request", "(Ljava/lang/String;ZJJ)V") : NULL;
        if (request) {
            upcalls_request = request;
            upcalls_class = (*env)->NewGlobalRef(env, up);
        }
        if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
        if (up) (*env)->DeleteLocalRef(env, up);
    }
    pthread_mutex_unlock(&lookup);
    if (!upcalls_class) return;
    jstring name = (*env)->NewStringUTF(env, cls);
    if (name) (*env)->CallStaticVoidMethod(env, upcalls_class, upcalls_request, name, (jboolean)long_result, (jlong)(uintptr_t)slot, (jlong)fallback);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    if (name) (*env)->DeleteLocalRef(env, name);
}

static double ms_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Whether the start's phases are printed: ZLUDA_LOG=debug or trace, or ZLUDA_START_TRACE=1 (those lines alone, without
 * the driver's own logging, which costs the start its set-up) */
static int start_traced(void) {
    const char *log = getenv("ZLUDA_LOG"), *trace = getenv("ZLUDA_START_TRACE");
    return (log && (!strcmp(log, "debug") || !strcmp(log, "trace"))) || (trace && !strcmp(trace, "1"));
}

/* Start-up phases in ms from the first call (printed when start_traced()): NVIDIA's library loaded and initialized
 * on the pre-init thread, libjvm loaded, the JVM created, the driver started. */
static double t_first, t_nv_loaded, t_nv_init, t_jvm_loaded, t_jvm_created;

/* Whether the pre-init thread's cuInit is still running; the cuda backend waits for it to end (its wait function's
 * address reaches the JVM as -Dzluda.nvidia.preinit) before calling cuInit itself: measured on an H200, a second
 * cuInit made while NVIDIA's first runs returned 10-15 ms after the first had ended, one made after it at once. */
static pthread_mutex_t nv_init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nv_init_cond = PTHREAD_COND_INITIALIZER;
static int nv_init_pending;

static void nvidia_preinit_done(void) {
    pthread_mutex_lock(&nv_init_lock);
    nv_init_pending = 0;
    pthread_cond_broadcast(&nv_init_cond);
    pthread_mutex_unlock(&nv_init_lock);
}

static void nvidia_preinit_wait(void) {
    pthread_mutex_lock(&nv_init_lock);
    while (nv_init_pending) pthread_cond_wait(&nv_init_cond, &nv_init_lock);
    pthread_mutex_unlock(&nv_init_lock);
}

static void *start_jvm_thread(void *unused) {
    (void)unused;
    double t0 = ms_now();
    char lib[PATH_MAX], home[PATH_MAX], libjvm[PATH_MAX + 32], homeopt[PATH_MAX + 32], libopt[PATH_MAX + 32];
    if (shim_dir(lib, sizeof lib)) { snprintf(start_error, sizeof start_error, "cannot locate libcuda.so.1 itself"); return NULL; }
    snprintf(home, sizeof home, "%s", lib);
    char *slash = strrchr(home, '/');
    if (slash) *slash = 0;
    const char *jh = java_home();
    if (!jh) { snprintf(start_error, sizeof start_error, "no JDK: set ZLUDA_JAVA_HOME or JAVA_HOME"); return NULL; }
    snprintf(libjvm, sizeof libjvm, "%s/lib/server/libjvm.so", jh);
    void *h = dlopen(libjvm, RTLD_NOW | RTLD_LOCAL);
    if (!h) { snprintf(start_error, sizeof start_error, "cannot load %s: %s", libjvm, dlerror()); return NULL; }
    t_jvm_loaded = ms_now() - t_first;
    create_vm_fn create = (create_vm_fn)dlsym(h, "JNI_CreateJavaVM");
    char *cp = class_path_option(lib);
    if (!create || !cp) { snprintf(start_error, sizeof start_error, "no JNI_CreateJavaVM in %s or no jars in %s", libjvm, lib); return NULL; }
    snprintf(homeopt, sizeof homeopt, "-Dzluda.home=%s", home);
    snprintf(libopt, sizeof libopt, "-Dzluda.native.dir=%s", lib);
    extern volatile int zluda_ctx_epoch, zluda_stream_epoch;
    extern void zluda_launch_offer(const int64_t *), zluda_copy_offer(const int64_t *), zluda_blas_offer(const int64_t *);
    char epochopt[64], streamepochopt[64], offeropt[64], copyofferopt[64], blasofferopt[64], preinitopt[64];
    snprintf(epochopt, sizeof epochopt, "-Dzluda.epoch=%lu", (unsigned long)(uintptr_t)&zluda_ctx_epoch);
    snprintf(streamepochopt, sizeof streamepochopt, "-Dzluda.streamEpoch=%lu", (unsigned long)(uintptr_t)&zluda_stream_epoch);
    snprintf(offeropt, sizeof offeropt, "-Dzluda.launchOffer=%lu", (unsigned long)(uintptr_t)&zluda_launch_offer);
    snprintf(copyofferopt, sizeof copyofferopt, "-Dzluda.copyOffer=%lu", (unsigned long)(uintptr_t)&zluda_copy_offer);
    snprintf(blasofferopt, sizeof blasofferopt, "-Dzluda.blasOffer=%lu", (unsigned long)(uintptr_t)&zluda_blas_offer);
    snprintf(preinitopt, sizeof preinitopt, "-Dzluda.nvidia.preinit=%lu", (unsigned long)(uintptr_t)&nvidia_preinit_wait);
    JavaVMOption opts[32];
    int n = 0;
    opts[n++].optionString = cp;
    opts[n++].optionString = homeopt;
    opts[n++].optionString = libopt;
    opts[n++].optionString = epochopt;  /* where the JVM bumps the context epoch (memo.c) */
    opts[n++].optionString = streamepochopt;  /* and the stream epoch (launch.c) */
    opts[n++].optionString = offeropt;  /* where it offers launches the shim may repeat (launch.c) */
    opts[n++].optionString = copyofferopt;  /* and device-to-device copies (copy.c) */
    opts[n++].optionString = blasofferopt;  /* and cuBLAS GEMMs (blas.c) */
    opts[n++].optionString = preinitopt;  /* waits for NVIDIA's cuInit on the pre-init thread (cuda backend) */
    opts[n++].optionString = "-Xrs";                       /* leave the application's signal handlers alone */
    opts[n++].optionString = "-XX:+IgnoreUnrecognizedVMOptions";
    opts[n++].optionString = "-XX:+UseSerialGC";
    opts[n++].optionString = "-Xmx2g";
    opts[n++].optionString = "-XX:MaxNewSize=32m";          /* per-call garbage stays small: RSS stable under load */
    /* two JIT compiler threads on any machine: on 16 cores the default (12) grew the process by 23-31 MB over 10,000
     * launches, with 2 by 11 MB (measured on an H200 machine; launches.cu's bound is 16 MB) */
    opts[n++].optionString = "-XX:CICompilerCount=2";
    /* no hsperfdata file (a file created and mapped in /tmp at start, for jstat); ZLUDA_JVM_OPTS=-XX:+UsePerfData brings
     * it back for tools that list JVMs by it */
    opts[n++].optionString = "-XX:-UsePerfData";
    opts[n++].optionString = "--enable-native-access=ALL-UNNAMED";
    /* the start-up archive 'zluda archive' made (src/dist/assemble.sh at build time): an AOT cache for JDK 25 on, else
     * a class-data sharing archive, for the JDK that made it, with this class path; any other JVM ignores it (its
     * messages off) */
    int feature = jdk_feature(jh);
    const char *jsa_kind = "";
    char jsa[PATH_MAX + 64], jsaopt[PATH_MAX + 64];
    snprintf(jsa, sizeof jsa, "%s/zluda.aot", lib);
    if (feature >= 25 && access(jsa, R_OK) == 0) {
        snprintf(jsaopt, sizeof jsaopt, "-XX:AOTCache=%s", jsa);
        jsa_kind = ", AOT cache";
        opts[n++].optionString = jsaopt;
        opts[n++].optionString = "-Xlog:aot=off";
        opts[n++].optionString = "-Xlog:cds=off";
    } else if (snprintf(jsa, sizeof jsa, "%s/zluda.jsa", lib) > 0 && access(jsa, R_OK) == 0) {
        snprintf(jsaopt, sizeof jsaopt, "-XX:SharedArchiveFile=%s", jsa);
        jsa_kind = ", class-data sharing archive";
        opts[n++].optionString = jsaopt;
        opts[n++].optionString = "-Xlog:cds=off";
        opts[n++].optionString = "-Xlog:cds+dynamic=off";
    }
    /* JDK 23 on warns on stderr, once, at the first memory access through sun.misc.Unsafe (RawArgs): not in the
     * application's output (JDK 17 rejects the option) */
    if (feature >= 23) opts[n++].optionString = "--sun-misc-unsafe-memory-access=allow";
    char *extra = getenv("ZLUDA_JVM_OPTS") ? strdup(getenv("ZLUDA_JVM_OPTS")) : NULL;
    for (char *tok = extra ? strtok(extra, " ") : NULL; tok && n < 32; tok = strtok(NULL, " ")) opts[n++].optionString = tok;
    JavaVMInitArgs args = {.version = JNI_VERSION_10, .nOptions = n, .options = opts, .ignoreUnrecognized = JNI_TRUE};
    JNIEnv *env;
    double t1 = ms_now();
    if (create(&vm, (void **)&env, &args) != JNI_OK) {
        snprintf(start_error, sizeof start_error, "JNI_CreateJavaVM failed (JDK %s)", jh);
        vm = NULL;
        return NULL;
    }
    free(cp);
    double t2 = ms_now();
    t_jvm_created = t2 - t_first;
    jclass boot = (*env)->FindClass(env, "org/zludaj/driver/Bootstrap");
    jmethodID start = boot ? (*env)->GetStaticMethodID(env, boot, "start", "()Z") : NULL;
    jclass disp = (*env)->FindClass(env, "org/zludaj/api/Dispatch");
    jmethodID call = disp ? (*env)->GetStaticMethodID(env, disp, "callRaw", "(IJ)I") : NULL;
    if (!start || !call || !(*env)->CallStaticBooleanMethod(env, boot, start) || (*env)->ExceptionCheck(env)) {
        if ((*env)->ExceptionCheck(env)) { (*env)->ExceptionDescribe(env); (*env)->ExceptionClear(env); }
        snprintf(start_error, sizeof start_error, "the driver classes did not start (classpath %s)", lib);
        (*vm)->DetachCurrentThread(vm);
        return NULL;
    }
    dispatch_class = (*env)->NewGlobalRef(env, disp);
    dispatch_call = call;
    const char *mode = getenv("ZLUDA_UPCALLS");
    upcall_now = mode && !strcmp(mode, "sync");
    if (upcall_now) request_upcall(env, "org/zludaj/api/Dispatch", 0, (void *)&driver_upcall, CUDA_ERROR_UNKNOWN);
    if (start_traced())  /* the start's phases, for issue 21's start-up figures */
        fprintf(stderr, "ZLUDA-J DEBUG shim: JVM (JDK %d%s) created in %.1f ms, driver started in %.1f ms (%.1f ms in all); "
                "ms from the first call: libjvm loaded %.1f, JVM created %.1f, driver started %.1f; NVIDIA's library loaded "
                "%.1f, its cuInit done %.1f (0: not used, or not yet)\n", feature, jsa_kind, t2 - t1, ms_now() - t2, ms_now() - t0,
                t_jvm_loaded, t_jvm_created, ms_now() - t_first, t_nv_loaded, t_nv_init);
    (*vm)->DetachCurrentThread(vm);
    jvm_ok = 1;
    return NULL;
}

/* ZLUDA_BACKEND=cuda: NVIDIA's driver is opened and initialized (cuInit, 100 ms and more) on a thread of its own
 * while the JVM starts, so that the backend's own cuInit (CudaBackend.open, the same library by the same path and
 * flags) finds it done. The library is looked for as CudaBackend.findLibrary does. */
static void *nvidia_preinit_thread(void *path) {
    void *h = dlopen((const char *)path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    t_nv_loaded = ms_now() - t_first;
    CUresult (*init)(unsigned) = h ? (CUresult(*)(unsigned))dlsym(h, "cuInit") : NULL;
    if (init) init(0);
    t_nv_init = ms_now() - t_first;
    nvidia_preinit_done();
    free(path);
    return NULL; /* the handle stays open: the backend's dlopen takes it */
}

static void nvidia_preinit(const char *own_dir) {
    const char *backend = getenv("ZLUDA_BACKEND");
    if (!backend || strcmp(backend, "cuda")) return;
    char path[PATH_MAX] = "";
    const char *explicit_lib = getenv("ZLUDA_NVIDIA_LIB");
    if (explicit_lib && *explicit_lib) {
        snprintf(path, sizeof path, "%s", explicit_lib);
    } else {
        static const char *dirs[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib",
                                     "/usr/lib/wsl/lib", "/usr/lib"};
        for (size_t i = 0; i < sizeof dirs / sizeof *dirs && !path[0]; i++) {
            char p[PATH_MAX];
            snprintf(p, sizeof p, "%s/libcuda.so.1", dirs[i]);
            if (access(p, F_OK) == 0 && strcmp(dirs[i], own_dir)) snprintf(path, sizeof path, "%s", p);
        }
    }
    pthread_t t;
    char *copy = path[0] ? strdup(path) : NULL;
    nv_init_pending = copy != NULL;
    if (copy && pthread_create(&t, NULL, nvidia_preinit_thread, copy) == 0) pthread_detach(t);
    else { free(copy); nv_init_pending = 0; }
}

static void start_jvm(void) {
    t_first = ms_now();
    const char *log = getenv("ZLUDA_LOG");
    zluda_trace = log && !strcmp(log, "trace");
    pthread_key_create(&detach_key, detach_thread);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 8u << 20);
    char own[PATH_MAX];
    if (shim_dir(own, sizeof own) == 0) nvidia_preinit(own);
    pthread_t t;
    if (pthread_create(&t, &attr, start_jvm_thread, NULL) == 0) pthread_join(t, NULL);
    else snprintf(start_error, sizeof start_error, "cannot create the JVM start thread");
    pthread_attr_destroy(&attr);
    if (!jvm_ok) fprintf(stderr, "ZLUDA-J: the CUDA driver is unavailable: %s\n", start_error);
}

static JNIEnv *current_env(void) {
    if (thread_env) return thread_env;
    JNIEnv *env;
    jint r = (*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_10);
    if (r == JNI_EDETACHED) {
        if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&env, NULL) != JNI_OK) return NULL;
        pthread_setspecific(detach_key, vm);
    } else if (r != JNI_OK) {
        return NULL;
    }
    return thread_env = env;
}

/* ZLUDA_LOG=debug or ZLUDA_START_TRACE=1: when the first call, which started the JVM, got past each step */
static int first_call_traced;

CUresult zluda_call(int id, const int64_t *a) {
    if (shutting_down) return CUDA_ERROR_DEINITIALIZED;
    pthread_once(&jvm_once, start_jvm);
    if (!jvm_ok) return CUDA_ERROR_NOT_INITIALIZED;
    JNIEnv *env = current_env();
    if (!env) return CUDA_ERROR_OPERATING_SYSTEM;  /* thread stack too small to attach, or JVM gone */
    if (!__atomic_load_n(&first_call_traced, __ATOMIC_RELAXED) && !__atomic_exchange_n(&first_call_traced, 1, __ATOMIC_RELAXED)
        && start_traced()) {
        double attached = ms_now() - t_first;
        jint r = (*env)->CallStaticIntMethod(env, dispatch_class, dispatch_call, (jint)id, (jlong)(uintptr_t)a);
        if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
        fprintf(stderr, "ZLUDA-J DEBUG shim: first call: thread attached %.1f ms, answered %.1f ms from its start\n", attached,
                ms_now() - t_first);
        return r;
    }
    /* the arguments stay in the caller's array, read there by Dispatch.callRaw: a JNI call passing 16 arguments costs
     * three times one passing two (RawArgs) */
    driver_upcall_fn up = __atomic_load_n(&driver_upcall, __ATOMIC_ACQUIRE);
    if (up) return up((jint)id, (jlong)(uintptr_t)a);  /* never throws: Upcalls wraps it */
    /* counted only up to the threshold: on a JDK without stubs (17-21) calls stay free of the locked increment */
    if (__atomic_load_n(&driver_calls, __ATOMIC_RELAXED) < ZLUDA_UPCALL_AFTER &&
        __atomic_add_fetch(&driver_calls, 1, __ATOMIC_RELAXED) == ZLUDA_UPCALL_AFTER)
        request_upcall(env, "org/zludaj/api/Dispatch", 0, (void *)&driver_upcall, CUDA_ERROR_UNKNOWN);
    jint r = (*env)->CallStaticIntMethod(env, dispatch_class, dispatch_call, (jint)id, (jlong)(uintptr_t)a);
    if ((*env)->ExceptionCheck(env)) {  /* Dispatch catches everything; this is a JVM-level failure */
        (*env)->ExceptionClear(env);
        return CUDA_ERROR_UNKNOWN;
    }
    return r;
}

/* The dispatch class and method of a library, resolved once (a race resolves twice to the same answer). */
static int resolve_library(JNIEnv *env, zluda_library *lib) {
    if (lib->method) return 1;
    jclass c = (*env)->FindClass(env, lib->dispatch_class);
    if (!c) { (*env)->ExceptionClear(env); return 0; }
    jmethodID m = (*env)->GetStaticMethodID(env, c, "callRaw", "(IJ)J");
    if (!m) { (*env)->ExceptionClear(env); return 0; }
    void *expected = NULL, *cls = (*env)->NewGlobalRef(env, c);
    lib->cls = cls;
    if (__atomic_compare_exchange_n(&lib->method, &expected, (void *)m, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED) && upcall_now)
        request_upcall(env, lib->dispatch_class, 1, (void *)&lib->upcall, lib->not_initialized);
    return 1;
}

int64_t zluda_library_call(zluda_library *lib, int id, const int64_t *a) {
    if (shutting_down) return lib->not_initialized;
    pthread_once(&jvm_once, start_jvm);
    if (!jvm_ok) return lib->not_initialized;
    JNIEnv *env = current_env();
    if (!env || !resolve_library(env, lib)) return lib->not_initialized;
    int64_t (*up)(jint, jlong) = (int64_t (*)(jint, jlong))__atomic_load_n(&lib->upcall, __ATOMIC_ACQUIRE);
    if (up) return up((jint)id, (jlong)(uintptr_t)a);
    if (__atomic_load_n(&lib->calls, __ATOMIC_RELAXED) < ZLUDA_UPCALL_AFTER &&
        __atomic_add_fetch(&lib->calls, 1, __ATOMIC_RELAXED) == ZLUDA_UPCALL_AFTER)
        request_upcall(env, lib->dispatch_class, 1, (void *)&lib->upcall, lib->not_initialized);
    jlong r = (*env)->CallStaticLongMethod(env, (jclass)lib->cls, (jmethodID)lib->method, (jint)id, (jlong)(uintptr_t)a);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return lib->not_initialized;
    }
    return r;
}

int zluda_shutting_down(void) { return shutting_down; }

/* At process exit (after the application's atexit handlers) calls answer CUDA_ERROR_DEINITIALIZED, as NVIDIA's do. */
__attribute__((destructor)) static void zluda_shim_fini(void) {
    shutting_down = 1;
    const char *profile = getenv("ZLUDA_PROFILE");  /* "calls": the JVM's table of calls (CallProfile) */
    if (!profile || strcmp(profile, "calls") || !vm || !jvm_ok) return;
    JNIEnv *env = current_env();
    jclass c = env ? (*env)->FindClass(env, "org/zludaj/driver/CallProfile") : NULL;
    jmethodID m = c ? (*env)->GetStaticMethodID(env, c, "print", "()V") : NULL;
    if (m) (*env)->CallStaticVoidMethod(env, c, m);
    if (env && (*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
}
