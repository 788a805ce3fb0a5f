package io.ringtail.benchmarks.window;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.SimClock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

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
}
