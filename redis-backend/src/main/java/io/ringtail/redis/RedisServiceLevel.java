package io.ringtail.redis;

import io.ringtail.BucketHistogram;
import io.ringtail.BucketRecorder;
import io.ringtail.ManualTimeSource;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.internal.Checks;
import io.ringtail.internal.CountStripes;
import io.ringtail.internal.OutcomeRecorder;
import io.ringtail.slo.EventCounts;
import io.ringtail.slo.Objective;
import io.ringtail.slo.ObjectiveStatus;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import io.ringtail.slo.ServiceLevelStatus;
import io.ringtail.slo.SloConventions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

/**
 * A fleet-wide {@link ServiceLevel}: every process that builds one of the same configuration on the
 * same Redis counts into the same service level, so each of them, restarted or not, reads the whole
 * fleet's SLI, error budget and burn rates over the period ({@link #status()}), and {@link #owns}
 * tells the one process that should act on (page for) an objective's alerts.
 *
 * <h2>Recording</h2>
 *
 * {@link #record} judges the event against every objective at once and counts it in the calling
 * thread's stripe, as the in-process service level does: a total and one bad count per objective
 * the event misses, no lock, no wait, no Redis call, no allocation. The counts of each interval
 * between bucket edges are handed, once per publish interval, to the backend's fleet publication
 * rounds.
 *
 * <h2>Fleet counts</h2>
 *
 * The windows (the period and each alert's two) are laid out on a few keyed fleet histogram windows
 * by bucket width (tiers, {@code slo:<name>:<width>}; the workbook's alerts over 30 days make four:
 * 5 s buckets for 5m and 30m, 1 min for 1h and 6h, 72 min for 3d and 12 h for the period). In each,
 * an objective is one key whose samples are exact indicators: per bucket, the total in value 0 or
 * 1, the bad events in value 1, so the count is the total and the sum the bad events, exactly. One
 * process per key and tier merges every process's deltas once for the fleet and writes the tier's
 * summary, which carries every window of the tier as a span ({@link FleetSummary.Span}). A status
 * reads those summaries, one {@code MGET} per tier, all sent at once: a few dozen bytes per
 * objective and tier, whatever the number of processes.
 *
 * <h2>Windows and staleness</h2>
 *
 * Every window is at least 60 buckets of its tier; read at a merge it holds the events of its live
 * partial bucket and of the complete ones before it, between 59/60 of its length and its length,
 * like an in-process window. The fleet view is as of each tier's last merge: an event is in it
 * about one to two publish intervals after it was recorded, and a window read up to an interval
 * after the merge ends up to an interval before the read. {@link #flush} publishes and merges this
 * process's counts at once.
 *
 * <p>Thread-safe. Rounds run until {@link #close()}; close a service level the process no longer
 * uses.
 */
public final class RedisServiceLevel implements ServiceLevel {
  private final ServiceLevelConfig config;
  private final TimeSource time;
  private final List<Objective> objectives;
  private final List<String> keys;

  /** Classifies and counts the requests; its lock guards the tiers' buckets and the arrays. */
  private final OutcomeRecorder recorder;

  private final Tier[] tiers;
  private final Map<Duration, Tier> tierOf = new HashMap<>();
  private final int[] slots;

  // guarded by lock
  private final long[] live;
  private final long[] recorded;
  private boolean closed;

  /** One tier: its fleet window, its bucket width, and the counts not handed to it yet. */
  private static final class Tier {
    final ServiceLevelTiers.Tier plan;
    final RedisKeyedHistogramWindows windows;
    final long width;

    // guarded by the service level's lock: the bucket the live interval is in, and the counts of
    // the intervals not handed to the publisher yet, oldest first, each its bucket then the total
    // and the bad counts
    long bucket;
    final ArrayDeque<long[]> pending = new ArrayDeque<>();

    Tier(ServiceLevelTiers.Tier plan, RedisKeyedHistogramWindows windows) {
      this.plan = plan;
      this.windows = windows;
      this.width = plan.width().toNanos();
    }
  }

