package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.testkit.ExactDecisionModels;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A key's capacity changes (processes of a fleet deciding with different limits, as during a
 * rolling deploy): decisions stay those of the exact model of the limit each call is made with, and
 * no call copies a large ring: a smaller capacity applies in place, a larger one grows the ring in
 * place or moves at most 64 KB (SLOWLOG at 10 ms stays empty on 100,000-entry rings whose capacity
 * flips on every call).
 */
class CapacityChangeTest extends SlowlogRedisTest {
  private static final Duration WINDOW = Duration.ofSeconds(1);
  private static final long T0 = 1_000_000_000_000L;

  /**
   * The exact sliding log of a key decided with a different limit on each call: admitted while
   * fewer than the call's limit are in the window; when it is full, room comes once enough of the
   * oldest have left for fewer than the limit to remain.
   */
  private static final class ChangingLimitModel {
    private final List<Long> admitted = new ArrayList<>();
    private long latest = Long.MIN_VALUE;

    RateDecision tryAcquire(long time, int limit) {
      long t = Math.max(time, latest);
      latest = t;
      long w = WINDOW.toNanos();
      admitted.removeIf(s -> s <= t - w);
      boolean allowed = admitted.size() < limit;
      if (allowed) {
        admitted.add(t);
      }
      int remaining = Math.max(0, limit - admitted.size());
      Duration retry =
          remaining > 0
              ? Duration.ZERO
              : Duration.ofNanos(admitted.get(admitted.size() - limit) + w - t);
      return new RateDecision(allowed, remaining, limit, retry);
    }
  }

  private RateDecision acquire(String name, int limit, long t) {
    // a limiter per call, as a fleet's processes each have theirs: no held denial in between
    return backend
        .rateLimiter(
            name,
            RateLimitConfig.builder()
                .limit(limit)
                .window(WINDOW)
                .idleExpiry(WINDOW.multipliedBy(3))
                .timeSource(new ManualTimeSource(t))
                .build())
        .tryAcquire("k", t);
  }

  @Test
  void slidingLog_limitChangingBetweenCalls_matchesTheExactModelOfEachCallsLimit() {
    // small limits rewrite or move in one call; limits past 2,048 entries shrink in place
    int[][] limitSets = {{3, 5, 8, 13, 40}, {2_100, 2_500, 3_000, 4_000}};
    for (int[] limits : limitSets) {
      String name = RedisTestSupport.uniqueName("limits");
      ChangingLimitModel model = new ChangingLimitModel();
      SplittableRandom random = new SplittableRandom(limits.length * 31L);
      long t = T0;
      long meanGap = WINDOW.toNanos() / limits[limits.length - 1];
      int limit = limits[0];
      for (int i = 0; i < 6_000; i++) {
        if (random.nextInt(50) == 0) {
          limit = limits[random.nextInt(limits.length)];
        }
        t += random.nextLong(2 * meanGap + 1);
        long at = random.nextInt(20) == 0 ? t - random.nextLong(WINDOW.toNanos()) : t;
        RateDecision expected = model.tryAcquire(at, limit);
        assertThat(acquire(name, limit, at)).as("call %d, limit %d", i, limit).isEqualTo(expected);
      }
    }
  }

  /** One amount for key "k", decided by a sum cap built for this call with {@code capacity}. */
  private SumDecision add(String name, BigDecimal cap, int capacity, BigDecimal amount, long t) {
    return backend
        .sumCap(
            name,
            SumCapConfig.builder()
                .cap(cap)
                .scale(0)
                .maxEntriesPerKey(capacity)
                .window(WINDOW)
                .timeSource(new ManualTimeSource(t))
                .build())
        .tryAdd("k", amount, t);
  }

