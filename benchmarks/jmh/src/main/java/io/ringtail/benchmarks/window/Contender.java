package io.ringtail.benchmarks.window;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.SlidingTimeWindowArrayReservoir;
import com.github.rollingmetrics.histogram.HdrBuilder;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.SimClock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * The one small interface every library in a benchmark sits behind: record a latency, read the P95
 * of what the library currently holds, and expose the object graph that holds it.
 *
 * <p>Thread safety is the library's own: {@link #record} is called concurrently on one shared
 * instance in the multi-threaded benchmarks, which is exactly what is being measured.
 */
public interface Contender {
  /** The longest all windowed contenders cover. */
  Duration WINDOW = Duration.ofSeconds(60);

  /** Highest value every histogram contender is sized for: one hour in nanoseconds. */
  long HIGHEST = TimeUnit.HOURS.toNanos(1);

  /** Records one latency in nanoseconds, at the contender's clock's current time. */
  void record(long nanos);

  /**
   * The P95 of the samples the contender holds now, in nanoseconds; NaN if it has no percentiles.
   */
  double p95();

  /** The object graph a heap measurement should walk: the metric and what it retains. */
  Object root();

  /** Every contender the suites know. */
  enum Kind {
    /** Ringtail {@code record(v)}: reads its time source on every call. */
    RINGTAIL("Ringtail record(v)"),
    /**
     * Ringtail {@code recordAt(v, t)}: the caller supplies the time, as HdrHistogram's Recorder
     * needs none.
     */
    RINGTAIL_RECORD_AT("Ringtail recordAt(v, t)"),
    /**
     * Ringtail {@code record(v)} on a fake clock that forces a bucket rotation every 1,024 records.
     */
    RINGTAIL_ROTATING("Ringtail record(v), rotating"),
    /**
     * Ringtail {@code record(v)} starting with one stripe: every recording thread starts on it (the
     * collision case) until contention moves threads and adds stripes.
     */
    RINGTAIL_ONE_STRIPE("Ringtail record(v), starting on 1 stripe"),
    /**
     * Ringtail's compact window ({@code RollingWindow.createCompact}): memory grows with what it
     * holds; records take a lock.
     */
    RINGTAIL_COMPACT("Ringtail compact record(v)"),
    /** Ringtail with 12 buckets of 5 s instead of 60 of 1 s. */
    RINGTAIL_12_BUCKETS("Ringtail, 12 buckets"),
    /** HdrHistogram {@code Recorder.recordValue}: no window, no clock read (the floor). */
    HDR_RECORDER("HdrHistogram Recorder (no window)"),
    /**
     * Micrometer timer, {@code publishPercentiles(0.95)}, 60 s expiry, 3 buffers, default
     * precision.
     */
    MICROMETER("Micrometer Timer"),
    /** The same Micrometer timer at {@code percentilePrecision(2)}: Ringtail's precision. */
    MICROMETER_2_DIGITS("Micrometer Timer, 2 digits"),
    /** Dropwizard histogram over a 60 s {@code SlidingTimeWindowArrayReservoir}. */
    DROPWIZARD("Dropwizard SlidingTimeWindowArray"),
    /** rolling-metrics 2.0.5, 60 s reset by 6 chunks, 2 digits. */
    ROLLING_METRICS("rolling-metrics 60 s / 6 chunks"),
    /** {@code LongAdder.increment()}: counts only. */
    LONG_ADDER("LongAdder.increment (floor)"),
    /** {@code System.nanoTime()} alone: what one clock read costs. */
    NANO_TIME("System.nanoTime() (clock read)");

    public final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  /**
   * A fresh contender; every one that can take an injected clock reads {@code clock}, or its
   * library's system clock when {@code clock} is null.
   */
  static Contender create(Kind kind, SimClock clock) {
    switch (kind) {
      case RINGTAIL:
        return new RingtailRecord(
            WindowConfig.defaults(), clock == null ? TimeSource.system() : clock);
      case RINGTAIL_12_BUCKETS:
        return new RingtailRecord(
            WindowConfig.builder().buckets(12).build(),
            clock == null ? TimeSource.system() : clock);
      case RINGTAIL_ONE_STRIPE:
        return new RingtailRecord(
            WindowConfig.builder().stripes(1).build(), clock == null ? TimeSource.system() : clock);
      case RINGTAIL_COMPACT:
        return new RingtailRecord(
            RollingWindow.createCompact(
                WindowConfig.defaults(), clock == null ? TimeSource.system() : clock));
      case RINGTAIL_RECORD_AT:
        return clock == null ? new RingtailRecordAtFixed() : new RingtailRecordAtClock(clock);
      case RINGTAIL_ROTATING:
        return new RingtailRecord(
            WindowConfig.defaults(),
            new TickingTimeSource(
                WindowConfig.defaults().bucketWidth().toNanos()
                    / TickingTimeSource.READS_PER_BUCKET));
      case HDR_RECORDER:
        return new HdrRecorder();
      case MICROMETER:
        return new MicrometerTimer(clock, 1);
      case MICROMETER_2_DIGITS:
        return new MicrometerTimer(clock, 2);
      case DROPWIZARD:
        return new DropwizardSlidingWindow(clock);
      case ROLLING_METRICS:
        return new RollingMetrics(clock);
      case LONG_ADDER:
        return new Adder();
      case NANO_TIME:
        return new NanoTime();
      default:
        throw new IllegalArgumentException("kind must be known, but was " + kind);
    }
  }

  /**
   * A time source that moves forward by a fixed step on every read. Deliberately a plain field:
   * concurrent readers may lose steps or see a slightly older reading (the window records those
   * into its live bucket), which keeps the clock itself from becoming the contended line the
   * two-thread benchmark measures. For benchmarks only.
   */
  final class TickingTimeSource implements TimeSource {
    static final int READS_PER_BUCKET = 1024;
    private final long step;
    private long nanos;

