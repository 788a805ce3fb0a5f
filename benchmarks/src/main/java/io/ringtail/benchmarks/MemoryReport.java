package io.ringtail.benchmarks;

import io.ringtail.RollingWindow;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jol.info.GraphLayout;

/**
 * Retained heap of one 60 s window after filling it at 10,000 samples/s (600,000 samples) on an
 * injected clock, measured by walking the object graph with JOL
 * ({@code GraphLayout.parseInstance(root).totalSize()}). Ringtail's own
 * {@link RollingWindow#footprintBytes()} is reported beside it.
 *
 * <p>A single-threaded command-line tool; each measurement builds its own contenders.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.ringtail.benchmarks.MemoryReport}
 */
public final class MemoryReport {
  static final int RATE_PER_SECOND = 10_000;
  static final int SAMPLES = RATE_PER_SECOND * 60;

  /** One contender's measurement. */
  record Row(Contender.Kind kind, long retainedBytes, long footprintBytes, long samples) {}

  static {
    // JOL cannot read field offsets of hidden (lambda) classes through Unsafe on JDK 17 otherwise.
    System.setProperty("jol.magicFieldOffset", "true");
  }

  private MemoryReport() {}

  static final Contender.Kind[] KINDS = {
      Contender.Kind.RINGTAIL, Contender.Kind.RINGTAIL_12_BUCKETS, Contender.Kind.RINGTAIL_COMPACT,
      Contender.Kind.HDR_RECORDER,
      Contender.Kind.MICROMETER, Contender.Kind.MICROMETER_2_DIGITS, Contender.Kind.DROPWIZARD,
      Contender.Kind.ROLLING_METRICS, Contender.Kind.LONG_ADDER};

  static List<Row> measure() {
    List<Row> rows = new ArrayList<>();
    for (Contender.Kind kind : KINDS) {
      rows.add(measure(kind));
    }
    return rows;
  }

  static Row measure(Contender.Kind kind) {
    SimClock clock = new SimClock();
    Contender contender = Contender.create(kind, clock);
    Latencies.Cursor values = new Latencies.Cursor(0);
    long step = TimeUnit.SECONDS.toNanos(1) / RATE_PER_SECOND;
    for (int i = 0; i < SAMPLES; i++) {
      clock.set(i * step);
      contender.record(values.next());
    }
    Object root = contender.root();
    long retained = GraphLayout.parseInstance(root).totalSize();
    long footprint = root instanceof RollingWindow w ? w.footprintBytes() : -1;
    return new Row(kind, retained, footprint, SAMPLES);
  }

  public static void main(String[] args) {
    for (Row row : measure()) {
      System.out.printf("%-40s retained %,12d B%s%n", row.kind().label, row.retainedBytes(),
          row.footprintBytes() < 0 ? "" : String.format("  footprintBytes() %,d B", row.footprintBytes()));
    }
  }
}
