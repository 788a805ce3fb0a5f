package io.ringtail.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.ringtail.BucketHistogram;
import io.ringtail.BucketRecorder;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
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
 * <h2>Publication</h2>
 *
 * Once per {@code publishInterval} a round publishes every key's new samples of this and every
 * other keyed histogram window of the backend, back to back on the connection (see {@link
 * FleetPublisher}); rounds run on Lettuce's computation threads or on the scheduler given to {@link
 * Builder#scheduler}, never on a recording thread. Each delta (one key's new samples in one bucket)
 * is one {@code HSET} of a field named by this process and a sequence number, with a {@code
 * PEXPIRE}: Redis stores bytes and does no merging. A retried delta has the same field and bytes,
 * so it overwrites itself and never counts twice, in whatever order calls land. During an outage
 * deltas wait in memory (at most two per key and bucket, at most {@link Builder#maxPendingDeltas});
 * what cannot wait is counted in {@link #stats()}.
 *
 * <h2>Snapshots</h2>
 *
 * {@link #snapshot(String)} publishes this process's samples, then reads the key's buckets (one
 * hash tag per key: one node of a cluster) and merges every process's deltas here. Buckets already
 * read are kept merged in this process and read again only when their version changed (every new
 * delta raises it), so repeated snapshots read about two buckets whatever the fleet's size. A
 * reader also writes its merge of a settled bucket back as one field (if no other reader was
 * first), so later readers read one field per settled bucket. {@link #snapshots()} covers every key
 * the fleet published in the window.
 *
 * <p>Thread-safe: any thread may record for any key while others take snapshots. The rounds run
 * until {@link #close()} (or the client's shutdown), so close windows the process no longer uses.
 */
public final class RedisKeyedHistogramWindows implements KeyedWindows {
  /** How long a dropped key's recorder is still drained: longer than any record takes. */
  private static final long RETIRED_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final String name;
  private final WindowConfig config;
  private final ScriptRunner runner;
  private final TimeSource time;
  private final TimeSource localClock = TimeSource.system();
  private final FleetKeys keys;
  private final FleetPublisher publisher;
  private final String publisherId;
  private final FleetReader reader;
  private final long widthNanos;
  private final int buckets;
  private final long graceMillis;
  private final long intervalNanos;
  private final int maxPendingDeltas;
  private final long maximumKeys;
  private final Cache<String, BucketRecorder> recorders;
  private final Function<String, BucketRecorder> factory;
  private final ConcurrentLinkedQueue<Retired> retired = new ConcurrentLinkedQueue<>();
  private final Source source = new Source();
  private final AutoCloseable registration;

  // guarded by source
  private final Map<Delta, Pending> pending = new HashMap<>();
  private final Map<String, Long> indexed = new HashMap<>();
  private long sequence;

  final LongAdder published = new LongAdder();
  final LongAdder publishCalls = new LongAdder();
  final LongAdder retriedDuplicates = new LongAdder();
  final LongAdder failedCalls = new LongAdder();
  final LongAdder expired = new LongAdder();
  final LongAdder dropped = new LongAdder();

  private RedisKeyedHistogramWindows(Builder b) {
    this.name = b.name;
    this.config = b.config;
    this.runner = b.backend.runner;
    this.publisher = b.backend.fleetPublisher();
    ServerTimeBase serverTime = b.timeSource == null ? publisher.serverTime() : null;
    this.time = b.timeSource != null ? b.timeSource : serverTime;
    this.widthNanos = config.bucketWidth().toNanos();
    this.buckets = config.buckets();
    this.keys =
        new FleetKeys(
            b.backend.keyPrefix,
            name,
            widthNanos,
            config.significantDigits(),
            config.lowestDiscernibleValue());
    this.publisherId = RandomIds.base36(8);
    this.reader = new FleetReader(runner, keys, config, publisherId);
    // Redis counts a TTL on its own clock: past a time base it cannot vouch for, keep a window more
    this.graceMillis =
        serverTime != null ? 1_000 : Math.max(1_000, widthNanos * buckets / 1_000_000L);
    this.intervalNanos = b.publishInterval.toNanos();
    this.maximumKeys = b.maximumKeys;
    this.maxPendingDeltas = b.maxPendingDeltas;
    TimeSource recorderTime = time;
    WindowConfig recorderConfig = config;
    this.factory = key -> BucketRecorder.create(recorderConfig, recorderTime);
    this.recorders =
        Caffeine.newBuilder()
            .maximumSize(b.maximumKeys)
            .expireAfterAccess(config.length())
            .ticker(time::nanoTime)
            .executor(Runnable::run)
            .removalListener(
                (String key, BucketRecorder recorder, RemovalCause cause) -> {
                  if (key != null && recorder != null) {
                    retired.add(new Retired(key, recorder, localClock.nanoTime()));
                  }
                })
            .build();
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
    recorders.get(key, factory).recordAt(value, timeNanos);
  }

  /**
   * The window of one key as a {@link RollingWindow}: records into and reads that key. What core's
   * window contract checks, per key.
   */
  public RollingWindow window(String key) {
    Checks.requireNonEmpty("key", key);
    return new KeyView(key);
  }

  /**
   * The fleet's window of {@code key} now: publishes this process's samples (waiting at most the
   * command timeout), then reads and merges the key's buckets. Empty if no process recorded it.
   *
   * @throws RedisUnavailableException if Redis cannot answer the reads in time
   */
  @Override
  public RedisHistogramSnapshot snapshot(String key) {
    Checks.requireNonEmpty("key", key);
    publishAll(localClock.nanoTime() + runner.timeoutNanos());
    long now = time.nanoTime();
    return ScriptRunner.await(reader.read(key, now), runner.timeoutNanos());
  }

  /**
   * A snapshot of every key any process published in the window, as of now (at most {@code
   * maximumKeys} of them, the most recently published first).
   *
   * @throws RedisUnavailableException if Redis cannot answer the reads in time
   */
  @Override
  public Map<String, WindowSnapshot> snapshots() {
    publishAll(localClock.nanoTime() + runner.timeoutNanos());
    long now = time.nanoTime();
    // a key's score may lag its latest bucket by up to the re-index period
    long first = Math.floorDiv(now, widthNanos) - buckets + 1 - reindexBuckets();
    CommandArgs<String, String> range =
        new CommandArgs<>(StringCodec.UTF8)
            .addKey(keys.index())
            .add("+inf")
            .add(first)
            .add("BYSCORE")
            .add("REV")
            .add("LIMIT")
            .add(0)
            .add(Math.min(maximumKeys, Integer.MAX_VALUE));
    List<Object> listed =
        ScriptRunner.await(runner.runCommand(CommandType.ZRANGE, range), runner.timeoutNanos());
    Map<String, CompletableFuture<RedisHistogramSnapshot>> reads = new LinkedHashMap<>();
    for (Object member : listed) {
      String key = new String((byte[]) member, StandardCharsets.UTF_8);
      reads.put(key, reader.read(key, now));
    }
    Map<String, WindowSnapshot> out = new LinkedHashMap<>();
    for (Map.Entry<String, CompletableFuture<RedisHistogramSnapshot>> e : reads.entrySet()) {
      RedisHistogramSnapshot s = ScriptRunner.await(e.getValue(), runner.timeoutNanos());
      if (s.count() > 0 || s.rejected() > 0) {
        out.put(e.getKey(), s);
      }
    }
    return Collections.unmodifiableMap(out);
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
    synchronized (source) {
      for (Pending p : pending.values()) {
        bytes += p.bytes();
      }
    }
    return bytes;
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
   * Publishes everything recorded so far and waits, at most {@code timeout}, until Redis has
   * answered for it (retrying every 20 ms while Redis or the breaker refuses). Returns whether
   * nothing is left pending.
   */
  public boolean flush(Duration timeout) {
    return Rounds.flush(this::publishAll, this::pendingDeltas, timeout, localClock);
  }

  /**
   * Stops this window's publication and publishes what is left, waiting at most the command
   * timeout. Returns whether nothing is left pending.
   */
  public boolean close() {
    boolean flushed = flush(Duration.ofNanos(runner.timeoutNanos()));
    try {
      registration.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return flushed;
  }

  /**
   * What happened to this process's samples so far, over all keys: a pending "bucket" is one key's
   * delta to one bucket, a publish call one delta's {@code HSET} and {@code PEXPIRE}, answered.
   */
  public RedisHistogramWindowStats stats() {
    long samples = 0;
    int deltas;
    synchronized (source) {
      for (Pending p : pending.values()) {
        samples += p.samples();
      }
      deltas = pending.size();
    }
    return new RedisHistogramWindowStats(
        published.sum(),
        publishCalls.sum(),
        retriedDuplicates.sum(),
        failedCalls.sum(),
        samples,
        deltas,
        expired.sum(),
        dropped.sum(),
        runner.scriptReloads.sum());
  }

  private int pendingDeltas() {
    synchronized (source) {
      return pending.size();
    }
  }

  /**
   * Runs a round that starts after this call and includes this window; waits until the deadline.
   */
  private void publishAll(long deadline) {
    Rounds.runOne(() -> publisher.tryStartRound(source), publisher::running, deadline, localClock);
  }

  /** The round running now, or the last one. */
  CompletableFuture<Void> lastRound() {
    return publisher.running();
  }

  // ---------------------------------------------------------------- publication

  private final class Source implements FleetPublisher.Source {
    @Override
    public long intervalNanos() {
      return intervalNanos;
    }

    @Override
    public synchronized void publish(List<CompletableFuture<?>> calls, boolean all) {
      long now = time.nanoTime();
      long live = Math.floorDiv(now, widthNanos);
      long oldestInWindow = live - buckets + 1;
      for (Map.Entry<String, BucketRecorder> e : recorders.asMap().entrySet()) {
        take(e.getKey(), e.getValue().drain());
      }
      // a dropped key's recorder is drained for a second more, in case a record was under way
      long local = localClock.nanoTime();
      for (Iterator<Retired> it = retired.iterator(); it.hasNext(); ) {
        Retired r = it.next();
        take(r.key, r.recorder.drain());
        if (++r.drains >= 2 && local - r.retiredAt >= RETIRED_NANOS) {
          it.remove();
        }
      }
      Pending oldestUnsent = null;
      for (Iterator<Pending> it = pending.values().iterator(); it.hasNext(); ) {
        Pending p = it.next();
        if (p.sending) {
          continue;
        }
        if (p.delta.bucket < oldestInWindow) {
          expired.add(p.samples());
          it.remove();
        } else if (oldestUnsent == null || p.delta.bucket < oldestUnsent.delta.bucket) {
          oldestUnsent = p;
        }
      }
      while (pending.size() > maxPendingDeltas && oldestUnsent != null) {
        dropped.add(oldestUnsent.samples());
        pending.remove(oldestUnsent.delta);
        oldestUnsent = null;
        for (Pending p : pending.values()) {
          if (!p.sending && (oldestUnsent == null || p.delta.bucket < oldestUnsent.delta.bucket)) {
            oldestUnsent = p;
          }
        }
      }
      Set<String> toIndex = new LinkedHashSet<>();
      List<Pending> toSend = new ArrayList<>();
      // a ticker holds the live bucket back until it closes: one delta per key and bucket
      boolean holdLive = !all && intervalNanos >= widthNanos;
      for (Pending p : pending.values()) {
        if (p.sending || (holdLive && p.delta.bucket >= live && p.inFlight == null)) {
          continue;
        }
        if (p.inFlight == null && p.unsent != null) {
          p.inFlight = p.unsent;
          p.unsent = null;
          p.field = publisherId + ":" + Long.toString(++sequence, 36);
          p.bytes = FleetDeltas.encode(p.inFlight, now);
        }
        if (p.inFlight != null) {
          p.sending = true;
          toSend.add(p);
          Long last = indexed.get(p.delta.key);
          if (last == null || live - last >= reindexBuckets()) {
            toIndex.add(p.delta.key);
          }
        }
      }
      // a reply may complete its call at once, removing from pending: send after the loop
      for (Pending p : toSend) {
        calls.add(send(p, now));
      }
      if (!toIndex.isEmpty()) {
        calls.add(index(List.copyOf(toIndex), live, oldestInWindow));
      }
    }

    private void take(String key, List<BucketHistogram> drained) {
      for (BucketHistogram d : drained) {
        Pending p = pending.computeIfAbsent(new Delta(key, d.bucket()), Pending::new);
        p.unsent = p.unsent == null ? d : p.unsent.plus(d);
      }
    }
  }

  /** One delta: HSET of its field, PEXPIRE of its bucket. Called holding the source's lock. */
  private CompletableFuture<?> send(Pending p, long now) {
    String bucketKey = keys.keyBase(p.delta.key) + p.delta.bucket;
    long ttlMillis =
        Math.max(1, ((p.delta.bucket + buckets) * widthNanos - now) / 1_000_000L) + graceMillis;
    BucketHistogram d = p.inFlight;
    CompletableFuture<List<Object>> set =
        runner.runCommand(
            CommandType.HSET,
            new CommandArgs<>(StringCodec.UTF8).addKey(bucketKey).add(p.field).add(p.bytes));
    // sent after the HSET on the same connection: in strict mode its confirmation covers both,
    // and a delta the replicas did not confirm stays pending and is sent again (same field)
    CompletableFuture<List<Object>> expire =
        runner.runWrite(
            CommandType.PEXPIRE,
            new CommandArgs<>(StringCodec.UTF8).addKey(bucketKey).add(ttlMillis),
            bucketKey);
    return set.thenCombine(expire, (reply, ignored) -> reply)
        .handle(
            (reply, error) -> {
              synchronized (source) {
                p.sending = false;
                if (error == null) {
                  publishCalls.increment();
                  if (Long.valueOf(0).equals(reply.get(0))) {
                    retriedDuplicates.increment();
                  }
                  published.add(d.count() + d.rejected());
                  p.inFlight = null;
                  p.bytes = null;
                  if (p.unsent == null && pending.get(p.delta) == p) {
                    pending.remove(p.delta);
                  }
                } else {
                  failedCalls.increment();
                }
              }
              return null;
            });
  }

  /** How often, in buckets, a process marks a key it publishes in the index again. */
  private int reindexBuckets() {
    return Math.max(1, buckets / 4);
  }

  /** Marks keys as published in bucket {@code live}; forgets keys that left the window. */
  private CompletableFuture<?> index(List<String> toIndex, long live, long oldestInWindow) {
    CommandArgs<String, String> add =
        new CommandArgs<>(StringCodec.UTF8).addKey(keys.index()).add("GT");
    for (String key : toIndex) {
      add.add(live).add(key);
    }
    long ttlMillis = (buckets + reindexBuckets()) * widthNanos / 1_000_000L + graceMillis;
    CompletableFuture<List<Object>> added = runner.runCommand(CommandType.ZADD, add);
    CompletableFuture<List<Object>> trimmed =
        runner.runCommand(
            CommandType.ZREMRANGEBYSCORE,
            new CommandArgs<>(StringCodec.UTF8)
                .addKey(keys.index())
                .add("-inf")
                .add("(" + (oldestInWindow - reindexBuckets())));
    CompletableFuture<List<Object>> expire =
        runner.runWrite(
            CommandType.PEXPIRE,
            new CommandArgs<>(StringCodec.UTF8).addKey(keys.index()).add(ttlMillis),
            keys.index());
    return CompletableFuture.allOf(added, trimmed, expire)
        .handle(
            (ok, error) -> {
              if (error == null) {
                synchronized (source) {
                  for (String key : toIndex) {
                    indexed.put(key, live);
                  }
                  indexed.values().removeIf(b -> b < oldestInWindow);
                }
              }
              return null;
            });
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

  /** One key's window as a {@link RollingWindow}. */
  private final class KeyView implements RollingWindow {
    private final String key;

    KeyView(String key) {
      this.key = key;
    }

    @Override
    public void record(long value) {
      RedisKeyedHistogramWindows.this.record(key, value);
    }

    @Override
    public void recordAt(long value, long timeNanos) {
      RedisKeyedHistogramWindows.this.recordAt(key, value, timeNanos);
    }

    @Override
    public RedisHistogramSnapshot snapshot() {
      return RedisKeyedHistogramWindows.this.snapshot(key);
    }

    @Override
    public Duration length() {
      return config.length();
    }

    @Override
    public TimeSource timeSource() {
      return time;
    }

    @Override
    public long footprintBytes() {
      BucketRecorder r = recorders.getIfPresent(key);
      return 64 + (r == null ? 0 : r.footprintBytes());
    }

    @Override
    public String toString() {
      return RedisKeyedHistogramWindows.this + "[" + key + "]";
    }
  }

  private record Delta(String key, long bucket) {}

  /** One key's deltas to one bucket: at most one in flight (frozen, with its field) and one not. */
  private static final class Pending {
    final Delta delta;
    BucketHistogram unsent;
    BucketHistogram inFlight;
    String field;
    byte[] bytes;
    boolean sending;

    Pending(Delta delta) {
      this.delta = delta;
    }

    long samples() {
      return (unsent == null ? 0 : unsent.count() + unsent.rejected())
          + (inFlight == null ? 0 : inFlight.count() + inFlight.rejected());
    }

    long bytes() {
      return 96
          + (unsent == null ? 0 : 64 + 12L * unsent.slotCount())
          + (inFlight == null ? 0 : 64 + 12L * inFlight.slotCount())
          + (bytes == null ? 0 : 16 + bytes.length);
    }
  }

  /**
   * A key's recorder dropped from the cache, drained in at least two rounds and for a second before
   * it is forgotten: a thread that looked it up just before may still be recording into it.
   */
  private static final class Retired {
    final String key;
    final BucketRecorder recorder;
    final long retiredAt;
    int drains;

    Retired(String key, BucketRecorder recorder, long retiredAt) {
      this.key = key;
      this.recorder = recorder;
      this.retiredAt = retiredAt;
    }
  }

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
     * Longest a recorded sample waits before it is sent to Redis: 1 ms to 1 minute (default 1 s).
     */
    public Builder publishInterval(Duration interval) {
      this.publishInterval = Rounds.requireInterval(interval);
      return this;
    }

    /**
     * The most keys this process holds at once, 1 to 1,000,000 (default 1,000); each held key costs
     * its recorder's dense arrays ({@link BucketRecorder#footprintBytes()}).
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

    public RedisKeyedHistogramWindows build() {
      Builder copy = new Builder(backend, name);
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
