package io.ringtail.redis;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.internal.Checks;
import io.ringtail.redis.WindowProtocol.Sample;
import java.time.Duration;

/**
 * A rolling window shared by every process that builds it with the same name on the same Redis: raw
 * samples live in two sorted sets (one scored by time, one by value) and an exact sum, updated by
 * one atomic Lua script per operation. Count, sum, min, max and nearest-rank percentiles are exact;
 * a percentile costs one O(log N) rank lookup on the server, and no sample is transferred to the
 * client.
 *
 * <h2>Window and time base</h2>
 *
 * Samples are timed in microseconds. A snapshot at {@code now} holds every sample timed in {@code
 * (now - length, now]} (lower bound exclusive), reported as {@code [startNanos, endNanos]} with
 * {@code startNanos = (nowMicros - lengthMicros + 1) * 1000}. By default {@code now} and every
 * sample's time are the Redis server's {@code TIME} read inside the script, the one clock of the
 * fleet, so client clocks do not matter; snapshot intervals are then server epoch nanoseconds and
 * {@link #recordAt} stamps samples at arrival like {@link #record}. With {@link
 * Builder#timeSource(TimeSource)} the caller's readings (nanoseconds on a base shared by the fleet,
 * |t| &lt; 2<sup>53</sup> µs) are used instead, optionally with a skew guard that falls back to
 * server time when a reading is too far from it.
 *
 * <h2>Failure behaviour</h2>
 *
 * Recording is asynchronous and never throws: samples are sent in batches (up to 256 per script
 * call, up to 4 calls pipelined on the user's connection; samples recorded while calls are in
 * flight ride in the next call), with at most {@code maxInFlight} samples outstanding. A call that
 * fails (timeout, connection loss, open circuit breaker) puts its samples, with their times, into a
 * bounded in-memory buffer that is replayed idempotently (by event id) after the next successful
 * call or on {@link #flush}; a sample that finds the buffer full is dropped and counted. See {@link
 * #stats()} for every way a sample can fail to be kept. {@link #snapshot()} waits for this
 * process's in-flight records first (read-your-writes), then reads, both within one command
 * timeout; if Redis cannot answer in that time it returns the optional local fallback window's
 * snapshot, else throws {@link RedisUnavailableException}.
 *
 * <h2>Percentiles</h2>
 *
 * A snapshot fetches the exact nearest-rank values of a set of percentiles chosen up front ({@link
 * Builder#percentiles}, or {@link #snapshot(double...)}), plus exact min and max, in the same
 * atomic script. {@link WindowSnapshot#valueAtPercentile} is exact for those percentiles, 0 and
 * 100, and for any other percentile whose nearest rank coincides with one of them; otherwise it
 * returns the value at the next fetched rank above, an upper bound.
 *
 * <h2>Totals</h2>
 *
 * A snapshot's {@link WindowSnapshot#totals() totals} are this process's share since the window
 * object was built: samples Redis stored for it (not duplicates, not expired), their sum, and its
 * rejected samples (as in {@link #stats()}). Every process publishes its own, so a fleet-wide rate
 * is the sum over processes ({@code sum(rate(..._total[5m]))}); a snapshot answered by the local
 * fallback window carries that window's totals instead.
 *
 * <p>Thread-safe: any number of threads may record and take snapshots.
 */
public final class RedisRollingWindow implements RollingWindow {
  /** The stable code logged (at WARNING) when the cardinality cap trims samples. */
  public static final String CARDINALITY_CAP_WARNING = "ERR_WINDOW_031";

  private static final double[] DEFAULT_PERCENTILES = {
    1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99
  };

  private final String name;
  private final Duration length;
  private final TimeSource clientTime;
  private final TimeSource localClock;
  private final long timeoutNanos;
  private final String[] percentileArgs;
  private final ScriptRunner runner;
  private final WindowProtocol protocol;
  private final WindowCounters counters;
  private final SampleStamper stamper;
  private final RecordPipeline pipeline;
  private final LocalFallback local;

