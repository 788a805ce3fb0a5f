package io.ringtail.redis;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.WindowTotals;
import io.ringtail.internal.Checks;
import java.lang.System.Logger.Level;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A rolling window shared by every process that builds it with the same name on the same Redis:
 * raw samples live in two sorted sets (one scored by time, one by value) and an exact sum,
 * updated by one atomic Lua script per operation. Count, sum, min, max and nearest-rank
 * percentiles are exact; a percentile costs one O(log N) rank lookup on the server, and no
 * sample is transferred to the client.
 *
 * <h2>Window and time base</h2>
 * Samples are timed in microseconds. A snapshot at {@code now} holds every sample timed in
 * {@code (now - length, now]} (lower bound exclusive), reported as
 * {@code [startNanos, endNanos]} with {@code startNanos = (nowMicros - lengthMicros + 1) * 1000}.
 * By default {@code now} and every sample's time are the Redis server's {@code TIME} read inside
 * the script, the one clock of the fleet, so client clocks do not matter; snapshot intervals are
 * then server epoch nanoseconds and {@link #recordAt} stamps samples at arrival like
 * {@link #record}. With {@link Builder#timeSource(TimeSource)} the caller's readings (nanoseconds
 * on a base shared by the fleet, |t| &lt; 2<sup>53</sup> µs) are used instead, optionally with a
 * skew guard that falls back to server time when a reading is too far from it.
 *
 * <h2>Failure behaviour</h2>
 * Recording is asynchronous and never throws: samples are sent in batches (up to 256 per script
 * call, up to 4 calls pipelined on the user's connection; samples recorded while calls are in
 * flight ride in the next call), with at most {@code maxInFlight} samples outstanding. A call that fails (timeout, connection
 * loss, open circuit breaker) puts its samples, with their times, into a bounded in-memory buffer
 * that is replayed idempotently (by event id) after the next successful call or on
 * {@link #flush}; a sample that finds the buffer full is dropped and counted. See
 * {@link #stats()} for every way a sample can fail to be kept. {@link #snapshot()} waits for this
 * process's in-flight records first (read-your-writes), at most the command timeout; if Redis
 * cannot answer it returns the optional local fallback window's snapshot, else throws
 * {@link RedisUnavailableException}.
 *
 * <h2>Percentiles</h2>
 * A snapshot fetches the exact nearest-rank values of a set of percentiles chosen up front
 * ({@link Builder#percentiles}, or {@link #snapshot(double...)}), plus exact min and max, in the
 * same atomic script. {@link WindowSnapshot#valueAtPercentile} is exact for those percentiles,
 * 0 and 100, and for any other percentile whose nearest rank coincides with one of them;
 * otherwise it returns the value at the next fetched rank above, an upper bound.
 *
 * <h2>Totals</h2>
 * A snapshot's {@link WindowSnapshot#totals() totals} are this process's share since the window
 * object was built: samples Redis stored for it (not duplicates, not expired), their sum, and
 * its rejected samples (as in {@link #stats()}). Every process publishes its own, so a
 * fleet-wide rate is the sum over processes ({@code sum(rate(..._total[5m]))}); a snapshot
 * answered by the local fallback window carries that window's totals instead.
 *
 * <p>Thread-safe: any number of threads may record and take snapshots.
 */
public final class RedisRollingWindow implements RollingWindow {
  /** The stable code logged (at WARNING) when the cardinality cap trims samples. */
  public static final String CARDINALITY_CAP_WARNING = "ERR_WINDOW_031";

  private static final System.Logger LOG = System.getLogger(RedisRollingWindow.class.getName());
  private static final double[] DEFAULT_PERCENTILES = {1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99};
  private static final long MAX_MICROS = 1L << 53;
  private static final int EVICT_CHUNK = 500;
  private static final int EVICT_BUDGET = 5_000;
  private static final int REPLAY_BATCH = 200;
  private static final int MAX_BATCH = 256;
  private static final int MAX_BATCHES_IN_FLIGHT = 4;
  private static final ThreadLocal<boolean[]> DRAINING = ThreadLocal.withInitial(() -> new boolean[1]);
  private static final int MAX_SNAPSHOT_ROUNDS = 100_000;
  private static final long FLUSH_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final ScriptRunner runner;
  private final String name;
  private final String[] keys;
  private final Duration length;
  private final long lengthMicros;
  private final int maxSamples;
  private final long ttlMillis;
  private final TimeSource clientTime;
  private final long maxSkewMicros;
  private final double[] percentiles;
  private final String[] percentileArgs;
  private final RollingWindow local;
  private final LinkedBlockingDeque<Pending> buffer;
  private final int maxInFlight;
  private final Semaphore inFlight;
  private final String idPrefix;
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicBoolean replaying = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Pending> outbox = new ConcurrentLinkedQueue<>();
  private final AtomicInteger batchesInFlight = new AtomicInteger();
  private volatile long serverOffsetNanos;
  private volatile boolean serverOffsetKnown;
  private volatile long lastCapWarningNanos;

  private final LongAdder recorded = new LongAdder();
  private final LongAdder stored = new LongAdder();
  private final DoubleAdder storedSum = new DoubleAdder();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final LongAdder expired = new LongAdder();
  private final LongAdder trimmed = new LongAdder();
  private final LongAdder replayed = new LongAdder();
  private final LongAdder dropped = new LongAdder();
  private final LongAdder failedCalls = new LongAdder();
  private final LongAdder skewCorrections = new LongAdder();
  private final LongAdder degradedSnapshots = new LongAdder();

  private RedisRollingWindow(Builder b) {
    this.runner = b.backend.runner;
    this.name = b.name;
    this.keys = WindowKeys.window(b.backend.keyPrefix, b.name);
    this.length = b.length;
    this.lengthMicros = b.length.toNanos() / 1000;
    this.maxSamples = b.maxSamples;
    this.ttlMillis = b.length.toMillis() + Math.max(1000, b.length.toMillis() / 100);
    this.clientTime = b.timeSource;
    this.maxSkewMicros = b.maxClockSkew == null ? -1 : b.maxClockSkew.toNanos() / 1000;
    this.percentiles = b.percentiles.clone();
    this.percentileArgs = scaled(percentiles);
    this.local = b.localFallback == null ? null
        : RollingWindow.create(b.localFallback, clientTime != null ? clientTime : TimeSource.system());
    this.buffer = new LinkedBlockingDeque<>(b.bufferCapacity);
    this.maxInFlight = b.maxInFlight;
    this.inFlight = new Semaphore(b.maxInFlight);
    byte[] random = new byte[6];
    new SecureRandom().nextBytes(random);
    this.idPrefix = Long.toString(new java.math.BigInteger(1, random).longValue(), 36) + ".";
  }

  /** The name the window was built with (its Redis keys carry it as their hash tag). */
  public String name() {
    return name;
  }

  @Override
  public void record(long value) {
    if (clientTime == null) {
      submit(value, null, 0L);
    } else {
      recordAt(value, clientTime.nanoTime());
    }
  }

  /**
   * Records a sample at {@code timeNanos} of the configured time source; with the default server
   * time base the sample is stamped by Redis at arrival, like {@link #record}.
   */
  @Override
  public void recordAt(long value, long timeNanos) {
    submit(value, null, timeNanos);
  }

  /**
   * Records a sample under the caller's event id: recording (or replaying) the same id and value
   * again while the first is in the window is counted once ({@link RedisWindowStats#duplicates()}).
   *
   * @throws NullPointerException if eventId is null
   * @throws IllegalArgumentException if eventId is empty or longer than 256 characters
   */
  public void record(String eventId, long value) {
    Checks.requireLength("eventId", eventId, 256);
    submit(value, eventId, clientTime == null ? 0L : clientTime.nanoTime());
  }

  private void submit(long value, String eventId, long timeNanos) {
    recorded.increment();
    String id = eventId != null ? eventId : idPrefix + Long.toString(sequence.getAndIncrement(), 36);
    long micros;
    if (clientTime != null) {
      micros = Math.floorDiv(timeNanos, 1000L);
      if (micros >= MAX_MICROS || micros <= -MAX_MICROS) {
        rejected.increment();
        return;
      }
    } else {
      micros = estimatedServerMicros();
    }
    if (local != null) {
      local.recordAt(value, clientTime != null ? timeNanos : System.nanoTime());
    }
    Pending p = value < 0 ? new Pending(micros, id, "R") : new Pending(micros, padded(value) + ":" + id, Long.toString(value));
    if (!acquireSlot()) {
      failedCalls.increment();
      keep(p);
      return;
    }
    outbox.add(p);
    drainOutbox();
  }

  /**
   * Sends what waits in the outbox as batches of up to {@value #MAX_BATCH} samples, with at most
   * {@value #MAX_BATCHES_IN_FLIGHT} batches outstanding: records that arrive while batches are in
   * flight ride in the next one (group commit), so throughput grows with load without a thread.
   */
  private void drainOutbox() {
    if (DRAINING.get()[0]) {
      return;
    }
    DRAINING.get()[0] = true;
    try {
      while (!outbox.isEmpty()) {
        int n = batchesInFlight.get();
        if (n >= MAX_BATCHES_IN_FLIGHT) {
          return;
        }
        if (!batchesInFlight.compareAndSet(n, n + 1)) {
          continue;
        }
        List<Pending> batch = new ArrayList<>(Math.min(MAX_BATCH, outbox.size()));
        for (Pending q; batch.size() < MAX_BATCH && (q = outbox.poll()) != null; ) {
          batch.add(q);
        }
        if (batch.isEmpty()) {
          batchesInFlight.decrementAndGet();
          continue;
        }
        send(batch);
      }
    } finally {
      DRAINING.get()[0] = false;
    }
  }

  private void send(List<Pending> batch) {
    String now = "";
    if (clientTime != null) {
      long newest = Long.MIN_VALUE;
      for (Pending q : batch) {
        newest = Math.max(newest, q.micros);
      }
      now = Long.toString(newest);
    }
    String[] args = header(now, maxSkewMicros, batch.size());
    for (int i = 0; i < batch.size(); i++) {
      Pending q = batch.get(i);
      args[7 + 3 * i] = clientTime == null ? "" : Long.toString(q.micros);
      args[8 + 3 * i] = q.member;
      args[9 + 3 * i] = q.value;
    }
    runner.run(Scripts.WINDOW_RECORD, keys, args).whenComplete((reply, error) -> {
      if (error == null) {
        accept(reply);
      } else if (ScriptRunner.unwrap(error) instanceof RedisRejectedException) {
        failedCalls.increment();
        dropped.add(batch.size());
      } else {
        failedCalls.increment();
        batch.forEach(this::keep);
      }
      batchesInFlight.decrementAndGet();
      inFlight.release(batch.size());
      drainOutbox();
      if (error == null) {
        replayIfPending();
      }
    });
  }

  private boolean acquireSlot() {
    if (inFlight.tryAcquire()) {
      return true;
    }
    try {
      return inFlight.tryAcquire(runner.timeoutNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private String[] header(String now, long skew, int samples) {
    String[] args = new String[7 + 3 * samples];
    args[0] = Long.toString(lengthMicros);
    args[1] = Integer.toString(EVICT_CHUNK);
    args[2] = Integer.toString(EVICT_BUDGET);
    args[3] = Integer.toString(maxSamples);
    args[4] = Long.toString(ttlMillis);
    args[5] = now;
    args[6] = Long.toString(skew);
    return args;
  }

  private void keep(Pending p) {
    if (!buffer.offerLast(p)) {
      dropped.increment();
    }
  }

  private void accept(List<Object> reply) {
    long serverMicros = Long.parseLong((String) reply.get(0));
    serverOffsetNanos = serverMicros * 1000 - System.nanoTime();
    serverOffsetKnown = true;
    stored.add(Long.parseLong((String) reply.get(1)));
    storedSum.add(Double.parseDouble((String) reply.get(8)));
    duplicates.add(Long.parseLong((String) reply.get(2)));
    expired.add(Long.parseLong((String) reply.get(3)));
    rejected.add(Long.parseLong((String) reply.get(4)));
    long cut = Long.parseLong((String) reply.get(5));
    if (cut > 0) {
      trimmed.add(cut);
      warnCap(cut);
    }
    skewCorrections.add(Long.parseLong((String) reply.get(6)));
  }

  private void warnCap(long cut) {
    long now = System.nanoTime();
    if (now - lastCapWarningNanos > TimeUnit.SECONDS.toNanos(1)) {
      lastCapWarningNanos = now;
      LOG.log(Level.WARNING, () -> CARDINALITY_CAP_WARNING + " window=" + name + " trimmed " + cut
          + " oldest samples at the cap of " + maxSamples + " (total trimmed " + trimmed.sum() + ")");
    }
  }

  private long estimatedServerMicros() {
    if (serverOffsetKnown) {
      return Math.floorDiv(System.nanoTime() + serverOffsetNanos, 1000L);
    }
    return System.currentTimeMillis() * 1000;
  }

  private void replayIfPending() {
    if (!buffer.isEmpty() && replaying.compareAndSet(false, true)) {
      replayNext();
    }
  }

  /**
   * Sends the next batch of buffered samples, chaining until the buffer is empty or a call fails
   * (then the next successful call or {@link #flush} starts again: no retry loop on failure).
   */
  private void replayNext() {
    CompletableFuture<Boolean> batch = replayBatch();
    batch.whenComplete((more, error) -> {
      if (error == null && more) {
        replayNext();
      } else {
        replaying.set(false);
      }
    });
  }

  /** Completes true if a batch was delivered, false if there was nothing to send or it failed. */
  private CompletableFuture<Boolean> replayBatch() {
    List<Pending> batch = new ArrayList<>(REPLAY_BATCH);
    buffer.drainTo(batch, REPLAY_BATCH);
    if (batch.isEmpty()) {
      return CompletableFuture.completedFuture(false);
    }
    String now = clientTime == null ? "" : Long.toString(Math.floorDiv(clientTime.nanoTime(), 1000L));
    String[] args = header(now, -1, batch.size());
    for (int i = 0; i < batch.size(); i++) {
      Pending p = batch.get(i);
      args[7 + 3 * i] = Long.toString(p.micros);
      args[8 + 3 * i] = p.member;
      args[9 + 3 * i] = p.value;
    }
    return runner.run(Scripts.WINDOW_RECORD, keys, args).handle((reply, error) -> {
      if (error == null) {
        accept(reply);
        replayed.add(batch.size());
        return true;
      }
      failedCalls.increment();
      if (ScriptRunner.unwrap(error) instanceof RedisRejectedException) {
        dropped.add(batch.size());
        return true;
      }
      for (int i = batch.size() - 1; i >= 0; i--) {
        if (!buffer.offerFirst(batch.get(i))) {
          dropped.increment();
        }
      }
      return false;
    });
  }

  /**
   * Waits, at most {@code timeout}, until this process's in-flight records are answered and its
   * buffered samples are replayed (retrying every 20 ms while Redis or the breaker refuses).
   * Returns whether nothing is left pending.
   */
  public boolean flush(Duration timeout) {
    long deadline = System.nanoTime() + Checks.requirePositiveNanos("timeout", timeout);
    awaitInFlight(deadline);
    while (!buffer.isEmpty() && System.nanoTime() < deadline) {
      boolean delivered = false;
      if (replaying.compareAndSet(false, true)) {
        try {
          long left = deadline - System.nanoTime();
          delivered = replayBatch().get(Math.max(left, 0), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        } catch (ExecutionException | TimeoutException e) {
          delivered = false;
        } finally {
          replaying.set(false);
        }
      }
      if (!delivered) {
        LockSupport.parkNanos(Math.min(FLUSH_RETRY_NANOS, Math.max(0, deadline - System.nanoTime())));
      }
    }
    return buffer.isEmpty() && awaitInFlight(deadline);
  }

  private boolean awaitInFlight(long deadlineNanos) {
    try {
      long left = deadlineNanos - System.nanoTime();
      if (inFlight.tryAcquire(maxInFlight, Math.max(left, 0), TimeUnit.NANOSECONDS)) {
        inFlight.release(maxInFlight);
        return true;
      }
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** A snapshot with the configured percentiles (see the class doc). */
  @Override
  public WindowSnapshot snapshot() {
    return take(percentiles, percentileArgs);
  }

  /**
   * A snapshot whose {@code valueAtPercentile} is exact for each of {@code percentiles} (and for
   * 0 and 100); the server does one rank lookup per percentile.
   *
   * @throws IllegalArgumentException if a percentile is outside 0..100 or NaN
   */
  public WindowSnapshot snapshot(double... percentiles) {
    double[] ps = Checks.requireNonNull("percentiles", percentiles).clone();
    for (double p : ps) {
      Checks.requirePercentile(p);
    }
    return take(ps, scaled(ps));
  }

  private WindowSnapshot take(double[] ps, String[] scaledPs) {
    awaitInFlight(System.nanoTime() + runner.timeoutNanos());
    replayIfPending();
    long nowNanos = clientTime == null ? 0 : clientTime.nanoTime();
    String now = clientTime == null ? "" : Long.toString(Math.floorDiv(nowNanos, 1000L));
    String[] args = new String[5 + scaledPs.length];
    args[0] = Long.toString(lengthMicros);
    args[1] = Integer.toString(EVICT_CHUNK);
    args[2] = Integer.toString(EVICT_BUDGET);
    args[3] = now;
    args[4] = Long.toString(maxSkewMicros);
    System.arraycopy(scaledPs, 0, args, 5, scaledPs.length);
    try {
      for (int round = 0; round < MAX_SNAPSHOT_ROUNDS; round++) {
        List<Object> reply = runner.runSync(Scripts.WINDOW_SNAPSHOT, keys, args);
        if ("0".equals(reply.get(1))) {
          return parseSnapshot(reply, ps, scaledPs, now, nowNanos);
        }
      }
      throw new IllegalStateException("window " + name + " still evicting after " + MAX_SNAPSHOT_ROUNDS + " rounds");
    } catch (RedisUnavailableException e) {
      if (local == null) {
        throw e;
      }
      degradedSnapshots.increment();
      return local.snapshot();
    }
  }

  private WindowSnapshot parseSnapshot(List<Object> reply, double[] ps, String[] scaledPs, String now,
      long nowNanos) {
    long nowMicros = Long.parseLong((String) reply.get(0));
    long end = !now.isEmpty() && now.equals(reply.get(0)) ? nowNanos : nowMicros * 1000 + 999;
    long start = (nowMicros - lengthMicros + 1) * 1000;
    long count = Long.parseLong((String) reply.get(2));
    long sum = Long.parseLong((String) reply.get(3));
    long rejectedCount = Long.parseLong((String) reply.get(4));
    if (count == 0) {
      return RedisWindowSnapshot.empty(rejectedCount, start, end, totals());
    }
    long[] ranks = new long[ps.length + 2];
    long[] values = new long[ps.length + 2];
    ranks[0] = 1;
    values[0] = valueOf(reply.get(5));
    ranks[1] = count;
    values[1] = valueOf(reply.get(6));
    for (int i = 0; i < ps.length; i++) {
      ranks[i + 2] = serverRank(scaledPs[i], count);
      values[i + 2] = valueOf(reply.get(7 + i));
    }
    return new RedisWindowSnapshot(count, sum, rejectedCount, start, end, ranks, values, totals());
  }

  /** What this process published so far: the totals its snapshots carry. */
  private WindowTotals totals() {
    return new WindowTotals(stored.sum(), storedSum.sum(), rejected.sum());
  }

  private static long valueOf(Object member) {
    return Long.parseLong(((String) member).substring(0, 19));
  }

  /** The rank the snapshot script computes: max(1, ceil(scaled * n / 10^8)). */
  static long serverRank(String scaled, long n) {
    long rank = new BigDecimal(scaled).multiply(BigDecimal.valueOf(n))
        .divide(BigDecimal.valueOf(100_000_000L), 0, RoundingMode.CEILING).longValueExact();
    return Math.max(1, rank);
  }

  /** Percentiles as integers scaled by 10^6 (rounded up past six decimals), as the script expects. */
  static String[] scaled(double[] ps) {
    String[] out = new String[ps.length];
    for (int i = 0; i < ps.length; i++) {
      out[i] = BigDecimal.valueOf(ps[i]).movePointRight(6).setScale(0, RoundingMode.CEILING).toPlainString();
    }
    return out;
  }

  static String padded(long value) {
    String digits = Long.toString(value);
    if (digits.length() >= 19) {
      return digits;
    }
    char[] out = new char[19];
    int zeros = 19 - digits.length();
    Arrays.fill(out, 0, zeros, '0');
    digits.getChars(0, digits.length(), out, zeros);
    return new String(out);
  }

  @Override
  public Duration length() {
    return length;
  }

  /** The configured time source, or {@link TimeSource#system()} with the server time base. */
  @Override
  public TimeSource timeSource() {
    return clientTime != null ? clientTime : TimeSource.system();
  }

  /** Heap held in this process: the replay buffer (as filled now) and the local fallback window. */
  @Override
  public long footprintBytes() {
    return 256L + buffer.size() * 120L + (local == null ? 0 : local.footprintBytes());
  }

  /** What happened to this process's samples so far; see {@link RedisWindowStats}. */
  public RedisWindowStats stats() {
    return new RedisWindowStats(recorded.sum(), stored.sum(), duplicates.sum(), rejected.sum(),
        expired.sum(), trimmed.sum(), buffer.size(), replayed.sum(), dropped.sum(), failedCalls.sum(),
        skewCorrections.sum(), degradedSnapshots.sum(), runner.scriptReloads.sum());
  }

  @Override
  public String toString() {
    return "RedisRollingWindow[" + name + ", " + length + ", keys " + keys[0] + "]";
  }

  private record Pending(long micros, String member, String value) {}

  /**
   * Configures a {@link RedisRollingWindow}; not thread-safe. {@link #build()} checks everything
   * before anything is sent to Redis and may be called again.
   */
  public static final class Builder {
    static final Duration MAX_LENGTH = Duration.ofDays(31);
    private final RedisBackend backend;
    private final String name;
    private Duration length = Duration.ofMinutes(1);
    private int maxSamples = 100_000;
    private TimeSource timeSource;
    private Duration maxClockSkew;
    private double[] percentiles = DEFAULT_PERCENTILES;
    private WindowConfig localFallback;
    private boolean timeSourceSet;
    private boolean maxClockSkewSet;
    private boolean localFallbackSet;
    private int bufferCapacity = 100_000;
    private int maxInFlight = 4_096;

    Builder(RedisBackend backend, String name) {
      this.backend = backend;
      this.name = name;
    }

    /** How far back the window reaches: 1 ms to 31 days, whole microseconds (default 1 minute). */
    public Builder length(Duration length) {
      this.length = length;
      return this;
    }

    /**
     * Most samples the window keeps (default 100,000; at most 10,000,000): beyond it the oldest are
     * trimmed, counted and logged with {@value RedisRollingWindow#CARDINALITY_CAP_WARNING}.
     */
    public Builder maxSamples(int maxSamples) {
      this.maxSamples = maxSamples;
      return this;
    }

    /**
     * Times samples and snapshots with this source instead of the Redis server's clock. Its
     * readings must be nanoseconds on a base every client of the window shares (for example
     * epoch nanoseconds from synchronised clocks) and within ±2<sup>53</sup> µs; readings outside
     * that range are counted as rejected.
     */
    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = timeSource;
      this.timeSourceSet = true;
      return this;
    }

    /**
     * With {@link #timeSource}: a reading further than this from the Redis server's clock is
     * replaced by the server's clock (and counted), so a skewed client cannot misplace samples.
     * Requires readings in epoch nanoseconds; 0 to 1 hour.
     */
    public Builder maxClockSkew(Duration maxSkew) {
      this.maxClockSkew = maxSkew;
      this.maxClockSkewSet = true;
      return this;
    }

    /**
     * Percentiles every {@link RedisRollingWindow#snapshot()} fetches exactly (0 and 100 always
     * are); at most 64, each 0 to 100.
     */
    public Builder percentiles(double... percentiles) {
      this.percentiles = percentiles == null ? null : percentiles.clone();
      return this;
    }

    /**
     * Also records every sample into an in-process window of this configuration, whose snapshot
     * {@link RedisRollingWindow#snapshot()} returns (this process's samples only) when Redis
     * cannot answer. Off by default: then such a snapshot throws {@link RedisUnavailableException}.
     */
    public Builder localFallback(WindowConfig config) {
      this.localFallback = config;
      this.localFallbackSet = true;
      return this;
    }

    /** Samples kept in memory for replay while Redis is unreachable (default 100,000). */
    public Builder bufferCapacity(int capacity) {
      this.bufferCapacity = capacity;
      return this;
    }

    /** Record calls outstanding at once before a recording thread waits (default 4,096). */
    public Builder maxInFlight(int maxInFlight) {
      this.maxInFlight = maxInFlight;
      return this;
    }

    /**
     * Checks every value and returns the window.
     *
     * @throws NullPointerException if a value was set to null
     * @throws IllegalArgumentException if a value is out of range, naming it
     */
    public RedisRollingWindow build() {
      Checks.requireLength("name", name, 1024);
      Checks.requireNonNull("length", length);
      if (length.compareTo(Duration.ofMillis(1)) < 0 || length.compareTo(MAX_LENGTH) > 0
          || length.toNanos() % 1000 != 0) {
        throw Checks.invalid("length", "whole microseconds between 1 ms and 31 days", length);
      }
      Checks.requireBetween("maxSamples", maxSamples, 1, 10_000_000);
      if (timeSourceSet) {
        Checks.requireNonNull("timeSource", timeSource);
      }
      if (maxClockSkewSet) {
        Checks.requireBetweenNanos("maxClockSkew", maxClockSkew, Duration.ZERO, Duration.ofHours(1));
        if (timeSource == null) {
          throw Checks.invalid("maxClockSkew", "set with a timeSource", maxClockSkew + " without one");
        }
      }
      Checks.requireNonNull("percentiles", percentiles);
      if (percentiles.length > 64) {
        throw Checks.invalid("percentiles", "at most 64 values", percentiles.length + " values");
      }
      for (double p : percentiles) {
        Checks.requirePercentile(p);
      }
      if (localFallbackSet) {
        Checks.requireNonNull("localFallback", localFallback);
      }
      Checks.requireBetween("bufferCapacity", bufferCapacity, 1, 10_000_000);
      Checks.requireBetween("maxInFlight", maxInFlight, 1, 1_000_000);
      return new RedisRollingWindow(this);
    }
  }
}
