package io.ringtail.micrometer;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.alert.AlertMonitor;
import io.ringtail.alert.AlertRule;
import io.ringtail.keyed.KeyedWindows;
import java.util.SplittableRandom;

/**
 * Rough costs of a scrape and of an alert evaluation; a measuring tool, not a test (no timing
 * is asserted anywhere). Run from the repository root:
 * <pre>
 * mvn -B -q -ntp -pl core -am test-compile
 * mvn -B -q -ntp -pl core dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -cp core/target/classes:core/target/test-classes:$(cat /tmp/cp.txt) io.ringtail.micrometer.ScrapeCostProbe
 * </pre>
 */
public final class ScrapeCostProbe {
  private ScrapeCostProbe() {}

  static long bench(String label, int reps, Runnable r) {
    for (int i = 0; i < reps / 5 + 1; i++) r.run();
    long best = Long.MAX_VALUE;
    for (int round = 0; round < 5; round++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < reps; i++) r.run();
      best = Math.min(best, (System.nanoTime() - t0) / reps);
    }
    System.out.printf("%-70s %,12d ns/op (best of 5 rounds x %d)%n", label, best, reps);
    return best;
  }

  public static void main(String[] a) {
    SplittableRandom rnd = new SplittableRandom(1);
    // one window, 100k samples
    PrometheusMeterRegistry one = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RollingWindow w = WindowMetrics.monitor(one, RollingWindow.create(WindowConfig.defaults()), "w");
    for (int i = 0; i < 100_000; i++) w.record((long) Math.exp(rnd.nextDouble(Math.log(1e5), Math.log(1e9))));
    bench("window.snapshot() alone, 100k samples, default config", 2000, () -> w.snapshot());
    bench("Prometheus scrape, 1 bound window (9 gauges)", 2000, () -> one.scrape());

    PrometheusMeterRegistry keyedReg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    KeyedWindows keyed = KeyedWindows.builder().build();
    for (int k = 0; k < 100; k++) for (int i = 0; i < 1000; i++) keyed.record("k" + k, (long) Math.exp(rnd.nextDouble(Math.log(1e5), Math.log(1e9))));
    KeyedWindowMetrics.monitor(keyedReg, keyed, "tools");
    keyedReg.scrape();
    bench("keyed.snapshots() alone, 100 keys x 1k samples", 200, () -> keyed.snapshots());
    bench("Prometheus scrape, KeyedWindows 100 keys bound (902 meters)", 200, () -> keyedReg.scrape());

    AlertMonitor empty = AlertMonitor.create();
    bench("AlertMonitor.evaluate(), no rules", 1_000_000, () -> empty.evaluate());
    AlertMonitor p95 = AlertMonitor.create().add(AlertRule.threshold("p95", w, io.ringtail.alert.Measure.percentile(95)).above(2.5e8).build());
    bench("AlertMonitor.evaluate(), 1 P95 threshold rule, 100k-sample window", 2000, () -> p95.evaluate());
    AlertMonitor slo = AlertMonitor.create().add(AlertRule.sloBurn("slo", w, 300_000_000L, 0.99).above(14.4).build());
    bench("AlertMonitor.evaluate(), 1 SLO burn rule, 100k samples", 2000, () -> slo.evaluate());
    WindowSnapshot s = w.snapshot();
    io.ringtail.alert.Measure frac = io.ringtail.alert.Measure.fractionAbove(300_000_000L);
    bench("Measure.fractionAbove on a taken snapshot, 100k samples", 2000, () -> frac.of(s));
    bench("one valueAtPercentile on a taken snapshot", 20000, () -> s.valueAtPercentile(95));
  }
}
