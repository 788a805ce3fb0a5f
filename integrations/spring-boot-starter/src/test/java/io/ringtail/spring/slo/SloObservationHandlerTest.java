package io.ringtail.spring.slo;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.slo.EventCounts;
import io.ringtail.slo.ServiceLevelStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The handler on a real {@link ObservationRegistry}, time injected: which observations each service
 * level counts (observation name, path pattern against the URI template, method, key values), each
 * once, with its latency on the clock and failed by the declared statuses.
 */
class SloObservationHandlerTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
  private final List<ServiceLevelAlertEvent> published = new ArrayList<>();

  private static RingtailSloProperties.ServiceLevel checkout() {
    RingtailSloProperties.ServiceLevel slo = new RingtailSloProperties.ServiceLevel();
    slo.setPaths(List.of("/orders/**"));
    slo.setMethods(List.of("POST"));
    RingtailSloProperties.Objective fast = new RingtailSloProperties.Objective();
    fast.setThreshold(Duration.ofMillis(300));
    fast.setTarget(0.99);
    RingtailSloProperties.Objective available = new RingtailSloProperties.Objective();
    available.setTarget(0.999);
    slo.getObjectives().put("fast", fast);
    slo.getObjectives().put("available", available);
    return slo;
  }

  private ObservationRegistry registryOf(Map<String, RingtailSloProperties.ServiceLevel> slos) {
    RingtailSloProperties p = new RingtailSloProperties();
    p.getSlo().putAll(slos);
    ServiceLevels levels =
        new ServiceLevels(Declared.of(p), Scope.inProcess(time), time, published::add);
    levels.serviceLevels();
    this.levels = levels;
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new SloObservationHandler(levels));
    return registry;
  }

  private ServiceLevels levels;

  /** One observation of {@code name} taking {@code millis}, with key values (name, value, ...). */
  private void observe(ObservationRegistry registry, String name, long millis, String... kv) {
    Observation o = Observation.start(name, registry);
    time.advance(Duration.ofMillis(millis));
    for (int i = 0; i < kv.length; i += 2) {
      o.lowCardinalityKeyValue(KeyValue.of(kv[i], kv[i + 1]));
    }
    o.stop();
  }

  private EventCounts recorded(String slo, String objective) {
    ServiceLevelStatus s = levels.serviceLevel(slo).status();
    return s.objective(objective).recorded();
  }

  private EventCounts period(String slo, String objective) {
    return levels.serviceLevel(slo).status().objective(objective).periodCounts();
  }

  @Test
  void eachMatchingRequest_isRecordedOnce_withItsLatencyAndWhetherItFailed() {
    ObservationRegistry registry = registryOf(Map.of("checkout", checkout()));
    String req = "http.server.requests";
    observe(registry, req, 100, "method", "POST", "uri", "/orders/{id}", "status", "200");
    observe(registry, req, 400, "method", "POST", "uri", "/orders", "status", "201");
    observe(registry, req, 50, "method", "POST", "uri", "/orders/{id}/items", "status", "503");
    // not counted: another method, another path, another observation
    observe(registry, req, 900, "method", "GET", "uri", "/orders/{id}", "status", "500");
    observe(registry, req, 900, "method", "POST", "uri", "/cart", "status", "500");
    observe(
        registry, "http.client.requests", 900, "method", "POST", "uri", "/orders", "status", "500");
    // within the template cache: the same template again
    observe(registry, req, 300, "method", "POST", "uri", "/orders/{id}", "status", "404");

    assertThat(period("checkout", "fast")).isEqualTo(new EventCounts(3, 4)); // 400 ms is slow
    assertThat(period("checkout", "available")).isEqualTo(new EventCounts(3, 4)); // the 503
    assertThat(recorded("checkout", "fast")).isEqualTo(new EventCounts(3, 4));
  }

  @Test
  void failureStatuses_areTheDeclaredOnes_andAnErrorWithoutStatusFails() {
    RingtailSloProperties.ServiceLevel slo = checkout();
    slo.setMethods(List.of());
    slo.setFailures(List.of("5xx", "429"));
    ObservationRegistry registry = registryOf(Map.of("checkout", slo));
    String req = "http.server.requests";
    observe(registry, req, 1, "uri", "/orders", "status", "429");
    observe(registry, req, 1, "uri", "/orders", "status", "428");
    observe(registry, req, 1, "uri", "/orders", "status", "500");
    observe(registry, req, 1, "uri", "/orders", "status", "UNKNOWN");
    Observation failed = Observation.start(req, registry);
    failed.lowCardinalityKeyValue(KeyValue.of("uri", "/orders"));
    failed.error(new IllegalStateException("boom"));
    failed.stop();
    assertThat(period("checkout", "available")).isEqualTo(new EventCounts(2, 5));
  }

  @Test
  void twoServiceLevels_eachCountTheirOwnRequests_andKeyValuesSelect() {
    RingtailSloProperties.ServiceLevel all = new RingtailSloProperties.ServiceLevel();
    RingtailSloProperties.Objective available = new RingtailSloProperties.Objective();
    available.setTarget(0.99);
    all.getObjectives().put("available", available);
    RingtailSloProperties.ServiceLevel mobile = new RingtailSloProperties.ServiceLevel();
    mobile.getObjectives().put("available", available);
    mobile.getKeyValues().put("client", "mobile");
    ObservationRegistry registry =
        registryOf(new java.util.LinkedHashMap<>(Map.of("all", all, "mobile", mobile)));
    String req = "http.server.requests";
    observe(registry, req, 1, "uri", "/a", "status", "200", "client", "mobile");
    observe(registry, req, 1, "uri", "/b", "status", "500", "client", "web");
    observe(registry, req, 1, "uri", "/c", "status", "200");
    assertThat(period("all", "available")).isEqualTo(new EventCounts(2, 3));
    assertThat(period("mobile", "available")).isEqualTo(new EventCounts(1, 1));
  }

  @Test
  void observationsStoppedBeforeTheServiceLevelsAreBuilt_areNotRecorded_andDoNotFail() {
    RingtailSloProperties p = new RingtailSloProperties();
    p.getSlo().put("checkout", checkout());
    ServiceLevels unbuilt =
        new ServiceLevels(Declared.of(p), Scope.inProcess(time), time, published::add);
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new SloObservationHandler(unbuilt));
    observe(
        registry, "http.server.requests", 1, "method", "POST", "uri", "/orders", "status", "200");
    assertThat(unbuilt.serviceLevel("checkout").status().objective("fast").periodCounts().total())
        .isZero();
  }
}
