package io.ringtail.slo;

import io.ringtail.TimeSource;
import io.ringtail.internal.CountStripes;
import io.ringtail.internal.OutcomeRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The in-process {@link ServiceLevel}.
 *
 * <h2>Representation</h2>
 *
 * <ul>
 *   <li><b>Stripes</b> ({@link CountStripes}): a record adds one to a total and one to the bad
 *       count of each objective the event misses, in its thread's stripe.
 *   <li><b>Rings</b> ({@link CountRing}): one per distinct window of the config (the period and
 *       each alert's two windows), of {@value #BUCKETS} buckets of {@code window / 60} (rounded
 *       down to the nanosecond), each holding a total and one bad count per objective.
 *   <li><b>Live interval</b>: the stripes count from the latest edge of any ring's bucket to the
 *       next (the {@link OutcomeRecorder}'s edge); no ring's edge falls inside it, so what it holds
 *       belongs to exactly one bucket of every ring. When time passes the next edge, a rotation
 *       drains the stripes, adds their counts to each ring's newest bucket, and moves every ring to
 *       the bucket holding the new time, clearing the buckets it passes (at most 60 per ring
 *       however long the gap).
 *   <li><b>Recorded</b>: the counts of every interval rotated out, for the monotonic counters.
 * </ul>
 *
 * A window's counts at time {@code now} are then its ring's {@value #BUCKETS} buckets (the newest
 * holding what was rotated into it so far) plus the live interval: every event timed in {@code
 * [(floor(now / w) - 59) * w, now]}, {@code w} the ring's bucket width, exactly like a rolling
 * window's live partial bucket plus its complete ones.
 *
 * <h2>Concurrency</h2>
 *
 * The record and drain protocol is {@link CountStripes}'s. Rotation is lazy, on the first record or
 * status past the next edge; a recording thread only tries the lock, and records without waiting if
 * another thread holds it (its event joins the interval that thread is filling). A record timed
 * before the live interval (a late writer) counts in it; a record timed after the time source's
 * reading rotates only as far as that reading. Status reads take the lock.
 */
final class InProcessServiceLevel implements ServiceLevel {
  /** Buckets per window. */
  static final int BUCKETS = 60;

  private final ServiceLevelConfig config;
  private final TimeSource time;
  private final List<Objective> objectives;
  private final List<Duration> windows;

  /** Classifies and counts the requests; its lock guards the rings and the arrays below. */
  private final OutcomeRecorder recorder;

  // guarded by the recorder's lock
  private final CountRing[] rings;

  /** Drained from the stripes since the last rotation: the total, then the bad counts. */
  private final long[] live;

  /** Everything rotated out since creation. */
  private final long[] recorded;

  InProcessServiceLevel(ServiceLevelConfig config, TimeSource time) {
    this(config, time, CountStripes.GROWTH_BOUND);
  }

  /** A service level whose stripes may grow to {@code growthBound}. */
  InProcessServiceLevel(ServiceLevelConfig config, TimeSource time, int growthBound) {
    this.config = config;
    this.time = time;
    this.objectives = config.objectives();
    this.windows = config.windows();
    int n = objectives.size();
    this.live = new long[n + 1];
    this.recorded = new long[n + 1];
    long now = time.nanoTime();
    this.rings = new CountRing[windows.size()];
    for (int r = 0; r < rings.length; r++) {
      rings[r] = new CountRing(windows.get(r).toNanos(), BUCKETS, n + 1, now);
    }
    this.recorder =
        new OutcomeRecorder(
            Objective.latencyLimits(objectives),
            Objective.failureMask(objectives),
            time::nanoTime,
            growthBound,
            this::rotate,
            nextEdgeAfter(now));
  }

  @Override
  public void record(long latencyNanos, boolean failed) {
    recorder.recordAt(latencyNanos, failed, time.nanoTime());
  }

  @Override
  public void recordAt(long latencyNanos, boolean failed, long timeNanos) {
    recorder.recordAt(latencyNanos, failed, timeNanos);
  }

  /** Rotates the live interval out, {@code now} being past its end; returns the next end. */
  private long rotate(long now) {
    recorder.stripes().drainInto(live);
    for (CountRing ring : rings) {
      ring.add(live);
      ring.roll(Math.floorDiv(now, ring.width));
    }
    for (int i = 0; i < live.length; i++) {
      recorded[i] += live[i];
      live[i] = 0;
    }
    return nextEdgeAfter(now);
  }

  /** The earliest end of a ring's newest bucket: the rings are at {@code now}'s buckets. */
  private long nextEdgeAfter(long now) {
    long ahead = Long.MAX_VALUE;
    for (CountRing ring : rings) {
      ahead = Math.min(ahead, ring.edgeAfterNewest() - now);
    }
    return now + ahead;
  }

  @Override
  public ServiceLevelStatus status() {
    int width = live.length;
    long[][] sums = new long[rings.length][width];
    long[] total = new long[width];
    long now;
    ReentrantLock lock = recorder.lock();
    lock.lock();
    try {
      now = time.nanoTime();
      recorder.advanceLocked(now);
      recorder.stripes().drainInto(live);
      for (int r = 0; r < rings.length; r++) {
        rings[r].sumInto(sums[r]);
        for (int i = 0; i < width; i++) {
          sums[r][i] += live[i];
        }
      }
      for (int i = 0; i < width; i++) {
        total[i] = recorded[i] + live[i];
      }
    } finally {
      lock.unlock();
    }
    List<ObjectiveStatus> statuses = new ArrayList<>(objectives.size());
    for (int o = 0; o < objectives.size(); o++) {
      Map<Duration, EventCounts> counts = new HashMap<>();
      for (int r = 0; r < rings.length; r++) {
        counts.put(windows.get(r), counts(sums[r], o));
      }
      statuses.add(ObjectiveStatus.of(config, objectives.get(o), counts, counts(total, o)));
    }
    return new ServiceLevelStatus(config, now, statuses);
  }

  private static EventCounts counts(long[] c, int objective) {
    return new EventCounts(c[0] - c[objective + 1], c[0]);
  }

  /** Stripes in use now. */
  int stripeCount() {
    return recorder.stripes().stripeCount();
  }

  /** Doubles the stripes, up to the bound, as sustained collisions would. */
  void growStripes() {
    recorder.lock().lock();
    try {
      recorder.stripes().grow();
    } finally {
      recorder.lock().unlock();
    }
  }

  @Override
  public ServiceLevelConfig config() {
    return config;
  }

  @Override
  public TimeSource timeSource() {
    return time;
  }

  /**
   * The object, its lock and small arrays, the stripes and the rings: with the workbook's alerts
   * and one objective, about 6.9 KB (6 windows of 60 buckets of two counts).
   */
  @Override
  public long footprintBytes() {
    recorder.lock().lock();
    try {
      long bytes = 40 + 2 * (16 + 8L * live.length);
      bytes += 16 + 4L * rings.length;
      for (CountRing ring : rings) {
        bytes += ring.footprintBytes();
      }
      return bytes + recorder.footprintBytes();
    } finally {
      recorder.lock().unlock();
    }
  }

  @Override
  public String toString() {
    return "ServiceLevel[" + config.name() + ", in-process]";
  }
}
