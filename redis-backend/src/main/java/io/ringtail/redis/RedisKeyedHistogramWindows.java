package io.ringtail.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.ringtail.BucketRecorder;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.WindowTotals;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A fleet-wide histogram window per key (per route, tenant, client), from one builder: the keyed
 * form of {@link RedisHistogramWindow}, readable as {@link KeyedWindows}. Every process that builds
 * windows of the same name on the same Redis shares them, key by key: a snapshot of {@code "GET
 * /checkout"} merges what every process recorded for that key.
 *
 * <h2>Recording</h2>
 *
 * {@link #record(String, long)} is one hash lookup and the in-process window's record ({@link
 * BucketRecorder}: no lock, no allocation, no Redis call, no publication work). Keys held in this
 * process are bounded by {@link Builder#maximumKeys} and dropped once idle for a window, like
 * {@link KeyedWindows}; what a dropped key still held is published before it is forgotten.
 *
 * <h2>Publication and merging</h2>
 *
 * Once per {@code publishInterval} a round publishes every key's new samples of this and every
 * other fleet histogram window of the backend, back to back on the connection (see {@link
 * FleetPublisher}); rounds run on Lettuce's computation threads or on the scheduler given to {@link
 * Builder#scheduler}, never on a recording thread. A window's keys fall into 16 groups (hash tags);
 * per group a round sends one batch, one {@code HSET} of a field named by this process and a
 * sequence number into the group's inbox. One process per group, holding a lease, merges the
 * group's inbox into one histogram per key and bucket for the whole fleet, and any other takes over
 * within two intervals of its death ({@link FleetMerger}): the fleet merges each delta once,
 * however many processes read. A retried batch has the same field and bytes, and the merge takes a
 * process's sequence numbers at most once, so it never counts twice. During an outage deltas wait
 * in memory (at most {@link Builder#maxPendingDeltas}); what cannot wait is counted in {@link
 * #stats()}.
 *
 * <h2>Snapshots</h2>
 *
 * {@link #snapshot(String)} publishes this process's samples (and merges the key's group if this
 * process holds its lease), then reads the group's head and the key's merged buckets whose version
 * changed since this process last read them: Redis work per read grows with the keys and the
 * buckets changed, not with the number of processes. The view is as fresh as the group's last
 * merge, at most about one publish interval behind ({@link
 * RedisHistogramSnapshot#stalenessNanos()}); {@link #flush} merges what it publishes, for a read
 * that must see this process's latest samples. {@link #snapshots()} covers every key the fleet
 * published in the window.
 *
 * <p>Thread-safe: any thread may record for any key while others take snapshots. The rounds run
 * until {@link #close()} (or the client's shutdown), so close windows the process no longer uses.
 */
public final class RedisKeyedHistogramWindows implements KeyedWindows {
  private final String name;
  private final WindowConfig config;
  private final ScriptRunner runner;
  private final TimeSource time;
  private final TimeSource localClock = TimeSource.system();
  private final FleetKeys keys;
  private final FleetPublisher publisher;
  private final FleetReader reader;
  private final FleetMerger merger;
  private final FleetLeases leases;
  private final MergedGroups merged;
  private final FleetCodec.Summary emptySummary;
  private final long widthNanos;
  private final int buckets;
  private final long maximumKeys;
  private final Cache<String, BucketRecorder> recorders;
  private final Function<String, BucketRecorder> factory;
  private final KeyedDeltaPublisher source;
  private final List<Consumer<String>> keyListeners = new CopyOnWriteArrayList<>();
  private final AutoCloseable registration;

  private RedisKeyedHistogramWindows(Builder b) {
    this.name = b.name;
    this.config = b.config;
    this.runner = b.backend.runner;
    this.publisher = b.backend.fleetPublisher();
    RedisServerClock serverTime = b.timeSource == null ? publisher.serverTime() : null;
    this.time = b.timeSource != null ? b.timeSource : serverTime::estimateNanos;
    this.widthNanos = config.bucketWidth().toNanos();
    this.buckets = config.buckets();
    this.keys =
        new FleetKeys(
            b.backend.keyPrefix,
            name,
            widthNanos,
            config.significantDigits(),
            config.lowestDiscernibleValue());
    String publisherId = RandomIds.base36(8);
    this.maximumKeys = b.maximumKeys;
    this.reader = new FleetReader(runner, keys, config, b.backend.cluster, maximumKeys);
    // Redis counts a TTL on its own clock: past a time base it cannot vouch for, keep a window more
    long graceMillis =
        serverTime != null ? 1_000 : Math.max(1_000, widthNanos * buckets / 1_000_000L);
    this.leases = new FleetLeases(runner, keys, publisherId, b.publishInterval.toNanos());
    this.merged = new MergedGroups(config, b.summaryPercentiles, b.summarySpans);
    this.emptySummary =
        new FleetCodec.Summary(0, 0, 0, b.summaryPercentiles, b.summarySpans, Map.of());
    this.merger = new FleetMerger(runner, keys, time, config, leases, merged, graceMillis);
    TimeSource recorderTime = time;
    WindowConfig recorderConfig = config;
    this.factory = key -> BucketRecorder.create(recorderConfig, recorderTime);
    this.recorders =
        Caffeine.newBuilder()
            // no expireAfterAccess: it would read a clock on every record; the rounds drop keys
            // idle for a window (KeyedDeltaPublisher)
            .maximumSize(b.maximumKeys)
            .executor(Runnable::run)
            .removalListener(
                (String key, BucketRecorder recorder, RemovalCause cause) -> {
                  if (key != null && recorder != null) {
                    retire(key, recorder);
                  }
                })
            .build();
    this.source =
        new KeyedDeltaPublisher(
            runner,
            keys,
            merger,
            leases,
            time,
            config,
            recorders,
            publisherId,
            b.publishInterval.toNanos(),
            b.maxPendingDeltas,
            graceMillis);
    this.registration = publisher.register(source, b.scheduler);
  }

  /** The name the windows were built with. */
  public String name() {
    return name;
  }

  @Override
  public void record(String key, long value) {
    recordAt(key, value, time.nanoTime());
  }

  @Override
  public void recordAt(String key, long value, long timeNanos) {
    Checks.requireNonEmpty("key", key);
    recordUnchecked(key, value, timeNanos);
  }

  /** {@link #recordAt(String, long, long)} without the argument check (the single window's key). */
  void recordUnchecked(String key, long value, long timeNanos) {
    BucketRecorder recorder = recorders.getIfPresent(key);
    if (recorder != null) {
      recorder.recordAt(value, timeNanos);
      return;
    }
    recorders.get(key, factory).recordAt(value, timeNanos);
    for (Consumer<String> listener : keyListeners) {
      try {
        listener.accept(key);
      } catch (RuntimeException e) {
        System.getLogger(KeyedWindows.class.getName())
            .log(System.Logger.Level.WARNING, "key listener threw on new key " + key, e);
      }
    }
  }

  /** Tells {@code listener} of each key this process starts to hold (see {@link KeyedWindows}). */
  @Override
  public boolean addKeyListener(Consumer<String> listener) {
    keyListeners.add(Checks.requireNonNull("listener", listener));
    return true;
  }

  /**
   * The window of one key as a {@link RollingWindow}: records into and reads that key. Its snapshot
   * publishes first, as {@link #snapshot(String)} does; its footprint is the key's in-process
   * share. What core's window contract checks, per key.
   */
  @Override
  public RollingWindow window(String key) {
    Checks.requireNonEmpty("key", key);
    return new KeyWindow(this, key);
  }

  /** {@link #window(String)} without the argument check: the single window's empty key. */
  RollingWindow unchecked(String key) {
    return new KeyWindow(this, key);
  }

  /**
   * The fleet's window of {@code key} now, as of its group's last merge: publishes this process's
   * samples (waiting at most the command timeout), merges the group if this process holds its
   * lease, then reads the merged buckets that changed since this process last read them. Empty if
   * no process recorded it.
   *
   * @throws RedisUnavailableException if Redis cannot answer the reads in time
   */
  @Override
  public RedisHistogramSnapshot snapshot(String key) {
    Checks.requireNonEmpty("key", key);
    return read(key);
  }

  /** {@link #snapshot(String)} without the argument check (the single window's empty key). */
  RedisHistogramSnapshot read(String key) {
    publishAll(localClock.nanoTime() + runner.timeoutNanos(), FleetPublisher.Round.READ);
    long now = time.nanoTime();
    RedisHistogramSnapshot s =
        RedisErrors.await(reader.read(List.of(key), now, 1), runner.timeoutNanos()).get(key);
    return s.withTotals(source.totals(key));
  }

  /**
   * A snapshot of every key any process published in the window, as of each group's last merge (at
   * most {@code maximumKeys} of them, the most recently published first). Only reads: it neither
   * publishes nor merges, so a scrape of every key costs Redis O(keys + buckets changed) and waits
   * for no round ({@link #flush} first to include this process's latest samples).
   *
   * @throws RedisUnavailableException if Redis cannot answer the reads in time
   */
  @Override
  public Map<String, WindowSnapshot> snapshots() {
    long now = time.nanoTime();
    Map<String, RedisHistogramSnapshot> read =
        RedisErrors.await(reader.read(null, now, maximumKeys), runner.timeoutNanos());
    Map<String, WindowSnapshot> out = new LinkedHashMap<>();
    read.forEach((key, s) -> out.put(key, s.withTotals(source.totals(key))));
    return Collections.unmodifiableMap(out);
  }

  /**
   * The numbers of every key any process published in the window, as its group's merger last
   * summarised them (at most {@code maximumKeys} keys, the most recently published first): exact
   * count, sum, min and max, the {@linkplain Builder#summaryPercentiles summary percentiles} and
   * {@linkplain Builder#summarySpans spans}. One read of a few dozen bytes per key (one {@code
   * MGET} of the 16 groups' summaries; on a cluster one per group, all at once), whatever the
   * number of processes or buckets: what gauges, dashboards and alerts should read. A summary is as
   * fresh as the group's last merge round, about one publish interval behind a {@link #snapshots()}
   * ({@link FleetSummary#stalenessNanos()}); it neither publishes nor merges.
   *
   * @throws RedisUnavailableException if Redis cannot answer the read in time
   */
  public Map<String, FleetSummary> summaries() {
    long now = time.nanoTime();
    Map<String, FleetSummary> read =
        RedisErrors.await(
            reader.summaries(null, now, maximumKeys, emptySummary), runner.timeoutNanos());
    Map<String, FleetSummary> out = new LinkedHashMap<>();
    read.forEach((key, s) -> out.put(key, s.withTotals(source.totals(key))));
    return Collections.unmodifiableMap(out);
  }

  /** {@link #summaries()} of {@code wanted} keys only (each, empty if none), not awaited. */
  CompletableFuture<Map<String, FleetSummary>> summariesOf(List<String> wanted, long now) {
    return reader.summaries(wanted, now, wanted.size(), emptySummary);
  }

  /** The command timeout its reads wait at most. */
  long timeoutNanos() {
    return runner.timeoutNanos();
  }

  /** Publishes {@code feed}'s deltas with this window's, at every collection. */
  void feed(KeyedDeltaPublisher.Feed feed) {
    source.feed(feed);
  }

  /** Whether this process holds the merger lease of group {@code group}, as far as it knows. */
  boolean ownsGroup(int group) {
    return leases.holds(group);
  }

  /**
   * The numbers of {@code key} as its group's merger last summarised them (see {@link
   * #summaries()}); empty if the summary lists no sample of it in the window. Only reads.
   *
   * @throws RedisUnavailableException if Redis cannot answer the read in time
   */
  public FleetSummary summary(String key) {
    Checks.requireNonEmpty("key", key);
    return summaryUnchecked(key);
  }

  /** {@link #summary(String)} without the argument check (the single window's empty key). */
  FleetSummary summaryUnchecked(String key) {
    long now = time.nanoTime();
    FleetSummary s =
        RedisErrors.await(
                reader.summaries(List.of(key), now, 1, emptySummary), runner.timeoutNanos())
            .get(key);
    return s.withTotals(source.totals(key));
  }

  /**
   * Whether this process merges (and summarises) {@code key}'s group now: it holds the group's
   * merger lease, as far as it knows. The one process of the fleet that should act once for the
   * fleet on this key (export its fleet gauges, evaluate its fleet alerts); the lease moves to
   * another process within two publish intervals of this one's death.
   */
  public boolean owns(String key) {
    Checks.requireNonEmpty("key", key);
    return ownsUnchecked(key);
  }

  /** {@link #owns(String)} without the argument check (the single window's empty key). */
  boolean ownsUnchecked(String key) {
    return leases.holds(FleetKeys.group(key));
  }

  /**
   * The summaries of the keys this process {@linkplain #owns owns}, as it last wrote them: no Redis
   * call. Empty while it holds no lease (or has not merged since it took one).
   */
  public Map<String, FleetSummary> ownedSummaries() {
    long now = time.nanoTime();
    long first = Math.floorDiv(now, widthNanos) - buckets + 1;
    Map<String, FleetSummary> out = new LinkedHashMap<>();
    for (int g = 0; g < FleetKeys.GROUPS; g++) {
      FleetCodec.Summary s = leases.holds(g) ? merged.lastSummary(g) : null;
      if (s == null || Math.floorDiv(s.asOfNanos(), widthNanos) < first) {
        continue;
      }
      for (Map.Entry<String, FleetCodec.KeySummary> e : s.keys().entrySet()) {
        out.put(
            e.getKey(),
            new FleetSummary(s, e.getValue(), widthNanos, buckets, now, null)
                .withTotals(source.totals(e.getKey())));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /**
   * What this process recorded into each key it holds, since it started to hold it (drained by its
   * rounds, so at most half a publish interval behind its records): the per-process counters that a
   * monitoring system sums over the fleet. No Redis call.
   */
  public Map<String, WindowTotals> totals() {
    return source.totals();
  }

  /** Keys held in this process, approximately. */
  @Override
  public long estimatedKeys() {
    recorders.cleanUp();
    return recorders.estimatedSize();
  }

  /** Heap held in this process: the keys' recorders and the deltas waiting for Redis. */
  @Override
  public long footprintBytes() {
    long bytes = 0;
    for (BucketRecorder r : recorders.asMap().values()) {
      bytes += r.footprintBytes();
    }
    return bytes + source.footprintBytes();
  }

  @Override
  public WindowConfig windowConfig() {
    return config;
  }

  /** The windows' time base: the Redis server's clock unless a time source was configured. */
  @Override
  public TimeSource timeSource() {
    return time;
  }

  /**
   * Publishes everything recorded so far and merges it into the fleet's view (whoever holds the
   * merger lease), waiting at most {@code timeout} until Redis has answered for it (retrying every
   * 20 ms while Redis or the breaker refuses). Returns whether nothing is left pending.
   */
  public boolean flush(Duration timeout) {
    return Rounds.flush(
        deadline -> publishAll(deadline, FleetPublisher.Round.FLUSH),
        source::flushPending,
        timeout,
        localClock);
  }

  /**
   * Stops this window's publication and publishes what is left, waiting at most the command
   * timeout. Returns whether nothing is left pending.
   */
  public boolean close() {
    boolean flushed = flush(Duration.ofNanos(runner.timeoutNanos()));
    try {
      // bounded by the command timeout: a lease not given up lapses within an interval anyway
      leases.release().get(runner.timeoutNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // Redis did not answer: the lease lapses on its own
    }
    try {
      registration.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return flushed;
  }

  /**
   * What happened to this process's samples so far, over all keys: a pending "bucket" is one key's
   * delta to one bucket, a publish call one group's batch ({@code HSET}, and now and then the
   * inbox's {@code PEXPIRE}), answered. See {@link RedisHistogramWindowStats}.
   */
  public RedisHistogramWindowStats stats() {
    return source.stats();
  }

  /** Hands a key's recorder dropped from the cache to the publisher, to be drained once more. */
  private void retire(String key, BucketRecorder recorder) {
    source.retire(key, recorder);
  }

  /**
   * Runs a round that starts after this call and includes this window; waits until the deadline.
   */
  private void publishAll(long deadline, FleetPublisher.Round kind) {
    Rounds.runOne(
        () -> publisher.tryStartRound(source, kind), publisher::running, deadline, localClock);
  }

  /** Heap held by {@code key}'s recorder in this process; 0 if it holds none. */
  long keyFootprintBytes(String key) {
    BucketRecorder r = recorders.getIfPresent(key);
    return r == null ? 0 : r.footprintBytes();
  }

  /** Runs a ticker's round of this window now, due or not (tests). */
  CompletableFuture<Void> tick() {
    return publisher.tryStartRound(source, FleetPublisher.Round.TICK);
  }

  /** The round running now, or the last one. */
  CompletableFuture<Void> lastRound() {
    return publisher.running();
  }

  @Override
  public String toString() {
    return "RedisKeyedHistogramWindows["
        + name
        + ", "
        + config.length()
        + " in "
        + config.buckets()
        + " buckets, "
        + config.significantDigits()
        + " digits]";
  }

  /** The percentiles a {@link FleetSummary} carries unless configured: 50, 90, 95, 99 and 99.9. */
  static final double[] DEFAULT_SUMMARY_PERCENTILES = {50, 90, 95, 99, 99.9};

  /** The most percentiles a summary carries: {@value}. */
  public static final int MAX_SUMMARY_PERCENTILES = 16;

  /** The most spans a summary carries: {@value}. */
  public static final int MAX_SUMMARY_SPANS = 8;

  /**
   * Configures a {@link RedisKeyedHistogramWindows}; not thread-safe. Every process of a fleet must
   * build windows of one name with the same bucket width, significant digits and lowest discernible
   * value (windows that differ in them keep apart).
   */
  public static final class Builder {
    private final RedisBackend backend;
    private final String name;
    private WindowConfig config = WindowConfig.defaults();
    private Duration publishInterval = Duration.ofSeconds(1);
    private long maximumKeys = 1_000;
    private int maxPendingDeltas = -1;
    private TimeSource timeSource;
    private ScheduledExecutorService scheduler;
    private double[] summaryPercentiles = DEFAULT_SUMMARY_PERCENTILES;
    private Duration[] summarySpanLengths = new Duration[0];
    private int[] summarySpans = new int[0];

    Builder(RedisBackend backend, String name) {
      this.backend = backend;
      this.name = Checks.requireLength("name", name, 1024);
    }

    /**
     * Each key's length, buckets, precision and value range (default {@link
     * WindowConfig#defaults()}: 60 s in 60 buckets, 2 significant digits). Its stripes apply to
     * this process's recorders only.
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
     * The most keys this process holds at once, 1 to 1,000,000 (default 1,000); each held key costs
     * its recorder, which grows with the distinct values it sees (about 7 KB for 100; {@link
     * BucketRecorder#footprintBytes()}).
     */
    public Builder maximumKeys(long maximumKeys) {
      this.maximumKeys = Checks.requireBetween("maximumKeys", maximumKeys, 1, 1_000_000);
      return this;
    }

    /**
     * Deltas (one key, one bucket) that may wait in memory for Redis (default: maximumKeys times
     * the bucket count, so an outage loses nothing the window still covers). Beyond it the oldest
     * is dropped and counted.
     */
    public Builder maxPendingDeltas(int maxPendingDeltas) {
      this.maxPendingDeltas =
          Checks.requireBetween("maxPendingDeltas", maxPendingDeltas, 1, Integer.MAX_VALUE - 1);
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
     * The percentiles, above 0 and at most 100 to at most four decimals, that each key's {@link
     * FleetSummary} carries at the window's precision (default 50, 90, 95, 99 and 99.9); at most
     * {@value #MAX_SUMMARY_PERCENTILES}. Each costs a few bytes per key in every summary. The
     * merger's setting decides what a summary carries: give every process of the fleet the same.
     */
    public Builder summaryPercentiles(double... percentiles) {
      this.summaryPercentiles = checkedSummaryPercentiles(percentiles);
      return this;
    }

    /** {@code percentiles}, checked as {@link #summaryPercentiles} takes them: distinct, sorted. */
    static double[] checkedSummaryPercentiles(double... percentiles) {
      Checks.requireNonNull("percentiles", percentiles);
      java.util.TreeSet<Double> distinct = new java.util.TreeSet<>();
      for (double p : percentiles) {
        double units = p * FleetCodec.PERCENTILE_UNITS;
        if (!(p > 0 && p <= 100) || Math.abs(units - Math.rint(units)) > 1e-6) {
          throw Checks.invalid(
              "summaryPercentiles", "above 0 and at most 100, to at most 4 decimals", p);
        }
        distinct.add(p);
      }
      if (distinct.isEmpty() || distinct.size() > MAX_SUMMARY_PERCENTILES) {
        throw Checks.invalid(
            "summaryPercentiles",
            "1 to " + MAX_SUMMARY_PERCENTILES + " distinct values",
            distinct.size());
      }
      return distinct.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * Trailing spans of the window, each a whole number of its buckets and at most its length,
     * whose exact totals (count, sum, rejected) each key's {@link FleetSummary} also carries
     * ({@link FleetSummary#span}): the last 5 minutes of a 6-hour window, say. None by default; at
     * most {@value #MAX_SUMMARY_SPANS}.
     */
    public Builder summarySpans(Duration... spans) {
      Checks.requireNonNull("spans", spans);
      if (spans.length > MAX_SUMMARY_SPANS) {
        throw Checks.invalid(
            "summarySpans", "at most " + MAX_SUMMARY_SPANS + " spans", spans.length);
      }
      for (Duration d : spans) {
        Checks.requireNonNull("summarySpans", d);
      }
      this.summarySpanLengths = spans.clone();
      return this;
    }

    public RedisKeyedHistogramWindows build() {
      long width = config.bucketWidth().toNanos();
      java.util.TreeSet<Integer> spans = new java.util.TreeSet<>();
      for (Duration d : summarySpanLengths) {
        long n = d.toNanos();
        if (n <= 0 || n % width != 0 || n / width > config.buckets()) {
          throw Checks.invalid(
              "summarySpans",
              "whole numbers of the "
                  + config.bucketWidth()
                  + " buckets, at most the window's "
                  + config.length(),
              d);
        }
        spans.add((int) (n / width));
      }
      Builder copy = new Builder(backend, name);
      copy.summaryPercentiles = summaryPercentiles;
      copy.summarySpans = spans.stream().mapToInt(Integer::intValue).toArray();
      copy.config = config;
      copy.publishInterval = publishInterval;
      copy.maximumKeys = maximumKeys;
      copy.maxPendingDeltas =
          maxPendingDeltas > 0
              ? maxPendingDeltas
              : (int) Math.min(Integer.MAX_VALUE - 1, maximumKeys * config.buckets());
      copy.timeSource = timeSource;
      copy.scheduler = scheduler;
      return new RedisKeyedHistogramWindows(copy);
    }
  }
}
