/* How long a cache line takes to cross between two cores: two threads,
 * pinned to CPUs A and B, pass a counter back and forth through two lines,
 * each spinning on the line the other writes (the pattern of a shared-memory
 * ping-pong with no software around it). Prints half the round trip:
 *   line_pingpong cpus=0,1 half_round_trip_ns=N
 * On the 2-core development VM the figure tells which sitting a run is in:
 * its two vCPUs sit at times on nearby cores (~25 ns) and at times far
 * apart (135-200 ns), and every 2-rank latency follows (docs/performance.md).
 * Usage: line_pingpong [ROUNDS [CPU_A CPU_B]]  (default 200000 0 1) */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(64) atomic_long ping;
static _Alignas(64) atomic_long pong;
static long rounds = 200000;
static int cpu_a = 0, cpu_b = 1;

static int pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  return sched_setaffinity(0, sizeof s, &s);
}

static void* answer(void* unused) {
  (void)unused;
  if (pin(cpu_b) != 0) perror("line_pingpong: sched_setaffinity (CPU_B)");
  for (long i = 1; i <= rounds; ++i) {
    while (atomic_load_explicit(&ping, memory_order_acquire) != i) {
    }
    atomic_store_explicit(&pong, i, memory_order_release);
  }
  return NULL;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  pthread_t t;
  double t0;
  if (argc > 1) rounds = atol(argv[1]);
  if (argc > 3) cpu_a = atoi(argv[2]), cpu_b = atoi(argv[3]);
  if (rounds < 1 || argc == 3 || argc > 4) {
    fprintf(stderr, "usage: line_pingpong [ROUNDS [CPU_A CPU_B]]\n");
    return 2;
  }
  if (pin(cpu_a) != 0) perror("line_pingpong: sched_setaffinity (CPU_A)");
  if (pthread_create(&t, NULL, answer, NULL) != 0) {
    fprintf(stderr, "line_pingpong: pthread_create failed\n");
    return 1;
  }
  t0 = now();
  for (long i = 1; i <= rounds; ++i) {
    atomic_store_explicit(&ping, i, memory_order_release);
    while (atomic_load_explicit(&pong, memory_order_acquire) != i) {
    }
  }
  t0 = now() - t0;
  pthread_join(t, NULL);
  printf("line_pingpong cpus=%d,%d half_round_trip_ns=%.0f\n", cpu_a, cpu_b, t0 / (double)rounds / 2 * 1e9);
  return 0;
}
