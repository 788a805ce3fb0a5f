package io.ringtail.redis;

import io.lettuce.core.protocol.CommandType;
import io.ringtail.BucketHistogram;
import io.ringtail.BucketRecorder;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A rolling window shared by a fleet at any sample rate: each process records into local per-bucket
 * histograms and publishes them, and Redis keeps one merged histogram per bucket. The companion of
 * {@link RedisRollingWindow}, which keeps raw samples (exact percentiles, idempotent per event, for
 * modest rates).
 *
 * <h2>Window</h2>
 *
 * The in-process window's definition and precision ({@link WindowConfig}): buckets by absolute
 * index {@code floor(t / bucketWidth)} of the time base, which is the Redis server's clock by
 * default, so processes with skewed clocks fill the same buckets. A snapshot at {@code now} merges
 * the fleet's buckets {@code floor(now / width) - buckets + 1 .. floor(now / width)}. Count, sum,
 * min and max are exact over the published samples; percentiles are within the configured
 * significant digits.
 *
 * <h2>Recording and publication</h2>
 *
 * {@link #record} is the in-process window's record ({@link BucketRecorder}): no lock, no
 * allocation, no Redis call, no publication work. Every {@code publishInterval} a ticker on the
 * connection's Lettuce computation threads (or on the scheduler handed to {@link
 * Builder#scheduler}) starts a publication round: each bucket's new samples go to Redis as a sparse
 * delta (slots with counts, plus exact count, sum, min, max), one script call per bucket. {@link
 * #snapshot()} and {@link #flush} publish first. A delta carries a per-bucket sequence number and
 * the script adds it at most once, so a retry after a timeout or outage never counts twice (see
 * {@link HistogramPublisher}). During an outage deltas wait in memory, bounded by the window (and
 * {@link Builder#maxPendingBuckets}); what cannot wait is counted in {@link #stats()}. A process
 * that dies loses only what it recorded since its last publication: at most {@code publishInterval}
 * of its samples.
 *
 * <h2>Redis</h2>
 *
 * A bucket is two keys under one of 16 hash tags (by bucket index), so buckets spread over a
 * cluster's masters; its slots rest as a compact binary array. Every key expires one second after
 * the buckets it holds leave the window. Memory is bounded by buckets times distinct slots,
 * whatever the rate. A snapshot reads every bucket with one {@code MGET} (on a cluster, one per
 * hash tag, all sent at once: one round trip per master) and merges them here.
 *
 * <p>Thread-safe: any number of threads may record and take snapshots. Starts no thread: its ticker
 * runs on Lettuce's threads or the given scheduler until {@link #close()} (or the client's
 * shutdown) stops it, so close a window the process no longer uses.
 */
public final class RedisHistogramWindow implements RollingWindow {
  private final String name;
  private final WindowConfig config;
  private final ScriptRunner runner;
  private final boolean cluster;
  private final TimeSource time;

  /** The monotonic clock for flush and close deadlines. */
  private final TimeSource localClock = TimeSource.system();

  private final BucketRecorder recorder;
  private final HistogramKeys keys;
  private final HistogramPublisher publisher;
  private final long publishIntervalNanos;
  private final long widthNanos;
  private final AutoCloseable ticker;

  private RedisHistogramWindow(Builder b) {
    this.name = b.name;
    this.config = b.config;
    this.runner = b.backend.runner;
    this.cluster = b.backend.cluster;
    ServerTimeBase serverTime = b.timeSource == null ? new ServerTimeBase(runner) : null;
    this.time = b.timeSource != null ? b.timeSource : serverTime;
    this.recorder = BucketRecorder.create(config, time);
    this.widthNanos = config.bucketWidth().toNanos();
    this.keys =
        new HistogramKeys(
            b.backend.keyPrefix,
            name,
            widthNanos,
            config.significantDigits(),
            config.lowestDiscernibleValue());
    String publisherId = RandomIds.base36(8);
    this.publisher =
        new HistogramPublisher(
            runner, recorder, keys, publisherId, time, serverTime, b.maxPendingBuckets);
    this.publishIntervalNanos = b.publishInterval.toNanos();
    // halfway between ticks the recorder drains into memory: a drain comes between two rotations
    // even when a tick comes late
    this.ticker =
        Ticker.startWithMidpoint(
            runner, b.scheduler, publishIntervalNanos, this::publishQuietly, publisher::collect);
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
    recordAt(value, time.nanoTime());
  }

  @Override
  public void recordAt(long value, long timeNanos) {
    recorder.recordAt(value, timeNanos);
  }

  private void publishQuietly() {
    try {
      if (publisher.tryStartRound() == null) {
        publisher.collect(); // a round still waits for Redis: drain into memory meanwhile
      }
    } catch (RuntimeException e) {
      publisher.failedCalls.increment();
    }
  }

  /**
   * Publishes everything recorded so far and waits, at most {@code timeout}, until Redis has
   * answered for it (retrying every 20 ms while Redis or the breaker refuses). Returns whether
   * nothing is left pending.
   */
  public boolean flush(Duration timeout) {
    return Rounds.flush(this::publishAll, publisher::pendingBuckets, timeout, localClock);
  }

  /** Runs a round that starts after this call and waits for it, until the deadline. */
  private void publishAll(long deadline) {
    Rounds.runOne(publisher::tryStartRound, publisher::running, deadline, localClock);
  }

  /** The publication round running now, or the last one. */
  CompletableFuture<Void> lastRound() {
    return publisher.running();
  }

  /**
   * The fleet's window now: publishes this process's samples (waiting at most the command timeout),
   * then reads and merges every bucket of the window.
   *
   * @throws RedisUnavailableException if Redis cannot answer the reads in time
   */
  @Override
  public RedisHistogramSnapshot snapshot() {
    publishAll(localClock.nanoTime() + runner.timeoutNanos());
    long now = time.nanoTime();
    long live = Math.floorDiv(now, widthNanos);
    long first = live - config.buckets() + 1;
    List<long[]> calls = new ArrayList<>();
    if (cluster) {
      int groups = (int) Math.min(HistogramKeys.GROUPS, live - first + 1);
      for (int i = 0; i < groups; i++) {
        calls.add(bucketsOf(first + i, live, HistogramKeys.GROUPS));
      }
    } else {
      calls.add(bucketsOf(first, live, 1));
    }
    List<CompletableFuture<List<Object>>> replies = new ArrayList<>(calls.size());
    for (long[] buckets : calls) {
      replies.add(read(buckets));
    }
    HistogramSlots.Merge merge = new HistogramSlots.Merge();
    Map<String, Long> latest = new HashMap<>();
    for (int i = 0; i < calls.size(); i++) {
      parse(
          calls.get(i),
          RedisErrors.await(replies.get(i), runner.timeoutNanos()),
          first,
          live,
          merge,
          latest);
    }
    long oldest = now;
    for (long asOf : latest.values()) {
      oldest = Math.min(oldest, asOf);
    }
    return new RedisHistogramSnapshot(
        BucketHistogram.snapshot(config, List.of(merge.result(live)), first * widthNanos, now),
        latest.size(),
        oldest);
  }

  /** Every {@code step}-th bucket from {@code from} to {@code to}. */
  private static long[] bucketsOf(long from, long to, int step) {
    long[] buckets = new long[(int) ((to - from) / step + 1)];
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = from + (long) i * step;
    }
    return buckets;
  }

  /** One MGET: the buckets' counts keys, then the freshness keys of their groups. */
  private CompletableFuture<List<Object>> read(long[] buckets) {
    boolean[] seen = new boolean[HistogramKeys.GROUPS];
    List<String> k = new ArrayList<>(buckets.length + HistogramKeys.GROUPS);
    for (long b : buckets) {
      k.add(keys.bucket(b)[0]);
      seen[HistogramKeys.group(b)] = true;
    }
    for (int g = 0; g < seen.length; g++) {
      if (seen[g]) {
        k.add(keys.freshness(g));
      }
    }
    return runner.call(RedisCall.command(CommandType.MGET, k.toArray(String[]::new)));
  }

  /** Reads one reply of {@link #read}. */
  private static void parse(
      long[] buckets,
      List<Object> reply,
      long first,
      long live,
      HistogramSlots.Merge merge,
      Map<String, Long> latest) {
    for (int i = 0; i < buckets.length; i++) {
      merge.add(buckets[i], (byte[]) reply.get(i));
    }
    for (int j = buckets.length; j < reply.size(); j++) {
      HistogramSlots.decodeFreshness((byte[]) reply.get(j), first, live, latest);
    }
  }

  /**
   * Stops the scheduled publication and publishes what is left, waiting at most the command
   * timeout. Returns whether nothing is left pending.
   */
  public boolean close() {
    try {
      ticker.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return flush(Duration.ofNanos(runner.timeoutNanos()));
  }

  @Override
  public Duration length() {
    return config.length();
  }

  /** The window's time base: the Redis server's clock unless a time source was configured. */
  @Override
  public TimeSource timeSource() {
    return time;
  }

  /** Heap held in this process: the recorder's arrays and the deltas waiting for Redis. */
  @Override
  public long footprintBytes() {
    return 256 + recorder.footprintBytes() + publisher.pendingBytes();
  }

  /** What happened to this process's samples so far; see {@link RedisHistogramWindowStats}. */
  public RedisHistogramWindowStats stats() {
    return new RedisHistogramWindowStats(
        publisher.published.sum(),
        publisher.publishCalls.sum(),
        publisher.retriedDuplicates.sum(),
        publisher.failedCalls.sum(),
        publisher.pendingSamples(),
        publisher.pendingBuckets(),
        publisher.expired.sum(),
        publisher.dropped.sum(),
        runner.scriptReloads.sum());
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
     * Longest a recorded sample waits before it is sent to Redis: 1 ms to 1 minute (default 1 s).
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
      if (maxPendingBuckets < 1 || maxPendingBuckets > WindowConfig.MAX_BUCKETS) {
        throw new IllegalArgumentException(
            "maxPendingBuckets must be between 1 and "
                + WindowConfig.MAX_BUCKETS
                + ", but was "
                + maxPendingBuckets);
      }
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

    public RedisHistogramWindow build() {
      Builder copy = new Builder(backend, name);
      copy.config = config;
      copy.publishInterval = publishInterval;
      copy.maxPendingBuckets = maxPendingBuckets < 0 ? config.buckets() : maxPendingBuckets;
      copy.timeSource = timeSource;
      copy.scheduler = scheduler;
      return new RedisHistogramWindow(copy);
    }
  }
}
