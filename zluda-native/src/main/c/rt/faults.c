/* ZLUDA-J host runtime: faults of kernel code. While a thread runs kernel code, a SIGSEGV or SIGBUS (an access to
 * an address no mapping backs, a fiber stack overflowing into its guard page) or a SIGFPE ends the thread's block and
 * fails the launch, as NVIDIA reports CUDA_ERROR_ILLEGAL_ADDRESS; the application keeps running. Every other signal,
 * and these signals outside kernel code, go to the handler installed before ours: the JVM's, which relies on SIGSEGV
 * for its own purposes (implicit null checks, safepoint polls). Kernel threads handle the signal on an alternate
 * stack, because a fiber stack overflow leaves no room on the fiber's own stack.
 * Not caught: an out-of-bounds access that lands in memory the process has mapped (another allocation, the JVM's
 * heap) reads or corrupts that memory, as it would on a GPU whose page is mapped. */
#define _GNU_SOURCE
#include "hostrt.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

__thread sigjmp_buf *zluda_fault_escape;  /* the innermost recovery point while kernel code runs on this thread */
__thread int zluda_fault_code;            /* why the last escape happened: -5 memory, -6 arithmetic */
__thread void *zluda_fault_address;
__thread void *zluda_fault_pc;            /* the faulting instruction (reported with ZLUDA_LOG=debug) */

static struct sigaction prev_segv, prev_bus, prev_fpe;

static struct sigaction *previous(int sig) {
    return sig == SIGSEGV ? &prev_segv : sig == SIGBUS ? &prev_bus : &prev_fpe;
}

static void on_fault(int sig, siginfo_t *info, void *uc) {
    sigjmp_buf *escape = zluda_fault_escape;
    if (escape) {
        zluda_fault_escape = NULL;
        zluda_fault_code = sig == SIGFPE ? -6 : -5;
        zluda_fault_address = info ? info->si_addr : NULL;
        zluda_fault_pc = uc ? (void *)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] : NULL;
        siglongjmp(*escape, 1);
    }
    struct sigaction *p = previous(sig);
    if (p->sa_flags & SA_SIGINFO) {
        if (p->sa_sigaction) p->sa_sigaction(sig, info, uc);
        return;
    }
    if (p->sa_handler == SIG_IGN) return;
    if (p->sa_handler == SIG_DFL) {  /* the default action: let the signal kill the process as it would have */
        sigaction(sig, p, NULL);
        raise(sig);
        return;
    }
    p->sa_handler(sig);
}

static void install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &prev_segv);
    sigaction(SIGBUS, &sa, &prev_bus);
    sigaction(SIGFPE, &sa, &prev_fpe);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

void zluda_faults_install(void) {
    pthread_once(&once, install);
}

#define ALT_STACK (64 * 1024)

/* Gives the calling thread an alternate signal stack for the launch; *old receives the one it had. */
void zluda_altstack_push(stack_t *old, void **mem) {
    *mem = malloc(ALT_STACK);
    stack_t s = {.ss_sp = *mem, .ss_size = ALT_STACK, .ss_flags = 0};
    if (!*mem || sigaltstack(&s, old) != 0) {
        free(*mem);
        *mem = NULL;
    }
}

void zluda_altstack_pop(const stack_t *old, void *mem) {
    if (!mem) return;
    stack_t s = *old;
    if (!(s.ss_flags & SS_ONSTACK)) sigaltstack(s.ss_flags & SS_DISABLE ? &(stack_t){.ss_flags = SS_DISABLE} : &s, NULL);
    free(mem);
}
