package io.ringtail.spring.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.alert.AlertRule;
import io.ringtail.alert.RuleSnapshot;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link EndpointAnomalies} on in-process keyed windows, without Spring. */
class EndpointAnomaliesTest {
  private static final String OBSERVATION = "http.server.requests";
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000L);
  private final KeyedWindows keyed =
      KeyedWindows.builder()
          .window(WindowConfig.builder().length(Duration.ofMinutes(1)).buckets(12).build())
          .timeSource(time)
          .build();

  private static String key(String uri, String status) {
    String outcome = status.startsWith("5") ? "SERVER_ERROR" : "SUCCESS";
    return String.join("\u001f", "method", "GET", "outcome", outcome, "status", status, "uri", uri);
  }

  private EndpointAnomalies anomalies(RingtailAnomalyProperties p, List<Object> events) {
    return new EndpointAnomalies(
        () -> Map.of(OBSERVATION, keyed), p, EndpointAnomalies.Pager.always(), events::add, null);
  }

  private static RingtailAnomalyProperties properties() {
    RingtailAnomalyProperties p = new RingtailAnomalyProperties();
    p.setMeasures(
        List.of(
            EndpointAnomalies.Measure.P95,
            EndpointAnomalies.Measure.ERROR_RATIO,
            EndpointAnomalies.Measure.RATE));
    p.setMinimumSamples(1);
    return p;
  }

  private static EndpointAnomalies.State state(
      EndpointAnomalies a, String uri, EndpointAnomalies.Measure m) {
    return a.states().stream()
        .filter(s -> s.endpoint().get("uri").equals(uri) && s.measure() == m)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void pooledMeasures_ofAnEndpointsKeys_matchAnExactModel() {
    EndpointAnomalies a = anomalies(properties(), new ArrayList<>());
    for (int seed = 0; seed < 20; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      time.advance(Duration.ofMinutes(5)); // the last round's samples leave the window
      List<Long> all = new ArrayList<>();
      long errors = 0;
      String[] statuses = {"200", "201", "503"};
      for (String status : statuses) {
        int n = 1 + random.nextInt(300);
        long scale = 1_000_000L * (1 + random.nextInt(200));
        for (int i = 0; i < n; i++) {
          long v = 1 + (long) (scale * random.nextDouble() * random.nextDouble());
          keyed.recordAt(key("/orders/{id}", status), v, time.nanoTime());
          all.add(v);
          errors += status.startsWith("5") ? 1 : 0;
        }
      }
      a.evaluate();
      long[] sorted = all.stream().mapToLong(Long::longValue).sorted().toArray();
      long exact = sorted[(int) Math.ceil(0.95 * sorted.length) - 1];
      double p95 = state(a, "/orders/{id}", EndpointAnomalies.Measure.P95).value();
      assertThat(p95).as("seed %d", seed).isCloseTo(exact, withinPercentage(2));
      assertThat(state(a, "/orders/{id}", EndpointAnomalies.Measure.ERROR_RATIO).value())
          .isEqualTo((double) errors / sorted.length);
      assertThat(state(a, "/orders/{id}", EndpointAnomalies.Measure.RATE).value())
          .isEqualTo(sorted.length / 60.0);
      assertThat(a.states()).hasSize(3); // one endpoint, three measures
    }
  }

  @Test
  void eachEndpointMeasure_isACoreAnomalyRule_onOneMonitor() {
    EndpointAnomalies a = anomalies(properties(), new ArrayList<>());
    keyed.recordAt(key("/a", "200"), 1_000_000, time.nanoTime());
    keyed.recordAt(key("/a", "503"), 1_000_000, time.nanoTime());
    keyed.recordAt(key("/b", "200"), 1_000_000, time.nanoTime());
    a.evaluate();
    assertThat(a.monitor().rules())
        .extracting(AlertRule::name)
        .containsExactly(
            OBSERVATION + " {method=GET, uri=/a} p95",
            OBSERVATION + " {method=GET, uri=/a} error_ratio",
            OBSERVATION + " {method=GET, uri=/a} rate",
            OBSERVATION + " {method=GET, uri=/b} p95",
            OBSERVATION + " {method=GET, uri=/b} error_ratio",
            OBSERVATION + " {method=GET, uri=/b} rate");
    assertThat(a.monitor().rules().get(0).toString())
        .contains("anomaly p95 >= 0.5", "onlyAboveBaseline", "resolveWhenBack=0.5");
    assertThat(a.monitor().rules().get(2).toString())
        .contains("anomaly rate >= 0.5", "resolveWhenBack=0.5")
        .doesNotContain("onlyAboveBaseline");
    RuleSnapshot ratio = a.monitor().snapshot(OBSERVATION + " {method=GET, uri=/a} error_ratio");
    assertThat(ratio.measured()).isEqualTo(0.5);
    assertThat(ratio.baseline()).isEqualTo(0.5);
    assertThat(state(a, "/a", EndpointAnomalies.Measure.ERROR_RATIO).baseline()).isEqualTo(0.5);
  }

  @Test
  void anObservationThatCannotBeRead_orTheMonitorEvaluatedAlone_keepsItsStates() {
    KeyedWindows other =
        KeyedWindows.builder()
            .window(WindowConfig.builder().length(Duration.ofMinutes(1)).buckets(12).build())
            .timeSource(time)
            .build();
    boolean[] down = {false};
    AnomalySharing flaky =
        new AnomalySharing() {
          @Override
          public Map<String, ? extends WindowSnapshot> read(KeyedWindows k) {
            if (down[0] && k == keyed) {
              throw new IllegalStateException("Redis is down");
            }
            return k.snapshots();
          }

          @Override
          public boolean evaluates(KeyedWindows k, String key) {
            return true;
          }

          @Override
          public void post(String observation, Map<String, String> states) {}

          @Override
          public Map<String, String> posted(String observation) {
            return Map.of();
          }
        };
    EndpointAnomalies a =
        new EndpointAnomalies(
            () -> Map.of(OBSERVATION, keyed, "other", other),
            properties(),
            EndpointAnomalies.Pager.always(),
            e -> {},
            null,
            flaky);
    for (int i = 0; i < 3; i++) {
      time.advance(Duration.ofMinutes(2));
      keyed.recordAt(key("/a", "200"), 1_000_000L * (10 + i), time.nanoTime());
      other.recordAt(key("/b", "200"), 1_000_000L * (10 + i), time.nanoTime());
      a.evaluate();
    }
    List<EndpointAnomalies.State> before = a.states();
    assertThat(before).hasSize(6).allMatch(s -> s.evaluations() == 3);
    assertThat(a.monitor().evaluate()).as("the monitor evaluated alone").isEmpty();
    assertThat(a.states()).isEqualTo(before);

    down[0] = true; // one observation cannot be read: its endpoint's rules keep their states
    time.advance(Duration.ofMinutes(2));
    keyed.recordAt(key("/a", "200"), 500_000_000L, time.nanoTime());
    other.recordAt(key("/b", "200"), 13_000_000L, time.nanoTime());
    assertThat(a.evaluate()).isEmpty();
    assertThat(a.states().stream().filter(s -> s.observation().equals(OBSERVATION)))
        .containsExactlyElementsOf(
            before.stream().filter(s -> s.observation().equals(OBSERVATION)).toList());
    assertThat(a.states().stream().filter(s -> s.observation().equals("other")))
        .allMatch(s -> s.evaluations() == 4);

    down[0] = false;
    a.evaluate();
    assertThat(a.states().stream().filter(s -> s.observation().equals(OBSERVATION)))
        .allMatch(s -> s.evaluations() == 4);
  }

  @Test
  void endpoints_areBoundedByMaximumEndpoints() {
    RingtailAnomalyProperties p = properties();
    p.setMaximumEndpoints(2);
    EndpointAnomalies a = anomalies(p, new ArrayList<>());
    for (String uri : List.of("/a", "/b", "/c", "/d")) {
      keyed.recordAt(key(uri, "200"), 1_000_000, time.nanoTime());
    }
    a.evaluate();
    assertThat(a.states().stream().map(s -> s.endpoint().get("uri")).distinct()).hasSize(2);
  }

  @Test
  void settingsOutOfRange_failNamingTheProperty() {
    RingtailAnomalyProperties p = properties();
    p.setLevel(1.5);
    assertThatThrownBy(() -> anomalies(p, new ArrayList<>()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ringtail.anomaly.level must be between 0 exclusive and 1, but was 1.5");
    RingtailAnomalyProperties q = properties();
    q.setWarmUp(-1);
    assertThatThrownBy(() -> anomalies(q, new ArrayList<>()))
        .hasMessageStartingWith("ringtail.anomaly.warm-up: warmUp");
    RingtailAnomalyProperties r = properties();
    r.setMeasures(List.of());
    assertThatThrownBy(() -> anomalies(r, new ArrayList<>()))
        .hasMessage("ringtail.anomaly.measures must be not empty, but was []");
  }
}
