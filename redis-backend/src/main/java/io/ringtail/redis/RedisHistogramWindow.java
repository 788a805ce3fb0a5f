package io.ringtail.redis;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowTotals;
import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A rolling window shared by a fleet at any sample rate: each process records into local per-bucket
 * histograms and publishes them, and Redis keeps one merged histogram per bucket. The one-key face
 * of {@link RedisKeyedHistogramWindows}, whose engine it is (same publication, merging, reads and
 * guarantees); the companion of {@link RedisRollingWindow}, which keeps raw samples (exact
 * percentiles, idempotent per event, for modest rates).
 *
 * <h2>Window</h2>
 *
 * The in-process window's definition and precision ({@link WindowConfig}): buckets by absolute
 * index {@code floor(t / bucketWidth)} of the time base, which is the Redis server's clock by
 * default, so processes with skewed clocks fill the same buckets. A snapshot at {@code now} merges
 * the fleet's buckets {@code floor(now / width) - buckets + 1 .. floor(now / width)}. Count, sum,
 * min and max are exact over the merged samples; percentiles are within the configured significant
 * digits.
 *
 * <h2>Recording, publication, merging</h2>
 *
 * {@link #record} is the in-process window's record ({@link io.ringtail.BucketRecorder}): no lock,
 * no allocation, no Redis call, no publication work. Every {@code publishInterval} a ticker on the
 * connection's Lettuce computation threads (or on the scheduler handed to {@link
 * Builder#scheduler}) publishes this process's new samples as one batch; one process of the fleet,
 * holding a lease, merges every process's batches into one histogram per bucket, and another takes
 * over within two intervals if it dies. A retried batch never counts twice. During an outage deltas
 * wait in memory, bounded by the window (and {@link Builder#maxPendingBuckets}); what cannot wait
 * is counted in {@link #stats()}. A process that dies loses what it had not sent: at most a bucket
 * plus a publish interval of its samples (the ticker holds the live bucket back until it closes),
 * or an interval where the interval is shorter than a bucket.
 *
 * <h2>Reading</h2>
 *
 * {@link #snapshot()} reads the merged buckets that changed since this process last read them:
 * Redis work per read does not grow with the number of processes. The view is as of the last merge
 * (see {@link RedisHistogramSnapshot#stalenessNanos()}); {@link #flush} merges what it publishes.
 *
 * <p>Thread-safe: any number of threads may record and take snapshots. Starts no thread: its ticker
 * runs on Lettuce's threads or the given scheduler until {@link #close()} (or the client's
 * shutdown) stops it, so close a window the process no longer uses.
 */
public final class RedisHistogramWindow implements RollingWindow {
  /** The one key of the engine's keyed window (no public key can be empty). */
  private static final String KEY = "";

  private final String name;
  private final WindowConfig config;
  private final RedisKeyedHistogramWindows engine;
  private final RollingWindow window;

  private RedisHistogramWindow(
      String name, WindowConfig config, RedisKeyedHistogramWindows engine) {
    this.name = name;
    this.config = config;
    this.engine = engine;
    this.window = engine.unchecked(KEY);
  }

  /** The name the window was built with. */
  public String name() {
    return name;
  }

  /** The window's definition and precision. */
  public WindowConfig config() {
    return config;
  }

  @Override
  public void record(long value) {
    window.record(value);
  }

  @Override
  public void recordAt(long value, long timeNanos) {
    window.recordAt(value, timeNanos);
  }

  /**
   * Publishes everything recorded so far and merges it into the fleet's view, waiting at most
   * {@code timeout} until Redis has answered for it (retrying every 20 ms while Redis or the
   * breaker refuses). Returns whether nothing is left pending.
   */
  public boolean flush(Duration timeout) {
    return engine.flush(timeout);
  }

  /** The publication round running now, or the last one. */
  CompletableFuture<Void> lastRound() {
    return engine.lastRound();
  }

  /** Runs a ticker's round of this window now, due or not (tests). */
  CompletableFuture<Void> tick() {
    return engine.tick();
  }

  /**
   * The fleet's window now, as of the last merge: publishes this process's samples (waiting at most
   * the command timeout), merges them if this process holds the merger lease, then reads the merged
   * buckets that changed since this process last read them.
   *
   * @throws RedisUnavailableException if Redis cannot answer the reads in time
   */
  @Override
  public RedisHistogramSnapshot snapshot() {
    return engine.read(KEY);
  }

  /**
   * The window's numbers as the merger last summarised them (see {@link FleetSummary}): one read of
   * a few dozen bytes, neither publishing nor merging, for a gauge or a tile that needs no
   * distribution.
   *
   * @throws RedisUnavailableException if Redis cannot answer the read in time
   */
  public FleetSummary summary() {
    return engine.summaryUnchecked(KEY);
  }

  /**
   * Whether this process merges (and summarises) the window now: it holds the merger lease, as far
   * as it knows. The one process of the fleet that should act once for the fleet on this window
   * (export its statistics, evaluate its alerts).
   */
  public boolean owns() {
    return engine.ownsUnchecked(KEY);
  }

  /**
   * The summary this process wrote last as the window's merger: no Redis call. Empty unless it
   * {@linkplain #owns owns} the window and has merged since it took the lease.
   */
  public Optional<FleetSummary> ownedSummary() {
    return Optional.ofNullable(engine.ownedSummaries().get(KEY));
  }

  /**
   * What this process recorded into the window since it was built (drained by its rounds, so at
   * most half a publish interval behind its records): the per-process counters a monitoring system
   * sums over the fleet. No Redis call.
   */
  public WindowTotals totals() {
    WindowTotals t = engine.totals().get(KEY);
    return t != null ? t : new WindowTotals(0, 0, 0);
  }

  /**
   * Stops the ticker and publishes what is left, waiting at most the command timeout. Returns
   * whether nothing is left pending.
   */
  public boolean close() {
    return engine.close();
  }

  @Override
  public Duration length() {
    return config.length();
  }

  /** The window's time base: the Redis server's clock unless a time source was configured. */
  @Override
  public TimeSource timeSource() {
    return engine.timeSource();
  }

  /** Heap held in this process: the recorder's arrays and the deltas waiting for Redis. */
  @Override
  public long footprintBytes() {
    return 256 + engine.footprintBytes();
  }

  /** What happened to this process's samples so far; see {@link RedisHistogramWindowStats}. */
  public RedisHistogramWindowStats stats() {
    return engine.stats();
  }

  @Override
  public String toString() {
    return "RedisHistogramWindow["
        + name
        + ", "
        + config.length()
        + " in "
        + config.buckets()
        + " buckets, "
        + config.significantDigits()
        + " digits]";
  }

  /**
   * Configures a {@link RedisHistogramWindow}; not thread-safe. {@link #build()} may be called
   * again; every process of a fleet must build a window of one name with the same bucket width,
   * significant digits and lowest discernible value (windows that differ in them keep apart).
   */
  public static final class Builder {
    private final RedisBackend backend;
    private final String name;
    private WindowConfig config = WindowConfig.defaults();
    private Duration publishInterval = Duration.ofSeconds(1);
    private int maxPendingBuckets = -1;
    private TimeSource timeSource;
    private ScheduledExecutorService scheduler;
    private double[] summaryPercentiles = RedisKeyedHistogramWindows.DEFAULT_SUMMARY_PERCENTILES;

    Builder(RedisBackend backend, String name) {
      this.backend = backend;
      this.name = Checks.requireLength("name", name, 1024);
    }

    /**
     * Length, buckets, precision and value range (default {@link WindowConfig#defaults()}: 60 s in
     * 60 buckets, 2 significant digits). Its stripes apply to this process's recorder only.
     */
    public Builder config(WindowConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /**
     * How often this process sends its samples to Redis: 1 ms to 1 minute (default 1 s). With an
     * interval of at least a bucket, a sample waits until its bucket has closed and the next round
     * (at most a bucket plus an interval, what a process that dies loses); with a shorter one, at
     * most an interval, for up to {@code bucket / interval} deltas per key and bucket.
     */
    public Builder publishInterval(Duration interval) {
      this.publishInterval = Rounds.requireInterval(interval);
      return this;
    }

    /**
     * Buckets whose samples may wait in memory for Redis (default: the window's bucket count, so an
     * outage loses nothing the window still covers). Beyond it the oldest is dropped and counted.
     */
    public Builder maxPendingBuckets(int maxPendingBuckets) {
      Checks.requireBetween("maxPendingBuckets", maxPendingBuckets, 1, WindowConfig.MAX_BUCKETS);
      this.maxPendingBuckets = maxPendingBuckets;
      return this;
    }

    /**
     * Times samples and snapshots with this source instead of the Redis server's clock; its
     * readings must be nanoseconds on a base every process of the window shares.
     */
    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = Objects.requireNonNull(timeSource, "timeSource");
      return this;
    }

    /**
     * Starts publication rounds on this scheduler instead of the connection's Lettuce computation
     * threads. The window only submits to it.
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * The percentiles that {@link RedisHistogramWindow#summary()} carries at the window's precision
     * (default 50, 90, 95, 99 and 99.9); see {@link
     * RedisKeyedHistogramWindows.Builder#summaryPercentiles}.
     */
    public Builder summaryPercentiles(double... percentiles) {
      this.summaryPercentiles =
          RedisKeyedHistogramWindows.Builder.checkedSummaryPercentiles(percentiles);
      return this;
    }

    public RedisHistogramWindow build() {
      RedisKeyedHistogramWindows.Builder keyed =
          backend
              .keyedHistogramWindows(name)
              .config(config)
              .publishInterval(publishInterval)
              .maximumKeys(1)
              .summaryPercentiles(summaryPercentiles)
              .maxPendingDeltas(maxPendingBuckets < 0 ? config.buckets() : maxPendingBuckets);
      if (timeSource != null) {
        keyed.timeSource(timeSource);
      }
      if (scheduler != null) {
        keyed.scheduler(scheduler);
      }
      return new RedisHistogramWindow(name, config, keyed.build());
    }
  }
}
