package io.ringtail.redis;

import io.ringtail.TimeSource;
import io.ringtail.WindowTotals;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The wire format of one window's scripts, in one place: the arguments of {@code window_record.lua}
 * and {@code window_snapshot.lua} built from named fields, their replies parsed into records, the
 * member encoding, and the snapshot's steps (calls until eviction leaves no backlog). Immutable and
 * thread-safe.
 */
final class WindowProtocol {
  static final int EVICT_CHUNK = 500;
  static final int EVICT_BUDGET = 5_000;
  private static final int VALUE_DIGITS = 19;
  private static final String REJECTED = "R";
  private static final String NO_TIME = "";
  private static final String NO_GUARD = "-1";
  private static final int MAX_SNAPSHOT_ROUNDS = 100_000;

  private final ScriptRunner runner;
  private final String name;
  private final String[] keys;
  private final long lengthMicros;
  private final String length;
  private final String cap;
  private final String ttlMillis;
  private final String skewGuard;

  /**
   * The protocol of the window {@code name} under {@code keyPrefix}; {@code maxClockSkew} is null
   * without a skew guard.
   */
  WindowProtocol(
      ScriptRunner runner,
      String keyPrefix,
      String name,
      Duration length,
      int maxSamples,
      Duration maxClockSkew) {
    this.runner = runner;
    this.name = name;
    this.keys = WindowKeys.window(keyPrefix, name);
    this.lengthMicros = length.toNanos() / 1000;
    long maxSkewMicros = maxClockSkew == null ? -1 : maxClockSkew.toNanos() / 1000;
    this.length = Long.toString(lengthMicros);
    this.cap = Integer.toString(maxSamples);
    long lengthMillis = lengthMicros / 1000;
    this.ttlMillis = Long.toString(lengthMillis + Math.max(1000, lengthMillis / 100));
    this.skewGuard = Long.toString(maxSkewMicros);
  }

  /** The key of the window's time-ordered set. */
  String timeKey() {
    return keys[0];
  }

  /**
   * A sample on its way to Redis: its time (µs), its member ({@code <value padded to 19
   * digits>:<id>}, or the bare id of a rejected sample) and its value in decimal (or "R").
   */
  record Sample(long micros, String member, String value) {
    static Sample of(long value, String id, long micros) {
      return value < 0
          ? new Sample(micros, id, REJECTED)
          : new Sample(micros, padded(value) + ":" + id, Long.toString(value));
    }
  }

  /**
   * What one record call did: the server's time, how many samples went where, whether eviction left
   * a backlog, and the sum of the values it added (for the running totals).
   */
  record RecordReply(
      long serverMicros,
      long added,
      long duplicates,
      long expired,
      long rejected,
      long trimmed,
      long skewCorrected,
      boolean backlog,
      double addedSum) {
    static RecordReply parse(List<Object> reply) {
      return new RecordReply(
          number(reply, 0),
          number(reply, 1),
          number(reply, 2),
          number(reply, 3),
          number(reply, 4),
          number(reply, 5),
          number(reply, 6),
          number(reply, 7) != 0,
          Double.parseDouble(BinaryReply.text(reply.get(8))));
    }
  }

  /** A snapshot call's answer; {@code values} holds min, max, then one value per percentile. */
  record SnapshotReply(
      boolean backlog, long nowMicros, long count, long sum, long rejected, long[] values) {
    static final SnapshotReply BACKLOG = new SnapshotReply(true, 0, 0, 0, 0, new long[0]);
    private static final int VALUES = 5;

    static SnapshotReply parse(List<Object> reply) {
      if ("1".equals(BinaryReply.text(reply.get(0)))) {
        return BACKLOG;
      }
      long[] values = new long[reply.size() - VALUES];
      for (int i = 0; i < values.length; i++) {
        values[i] = number(reply, VALUES + i);
      }
      return new SnapshotReply(
          false, number(reply, 1), number(reply, 2), number(reply, 3), number(reply, 4), values);
    }
  }

  /**
   * Sends {@code samples}. {@code now} is the caller's reading in µs, or null for the server's
   * clock; {@code sendTimes} sends each sample's own time (else the script stamps it with now);
   * {@code guarded} applies the skew guard.
   */
  CompletableFuture<RecordReply> record(
      List<Sample> samples, Long now, boolean sendTimes, boolean guarded) {
    String[] header = {
      length,
      Integer.toString(EVICT_CHUNK),
      Integer.toString(EVICT_BUDGET),
      cap,
      ttlMillis,
      now == null ? NO_TIME : Long.toString(now),
      guarded ? skewGuard : NO_GUARD
    };
    String[] args = Arrays.copyOf(header, header.length + 3 * samples.size());
    int i = header.length;
    for (Sample s : samples) {
      args[i++] = sendTimes ? Long.toString(s.micros) : NO_TIME;
      args[i++] = s.member;
      args[i++] = s.value;
    }
    return runner
        .call(RedisCall.script(Scripts.WINDOW_RECORD, keys, BinaryReply.utf8(args)))
        .thenApply(RecordReply::parse);
  }