  /**
   * Rings of a few hundred bytes (read whole, and written whole with their TTL when it is due, here
   * on every call) and of kilobytes.
   */
  @ParameterizedTest(name = "cap {0}, the TTL due on every call: {1}")
  @CsvSource({"400, false", "30, true"})
  void sumCap_capacityChangingBetweenCalls_matchesTheExactModel_whileTheRingsHoldEveryAmount(
      int capUnits, boolean ttlDue) {
    String name = RedisTestSupport.uniqueName("capacities");
    String stateKey = RedisTestKit.decisionKeys("ringtail", name, "k", RedisSumCap.KEY_SUFFIXES)[0];
    BigDecimal cap = BigDecimal.valueOf(capUnits);
    ExactDecisionModels.Sum model = new ExactDecisionModels.Sum(cap, WINDOW, 0);
    SplittableRandom random = new SplittableRandom(11);
    // every capacity above the amounts one window can hold (at most the cap, of at least 1 each)
    int[] capacities = {capUnits + 1, capUnits * 3 / 2, capUnits * 11 / 4, capUnits * 15 / 4};
    int capacity = capacities[0];
    long t = T0;
    for (int i = 0; i < 6_000; i++) {
      if (random.nextInt(40) == 0) {
        capacity = capacities[random.nextInt(capacities.length)];
      }
      t += random.nextLong(WINDOW.toNanos() / 200);
      BigDecimal amount = BigDecimal.valueOf(1 + random.nextInt(3));
      SumDecision expected = model.tryAdd("k", amount, t);
      if (ttlDue && connection.sync().exists(stateKey) == 1) {
        // the header's last TTL refresh (its eleventh field) cleared: this call refreshes it
        connection.sync().setrange(stateKey, 44, "\0\0\0\0");
      }
      SumDecision actual = add(name, cap, capacity, amount, t);
      assertThat(actual).as("call %d, capacity %d", i, capacity).isEqualTo(expected);
    }
  }

  /**
   * Writes a full, wrapped ring of {@code ring} entries {@code width} bytes wide in decision.lua's
   * layout: the oldest half at the ring's end timed {@code old}, the newest half at its start timed
   * {@code recent}; {@code entry} writes one entry's fields after its time.
   */
  private void writeWrappedRing(
      String key, int ring, int width, long old, long recent, long extra, EntryTail entry) {
    int head = ring / 2;
    ByteBuffer b = ByteBuffer.allocate(48 + width * ring);
    b.put("rtd1".getBytes(StandardCharsets.US_ASCII));
    b.putLong(recent).putLong(0).putInt(0).putInt(head).putInt(ring).putInt(ring).putLong(extra);
    b.putInt((int) (System.currentTimeMillis() / 1000));
    for (int slot = 0; slot < ring; slot++) {
      // slots [0, head) hold the newest entries, [head, ring) the oldest
      long sequence = slot < head ? ring - head + slot : slot - head;
      b.putLong(slot < head ? recent : old);
      entry.write(b, sequence);
    }
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    binary.sync().del(bytes);
    binary.sync().setrange(bytes, 0, b.array());
    binary.sync().pexpire(bytes, WINDOW.toMillis() * 100);
  }

  interface EntryTail {
    void write(ByteBuffer b, long sequence);
  }

  @Test
  void slidingLog_aLargeRingWhoseLimitFlipsOnEveryCall_isNeverCopied_andNeverOverAdmits() {
    int ring = 100_000;
    String name = RedisTestSupport.uniqueName("flips");
    String key = RedisTestKit.decisionKeys("ringtail", name, "k", "rl")[0];
    long recent = T0 + WINDOW.toNanos() / 2;
    writeWrappedRing(key, ring, 8, T0, recent, 0, (b, sequence) -> {});
    resetSlowlog();
    long t = recent + 1;
    for (int i = 0; i < 20; i++) {
      RateDecision larger = acquire(name, ring + 1 + i, t);
      // the wrapped half is 400 KB: the ring waits to grow, deciding with its 100,000 slots
      assertThat(larger.allowed()).as("call %d", i).isFalse();
      assertThat(larger.retryAfter()).isEqualTo(Duration.ofNanos(T0 + WINDOW.toNanos() - t));
      RateDecision smaller = acquire(name, ring - 1 - i, t);
      assertThat(smaller.allowed()).isFalse();
      assertThat(smaller.remaining()).isZero();
      // holding more than the smaller limit: room once enough of the oldest have left
      assertThat(smaller.retryAfter()).isEqualTo(Duration.ofNanos(T0 + WINDOW.toNanos() - t));
    }
    assertThat(slowCalls()).as("SLOWLOG over 10 ms").isEmpty();
    assertThat(connection.sync().strlen(key)).isEqualTo(48L + 8L * ring);
  }

