package io.ringtail.benchmarks.report;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/** Runs work over the keys, split among a number of the pool's threads. */
record KeyWork(ExecutorService pool, int threads, String[] names) {
  /** The body for every key; with fewer keys than threads (a hot key), every thread's. */
  void run(Consumer<String> body) throws Exception {
    if (names.length < threads) {
      each(names.length * threads, k -> body.accept(names[k % names.length]));
    } else {
      each(names.length, k -> body.accept(names[k]));
    }
  }

  /** The body for every index below {@code count}, thread t taking t, t + threads, ... */
  void each(int count, IntConsumer body) throws Exception {
    Future<?>[] done = new Future<?>[threads];
    for (int th = 0; th < threads; th++) {
      int first = th;
      done[th] =
          pool.submit(
              () -> {
                for (int i = first; i < count; i += threads) {
                  body.accept(i);
                }
              });
    }
    for (Future<?> f : done) {
      f.get();
    }
  }
}