  private RedisServiceLevel(Builder b) {
    this.config = b.config;
    this.objectives = config.objectives();
    int n = objectives.size();
    List<String> k = new ArrayList<>(n);
    for (Objective o : objectives) {
      k.add(o.name());
    }
    this.keys = List.copyOf(k);
    this.live = new long[n + 1];
    this.recorded = new long[n + 1];
    List<ServiceLevelTiers.Tier> plans = b.tiers;
    this.tiers = new Tier[plans.size()];
    for (int t = 0; t < tiers.length; t++) {
      ServiceLevelTiers.Tier plan = plans.get(t);
      RedisKeyedHistogramWindows.Builder w =
          b.backend
              .keyedHistogramWindows(
                  "slo:" + config.name() + ":" + SloConventions.windowLabel(plan.width()))
              .config(indicatorConfig(plan))
              .publishInterval(b.publishInterval)
              .maximumKeys(n)
              .summaryPercentiles(50)
              .summarySpans(plan.windows().toArray(Duration[]::new));
      if (b.timeSource != null) {
        w.timeSource(b.timeSource);
      }
      if (b.scheduler != null) {
        w.scheduler(b.scheduler);
      }
      tiers[t] = new Tier(plan, w.build());
      for (Duration d : plan.windows()) {
        tierOf.put(d, tiers[t]);
      }
    }
    this.time = tiers[0].windows.timeSource();
    this.slots = indicatorSlots(tiers[0].windows.windowConfig());
    long now = time.nanoTime();
    for (Tier t : tiers) {
      t.bucket = Math.floorDiv(now, t.width);
    }
    this.recorder =
        new OutcomeRecorder(
            Objective.latencyLimits(objectives),
            Objective.failureMask(objectives),
            time::nanoTime,
            CountStripes.GROWTH_BOUND,
            this::closeLocked,
            nextEdgeAfter());
    for (int t = 0; t < tiers.length; t++) {
      int tier = t;
      tiers[t].windows.feed((at, sink) -> drainInto(tier, at, sink));
    }
  }

  /** A tier's window: exact indicator values 0 and 1 (one significant digit is plenty). */
  private static WindowConfig indicatorConfig(ServiceLevelTiers.Tier plan) {
    return WindowConfig.builder()
        .length(plan.length())
        .buckets(plan.buckets())
        .significantDigits(1)
        .lowestDiscernibleValue(1)
        .highestTrackableValue(2)
        .stripes(1)
        .build();
  }

  /** The histogram slots of the values 0 and 1 in {@code config}, as its recorders count them. */
  private static int[] indicatorSlots(WindowConfig config) {
    BucketRecorder probe = BucketRecorder.dense(config, new ManualTimeSource(0));
    probe.record(0);
    probe.record(1);
    BucketHistogram h = probe.drain().get(0);
    return new int[] {h.slotAt(0), h.slotAt(1)};
  }

  @Override
  public void record(long latencyNanos, boolean failed) {
    recorder.recordAt(latencyNanos, failed, time.nanoTime());
  }

  @Override
  public void recordAt(long latencyNanos, boolean failed, long timeNanos) {
    recorder.recordAt(latencyNanos, failed, timeNanos);
  }

  /**
   * Closes the live interval, {@code now} being past its end, and moves every tier to now; returns
   * the next end.
   */
  private long closeLocked(long now) {
    closeIntervalLocked();
    for (Tier t : tiers) {
      t.bucket = Math.floorDiv(now, t.width);
    }
    return nextEdgeAfter();
  }

  /** Drains the stripes and hands the live interval's counts to every tier's current bucket. */
  private void closeIntervalLocked() {
    recorder.stripes().drainInto(live);
    if (live[0] != 0 && !closed) {
      for (Tier t : tiers) {
        long[] last = t.pending.peekLast();
        if (last == null || last[0] != t.bucket) {
          last = new long[live.length + 1];
          last[0] = t.bucket;
          t.pending.addLast(last);
          if (t.pending.size() > t.plan.buckets()) {
            t.pending.pollFirst(); // not collected for a whole window: no read would see it
          }
        }
        for (int i = 0; i < live.length; i++) {
          last[i + 1] += live[i];
        }
      }
    }
    for (int i = 0; i < live.length; i++) {
      recorded[i] += live[i];
      live[i] = 0;
    }
  }

