package io.ringtail.redis;

import io.ringtail.TimeSource;
import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/** Waiting for publication rounds, shared by the histogram windows' flush and snapshot. */
final class Rounds {
  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private Rounds() {}

  /**
   * Runs a round that starts after this call and waits for it until {@code deadline}: {@code
   * tryStart} starts one, or answers null while one runs ({@code running}), which is waited out
   * first.
   */
  static void runOne(
      Supplier<CompletableFuture<Void>> tryStart,
      Supplier<CompletableFuture<Void>> running,
      long deadline,
      TimeSource clock) {
    for (int i = 0; i < 2; i++) {
      CompletableFuture<Void> round = tryStart.get();
      boolean ours = round != null;
      if (!ours) {
        round = running.get();
      }
      try {
        round.get(Math.max(0, deadline - clock.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException | TimeoutException e) {
        if (ours) {
          return;
        }
      }
      if (ours) {
        return;
      }
    }
  }

  /**
   * Publishes ({@code publishUntil} a deadline) until nothing is {@code pending} or {@code timeout}
   * has passed, every 20 ms while Redis or the breaker refuses. Returns whether nothing is pending.
   */
  static boolean flush(
      LongConsumer publishUntil, IntSupplier pending, Duration timeout, TimeSource clock) {
    long deadline =
        clock.nanoTime() + io.ringtail.internal.Checks.requirePositiveNanos("timeout", timeout);
    while (true) {
      publishUntil.accept(deadline);
      if (pending.getAsInt() == 0 || clock.nanoTime() - deadline >= 0) {
        return pending.getAsInt() == 0;
      }
      LockSupport.parkNanos(Math.min(RETRY_NANOS, deadline - clock.nanoTime()));
    }
  }

  /** The publication interval, checked: 1 ms to 1 minute. */
  static Duration requireInterval(Duration interval) {
    java.util.Objects.requireNonNull(interval, "publishInterval");
    if (interval.compareTo(Duration.ofMillis(1)) < 0
        || interval.compareTo(Duration.ofMinutes(1)) > 0) {
      throw Checks.invalid("publishInterval", "between 1 ms and 1 minute", interval);
    }
    return interval;
  }
}
