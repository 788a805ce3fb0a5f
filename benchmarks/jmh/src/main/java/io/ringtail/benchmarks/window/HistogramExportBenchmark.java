package io.ringtail.benchmarks.window;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusProtobufWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.ringtail.ExemplarReservoir;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.micrometer.WindowMetrics;
import io.ringtail.prometheus.WindowHistograms;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the aggregatable export costs: a scrape of 100 windows' histograms since creation ({@code
 * ringtail-prometheus}: classic and native buckets) in each exposition format, beside the
 * gauges-only scrape of the same windows (Micrometer binding); and what a record costs with an
 * exemplar offered, beside the record alone, on a window that keeps its cumulative histogram and on
 * one that does not. The windows hold 10,000 samples each (log-uniform, 0.1 ms to 1 s) recorded
 * over 100 buckets' rotations, so their histograms since creation are full. Each scrape's size in
 * bytes is printed once at setup. Single-threaded.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar HistogramExportBenchmark}.
 */
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class HistogramExportBenchmark {
  static final int WINDOWS = 100;

  private PrometheusMeterRegistry gauges;
  private PrometheusRegistry histograms;
  private PrometheusRegistry coarseHistograms;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 20);
  private final ExpositionFormatWriter text = PrometheusTextFormatWriter.create();
  private final ExpositionFormatWriter openMetrics = OpenMetricsTextFormatWriter.create();
  private final ExpositionFormatWriter protobuf = new PrometheusProtobufWriter();

  private RollingWindow plain;
  private RollingWindow cumulative;
  private ExemplarReservoir exemplars;
  private long[] values;
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    ManualTimeSource clock = new ManualTimeSource();
    WindowConfig config = WindowConfig.builder().cumulativeHistogram(true).build();
    SplittableRandom random = new SplittableRandom(1);
    gauges = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    histograms = new PrometheusRegistry();
    WindowHistograms.Builder export = WindowHistograms.builder();
    WindowHistograms.Builder coarse = WindowHistograms.builder().nativeSchema(3);
    coarseHistograms = new PrometheusRegistry();
    for (int w = 0; w < WINDOWS; w++) {
      RollingWindow window = RollingWindow.create(config, clock);
      ExemplarReservoir reservoir = ExemplarReservoir.create(Duration.ofHours(1), clock);
      for (int i = 0; i < 10_000; i++) {
        long v = logUniform(random);
        window.record(v);
        reservoir.offer(v, Long.toHexString(random.nextLong()), null);
        if (i % 100 == 99) {
          clock.advance(Duration.ofSeconds(1));
        }
      }
      WindowMetrics.monitor(gauges, window, "route" + w);
      export.window("route" + w, window, reservoir);
      coarse.window("route" + w, window, reservoir);
    }
    export.build().register(histograms);
    coarse.build().register(coarseHistograms);
    System.out.printf(
        "%nbytes per scrape of %d windows: gauges (Micrometer, text) %,d; histograms: Prometheus"
            + " text %,d, OpenMetrics text %,d, protobuf %,d%n",
        WINDOWS, gaugesScrape().length(), size(text), size(openMetrics), size(protobuf));

    plain = RollingWindow.create(WindowConfig.defaults(), TimeSource.system());
    cumulative = RollingWindow.create(config, TimeSource.system());
    exemplars = ExemplarReservoir.create(Duration.ofMinutes(1), TimeSource.system());
    values = new long[1 << 16];
    for (int i = 0; i < values.length; i++) {
      values[i] = logUniform(random);
    }
  }

  private static long logUniform(SplittableRandom random) {
    return (long) Math.exp(random.nextDouble(Math.log(1e5), Math.log(1e9)));
  }

  private int size(ExpositionFormatWriter writer) throws IOException {
    out.reset();
    writer.write(out, histograms.scrape(), EscapingScheme.DEFAULT);
    return out.size();
  }

  private String gaugesScrape() {
    return gauges.scrape();
  }

  /**
   * The gauges-only scrape of the 100 windows: Micrometer's text page (9 gauges, 3 counters each).
   */
  @Benchmark
  public String scrapeGauges() {
    return gaugesScrape();
  }

  /** Reading the 100 histograms into the client's snapshots, without writing them. */
  @Benchmark
  public MetricSnapshots collectHistograms() {
    return histograms.scrape();
  }

  /** The same at native schema 3 (buckets 9 % wide, an eighth as many as at schema 6). */
  @Benchmark
  public MetricSnapshots collectHistogramsSchema3() {
    return coarseHistograms.scrape();
  }

  /** A scrape of the 100 histograms in the Prometheus text format (classic buckets). */
  @Benchmark
  public int scrapeHistogramsText() throws IOException {
    return size(text);
  }

  /** The same in OpenMetrics text, with the exemplars. */
  @Benchmark
  public int scrapeHistogramsOpenMetrics() throws IOException {
    return size(openMetrics);
  }

  /**
   * The same in protobuf, classic and native buckets: what a server with native histograms reads.
   */
  @Benchmark
  public int scrapeHistogramsProtobuf() throws IOException {
    return size(protobuf);
  }

  /** A record into a window that keeps no cumulative histogram: the floor. */
  @Benchmark
  public void record() {
    plain.record(values[next++ & (values.length - 1)]);
  }

  /** A record into a window that keeps its cumulative histogram: the same path. */
  @Benchmark
  public void recordKeepingCumulative() {
    cumulative.record(values[next++ & (values.length - 1)]);
  }

  /** A record, and the same sample offered as an exemplar with a trace id. */
  @Benchmark
  public void recordWithExemplar() {
    long v = values[next++ & (values.length - 1)];
    cumulative.record(v);
    exemplars.offer(v, "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
  }
}