  private long nextEdgeAfter() {
    long edge = Long.MAX_VALUE;
    for (Tier t : tiers) {
      edge = Math.min(edge, (t.bucket + 1) * t.width);
    }
    return edge;
  }

  /** Tier {@code tier}'s collection: its share of every interval closed since, per objective. */
  private void drainInto(int tier, long now, BiConsumer<String, BucketHistogram> sink) {
    ReentrantLock lock = recorder.lock();
    lock.lock();
    try {
      recorder.advanceLocked(now);
      closeIntervalLocked();
      Tier t = tiers[tier];
      for (long[] c = t.pending.pollFirst(); c != null; c = t.pending.pollFirst()) {
        for (int o = 0; o < keys.size(); o++) {
          sink.accept(keys.get(o), indicators(c[0], c[1], c[o + 2]));
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** A bucket of {@code total} indicator samples, {@code bad} of them 1 and the rest 0. */
  private BucketHistogram indicators(long bucket, long total, long bad) {
    long good = total - bad;
    if (good == 0) {
      return BucketHistogram.of(bucket, new int[] {slots[1]}, new long[] {bad}, bad, 1, 1, 0);
    }
    if (bad == 0) {
      return BucketHistogram.of(bucket, new int[] {slots[0]}, new long[] {good}, 0, 0, 0, 0);
    }
    return BucketHistogram.of(bucket, slots.clone(), new long[] {good, bad}, bad, 0, 1, 0);
  }

  /**
   * Where the fleet's service level stands: every objective's counts over every window, as each
   * tier's merger last summarised them (see the class comment for how fresh), with this process's
   * own events since it was built as {@link ObjectiveStatus#recorded()}. One {@code MGET} per tier,
   * all sent at once.
   *
   * @throws RedisUnavailableException if Redis cannot answer in time
   */
  @Override
  public ServiceLevelStatus status() {
    long now = time.nanoTime();
    List<CompletableFuture<Map<String, FleetSummary>>> reads = new ArrayList<>(tiers.length);
    for (Tier t : tiers) {
      reads.add(t.windows.summariesOf(keys, now));
    }
    long timeout = tiers[0].windows.timeoutNanos();
    Map<Tier, Map<String, FleetSummary>> read = new HashMap<>();
    for (int t = 0; t < tiers.length; t++) {
      read.put(tiers[t], RedisErrors.await(reads.get(t), timeout));
    }
    long[] own = new long[live.length];
    ReentrantLock lock = recorder.lock();
    lock.lock();
    try {
      recorder.advanceLocked(time.nanoTime());
      closeIntervalLocked();
      System.arraycopy(recorded, 0, own, 0, own.length);
    } finally {
      lock.unlock();
    }
    List<ObjectiveStatus> statuses = new ArrayList<>(objectives.size());
    for (int o = 0; o < objectives.size(); o++) {
      Map<Duration, EventCounts> counts = new HashMap<>();
      for (Duration w : config.windows()) {
        FleetSummary s = read.get(tierOf.get(w)).get(keys.get(o));
        FleetSummary.Span span = s == null || s.count() == 0 ? null : s.span(w);
        counts.put(
            w,
            span == null
                ? EventCounts.NONE
                : new EventCounts(span.count() - span.sum(), span.count()));
      }
      statuses.add(
          ObjectiveStatus.of(
              config, objectives.get(o), counts, new EventCounts(own[0] - own[o + 1], own[0])));
    }
    return new ServiceLevelStatus(config, now, statuses);
  }

  /**
   * Whether this process is the one of the fleet that should act on {@code objective}'s alerts
   * (page, open a ticket) and export its fleet-wide gauges: it merges the objective's counts of the
   * shortest windows (it holds that merger lease, as far as it knows). At most one process holds it
   * at a time; it moves to another process within two publish intervals of the holder's death. A
   * process takes it only after publishing counts of the objective.
   *
   * @throws IllegalArgumentException if the config has no objective of that name
   */
  public boolean owns(String objective) {
    Checks.requireNonNull("objective", objective);
    if (!keys.contains(objective)) {
      throw Checks.invalid("objective", "the name of an objective of " + config.name(), objective);
    }
    return tiers[0].windows.ownsGroup(FleetKeys.group(objective));
  }

  /**
   * Publishes every count recorded so far and merges it into the fleet's view, waiting at most
   * {@code timeout} per tier. Returns whether nothing is left pending.
   */
  public boolean flush(Duration timeout) {
    boolean flushed = true;
    for (Tier t : tiers) {
      flushed &= t.windows.flush(timeout);
    }
    return flushed;
  }

  /**
   * Stops publishing: publishes what is left (waiting at most the command timeout per tier) and
   * gives the merger leases up. Events recorded afterwards are counted in this process only.
   * Returns whether nothing is left pending.
   */
  public boolean close() {
    boolean flushed = true;
    for (Tier t : tiers) {
      flushed &= t.windows.close();
    }
    ReentrantLock lock = recorder.lock();
    lock.lock();
    try {
      closed = true;
      for (Tier t : tiers) {
        t.pending.clear();
      }
    } finally {
      lock.unlock();
    }
    return flushed;
  }

  /** The fleet windows this service level counts in, shortest buckets first (tests, reports). */
  List<RedisKeyedHistogramWindows> tierWindows() {
    List<RedisKeyedHistogramWindows> out = new ArrayList<>();
    for (Tier t : tiers) {
      out.add(t.windows);
    }
    return out;
  }

  @Override
  public ServiceLevelConfig config() {
    return config;
  }

  /** The fleet's time base: the Redis server's clock unless a time source was configured. */
  @Override
  public TimeSource timeSource() {
    return time;
  }

  /** The stripes, the counts waiting for the publisher, and the tiers' pending deltas. */
  @Override
  public long footprintBytes() {
    long bytes = 56 + recorder.footprintBytes() + 2 * (16 + 8L * live.length);
    ReentrantLock lock = recorder.lock();
    lock.lock();
    try {
      for (Tier t : tiers) {
        bytes += 64 + t.pending.size() * (16 + 8L * (live.length + 1));
      }
    } finally {
      lock.unlock();
    }
    for (Tier t : tiers) {
      bytes += t.windows.footprintBytes();
    }
    return bytes;
  }

  @Override
  public String toString() {
    return "ServiceLevel[" + config.name() + ", fleet, " + tiers.length + " tiers]";
  }

  /**
   * Configures a {@link RedisServiceLevel}; not thread-safe. Every process of a fleet must build it
   * from the same {@link ServiceLevelConfig} (a process whose windows differ counts apart).
   */
  public static final class Builder {
    private final RedisBackend backend;
    private final ServiceLevelConfig config;
    private final List<ServiceLevelTiers.Tier> tiers;
    private Duration publishInterval = Duration.ofSeconds(1);
    private TimeSource timeSource;
    private ScheduledExecutorService scheduler;

    Builder(RedisBackend backend, ServiceLevelConfig config) {
      this.backend = backend;
      this.config = Checks.requireNonNull("config", config);
      this.tiers = ServiceLevelTiers.of(config);
    }

    /**
     * How often this process sends its counts to Redis, 1 ms to 1 minute (default 1 s): about how
     * far behind the fleet view may be.
     */
    public Builder publishInterval(Duration interval) {
      this.publishInterval = Rounds.requireInterval(interval);
      return this;
    }

    /**
     * Times events and windows with this source instead of the Redis server's clock; its readings
     * must be nanoseconds on a base every process of the fleet shares.
     */
    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = Objects.requireNonNull(timeSource, "timeSource");
      return this;
    }

    /** Runs publication rounds on this scheduler instead of Lettuce's computation threads. */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** Builds the service level; its publication rounds start at once. */
    public RedisServiceLevel build() {
      return new RedisServiceLevel(this);
    }
  }
}