  @Test
  void slidingLog_aLargerLimitWaitingOnAWrappedRing_appliesInFullOnceTheOldestHaveLeft() {
    int ring = 20_000; // its wrapped half, 80 KB, is more than one call moves
    String name = RedisTestSupport.uniqueName("grows");
    String key = RedisTestKit.decisionKeys("ringtail", name, "k", "rl")[0];
    long recent = T0 + WINDOW.toNanos() / 2;
    writeWrappedRing(key, ring, 8, T0, recent, 0, (b, sequence) -> {});
    assertThat(acquire(name, 2 * ring, recent + 1).allowed()).as("no free slot yet").isFalse();
    long t = T0 + WINDOW.toNanos() + 1;
    for (int i = 0; i <= ring / 2; i++) {
      assertThat(acquire(name, 2 * ring, t).allowed()).as("admission %d", i).isTrue();
    }
    // 10,000 recent and 10,001 new: more than the 20,000 slots the ring had
    RateDecision next = acquire(name, 2 * ring, t);
    assertThat(next.allowed()).isTrue();
    assertThat(next.remaining()).isEqualTo(2 * ring - (ring + 2));
    RateDecision smaller = acquire(name, ring, t);
    assertThat(smaller.allowed()).isFalse();
    assertThat(smaller.retryAfter()).isEqualTo(Duration.ofNanos(recent + WINDOW.toNanos() - t));
  }

  @Test
  void sumCap_aLargeRingWhoseCapacityFlipsOnEveryCall_isNeverCopied() {
    int ring = 100_000;
    String name = RedisTestSupport.uniqueName("sum-flips");
    String key = RedisTestKit.decisionKeys("ringtail", name, "k", "sc")[0];
    long recent = T0 + WINDOW.toNanos() / 2;
    // every entry 1 unit: the running total before entry n is n
    writeWrappedRing(key, ring, 16, T0, recent, ring, ByteBuffer::putLong);
    resetSlowlog();
    long t = recent + 1;
    BigDecimal cap = BigDecimal.valueOf(ring + 1_000);
    for (int i = 0; i < 20; i++) {
      int capacity = i % 2 == 0 ? ring + 1 + i : ring - 1 - i;
      SumDecision d = add(name, cap, capacity, BigDecimal.ONE, t);
      assertThat(d.allowed()).as("call %d", i).isTrue();
      assertThat(d.total()).isEqualByComparingTo(BigDecimal.valueOf(ring + 1 + i));
    }
    assertThat(slowCalls()).as("SLOWLOG over 10 ms").isEmpty();
  }

