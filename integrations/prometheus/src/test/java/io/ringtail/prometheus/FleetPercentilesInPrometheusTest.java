package io.ringtail.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.ringtail.ExemplarReservoir;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.decision.CountsDecisions;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.micrometer.DecisionMetrics;
import io.ringtail.micrometer.KeyedWindowMetrics;
import io.ringtail.micrometer.WindowMeters;
import io.ringtail.micrometer.WindowMetrics;
import io.ringtail.testsupport.PrometheusServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three pods' windows scraped by real Prometheus servers: the fleet's P95 from one PromQL line over
 * the classic histogram (a server scraping text, with exemplar storage) and over the native
 * histogram (a server with native histograms, scraping protobuf), against the exact P95 of the
 * union of the three seeded streams.
 */
class FleetPercentilesInPrometheusTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final WindowConfig CONFIG = WindowConfig.builder().cumulativeHistogram(true).build();

  /** Per pod: samples, median latency (s), log-normal spread. The P95 is well inside (1, 2.5]. */
  private static final double[][] STREAMS = {
    {20_000, 0.020, 0.5}, {5_000, 0.120, 0.6}, {2_500, 1.6, 0.3}
  };

  static final List<Pod> PODS = new ArrayList<>();
  static final List<Long> UNION = new ArrayList<>();
  static PrometheusServer classic;
  static PrometheusServer nativeHistograms;

  /** One application process: its registry served over HTTP, its windows and meters. */
  static final class Pod implements AutoCloseable {
    final ManualTimeSource time = new ManualTimeSource();
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final RollingWindow checkout = RollingWindow.create(CONFIG, time);
    final ExemplarReservoir exemplars = ExemplarReservoir.create(Duration.ofHours(1), time);
    final RollingWindow fleetCheckout = RollingWindow.create(CONFIG, time);
    final Map<List<String>, RollingWindow> requests = new ConcurrentHashMap<>();
    final RateLimiter limiter =
        RateLimiter.inProcess(
            RateLimitConfig.builder().limit(5).window(Duration.ofSeconds(10)).build());
    final HTTPServer server;
    long slowest = -1;
    String slowestTrace;

    Pod() throws Exception {
      WindowMetrics.monitor(registry, checkout, "checkoutLatency");
      WindowMetrics.monitor(registry, fleetCheckout, "fleetCheckoutLatency");
      KeyedWindowMetrics.builder(requests, "http.server.requests")
          .prefix("ringtail.http.server.requests")
          .keyTags(k -> Tags.of("method", k.get(0), "uri", k.get(1), "status", k.get(2)))
          .build()
          .bindTo(registry);
      if (PODS.isEmpty()) {
        // the first pod also stands for the one that merges the fleet windows and exports their
        // statistics once for the fleet, under the fleet names the Spring Boot starter gives them
        WindowMetrics.builder(fleetCheckout, "fleetCheckoutLatency")
            .prefix("ringtail.fleet.window")
            .meters(WindowMeters.STATISTICS)
            .build()
            .bindTo(registry);
        KeyedWindowMetrics.builder(requests, "http.server.requests")
            .prefix("ringtail.fleet.http.server.requests")
            .keyTags(k -> Tags.of("method", k.get(0), "uri", k.get(1), "status", k.get(2)))
            .meters(WindowMeters.STATISTICS)
            .build()
            .bindTo(registry);
      }
      DecisionMetrics.monitor(registry, (CountsDecisions) limiter, "perClient");
      WindowHistograms.builder()
          .window("checkoutLatency", checkout, exemplars)
          .window("fleetCheckoutLatency", fleetCheckout)
          .build()
          .register(registry.getPrometheusRegistry());
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

    void record(int pod, SplittableRandom random) {
      double[] stream = STREAMS[pod];
      for (int i = 0; i < (int) stream[0]; i++) {
        long nanos = (long) (stream[1] * Math.exp(random.nextGaussian() * stream[2]) * 1e9);
        String trace = String.format("%032x", ((long) pod << 40) | i);
        checkout.record(nanos);
        exemplars.offer(nanos, trace, String.format("%016x", i));
        fleetCheckout.record(nanos);
        if (nanos > slowest) {
          slowest = nanos;
          slowestTrace = trace;
        }
        synchronized (UNION) {
          UNION.add(nanos);
        }
        String status = i % 50 == 0 ? "503" : "200";
        requests
            .computeIfAbsent(
                List.of("GET", "/orders/{id}", status), k -> RollingWindow.create(CONFIG, time))
            .record(nanos);
      }
      for (int i = 0; i < 8; i++) {
        limiter.tryAcquire("client" + pod);
      }
      checkout.record(-1); // a rejected sample, for the rejections counter
    }

    @Override
    public void close() {
      server.close();
      registry.close();
    }
  }

  @BeforeAll
  static void startPodsAndServers() throws Exception {
    for (int p = 0; p < STREAMS.length; p++) {
      PODS.add(new Pod());
    }
    List<String> targets = PODS.stream().map(Pod::target).toList();
    classic = PrometheusServer.start(targets, "/metrics", "exemplar-storage");
    nativeHistograms = PrometheusServer.start(targets, "/metrics", "native-histograms");
    // both servers first see every pod's histograms empty: the counters start from zero
    classic.awaitValue("count(ringtail_window_seconds_count{window=\"checkoutLatency\"} == 0)", 3);
    nativeHistograms.awaitValue(
        "count(histogram_count(ringtail_window_seconds{window=\"checkoutLatency\"}) == 0)", 3);
    for (int p = 0; p < PODS.size(); p++) {
      PODS.get(p).record(p, new SplittableRandom(p + 1));
    }
    classic.awaitValue(
        "sum(ringtail_window_seconds_count{window=\"checkoutLatency\"})", UNION.size());
    nativeHistograms.awaitValue(
        "histogram_count(sum(ringtail_window_seconds{window=\"checkoutLatency\"}))", UNION.size());
    // a dozen more scrapes of the final counts, so rate()'s extrapolation to the range's end is
    // small
    classic.awaitScrapes(12);
    nativeHistograms.awaitScrapes(12);
  }

  @AfterAll
  static void stop() throws Exception {
    for (Pod pod : PODS) {
      pod.close();
    }
    if (classic != null) {
      classic.close();
    }

    if (nativeHistograms != null) {
      nativeHistograms.close();
    }
  }

  /** The single value of an instant query. */
  static double value(PrometheusServer server, String promql) throws Exception {
    JsonNode result = JSON.readTree(server.query(promql)).path("data").path("result");
    assertThat(result.size()).as("series of %s", promql).isEqualTo(1);
    return result.get(0).path("value").get(1).asDouble();
  }

  /** The exact nearest-rank P95 of every pod's samples together, in seconds. */
  static double exactP95() {
    long[] sorted = UNION.stream().mapToLong(Long::longValue).sorted().toArray();
    return sorted[(int) Math.ceil(0.95 * sorted.length) - 1] * 1e-9;
  }

  static double fractionAtOrBelow(double seconds) {
    return (double) UNION.stream().filter(v -> v * 1e-9 <= seconds).count() / UNION.size();
  }

  @Test
  void classicHistogram_fleetP95OverAnyRange_isInTheBucketOfTheExactP95() throws Exception {
    double exact = exactP95();
    // the streams put the P95 well inside one bucket, so a bucket estimate can be checked
    assertThat(exact).isBetween(1.0, 2.5);
    assertThat(fractionAtOrBelow(1.0)).isLessThan(0.93);
    assertThat(fractionAtOrBelow(2.5)).isGreaterThan(0.97);
    double p95 =
        value(
            classic,
            "histogram_quantile(0.95, sum by (le) (rate(ringtail_window_seconds_bucket{window=\"checkoutLatency\"}[5m])))");
    assertThat(p95).isBetween(1.0, 2.5);
    double sinceCreation =
        value(
            classic,
            "histogram_quantile(0.95, sum by (le) (ringtail_window_seconds_bucket{window=\"checkoutLatency\"}))");
    // the linear interpolation inside (1, 2.5] of the exact counts
    double below = fractionAtOrBelow(1.0);
    double expected = 1.0 + 1.5 * (0.95 - below) / (fractionAtOrBelow(2.5) - below);
    System.out.printf(
        "classic: exact P95 %.4f s, over 5m %.4f s, since creation %.4f s (interpolated %.4f)%n",
        exact, p95, sinceCreation, expected);
    assertThat(sinceCreation)
        .isCloseTo(expected, org.assertj.core.data.Percentage.withPercentage(2));
  }

  @Test
  void classicHistogram_countsAndSumAreExact() throws Exception {
    assertThat(value(classic, "sum(ringtail_window_seconds_count{window=\"checkoutLatency\"})"))
        .isEqualTo(UNION.size());
    double sum = UNION.stream().mapToLong(Long::longValue).sum() * 1e-9;
    assertThat(value(classic, "sum(ringtail_window_seconds_sum{window=\"checkoutLatency\"})"))
        .isCloseTo(sum, org.assertj.core.data.Percentage.withPercentage(1e-9));
    assertThat(value(classic, "sum(ringtail_window_recorded_total{window=\"checkoutLatency\"})"))
        .isEqualTo(UNION.size());
  }

  @Test
  void nativeHistogram_fleetP95_isWithinTheSchemasError() throws Exception {
    double exact = exactP95();
    double sinceCreation =
        value(
            nativeHistograms,
            "histogram_quantile(0.95, sum(ringtail_window_seconds{window=\"checkoutLatency\"}))");
    // a 1.1 % wide bucket at schema 6, plus at most one 0.8 % slot: 2 %, and a margin
    assertThat(sinceCreation)
        .isCloseTo(exact, org.assertj.core.data.Percentage.withPercentage(2.5));
    double overRange =
        value(
            nativeHistograms,
            "histogram_quantile(0.95, sum(rate(ringtail_window_seconds{window=\"checkoutLatency\"}[5m])))");
    System.out.printf(
        "native: exact P95 %.4f s, since creation %.4f s, over 5m %.4f s%n",
        exact, sinceCreation, overRange);
    // rate() extrapolates each pod's counts by its own few per cent: a looser bound
    assertThat(overRange).isCloseTo(exact, org.assertj.core.data.Percentage.withPercentage(10));
    assertThat(
            value(
                nativeHistograms,
                "histogram_count(sum(ringtail_window_seconds{window=\"checkoutLatency\"}))"))
        .isEqualTo(UNION.size());
  }

  @Test
  void exemplars_pointAtEachPodsSlowestSample() throws Exception {
    long now = System.currentTimeMillis() / 1000;
    JsonNode data =
        JSON.readTree(
                classic.api(
                    "query_exemplars",
                    "query",
                    "ringtail_window_seconds_bucket{window=\"checkoutLatency\"}",
                    "start",
                    Long.toString(now - 600),
                    "end",
                    Long.toString(now + 60)))
            .path("data");
    List<String> traces = new ArrayList<>();
    List<Double> values = new ArrayList<>();
    for (JsonNode series : data) {
      for (JsonNode exemplar : series.path("exemplars")) {
        traces.add(exemplar.path("labels").path("trace_id").asText());
        values.add(exemplar.path("value").asDouble());
      }
    }
    for (Pod pod : PODS) {
      assertThat(traces).as("exemplars: %s", data).contains(pod.slowestTrace);
      assertThat(values).contains(pod.slowest * 1e-9);
    }
    // and one per classic bucket per pod, spread over the distribution
    assertThat(traces.stream().distinct().count()).isGreaterThanOrEqualTo(3L * 5);
  }

  /** The repository's root: the nearest parent of the module holding README.md and docs/. */
  static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null
        && !(Files.exists(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs")))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("repository root above %s", Path.of("").toAbsolutePath()).isNotNull();
    return dir;
  }

  /**
   * The PromQL expressions of a page's {@code promql} blocks: a line at the block's indentation
   * starts one, a more indented line continues it, and a {@code #} comment ends a line.
   */
  static List<String> promqlOf(String markdown) {
    List<String> expressions = new ArrayList<>();
    Matcher block =
        Pattern.compile("(?m)^([ \\t]*)```promql\\n(.*?)^\\1```", Pattern.DOTALL).matcher(markdown);
    while (block.find()) {
      int indent = block.group(1).length();
      StringBuilder current = null;
      for (String line : block.group(2).split("\\n")) {
        String code = line.replaceFirst("\\s+#.*$", "");
        if (code.isBlank()) {
          continue;
        }
        boolean continuation = code.length() - code.stripLeading().length() > indent;
        if (continuation && current != null) {
          current.append(' ').append(code.strip());
        } else {
          if (current != null) {
            expressions.add(current.toString());
          }
          current = new StringBuilder(code.strip());
        }
      }
      if (current != null) {
        expressions.add(current.toString());
      }
    }
    return expressions;
  }

  /** Whether the expression answers with at least one series, on either server; fails on errors. */
  static boolean answers(String promql) throws Exception {
    boolean data = false;
    for (PrometheusServer server : List.of(classic, nativeHistograms)) {
      JsonNode answer = JSON.readTree(server.query(promql));
      assertThat(answer.path("status").asText()).as("%s: %s", promql, answer).isEqualTo("success");
      data |= answer.path("data").path("result").size() > 0;
    }
    return data;
  }

  @Test
  void everyPromqlOfTheReadmeAndDocs_answersWithData() throws Exception {
    Path root = repositoryRoot();
    List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
    try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    List<String> silent = new ArrayList<>();
    int checked = 0;
    for (Path page : pages) {
      for (String promql : promqlOf(Files.readString(page))) {
        checked++;
        if (!answers(promql)) {
          silent.add(root.relativize(page) + ": " + promql);
        }
      }
    }
    assertThat(checked).as("PromQL expressions found").isGreaterThanOrEqualTo(15);
    assertThat(silent).as("expressions that answered with no data").isEmpty();
  }
}
