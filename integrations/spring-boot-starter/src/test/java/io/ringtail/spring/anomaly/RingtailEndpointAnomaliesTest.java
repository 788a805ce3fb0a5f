package io.ringtail.spring.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.spring.ObservedWindows;
import io.ringtail.spring.actuate.RingtailEndpoint;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * The anomalies the {@code ringtail} endpoint lists (the alerts' section), read on in-process
 * windows.
 */
class RingtailEndpointAnomaliesTest {

  @Test
  @SuppressWarnings("unchecked")
  void eachMeasuresValue_comesWithItsUnit() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000L);
    KeyedWindows keyed =
        KeyedWindows.builder()
            .window(WindowConfig.builder().length(Duration.ofMinutes(1)).buckets(12).build())
            .timeSource(time)
            .build();
    RingtailAnomalyProperties p = new RingtailAnomalyProperties();
    p.setMeasures(
        List.of(
            EndpointAnomalies.Measure.P95,
            EndpointAnomalies.Measure.ERROR_RATIO,
            EndpointAnomalies.Measure.RATE));
    p.setMinimumSamples(1);
    EndpointAnomalies anomalies =
        new EndpointAnomalies(
            () -> Map.of("http.server.requests", keyed),
            p,
            EndpointAnomalies.Pager.always(),
            e -> {},
            null);
    String key =
        String.join(
            "\u001f", "method", "GET", "outcome", "SUCCESS", "status", "200", "uri", "/orders");
    for (int i = 0; i < 60; i++) {
      keyed.recordAt(key, 25_000_000L, time.nanoTime()); // 25 ms
    }
    anomalies.evaluate();
    DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
    beans.registerSingleton("ringtailAnomalySection", new AnomalySection(anomalies));
    RingtailEndpoint endpoint =
        new RingtailEndpoint(
            beans, beans.getBeanProvider(ObservedWindows.class), List.of(0.95), 100);

    Map<String, Map<String, Object>> byMeasure = new HashMap<>();
    for (Map<String, Object> m : (List<Map<String, Object>>) endpoint.windows().get("anomalies")) {
      byMeasure.put((String) m.get("measure"), m);
    }
    assertThat(byMeasure.get("p95")).containsEntry("unit", "ns");
    assertThat((Double) byMeasure.get("p95").get("value")).isBetween(24e6, 26e6);
    assertThat(byMeasure.get("error_ratio"))
        .containsEntry("unit", "ratio")
        .containsEntry("value", 0.0);
    assertThat(byMeasure.get("rate")).containsEntry("unit", "1/s").containsEntry("value", 1.0);
  }
}