  /**
   * Rings of a million entries (a sliding log near its largest limit, 8 MB) and two million (a 32
   * MB sum-cap ring), wrapped round the ring's end: capacities larger, smaller, far smaller and
   * back on successive calls, then calls after every entry has left the window. Each call's server
   * time stays under SLOWLOG's 10 ms.
   */
  @Test
  void millionsOfEntries_everyCapacityChange_staysUnder10msPerCall() {
    int logRing = 1_000_000;
    long recent = T0 + WINDOW.toNanos() / 2;
    int[] limits = {
      logRing + 1, logRing - 1, 100, RateLimitConfig.MAX_LIMIT, 1, logRing, logRing + 40_000
    };

    String log = RedisTestSupport.uniqueName("log-1m");
    writeWrappedRing(
        RedisTestKit.decisionKeys("ringtail", log, "k", "rl")[0],
        logRing,
        8,
        T0,
        recent,
        0,
        (b, sequence) -> {});
    resetSlowlog();
    long t = recent + 1;
    for (int limit : limits) {
      RateDecision d = acquire(log, limit, t);
      assertThat(d.allowed()).as("limit %d", limit).isFalse();
      // room once all but the limit's (or the ring's) number have left: the older half timed T0
      int leaving = logRing - Math.min(limit, logRing) + 1;
      long freedAt = leaving <= logRing / 2 ? T0 : recent;
      assertThat(d.retryAfter())
          .as("limit %d", limit)
          .isEqualTo(Duration.ofNanos(freedAt + WINDOW.toNanos() - t));
    }
    // every held entry has left: admitted while fewer than the call's limit came since
    long later = recent + WINDOW.toNanos();
    int admitted = 0;
    for (int limit : limits) {
      boolean allowed = acquire(log, limit, later).allowed();
      assertThat(allowed).as("later, limit %d", limit).isEqualTo(admitted < limit);
      admitted += allowed ? 1 : 0;
      later++;
    }
    assertThat(slowCalls()).as("sliding log: SLOWLOG over 10 ms").isEmpty();

    int ring = 2_000_000;
    int[] capacities = {ring + 1, ring - 1, 100, ring * 2, 1, ring, ring + 500_000};
    String sum = RedisTestSupport.uniqueName("sum-2m");
    writeWrappedRing(
        RedisTestKit.decisionKeys("ringtail", sum, "k", "sc")[0],
        ring,
        16,
        T0,
        recent,
        ring,
        ByteBuffer::putLong);
    resetSlowlog();
    BigDecimal cap = BigDecimal.valueOf(3L * ring);
    long total = ring;
    for (int capacity : capacities) {
      SumDecision d = add(sum, cap, capacity, BigDecimal.ONE, t);
      assertThat(d.allowed()).as("capacity %d", capacity).isTrue();
      total++;
      assertThat(d.total()).isEqualByComparingTo(BigDecimal.valueOf(total));
    }
    later = recent + WINDOW.toNanos();
    for (int capacity : capacities) {
      assertThat(add(sum, cap, capacity, BigDecimal.ONE, later).allowed())
          .as("later, capacity %d", capacity)
          .isTrue();
      later++;
    }
    assertThat(slowCalls()).as("sum cap: SLOWLOG over 10 ms").isEmpty();
  }

  private ThresholdDetector detector(String name, int maxEvents) {
    return backend.thresholdDetector(
        name,
        ThresholdConfig.builder()
            .threshold(10)
            .window(Duration.ofMinutes(10))
            .maxEventsPerKey(maxEvents)
            .timeSource(new ManualTimeSource(T0))
            .build());
  }

  /**
   * The trim's calls stay under 10 ms on a quiet attempt while trimming a whole key at once (tens
   * of ms) never does: on a shared machine other processes can stall the server now and then, so up
   * to three attempts run on fresh keys, as {@code BoundedScriptWorkTest} does.
   */
  @Test
  void thresholdDetector_aSmallerCapOnAFullKey_trimsAChunkPerCall_neverTheWholeKeyAtOnce()
      throws Exception {
    List<Object> slow = List.of();
    for (int attempt = 0; attempt < 3; attempt++) {
      slow = trimAFullKey(RedisTestSupport.uniqueName("events"));
      if (slow.isEmpty()) {
        return;
      }
    }
    assertThat(slow).as("SLOWLOG over 10 ms, on each of three attempts").isEmpty();
  }

  /** Fills a key to 20,000 events, brings its cap down to 100; returns the calls over 10 ms. */
  private List<Object> trimAFullKey(String name) throws Exception {
    int events = 20_000;
    ThresholdDetector large = detector(name, events);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int th = 0; th < 4; th++) {
        int first = th;
        done.add(
            pool.submit(
                () -> {
                  for (int i = first; i < events; i += 4) {
                    large.record("k", "e" + i, T0);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    String held = RedisTestKit.decisionKeys("ringtail", name, "k", "te", "ti", "tm", "tp")[0];
    assertThat(connection.sync().zcard(held)).isEqualTo(events);
    resetSlowlog();
    ThresholdDetector small = detector(name, 100);
    int calls = 0;
    while (connection.sync().zcard(held) > 100) {
      ThresholdDecision d = small.record("k", "late" + calls++, T0 + 1);
      assertThat(d.outcome()).isEqualTo(ThresholdDecision.Outcome.COUNTED);
      assertThat(d.count()).as("counts saturate at the cap").isEqualTo(100);
      assertThat(calls).as("calls to come down to the cap").isLessThanOrEqualTo(41);
    }
    List<Object> slow = slowCalls();
    // the newest are kept: a recent id is still found, the oldest ones were dropped
    assertThat(small.record("k", "late" + (calls - 1), T0 + 1).outcome())
        .isEqualTo(ThresholdDecision.Outcome.DUPLICATE);
    return slow;
  }
}
