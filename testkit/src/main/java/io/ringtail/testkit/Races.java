package io.ringtail.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Starts many threads at once on one operation: the concurrency tests' harness. */
public final class Races {
  private Races() {}

  /**
   * Runs {@code op} {@code attempts} times on each of {@code threads} threads released together,
   * and returns how many calls returned true. Fails if the race does not finish in two minutes.
   */
  public static int countTrue(int threads, int attempts, Callable<Boolean> op) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  int n = 0;
                  for (int i = 0; i < attempts; i++) {
                    if (op.call()) {
                      n++;
                    }
                  }
                  return n;
                }));
      }
      start.countDown();
      int total = 0;
      for (Future<Integer> f : futures) {
        total += f.get(2, TimeUnit.MINUTES);
      }
      return total;
    } finally {
      pool.shutdownNow();
    }
  }
}
