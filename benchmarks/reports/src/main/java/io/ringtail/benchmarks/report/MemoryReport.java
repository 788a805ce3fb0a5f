package io.ringtail.benchmarks.report;

import io.ringtail.RollingWindow;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.benchmarks.toolkit.SimClock;
import io.ringtail.benchmarks.window.Contender;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jol.info.GraphLayout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Retained heap of one 60 s window after filling it at 10,000 samples/s (600,000 samples) on an
 * injected clock, measured by walking the object graph with JOL ({@code
 * GraphLayout.parseInstance(root).totalSize()}). Ringtail's own {@link
 * RollingWindow#footprintBytes()} is reported beside it.
 *
 * <p>A single-threaded command-line tool; each measurement builds its own contenders.
 *
 * <p>Run: {@code java -cp benchmarks/reports/target/reports.jar
 * io.ringtail.benchmarks.report.MemoryReport} ({@code --long-run}: one window's footprint after 1
 * min, 10 min and 1 h for 6, 12 and 60 buckets)
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
    Contender.Kind.RINGTAIL,
    Contender.Kind.RINGTAIL_12_BUCKETS,
    Contender.Kind.RINGTAIL_COMPACT,
    Contender.Kind.HDR_RECORDER,
    Contender.Kind.MICROMETER,
    Contender.Kind.MICROMETER_2_DIGITS,
    Contender.Kind.DROPWIZARD,
    Contender.Kind.ROLLING_METRICS,
    Contender.Kind.LONG_ADDER
  };

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

  /** Minutes at which the long run measures: one window length, ten, sixty. */
  static final int[] LONG_RUN_MINUTES = {1, 10, 60};

  /**
   * One window shape over an hour: retained bytes and footprintBytes() at each of {@link
   * #LONG_RUN_MINUTES}.
   */
  record LongRunRow(int buckets, long[] retainedBytes, long[] footprintBytes) {}

  /**
   * A default 60 s window (two stripes) in 6, 12 and 60 buckets, recorded at 10,000 samples/s for
   * an hour of injected time, measured with JOL after 1, 10 and 60 minutes.
   */
  static List<LongRunRow> longRun() {
    List<LongRunRow> rows = new ArrayList<>();
    for (int buckets : new int[] {6, 12, 60}) {
      SimClock clock = new SimClock();
      RollingWindow window =
          RollingWindow.create(
              io.ringtail.WindowConfig.builder().buckets(buckets).stripes(2).build(), clock);
      Latencies.Cursor values = new Latencies.Cursor(0);
      long step = TimeUnit.SECONDS.toNanos(1) / RATE_PER_SECOND;
      long[] retained = new long[LONG_RUN_MINUTES.length];
      long[] footprint = new long[LONG_RUN_MINUTES.length];
      long i = 0;
      for (int m = 0; m < LONG_RUN_MINUTES.length; m++) {
        long until = (long) LONG_RUN_MINUTES[m] * 60 * RATE_PER_SECOND;
        for (; i < until; i++) {
          clock.set(i * step);
          window.record(values.next());
        }
        retained[m] = GraphLayout.parseInstance(window).totalSize();
        footprint[m] = window.footprintBytes();
      }
      rows.add(new LongRunRow(buckets, retained, footprint));
    }
    return rows;
  }

  /** The command line. */
  @Command(
      name = "MemoryReport",
      description = "Retained heap of one 60 s window of every contender at 10,000 samples/s.")
  static final class Options {
    @Mixin ReportOptions common = ReportOptions.printing();

    @Option(
        names = "--long-run",
        description =
            "One window's footprint after 1 min, 10 min and 1 h for 6, 12 and 60 buckets.")
    boolean longRun;
  }

  public static void main(String[] args) {
    Options cli = Cli.parse(new Options(), args);
    if (cli.longRun) {
      System.out.println("| buckets | 1 min | 10 min | 1 h | 1 h / 1 min |");
      System.out.println("|---:|---:|---:|---:|---:|");
      List<LongRunRow> rows = longRun();
      for (LongRunRow row : rows) {
        long[] r = row.retainedBytes();
        System.out.printf(
            "| %d | %,d B | %,d B | %,d B | %.3f |%n",
            row.buckets(), r[0], r[1], r[2], (double) r[2] / r[0]);
      }
      for (LongRunRow row : rows) {
        long[] f = row.footprintBytes();
        System.out.printf(
            "footprintBytes() %d buckets: %,d / %,d / %,d B%n", row.buckets(), f[0], f[1], f[2]);
      }
      return;
    }
    for (Row row : measure()) {
      System.out.printf(
          "%-40s retained %,12d B%s%n",
          row.kind().label,
          row.retainedBytes(),
          row.footprintBytes() < 0
              ? ""
              : String.format("  footprintBytes() %,d B", row.footprintBytes()));
    }
  }
}
