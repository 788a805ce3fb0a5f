package io.ringtail.redis;

import io.ringtail.TimeSource;
import io.ringtail.WindowTotals;
import io.ringtail.redis.WindowProtocol.RecordReply;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * What became of one window's samples in this process, counted as replies and failures arrive; logs
 * a trim by the cardinality cap at most once a second. Thread-safe.
 */
final class WindowCounters {
  private static final System.Logger LOG = System.getLogger(RedisRollingWindow.class.getName());
  private static final long CAP_WARNING_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  final LongAdder recorded = new LongAdder();
  final LongAdder rejected = new LongAdder();
  final LongAdder replayed = new LongAdder();
  final LongAdder dropped = new LongAdder();
  final LongAdder failedCalls = new LongAdder();
  final LongAdder degradedSnapshots = new LongAdder();
  private final LongAdder stored = new LongAdder();
  private final DoubleAdder storedSum = new DoubleAdder();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder expired = new LongAdder();
  private final LongAdder trimmed = new LongAdder();
  private final LongAdder skewCorrections = new LongAdder();
  private final String window;
  private final int maxSamples;
  private final TimeSource clock;
  private volatile long lastCapWarningNanos;

  WindowCounters(String window, int maxSamples, TimeSource clock) {
    this.window = window;
    this.maxSamples = maxSamples;
    this.clock = clock;
    this.lastCapWarningNanos = clock.nanoTime() - CAP_WARNING_INTERVAL_NANOS - 1;
  }

  void count(RecordReply reply) {
    stored.add(reply.added());
    storedSum.add(reply.addedSum());
    duplicates.add(reply.duplicates());
    expired.add(reply.expired());
    rejected.add(reply.rejected());
    skewCorrections.add(reply.skewCorrected());
    if (reply.trimmed() > 0) {
      trimmed.add(reply.trimmed());
      warnCap(reply.trimmed());
    }
  }

  private void warnCap(long cut) {
    long now = clock.nanoTime();
    if (now - lastCapWarningNanos > CAP_WARNING_INTERVAL_NANOS) {
      lastCapWarningNanos = now;
      LOG.log(
          Level.WARNING,
          () ->
              RedisRollingWindow.CARDINALITY_CAP_WARNING
                  + " window="
                  + window
                  + " trimmed "
                  + cut
                  + " oldest samples at the cap of "
                  + maxSamples
                  + " (total trimmed "
                  + trimmed.sum()
                  + ")");
    }
  }

  /** What this process published so far: the totals its snapshots carry. */
  WindowTotals totals() {
    return new WindowTotals(stored.sum(), storedSum.sum(), rejected.sum());
  }

  RedisWindowStats stats(long buffered, long scriptReloads) {
    return new RedisWindowStats(
        recorded.sum(),
        stored.sum(),
        duplicates.sum(),
        rejected.sum(),
        expired.sum(),
        trimmed.sum(),
        buffered,
        replayed.sum(),
        dropped.sum(),
        failedCalls.sum(),
        skewCorrections.sum(),
        degradedSnapshots.sum(),
        scriptReloads);
  }
}
