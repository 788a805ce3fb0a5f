package io.ringtail.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowConventions;
import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Observations timed into keyed windows, checked against an exact model on a random stream. */
class ObservationWindowsTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
  private final WindowConfig config =
      WindowConfig.builder().length(Duration.ofMinutes(1)).buckets(12).build();

  private ObservationWindows windows(List<String> names, int maximumKeys) {
    return new ObservationWindows(
        names, Set.of("exception", "error"), config, maximumKeys, List.of(0.5, 0.95, 0.99), time);
  }

  private ObservationRegistry registry(ObservationWindows windows) {
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(windows);
    return registry;
  }

  private void request(
      ObservationRegistry registry, String method, String uri, String status, long nanos) {
    Observation o =
        Observation.createNotStarted("http.server.requests", registry)
            .lowCardinalityKeyValue("method", method)
            .lowCardinalityKeyValue("uri", uri)
            .lowCardinalityKeyValue("status", status)
            .lowCardinalityKeyValue("outcome", status.startsWith("2") ? "SUCCESS" : "SERVER_ERROR")
            .lowCardinalityKeyValue("exception", "none")
            .highCardinalityKeyValue("http.url", uri.replace("{id}", Long.toString(nanos)))
            .start();
    time.advanceNanos(nanos);
    o.stop();
  }

  @Test
  void everyEndpoint_getsItsOwnWindow_matchingAnExactModel() {
    ObservationWindows windows = windows(List.of("http.server.requests"), 100);
    ObservationRegistry registry = registry(windows);
    String[][] endpoints = {
      {"GET", "/orders/{id}", "200"}, {"POST", "/checkout", "200"}, {"GET", "/orders/{id}", "500"}
    };
    Map<String, List<Long>> model = new HashMap<>();
    Random random = new Random(28);
    for (int i = 0; i < 3_000; i++) {
      String[] e = endpoints[random.nextInt(endpoints.length)];
      long nanos = 100_000L + random.nextInt(15_000_000);
      request(registry, e[0], e[1], e[2], nanos);
      model.computeIfAbsent(String.join(" ", e), k -> new ArrayList<>()).add(nanos);
      // the whole stream (under 50 s) stays within the one-minute window: the model keeps all
    }
    KeyedWindows http = windows.windows().get("http.server.requests");
    Map<String, WindowSnapshot> byKey = http.snapshots();
    assertThat(byKey).hasSize(3);
    byKey.forEach(
        (key, s) -> {
          Map<String, String> tags = new HashMap<>();
          ObservationWindows.tagsOf(key).forEach(t -> tags.put(t.getKey(), t.getValue()));
          assertThat(tags).containsOnlyKeys("method", "uri", "status", "outcome");
          List<Long> expected =
              model.get(tags.get("method") + " " + tags.get("uri") + " " + tags.get("status"));
          Collections.sort(expected);
          assertThat(s.count()).isEqualTo(expected.size());
          long p95 = expected.get((int) Math.ceil(0.95 * expected.size()) - 1);
          assertThat(s.valueAtPercentile(95))
              .isCloseTo(p95, org.assertj.core.data.Percentage.withPercentage(1));
          assertThat(s.max())
              .isCloseTo(
                  expected.get(expected.size() - 1),
                  org.assertj.core.data.Percentage.withPercentage(1));
        });
  }

  /**
   * Observations in flight at once, stopped in another order than started and some stopped twice:
   * each is timed from its own start (the recycled start holders are never shared), and a second
   * stop records nothing.
   */
  @Test
  void overlappingObservations_areTimedFromTheirOwnStart_andASecondStopRecordsNothing() {
    ObservationWindows windows = windows(List.of("http.server.requests"), 100);
    windows.windows();
    Random random = new Random(5);
    List<Observation.Context> open = new ArrayList<>();
    Map<Observation.Context, Long> started = new java.util.IdentityHashMap<>();
    long count = 0;
    long sum = 0;
    for (int i = 0; i < 2_000; i++) {
      if (open.size() < 5 && (open.isEmpty() || random.nextBoolean())) {
        Observation.Context c = new Observation.Context();
        c.setName("http.server.requests");
        c.addLowCardinalityKeyValue(io.micrometer.common.KeyValue.of("uri", "/orders/{id}"));
        windows.onStart(c);
        open.add(c);
        started.put(c, time.nanoTime());
      } else {
        Observation.Context c = open.remove(random.nextInt(open.size()));
        windows.onStop(c);
        count++;
        sum += time.nanoTime() - started.get(c);
        if (random.nextInt(4) == 0) {
          windows.onStop(c); // stopped again: nothing more
        }
      }
      time.advance(Duration.ofNanos(1_000 + random.nextInt(100_000)));
    }
    WindowSnapshot s =
        windows.windows().get("http.server.requests").snapshots().values().stream()
            .findFirst()
            .orElseThrow();
    assertThat(s.count()).isEqualTo(count);
    assertThat(s.sum()).isEqualTo(sum);
  }

  @Test
  void prometheusShowsEachEndpointsP95_underTheObservationsName() {
    ObservationWindows windows = windows(List.of("http.server.requests"), 100);
    ObservationRegistry registry = registry(windows);
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    windows.bindTo(prometheus);
    for (int i = 1; i <= 100; i++) {
      request(registry, "GET", "/orders/{id}", "200", i * 1_000_000L);
    }
    assertThat(prometheus.scrape())
        .contains(
            "ringtail_http_server_requests_percentile_seconds{method=\"GET\",outcome=\"SUCCESS\","
                + "phi=\"0.95\",status=\"200\",uri=\"/orders/{id}\",window=\"http.server.requests\"} 0.095")
        .contains(
            "ringtail_http_server_requests_recorded_total{method=\"GET\",outcome=\"SUCCESS\","
                + "status=\"200\",uri=\"/orders/{id}\",window=\"http.server.requests\"} 100.0");
  }

  @Test
  void onlyNamedObservations_areWindowed_andKeysAreBounded() {
    ObservationWindows windows = windows(List.of("checkout.process"), 2);
    ObservationRegistry registry = registry(windows);
    request(registry, "GET", "/orders/{id}", "200", 5_000_000); // not named: ignored
    for (int i = 0; i < 10; i++) {
      Observation.createNotStarted("checkout.process", registry)
          .lowCardinalityKeyValue("region", "r" + i)
          .start()
          .stop();
    }
    assertThat(windows.windows()).containsOnlyKeys("checkout.process");
    KeyedWindows checkout = windows.windows().get("checkout.process");
    checkout.snapshots(); // lets the bounded cache finish its evictions
    assertThat(checkout.estimatedKeys()).isLessThanOrEqualTo(2);
  }

  /** Named by its convention, like Spring MVC's: no name yet when handlers are chosen. */
  @Test
  void anObservationNamedByItsConvention_isWindowedToo() {
    ObservationWindows windows = windows(List.of("http.server.requests"), 100);
    ObservationRegistry registry = registry(windows);
    ObservationConvention<Observation.Context> convention =
        new ObservationConvention<>() {
          @Override
          public String getName() {
            return "http.server.requests";
          }

          @Override
          public KeyValues getLowCardinalityKeyValues(Observation.Context context) {
            return KeyValues.of("method", "GET", "uri", "/orders/{id}");
          }

          @Override
          public boolean supportsContext(Observation.Context context) {
            return true;
          }
        };
    Observation o =
        Observation.createNotStarted(convention, convention, Observation.Context::new, registry)
            .start();
    time.advanceNanos(7_000_000);
    o.stop();
    assertThat(windows.windows().get("http.server.requests").snapshots())
        .hasSize(1)
        .allSatisfy(
            (key, s) ->
                assertThat(s.max())
                    .isCloseTo(7_000_000, org.assertj.core.data.Percentage.withPercentage(1)));
  }

  @Test
  void aNameThatCannotBeAMeterName_failsAtStartup() {
    assertThatThrownBy(() -> windows(List.of("Checkout Process"), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ringtail.observations.names")
        .hasMessageContaining("but was \"Checkout Process\"");
  }

  @Test
  void windowsBuiltLate_recordNothingBefore_andCloseOnce() {
    List<String> built = new ArrayList<>();
    List<KeyedWindows> closedWindows = new ArrayList<>();
    ObservationWindows windows =
        new ObservationWindows(
            List.of("http.server.requests", "http.server.requests"),
            Set.of(),
            name -> {
              built.add(name);
              return KeyedWindows.builder().window(config).timeSource(time).build();
            },
            10,
            WindowConventions.builder().percentiles(0.95).build(),
            time,
            closedWindows::add,
            ObservationWindows.Meters.OWN);
    ObservationRegistry registry = registry(windows);
    request(registry, "GET", "/early", "200", 1_000_000); // stops before the windows exist
    assertThat(built).isEmpty(); // the stop path never builds: building may wait on I/O

    windows.afterSingletonsInstantiated();
    assertThat(built).containsExactly("http.server.requests");
    request(registry, "GET", "/orders/{id}", "200", 2_000_000);
    KeyedWindows http = windows.windows().get("http.server.requests");
    assertThat(http.snapshots()).hasSize(1);
    String key = http.snapshots().keySet().iterator().next();
    assertThat(ObservationWindows.tagsOf(key).stream().map(t -> t.getKey() + "=" + t.getValue()))
        .contains("uri=/orders/{id}");
    assertThat(http.snapshot(key).count()).isEqualTo(1);

    windows.close();
    windows.close();
    assertThat(closedWindows).containsExactly(http);
    request(registry, "GET", "/orders/{id}", "200", 3_000_000); // after close: not recorded
    assertThat(http.snapshot(key).count()).isEqualTo(1);
  }
}