    TickingTimeSource(long step) {
      this.step = step;
    }

    @Override
    public long nanoTime() {
      return nanos += step;
    }
  }

  final class RingtailRecord implements Contender {
    private final RollingWindow window;

    RingtailRecord(WindowConfig config, TimeSource timeSource) {
      this(RollingWindow.create(config, timeSource));
    }

    RingtailRecord(RollingWindow window) {
      this.window = window;
    }

    @Override
    public void record(long nanos) {
      window.record(nanos);
    }

    @Override
    public double p95() {
      return window.snapshot().valueAtPercentile(95);
    }

    @Override
    public Object root() {
      return window;
    }

    RollingWindow window() {
      return window;
    }
  }

  /** recordAt with one reading taken up front: the caller already holds its end-of-request time. */
  final class RingtailRecordAtFixed implements Contender {
    private final RollingWindow window = RollingWindow.create(WindowConfig.defaults());
    private final long at = window.timeSource().nanoTime();

    @Override
    public void record(long nanos) {
      window.recordAt(nanos, at);
    }

    @Override
    public double p95() {
      return window.snapshot().valueAtPercentile(95);
    }

    @Override
    public Object root() {
      return window;
    }
  }

  final class RingtailRecordAtClock implements Contender {
    private final SimClock clock;
    private final RollingWindow window;

    RingtailRecordAtClock(SimClock clock) {
      this.clock = clock;
      this.window = RollingWindow.create(WindowConfig.defaults(), clock);
    }

    @Override
    public void record(long nanos) {
      window.recordAt(nanos, clock.nanoTime());
    }

    @Override
    public double p95() {
      return window.snapshot().valueAtPercentile(95);
    }

    @Override
    public Object root() {
      return window;
    }
  }

  /** The floor: wait-free recording, no window; P95 reads everything recorded so far. */
  final class HdrRecorder implements Contender {
    private final Recorder recorder = new Recorder(1, HIGHEST, 2);
    private final org.HdrHistogram.Histogram accumulated =
        new org.HdrHistogram.Histogram(1, HIGHEST, 2);
    private org.HdrHistogram.Histogram interval;

    @Override
    public void record(long nanos) {
      recorder.recordValue(nanos);
    }

    @Override
    public synchronized double p95() {
      interval = recorder.getIntervalHistogram(interval);
      accumulated.add(interval);
      return accumulated.getValueAtPercentile(95);
    }

    @Override
    public Object root() {
      return recorder;
    }
  }

  final class MicrometerTimer implements Contender {
    private final Timer timer;

    MicrometerTimer(SimClock clock, int precision) {
      Clock micrometerClock =
          clock == null
              ? Clock.SYSTEM
              : new Clock() {
                @Override
                public long wallTime() {
                  return clock.wallMillis();
                }

                @Override
                public long monotonicTime() {
                  return clock.nanoTime();
                }
              };
      SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, micrometerClock);
      this.timer =
          Timer.builder("bench.latency")
              .publishPercentiles(0.95)
              .percentilePrecision(precision)
              .distributionStatisticExpiry(WINDOW)
              .register(registry);
    }

    @Override
    public void record(long nanos) {
      timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public double p95() {
      return timer.takeSnapshot().percentileValues()[0].value(TimeUnit.NANOSECONDS);
    }

    @Override
    public Object root() {
      return timer;
    }
  }

  final class DropwizardSlidingWindow implements Contender {
    private final Histogram histogram;

    DropwizardSlidingWindow(SimClock clock) {
      com.codahale.metrics.Clock dropwizardClock =
          clock == null
              ? com.codahale.metrics.Clock.defaultClock()
              : new com.codahale.metrics.Clock() {
                @Override
                public long getTick() {
                  return clock.nanoTime();
                }

                @Override
                public long getTime() {
                  return clock.wallMillis();
                }
              };
      this.histogram =
          new Histogram(
              new SlidingTimeWindowArrayReservoir(
                  WINDOW.toSeconds(), TimeUnit.SECONDS, dropwizardClock));
    }

    @Override
    public void record(long nanos) {
      histogram.update(nanos);
    }

    @Override
    public double p95() {
      return histogram.getSnapshot().get95thPercentile();
    }

    @Override
    public Object root() {
      return histogram;
    }
  }

  /**
   * Rotation runs on the recording thread (a direct executor), so injected time drives it
   * deterministically.
   */
  final class RollingMetrics implements Contender {
    private final Histogram histogram;

    RollingMetrics(SimClock clock) {
      HdrBuilder builder = clock == null ? new HdrBuilder() : new HdrBuilder(clock::wallMillis);
      this.histogram =
          builder
              .resetReservoirPeriodicallyByChunks(WINDOW, 6)
              .withBackgroundExecutor(Runnable::run)
              .buildHistogram();
    }

    @Override
    public void record(long nanos) {
      histogram.update(nanos);
    }

    @Override
    public double p95() {
      return histogram.getSnapshot().get95thPercentile();
    }

    @Override
    public Object root() {
      return histogram;
    }
  }

  final class Adder implements Contender {
    private final LongAdder adder = new LongAdder();

    @Override
    public void record(long nanos) {
      adder.increment();
    }

    @Override
    public double p95() {
      return Double.NaN;
    }

    @Override
    public Object root() {
      return adder;
    }
  }

  final class NanoTime implements Contender {
    private long never;

    @Override
    public void record(long nanos) {
      long t = System.nanoTime();
      if (t == Long.MIN_VALUE) {
        never = t;
      }
    }

    @Override
    public double p95() {
      return Double.NaN;
    }

    @Override
    public Object root() {
      return this;
    }
  }
}