  /**
   * The window now, read by snapshot calls until one finds no eviction backlog, all before {@code
   * deadline} on {@code clock}. Now is a reading of {@code clientTime} taken here, or the server's
   * clock if it is null; {@code totals} is asked once the read is done.
   *
   * @throws RedisUnavailableException if Redis does not answer in time
   */
  RedisWindowSnapshot read(
      String[] scaledPercentiles,
      TimeSource clientTime,
      long deadline,
      TimeSource clock,
      Supplier<WindowTotals> totals) {
    long nowNanos = clientTime == null ? 0 : clientTime.nanoTime();
    Long now = clientTime == null ? null : Math.floorDiv(nowNanos, 1000L);
    for (int round = 0; round < MAX_SNAPSHOT_ROUNDS; round++) {
      SnapshotReply reply = snapshot(now, scaledPercentiles, deadline - clock.nanoTime());
      if (!reply.backlog()) {
        return snapshotOf(reply, scaledPercentiles, now, nowNanos, totals.get());
      }
    }
    throw new IllegalStateException(
        "window " + name + " still evicting after " + MAX_SNAPSHOT_ROUNDS + " rounds");
  }

  /**
   * One snapshot call, waiting for it at most {@code waitNanos}. {@code now} as for {@link
   * #record}; {@code scaledPercentiles} as {@link #scaled} makes them.
   *
   * @throws RedisUnavailableException if Redis does not answer in time
   */
  private SnapshotReply snapshot(Long now, String[] scaledPercentiles, long waitNanos) {
    String[] header = {
      length,
      Integer.toString(EVICT_CHUNK),
      Integer.toString(EVICT_BUDGET),
      now == null ? NO_TIME : Long.toString(now),
      skewGuard
    };
    String[] args = Arrays.copyOf(header, header.length + scaledPercentiles.length);
    System.arraycopy(scaledPercentiles, 0, args, header.length, scaledPercentiles.length);
    return SnapshotReply.parse(
        runner.await(
            RedisCall.script(Scripts.WINDOW_SNAPSHOT, keys, BinaryReply.utf8(args)), waitNanos));
  }

  /**
   * The snapshot a reply describes, carrying {@code totals}: it ends at the caller's reading {@code
   * nowNanos} if the script used it, else at the end of the server's microsecond.
   */
  private RedisWindowSnapshot snapshotOf(
      SnapshotReply reply,
      String[] scaledPercentiles,
      Long now,
      long nowNanos,
      WindowTotals totals) {
    long end = now != null && now == reply.nowMicros ? nowNanos : reply.nowMicros * 1000 + 999;
    long start = (reply.nowMicros - lengthMicros + 1) * 1000;
    if (reply.count == 0) {
      return RedisWindowSnapshot.empty(reply.rejected, start, end, totals);
    }
    long[] ranks = new long[reply.values.length];
    ranks[0] = 1;
    ranks[1] = reply.count;
    for (int i = 0; i < scaledPercentiles.length; i++) {
      ranks[i + 2] = serverRank(scaledPercentiles[i], reply.count);
    }
    return new RedisWindowSnapshot(
        reply.count, reply.sum, reply.rejected, start, end, ranks, reply.values, totals);
  }

  /** The rank the snapshot script computes: max(1, ceil(scaled * n / 10^8)). */
  static long serverRank(String scaled, long n) {
    long rank =
        new BigDecimal(scaled)
            .multiply(BigDecimal.valueOf(n))
            .divide(BigDecimal.valueOf(100_000_000L), 0, RoundingMode.CEILING)
            .longValueExact();
    return Math.max(1, rank);
  }

  /**
   * Percentiles as integers scaled by 10^6 (rounded up past six decimals), as the script expects.
   */
  static String[] scaled(double[] ps) {
    String[] out = new String[ps.length];
    for (int i = 0; i < ps.length; i++) {
      out[i] =
          BigDecimal.valueOf(ps[i])
              .movePointRight(6)
              .setScale(0, RoundingMode.CEILING)
              .toPlainString();
    }
    return out;
  }

  static String padded(long value) {
    String digits = Long.toString(value);
    if (digits.length() >= VALUE_DIGITS) {
      return digits;
    }
    char[] out = new char[VALUE_DIGITS];
    int zeros = VALUE_DIGITS - digits.length();
    Arrays.fill(out, 0, zeros, '0');
    digits.getChars(0, digits.length(), out, zeros);
    return new String(out);
  }

  private static long number(List<Object> reply, int index) {
    return Long.parseLong(BinaryReply.text(reply.get(index)));
  }
}
