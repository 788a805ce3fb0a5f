package io.ringtail.benchmarks.window;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.alert.AlertMonitor;
import io.ringtail.alert.AlertRule;
import io.ringtail.alert.Measure;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.micrometer.KeyedWindowMetrics;
import io.ringtail.micrometer.WindowMetrics;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What reading costs: a snapshot, a Prometheus scrape of bound windows, and an alert evaluation, on
 * one window of 100k samples and on {@link KeyedWindows} of 100 keys x 1k samples (values
 * log-uniform in 0.1 ms..1 s). {@code noRules} and {@code percentileOfTakenSnapshot} are the floors
 * the others compare against. Single-threaded; the state is shared by nothing else.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar ScrapeBenchmark}.
 */
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class ScrapeBenchmark {
  private RollingWindow window;
  private WindowSnapshot taken;
  private PrometheusMeterRegistry oneWindow;
  private KeyedWindows keyed;
  private PrometheusMeterRegistry keyedRegistry;
  private AlertMonitor empty;
  private AlertMonitor p95;
  private AlertMonitor sloBurn;
  private Measure fractionAbove;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(1);
    oneWindow = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    window = WindowMetrics.monitor(oneWindow, RollingWindow.create(WindowConfig.defaults()), "w");
    for (int i = 0; i < 100_000; i++) {
      window.record(logUniform(random));
    }
    taken = window.snapshot();

    keyedRegistry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    keyed = KeyedWindows.builder().build();
    for (int k = 0; k < 100; k++) {
      for (int i = 0; i < 1000; i++) {
        keyed.record("k" + k, logUniform(random));
      }
    }
    KeyedWindowMetrics.monitor(keyedRegistry, keyed, "tools");
    keyedRegistry.scrape();

    empty = AlertMonitor.create();
    p95 =
        AlertMonitor.create()
            .add(AlertRule.threshold("p95", window, Measure.percentile(95)).above(2.5e8).build());
    sloBurn =
        AlertMonitor.create()
            .add(AlertRule.sloBurn("slo", window, 300_000_000L, 0.99).above(14.4).build());
    fractionAbove = Measure.fractionAbove(300_000_000L);
  }

  private static long logUniform(SplittableRandom random) {
    return (long) Math.exp(random.nextDouble(Math.log(1e5), Math.log(1e9)));
  }

  /** {@code snapshot()} of the 100k-sample window alone. */
  @Benchmark
  public WindowSnapshot snapshot() {
    return window.snapshot();
  }

  /** A Prometheus scrape of the one bound window (9 gauges). */
  @Benchmark
  public String scrapeOneWindow() {
    return oneWindow.scrape();
  }

  /** {@code snapshots()} of the 100 keys alone. */
  @Benchmark
  public Object keyedSnapshots() {
    return keyed.snapshots();
  }

  /** A Prometheus scrape of the bound {@link KeyedWindows} (100 keys, 902 meters). */
  @Benchmark
  public String scrapeKeyed() {
    return keyedRegistry.scrape();
  }

  /** {@code AlertMonitor.evaluate()} with no rule: the floor of an evaluation. */
  @Benchmark
  public Object noRules() {
    return empty.evaluate();
  }

  /** One P95 threshold rule on the 100k-sample window. */
  @Benchmark
  public Object p95Rule() {
    return p95.evaluate();
  }

  /** One SLO burn-rate rule on the 100k-sample window. */
  @Benchmark
  public Object sloBurnRule() {
    return sloBurn.evaluate();
  }

  /** {@code Measure.fractionAbove} on a snapshot already taken. */
  @Benchmark
  public double fractionAboveOfTakenSnapshot() {
    return fractionAbove.of(taken);
  }

  /** One {@code valueAtPercentile} on a snapshot already taken. */
  @Benchmark
  public double percentileOfTakenSnapshot() {
    return taken.valueAtPercentile(95);
  }
}
