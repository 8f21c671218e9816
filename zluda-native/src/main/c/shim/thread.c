/* ZLUDA-J shim: per-thread tables (launch.c's kept launches, copy.c's kept copies), freed when the thread ends. */
#include "shim.h"
#include <pthread.h>
#include <stdlib.h>

#define BLOCKS 4
/* the thread's blocks and, for each, what clears the thread-local pointer that names it */
static __thread struct {
    void *block[BLOCKS];
    void (*forget[BLOCKS])(void);
    int n;
} mine;
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void release(void *unused) {
    (void)unused;
    for (int i = 0; i < mine.n; i++) {
        free(mine.block[i]);
        mine.forget[i]();
    }
    mine.n = 0;
}
static void key_make(void) { pthread_key_create(&key, release); }

void *zluda_thread_calloc(size_t count, size_t size, void (*forget)(void)) {
    if (mine.n == BLOCKS) return NULL;
    void *p = calloc(count, size);
    if (!p) return NULL;
    pthread_once(&once, key_make);
    mine.block[mine.n] = p;
    mine.forget[mine.n++] = forget;
    pthread_setspecific(key, &mine);  /* non-NULL: release runs when the thread ends */
    return p;
}
