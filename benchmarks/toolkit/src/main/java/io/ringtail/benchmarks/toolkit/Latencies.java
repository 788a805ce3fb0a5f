package io.ringtail.benchmarks.toolkit;

import java.util.SplittableRandom;

/**
 * Precomputed latencies in nanoseconds, log-normal with a long tail (median 1 ms, sigma 1: P99
 * about 10 ms, P99.99 about 40 ms), so no random-number cost sits on a benchmark's hot path.
 *
 * <p>Immutable and thread-safe; {@link Cursor} instances are single-threaded.
 */
public final class Latencies {
  public static final int SIZE = 1 << 16;
  private static final long[] VALUES = logNormal(SIZE, 1_000_000, 1.0, 42);

  private Latencies() {}

  /** {@code n} samples of {@code exp(N(ln median, sigma^2))}, clamped to 1 ns .. 1 h. */
  public static long[] logNormal(int n, double median, double sigma, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] values = new long[n];
    double mu = Math.log(median);
    for (int i = 0; i < n; i++) {
      values[i] = clamp(Math.exp(mu + sigma * gaussian(random)));
    }
    return values;
  }

  public static double gaussian(SplittableRandom random) {
    double u1 = 1.0 - random.nextDouble();
    double u2 = random.nextDouble();
    return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
  }

  public static long clamp(double nanos) {
    return Math.max(1L, Math.min(3_600_000_000_000L, Math.round(nanos)));
  }

  /** One thread's walk through the shared precomputed values, from its own starting offset. */
  public static final class Cursor {
    private int next;

    public Cursor(int start) {
      this.next = start;
    }

    public long next() {
      return VALUES[next++ & (SIZE - 1)];
    }
  }
}
