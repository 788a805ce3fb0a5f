package io.ringtail.keyed;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Measures what a million keys cost in-process, keys included, as the heap growth after full
 * collections (not a timing test). Each case holds its structure strongly while measuring.
 */
class MillionKeysFootprintTest {
  private static final int KEYS = 1_000_000;
  private static final Duration W = Duration.ofSeconds(60);

  private static long usedAfterGc() {
    Runtime rt = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      used = Math.min(used, rt.totalMemory() - rt.freeMemory());
    }
    return used;
  }

  private static long bytesPerKey(String name, Supplier<Object> fill) {
    return bytesPerKey(name, KEYS, fill);
  }

  private static long bytesPerKey(String name, int keys, Supplier<Object> fill) {
    long before = usedAfterGc();
    Object held = fill.get();
    long after = usedAfterGc();
    long perKey = (after - before) / keys;
    System.out.printf(
        "footprint %-58s %6d bytes/key, %5d MB per million keys%n",
        name, perKey, perKey * 1_000_000 >> 20);
    assertThat(held).isNotNull();
    return perKey;
  }

  @Test
  void rateLimiter_limit100_threeRequestsPerKey() {
    long perKey =
        bytesPerKey(
            "rate limiter, limit 100/min, 3 requests per key",
            () -> {
              ManualTimeSource time = new ManualTimeSource();
              RateLimiter limiter =
                  RateLimiter.inProcess(
                      RateLimitConfig.builder().limit(100).window(W).timeSource(time).build());
              for (int r = 0; r < 3; r++) {
                for (int i = 0; i < KEYS; i++) {
                  limiter.tryAcquire("user:" + i);
                }
              }
              return limiter;
            });
    assertThat(perKey).isBetween(100L, 350L);
  }

  @Test
  void rateLimiter_limit60_saturatedKeys() {
    long perKey =
        bytesPerKey(
            "rate limiter, limit 60/min, every key at its limit",
            () -> {
              ManualTimeSource time = new ManualTimeSource();
              RateLimiter limiter =
                  RateLimiter.inProcess(
                      RateLimitConfig.builder().limit(60).window(W).timeSource(time).build());
              for (int i = 0; i < KEYS; i++) {
                String key = "user:" + i;
                for (int r = 0; r < 60; r++) {
                  limiter.tryAcquire(key);
                }
              }
              return limiter;
            });
    assertThat(perKey).isBetween(60L * 8, 60L * 8 + 350);
  }

  @Test
  void thresholdDetector_threshold10_fiveEventsPerKey() {
    long perKey =
        bytesPerKey(
            "threshold 10/min, 5 events per key (ids e<n>, kept alive)",
            () -> {
              ManualTimeSource time = new ManualTimeSource();
              ThresholdDetector detector =
                  ThresholdDetector.inProcess(
                      ThresholdConfig.builder().threshold(10).window(W).timeSource(time).build());
              for (int r = 0; r < 5; r++) {
                for (int i = 0; i < KEYS; i++) {
                  detector.record("account:" + i, "e" + r);
                }
              }
              return detector;
            });
    assertThat(perKey).isBetween(150L, 700L);
  }

  @Test
  void sumCap_threeAmountsPerKey() {
    long perKey =
        bytesPerKey(
            "sum cap 10.00/week, 3 amounts per key",
            () -> {
              ManualTimeSource time = new ManualTimeSource();
              SumCap cap =
                  SumCap.inProcess(
                      SumCapConfig.builder()
                          .cap(BigDecimal.TEN)
                          .window(Duration.ofDays(7))
                          .timeSource(time)
                          .build());
              BigDecimal amount = new BigDecimal("3.33");
              for (int r = 0; r < 3; r++) {
                for (int i = 0; i < KEYS; i++) {
                  cap.tryAdd("user:" + i, amount);
                }
              }
              return cap;
            });
    assertThat(perKey).isBetween(100L, 450L);
  }

  @Test
  void keyedWindows_compact_threeSamplesPerKey() {
    long[] reported = new long[1];
    long perKey =
        bytesPerKey(
            "keyed windows (compact), 3 latencies per key",
            () -> {
              ManualTimeSource time = new ManualTimeSource();
              KeyedWindows windows =
                  KeyedWindows.builder().maximumKeys(KEYS).timeSource(time).build();
              for (int i = 0; i < KEYS; i++) {
                String key = "client:" + i;
                windows.record(key, 12_000_000L + i);
                windows.record(key, 30_000_000L);
                windows.record(key, 250_000_000L);
              }
              reported[0] = windows.footprintBytes() / KEYS;
              return windows;
            });
    System.out.printf(
        "footprint keyed windows: footprintBytes() reports %d bytes/key%n", reported[0]);
    assertThat(perKey)
        .as("heap growth = windows + cache entries and keys")
        .isBetween(reported[0], reported[0] + 400);
    assertThat(perKey).isLessThan(700);
  }

  @Test
  void keyedWindows_striped_twoThousandKeys() {
    int keys = 2_000;
    long[] reported = new long[1];
    long perKey =
        bytesPerKey(
            "keyed windows (striped, 1 stripe), 10 samples per key",
            keys,
            () -> {
              ManualTimeSource time = new ManualTimeSource();
              KeyedWindows windows =
                  KeyedWindows.builder().compact(false).maximumKeys(keys).timeSource(time).build();
              for (int i = 0; i < keys; i++) {
                for (int v = 1; v <= 10; v++) {
                  windows.record("GET /endpoint/" + i, v * 1_000_000L);
                }
              }
              reported[0] = windows.footprintBytes() / keys;
              return windows;
            });
    System.out.printf(
        "footprint keyed windows: footprintBytes() reports %d bytes/key%n", reported[0]);
    assertThat(perKey)
        .as("heap growth = windows + cache entries and keys")
        .isBetween(reported[0] * 97 / 100, reported[0] * 103 / 100);
    assertThat(perKey).isLessThan(160L * 1024);
  }
}