  private RedisRollingWindow(Builder b) {
    this.name = b.name;
    this.length = b.length;
    this.clientTime = b.timeSource;
    this.localClock = b.localClock;
    this.runner = b.backend.runner;
    this.timeoutNanos = runner.timeoutNanos();
    this.percentileArgs = WindowProtocol.scaled(b.percentiles);
    this.protocol =
        new WindowProtocol(runner, b.backend.keyPrefix, name, length, b.maxSamples, b.maxClockSkew);
    this.counters = new WindowCounters(name, b.maxSamples, localClock);
    ServerOffset serverTime = new ServerOffset(localClock, WallClock.INSTANCE);
    this.stamper = new SampleStamper(clientTime, serverTime);
    this.pipeline =
        new RecordPipeline(
            protocol,
            clientTime,
            serverTime,
            counters,
            b.maxInFlight,
            b.bufferCapacity,
            timeoutNanos);
    this.local = new LocalFallback(b.localFallback, clientTime, localClock, counters);
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
    counters.recorded.increment();
    Sample sample = stamper.stamp(value, eventId, timeNanos);
    if (sample == null) {
      counters.rejected.increment();
      return;
    }
    local.record(value, timeNanos);
    pipeline.submit(sample);
  }

  /**
   * Waits, at most {@code timeout}, until this process's in-flight records are answered and its
   * buffered samples are replayed (retrying every 20 ms while Redis or the breaker refuses).
   * Returns whether nothing is left pending.
   */
  public boolean flush(Duration timeout) {
    long deadline = localClock.nanoTime() + Checks.requirePositiveNanos("timeout", timeout);
    return pipeline.flush(deadline, localClock);
  }

  /** A snapshot with the configured percentiles (see the class doc). */
  @Override
  public WindowSnapshot snapshot() {
    return take(percentileArgs);
  }

  /**
   * A snapshot whose {@code valueAtPercentile} is exact for each of {@code percentiles} (and for 0
   * and 100); the server does one rank lookup per percentile.
   *
   * @throws IllegalArgumentException if a percentile is outside 0..100 or NaN
   */
  public WindowSnapshot snapshot(double... percentiles) {
    double[] ps = Checks.requireNonNull("percentiles", percentiles).clone();
    for (double p : ps) {
      Checks.requirePercentile(p);
    }
    return take(WindowProtocol.scaled(ps));
  }

  /**
   * Waits for in-flight records (read-your-writes), then reads: both within one command timeout.
   */
  private WindowSnapshot take(String[] scaledPercentiles) {
    long deadline = localClock.nanoTime() + timeoutNanos;
    pipeline.awaitIdle(timeoutNanos);
    pipeline.replayIfPending();
    try {
      return protocol.read(scaledPercentiles, clientTime, deadline, localClock, counters::totals);
    } catch (RedisUnavailableException e) {
      return local.snapshotFor(e);
    }
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
    return 256L + pipeline.buffered() * 120L + local.footprintBytes();
  }

  /** What happened to this process's samples so far; see {@link RedisWindowStats}. */
  public RedisWindowStats stats() {
    return counters.stats(pipeline.buffered(), runner.scriptReloads.sum());
  }

  @Override
  public String toString() {
    return "RedisRollingWindow[" + name + ", " + length + ", keys " + protocol.timeKey() + "]";
  }

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
    private TimeSource localClock = TimeSource.system();

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
     * readings must be nanoseconds on a base every client of the window shares (for example epoch
     * nanoseconds from synchronised clocks) and within ±2<sup>53</sup> µs; readings outside that
     * range are counted as rejected.
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
     * {@link RedisRollingWindow#snapshot()} returns (this process's samples only) when Redis cannot
     * answer. Off by default: then such a snapshot throws {@link RedisUnavailableException}.
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

    /** The monotonic clock for timeouts and the server-time estimate (tests inject one). */
    Builder localClock(TimeSource clock) {
      this.localClock = clock;
      return this;
    }

    /**
     * Checks every value and returns the window; sends nothing to Redis.
     *
     * @throws NullPointerException if a value was set to null
     * @throws IllegalArgumentException if a value is out of range, naming it
     */
    public RedisRollingWindow build() {
      Checks.requireLength("name", name, 1024);
      Checks.requireNonNull("length", length);
      if (length.compareTo(Duration.ofMillis(1)) < 0
          || length.compareTo(MAX_LENGTH) > 0
          || length.toNanos() % 1000 != 0) {
        throw Checks.invalid("length", "whole microseconds between 1 ms and 31 days", length);
      }
      Checks.requireBetween("maxSamples", maxSamples, 1, 10_000_000);
      if (timeSourceSet) {
        Checks.requireNonNull("timeSource", timeSource);
      }
      if (maxClockSkewSet) {
        Checks.requireBetweenNanos(
            "maxClockSkew", maxClockSkew, Duration.ZERO, Duration.ofHours(1));
        if (timeSource == null) {
          throw Checks.invalid(
              "maxClockSkew", "set with a timeSource", maxClockSkew + " without one");
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
      Checks.requireNonNull("localClock", localClock);
      return new RedisRollingWindow(this);
    }
  }
}
