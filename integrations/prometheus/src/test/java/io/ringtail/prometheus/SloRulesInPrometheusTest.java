package io.ringtail.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.ringtail.TimeSource;
import io.ringtail.micrometer.SloMetrics;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.EventCounts;
import io.ringtail.slo.Objective;
import io.ringtail.slo.ObjectiveStatus;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import io.ringtail.slo.ServiceLevelStatus;
import io.ringtail.slo.SloConventions;
import io.ringtail.testsupport.PrometheusServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rules {@link SloRules} generates, loaded into a real Prometheus server that scrapes two
 * processes' {@link SloMetrics} counters every 500 ms and evaluates the rules every 500 ms: its
 * recorded burn rates against the burn rates Ringtail computes from the two processes' counts
 * merged ({@link ObjectiveStatus#of}), at the same instants, through a healthy spell, a fault and a
 * recovery (windows of 4 to 40 seconds by configuration, so the whole run takes about a minute).
 *
 * <p>The traffic is 2,000 events a second, alternating between the pods, each pod's failed and slow
 * events spread evenly within a phase, so any run of {@code N} consecutive events of one pod and
 * phase holds the phase's error ratio within {@code 1/N}, and the two pods' merged counts within
 * {@code 2/N}. The two views of a window differ only in which events they cover: Ringtail's window
 * is its live bucket plus 59 complete ones (it starts up to 1/60 of the window late); Prometheus's
 * recorded value at {@code T} was evaluated up to 500 ms earlier, over the scrapes within the
 * range, each up to 500 ms from the range's edges, and {@code rate()}'s extrapolation scales good
 * and total alike, leaving their ratio alone. So, with {@code δ = L/60 + 2 s} (both edges) and the
 * error ratio ranging over {@code [rMin, rMax]} in the window and {@code δ} before it: {@code |Δ
 * error ratio| <= (rMax - rMin) × min(1, δ / (L - δ)) + 2/N_ringtail + 2/N_prometheus}; a burn rate
 * is that over {@code 1 - target}. Within a phase the first term is zero and the two agree to a few
 * events in thousands.
 */
class SloRulesInPrometheusTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final int RATE = 2_000;
  static final double DELTA_SECONDS = 2.0;

  static final ServiceLevelConfig CONFIG =
      ServiceLevelConfig.builder("checkout")
          .latency("fast", Duration.ofMillis(300), 0.99)
          .availability("available", 0.99)
          .period(Duration.ofSeconds(40))
          .alerts(
              BurnRateAlert.page(14.4, Duration.ofSeconds(12), Duration.ofSeconds(4)),
              BurnRateAlert.ticket(1, Duration.ofSeconds(24), Duration.ofSeconds(6)))
          .build();

  /** Healthy, fault, recovery: seconds, and the fractions of events slow and failed. */
  static final double[][] PHASES = {{16, 0.005, 0.005}, {16, 0.30, 0.20}, {12, 0.005, 0.005}};

  /** Wall-clock nanoseconds, so a status's time is a Prometheus query time. */
  static final long OFFSET = System.currentTimeMillis() * 1_000_000 - System.nanoTime();

  /** While not {@code Long.MIN_VALUE}, the reading {@link #WALL} stands still at. */
  static volatile long frozenAt = Long.MIN_VALUE;

  /** The wall clock; it stands still while both pods' statuses are read, for one instant. */
  static final TimeSource WALL =
      () -> {
        long frozen = frozenAt;
        return frozen != Long.MIN_VALUE ? frozen : OFFSET + System.nanoTime();
      };

  static final List<Pod> PODS = new ArrayList<>();
  static final List<Reading> READINGS = new ArrayList<>();

  /** When each phase started, wall-clock nanoseconds. */
  static final long[] PHASE_STARTS = new long[PHASES.length + 1];

  static PrometheusServer prometheus;

  /** Ringtail's merged status and when, taken during the run. */
  record Reading(long timeNanos, Map<String, ObjectiveStatus> statuses) {}

  /** One application process: its service level and registry served over HTTP. */
  static final class Pod implements AutoCloseable {
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final ServiceLevel slo = SloMetrics.monitor(registry, ServiceLevel.inProcess(CONFIG, WALL));
    final HTTPServer server;

    /** This pod's events in the current phase, for spreading its slow and failed ones. */
    long phaseIndex;

    Pod() throws Exception {
      server =
          HTTPServer.builder()
              .hostname("127.0.0.1")
              .port(0)
              .registry(registry.getPrometheusRegistry())
              .buildAndStart();
    }

    String target() {
      return "127.0.0.1:" + server.getPort();
    }

    @Override
    public void close() {
      server.close();
      registry.close();
    }
  }

  @BeforeAll
  static void run() throws Exception {
    PODS.add(new Pod());
    PODS.add(new Pod());
    String rules = SloRules.builder().serviceLevel(CONFIG).build().yaml();
    prometheus =
        PrometheusServer.startWithRules(PODS.stream().map(Pod::target).toList(), "/metrics", rules);
    // the server first sees both pods' counters at zero
    prometheus.awaitValue("count(ringtail_slo_events_total == 0)", 4);
    prometheus.awaitScrapes(2);
    long next = WALL.nanoTime();
    long index = 0;
    long nextReading = next + TimeUnit.SECONDS.toNanos(2);
    for (int p = 0; p < PHASES.length; p++) {
      PHASE_STARTS[p] = next;
      long end = next + (long) (PHASES[p][0] * 1e9);
      for (Pod pod : PODS) {
        pod.phaseIndex = 0;
      }
      while (next - end < 0) {
        // 20 events every 10 ms, paced by the wall clock: Prometheus scrapes in real time
        LockSupport.parkNanos(next - WALL.nanoTime());
        for (int i = 0; i < RATE / 100; i++, index++) {
          Pod pod = PODS.get((int) (index & 1));
          boolean slow = spread(pod.phaseIndex, PHASES[p][1]);
          boolean failed = spread(pod.phaseIndex, PHASES[p][2]);
          pod.phaseIndex++;
          pod.slo.record(slow ? 400_000_000 : 20_000_000, failed);
        }
        next += 10_000_000;
        if (WALL.nanoTime() - nextReading >= 0) {
          READINGS.add(reading());
          nextReading += 500_000_000;
        }
      }
    }
    PHASE_STARTS[PHASES.length] = next;
    // every evaluation up to the last reading has run
    prometheus.awaitScrapes(4);
  }

  /** Whether event {@code i} of a phase is one of its evenly spread {@code fraction}. */
  static boolean spread(long i, double fraction) {
    return (long) ((i + 1) * fraction) > (long) (i * fraction);
  }

  /** Both pods' statuses at one instant, their counts merged window by window. */
  static Reading reading() {
    ServiceLevelStatus a;
    ServiceLevelStatus b;
    frozenAt = OFFSET + System.nanoTime();
    try {
      a = PODS.get(0).slo.status();
      b = PODS.get(1).slo.status();
    } finally {
      frozenAt = Long.MIN_VALUE;
    }
    Map<String, ObjectiveStatus> merged = new HashMap<>();
    for (Objective o : CONFIG.objectives()) {
      Map<Duration, EventCounts> counts = new HashMap<>();
      for (Duration w : CONFIG.windows()) {
        counts.put(w, a.objective(o.name()).counts(w).plus(b.objective(o.name()).counts(w)));
      }
      EventCounts recorded =
          a.objective(o.name()).recorded().plus(b.objective(o.name()).recorded());
      merged.put(o.name(), ObjectiveStatus.of(CONFIG, o, counts, recorded));
    }
    return new Reading(a.timeNanos(), merged);
  }

  @AfterAll
  static void stop() throws Exception {
    for (Pod pod : PODS) {
      pod.close();
    }
    if (prometheus != null) {
      prometheus.close();
    }
  }

  @Test
  void everyGeneratedRule_evaluatesWithoutError() throws Exception {
    JsonNode groups = JSON.readTree(prometheus.api("rules")).path("data").path("groups");
    assertThat(groups).hasSize(1);
    JsonNode rules = groups.get(0).path("rules");
    // per objective: 5 windows of error ratio and burn rate, SLI, budget, 2 alerts
    assertThat(rules).hasSize(2 * (5 + 5 + 2 + 2));
    for (JsonNode rule : rules) {
      assertThat(rule.path("health").asText()).as("%s", rule).isEqualTo("ok");
    }
  }

  @Test
  void burnRates_equalRingtails_withinTheStatedTolerance() throws Exception {
    int steady = 0;
    int compared = 0;
    double worstSteady = 0;
    double worstShare = 0;
    List<String> beyond = new ArrayList<>();
    for (Reading r : READINGS) {
      for (Objective o : CONFIG.objectives()) {
        int kind = o.kind() == Objective.Kind.LATENCY ? 1 : 2;
        for (Duration w : CONFIG.windows()) {
          double ringtail = r.statuses().get(o.name()).burnRate(w);
          double prom =
              valueAt(
                  SloRules.BURN_RATE
                      + "{slo=\"checkout\",objective=\""
                      + o.name()
                      + "\",window=\""
                      + SloConventions.windowLabel(w)
                      + "\"}",
                  r.timeNanos());
          double seconds = w.toNanos() / 1e9;
          double delta = seconds / 60 + DELTA_SECONDS;
          long from = r.timeNanos() - (long) ((seconds + delta) * 1e9);
          if (from - PHASE_STARTS[0] < 0) {
            continue; // the window (and its margin) reaches back before the traffic
          }
          double[] range = errorRange(from, r.timeNanos(), kind);
          double events = RATE * (seconds - delta);
          double tolerance =
              ((range[1] - range[0]) * Math.min(1, delta / (seconds - delta))
                      + 4 / Math.max(1, events))
                  / o.budget();
          compared++;
          double difference = Math.abs(prom - ringtail);
          worstShare = Math.max(worstShare, difference / tolerance);
          if (range[0] == range[1]) {
            steady++;
            worstSteady = Math.max(worstSteady, difference);
          }
          if (!(Math.abs(prom - ringtail) <= tolerance + 1e-9)) {
            beyond.add(
                String.format(
                    "%s over %s at +%.1f s: Prometheus %.4f, Ringtail %.4f, tolerance %.4f",
                    o.name(),
                    w,
                    (r.timeNanos() - PHASE_STARTS[0]) / 1e9,
                    prom,
                    ringtail,
                    tolerance));
          }
        }
      }
    }
    System.out.printf(
        "SLO burn rates compared: %d, %d within a steady phase (largest difference there %.4f);"
            + " largest difference %.0f %% of its tolerance%n",
        compared, steady, worstSteady, 100 * worstShare);
    assertThat(beyond).isEmpty();
    assertThat(steady).as("comparisons within a steady phase").isGreaterThan(60);
    assertThat(compared).isGreaterThan(200);
  }

  @Test
  void thePageAlert_firesInPrometheus_whileRingtailsConditionHolds() throws Exception {
    // the end of the fault: both windows of the page alert lie inside it
    long t = PHASE_STARTS[2] - 500_000_000;
    Reading r = readingAt(t);
    assertThat(r.statuses().get("fast").firing())
        .extracting(a -> a.alert().name())
        .containsExactly("page-12s", "ticket-24s");
    String alerts =
        "ALERTS{alertname=\"" + SloRules.ALERT + "\",alertstate=\"firing\",objective=\"fast\"}";
    assertThat(valueAt("count(" + alerts + ")", r.timeNanos())).isEqualTo(2);
    assertThat(
            valueAt(
                "count(" + alerts.replace("}", ",severity=\"page\",alert=\"page-12s\"}") + ")",
                r.timeNanos()))
        .isEqualTo(1);
    // the healthy spell before it: neither fires
    Reading healthy = readingAt(PHASE_STARTS[1] - 500_000_000);
    assertThat(healthy.statuses().get("fast").firing()).isEmpty();
    assertThat(valueAt("count(" + alerts + ")", healthy.timeNanos())).isNaN();
  }

  /** The reading nearest {@code t}. */
  static Reading readingAt(long t) {
    Reading best = READINGS.get(0);
    for (Reading r : READINGS) {
      if (Math.abs(r.timeNanos() - t) < Math.abs(best.timeNanos() - t)) {
        best = r;
      }
    }
    return best;
  }

  /** The lowest and highest error ratio of the phases overlapping {@code [from, to]}. */
  static double[] errorRange(long from, long to, int kind) {
    double lo = Double.MAX_VALUE;
    double hi = -Double.MAX_VALUE;
    for (int p = 0; p < PHASES.length; p++) {
      if (PHASE_STARTS[p] - to <= 0 && PHASE_STARTS[p + 1] - from > 0) {
        lo = Math.min(lo, PHASES[p][kind]);
        hi = Math.max(hi, PHASES[p][kind]);
      }
    }
    return new double[] {lo, hi};
  }

  /** The value at wall-clock {@code timeNanos} of a query answering one series, else NaN. */
  static double valueAt(String promql, long timeNanos) throws Exception {
    JsonNode answer =
        JSON.readTree(
            prometheus.api(
                "query", "query", promql, "time", String.format("%.3f", timeNanos / 1e9)));
    JsonNode result = answer.path("data").path("result");
    if (result.size() != 1) {
      return Double.NaN;
    }
    return result.get(0).path("value").get(1).asDouble();
  }
}
