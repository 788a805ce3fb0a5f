package io.ringtail.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for what a real server or another thread does (an HTTP observation that stops after its
 * response, a publication round): polls, bounded; never a fixed sleep standing for time.
 */
public final class Await {
  private Await() {}

  /** Polls {@code condition} every 20 ms until true; fails naming {@code what} after 30 s. */
  public static void until(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as(what).isNegative();
      Thread.sleep(20);
    }
  }
}
