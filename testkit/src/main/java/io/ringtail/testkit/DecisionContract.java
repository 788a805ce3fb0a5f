package io.ringtail.testkit;

import io.ringtail.ManualTimeSource;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the decision contract kits share: the test clock, keys unique to each test instance (so a
 * shared server needs no flushing between tests), and the sizes a backend may tune.
 */
public abstract class DecisionContract {
  private static final AtomicInteger RUN = new AtomicInteger();
  private final String prefix =
      getClass().getSimpleName() + "-" + System.nanoTime() + "-" + RUN.incrementAndGet() + ":";

  /** The reading the test clock starts at. */
  protected long startNanos() {
    return 1_000_000_000_000_000L;
  }

  /** How many random operations the reference-model test replays. */
  protected int randomOperations() {
    return 5_000;
  }

  /** Threads in the concurrency tests. */
  protected int threads() {
    return 8;
  }

  /** Attempts per thread in the concurrency tests. */
  protected int attemptsPerThread() {
    return 500;
  }

  /** Rounds of the one-key races (each round is a fresh window). */
  protected int rounds() {
    return 20;
  }

  /** A key unique to this test instance. */
  protected String key(String name) {
    return prefix + name;
  }

  /** A new test clock at {@link #startNanos()}. */
  ManualTimeSource time() {
    return new ManualTimeSource(startNanos());
  }
}
