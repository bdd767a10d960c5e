/* Recursion DEPTH deep, spinning at the bottom: a real callchain as deep
   as perf will unwind (kernel.perf_event_max_stack raised). */
#include <stdlib.h>
volatile unsigned long sink;
unsigned long iters = 400000000UL;
__attribute__((noinline)) void spin(void) {
    for (unsigned long i = 0; i < iters; i++) sink += i;
}
__attribute__((noinline)) void down(int n) {
    if (n == 0) spin(); else down(n - 1);
    sink++;
}
int main(int argc, char **argv) {
    if (argc > 2) iters = strtoul(argv[2], 0, 10);
    down(argc > 1 ? atoi(argv[1]) : 20000);
    return 0;
}
