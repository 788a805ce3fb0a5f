package io.ringtail.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringtail.WindowConfig;
import io.ringtail.WindowConventions;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisHistogramWindow;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.spring.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two processes of one fleet window on a real redis-server, each binding {@link FleetMeters} to a
 * registry of its own: each process's counters count what it recorded, and each key's fleet gauges
 * exist in one registry only, the one of the process that merges the key, with the fleet's numbers,
 * read without Redis.
 */
class FleetMetersTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final Duration INTERVAL = Duration.ofMillis(50);
  private static final WindowConventions CONVENTIONS =
      WindowConventions.builder().percentiles(0.5, 0.95).build();

  private RedisProcess server;
  private final List<RedisClient> clients = new ArrayList<>();
  private final List<AutoCloseable> windows = new ArrayList<>();

  @BeforeEach
  void start() {
    server = RedisProcess.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.resume();
    for (AutoCloseable w : windows) {
      w.close();
    }
    clients.forEach(RedisClient::shutdown);
    server.close();
  }

  private RedisBackend backend() {
    RedisClient client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    clients.add(client);
    return RedisBackend.builder(client.connect(server.uri())).commandTimeout(TIMEOUT).build();
  }

  private RedisKeyedHistogramWindows keyed() {
    RedisKeyedHistogramWindows w =
        backend()
            .keyedHistogramWindows("routes")
            .config(WindowConfig.builder().length(Duration.ofMinutes(10)).buckets(10).build())
            .publishInterval(INTERVAL)
            .build();
    windows.add(w::close);
    return w;
  }

  private static FleetMeters meters(RedisKeyedHistogramWindows keyed) {
    return FleetMeters.of(
        keyed, "routes", "ringtail.routes", key -> Tags.of("key", key), CONVENTIONS, 100);
  }

  /** Reads each registry's key gauges: the scrape's reconcile, binding the keys present. */
  private static void scrape(MeterRegistry... registries) {
    for (MeterRegistry r : registries) {
      r.get("ringtail.routes.keys").gauge().value();
      r.get("ringtail.fleet.routes.keys").gauge().value();
    }
  }

  private static Double fleetSamples(MeterRegistry r, String key) {
    Gauge g = r.find("ringtail.fleet.routes.samples").tag("key", key).gauge();
    return g == null ? null : g.value();
  }

  private static Double recorded(MeterRegistry r, String key) {
    FunctionCounter c = r.find("ringtail.routes.recorded").tag("key", key).functionCounter();
    return c == null ? null : c.count();
  }

  @Test
  void eachProcessCountsItsOwn_andEachKeysFleetGaugesExistOnce_atItsMerger() throws Exception {
    RedisKeyedHistogramWindows a = keyed();
    RedisKeyedHistogramWindows b = keyed();
    MeterRegistry ra = new SimpleMeterRegistry();
    MeterRegistry rb = new SimpleMeterRegistry();
    meters(a).bindTo(ra);
    meters(b).bindTo(rb);
    Map<String, Integer> fleet = Map.of("GET /a", 3, "GET /b", 6, "GET /c", 1);
    for (int i = 0; i < 3; i++) {
      a.record("GET /a", 1_000_000L * (i + 1));
    }
    for (int i = 0; i < 2; i++) {
      a.record("GET /b", 5_000_000L);
    }
    for (int i = 0; i < 4; i++) {
      b.record("GET /b", 7_000_000L);
    }
    b.record("GET /c", 9_000_000L);
    // a key's counter exists as soon as the process holds the key, before any scrape
    assertThat(recorded(ra, "GET /a")).isNotNull();
    assertThat(recorded(rb, "GET /c")).isNotNull();

    Await.until(
        "each key's fleet gauges at one process, with the fleet's count",
        () -> {
          scrape(ra, rb);
          for (Map.Entry<String, Integer> e : fleet.entrySet()) {
            Double inA = fleetSamples(ra, e.getKey());
            Double inB = fleetSamples(rb, e.getKey());
            Double shown = inA != null ? inA : inB;
            if ((inA == null) == (inB == null) || shown.doubleValue() != e.getValue()) {
              return false;
            }
          }
          return true;
        });
    for (String key : fleet.keySet()) {
      boolean atA = fleetSamples(ra, key) != null;
      assertThat(atA ? a.owns(key) : b.owns(key)).as("%s's gauges at its merger", key).isTrue();
      MeterRegistry at = atA ? ra : rb;
      assertThat(at.get("ringtail.fleet.routes.percentile").tags("key", key, "phi", "0.95").gauge())
          .isNotNull();
      assertThat(at.find("ringtail.fleet.routes.recorded").functionCounters())
          .as("no totals among the fleet's meters")
          .isEmpty();
    }
    // a process's totals are what its rounds drained: at most half an interval behind its records
    Await.until(
        "each process's own counts",
        () -> {
          scrape(ra, rb);
          return Double.valueOf(3.0).equals(recorded(ra, "GET /a"))
              && Double.valueOf(2.0).equals(recorded(ra, "GET /b"))
              && Double.valueOf(4.0).equals(recorded(rb, "GET /b"))
              && Double.valueOf(1.0).equals(recorded(rb, "GET /c"));
        });
    assertThat(recorded(ra, "GET /a")).isEqualTo(3.0);
    assertThat(recorded(ra, "GET /b")).isEqualTo(2.0);
    assertThat(recorded(ra, "GET /c")).as("a key this process never recorded").isNull();
    assertThat(recorded(rb, "GET /b")).isEqualTo(4.0);
    assertThat(recorded(rb, "GET /c")).isEqualTo(1.0);
    assertThat(recorded(rb, "GET /a")).isNull();
    assertThat(ra.find("ringtail.routes.samples").gauges())
        .as("no per-process window statistics")
        .isEmpty();

    // scrapes read what the merger wrote last, in memory: Redis stopped, they still answer
    server.pause();
    scrape(ra, rb);
    for (Map.Entry<String, Integer> e : fleet.entrySet()) {
      Double inA = fleetSamples(ra, e.getKey());
      assertThat(inA != null ? inA : fleetSamples(rb, e.getKey()))
          .as("%s while Redis is stopped", e.getKey())
          .isEqualTo(e.getValue().doubleValue());
    }
    assertThat(recorded(rb, "GET /b")).isEqualTo(4.0);
    server.resume();
  }

  @Test
  void aSingleFleetWindow_countsEachProcessOwn_andOneProcessExportsTheFleets() throws Exception {
    List<RedisHistogramWindow> pods = new ArrayList<>();
    List<MeterRegistry> registries = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      RedisHistogramWindow w =
          backend()
              .histogramWindow("checkout")
              .config(WindowConfig.builder().length(Duration.ofMinutes(10)).buckets(10).build())
              .publishInterval(INTERVAL)
              .build();
      windows.add(w::close);
      pods.add(w);
      MeterRegistry r = new SimpleMeterRegistry();
      FleetMeters.ofBean(w, "checkout", CONVENTIONS).bindTo(r);
      registries.add(r);
    }
    for (int i = 0; i < 5; i++) {
      pods.get(0).record(2_000_000L);
    }
    pods.get(1).record(4_000_000L);
    Await.until(
        "the fleet's six samples at one process",
        () -> {
          int exporting = 0;
          double shown = 0;
          for (MeterRegistry r : registries) {
            r.get("ringtail.fleet.window.keys").gauge().value();
            Gauge g = r.find("ringtail.fleet.window.samples").tag("window", "checkout").gauge();
            if (g != null) {
              exporting++;
              shown = g.value();
            }
          }
          return exporting == 1 && shown == 6;
        });
    for (int p = 0; p < 2; p++) {
      MeterRegistry r = registries.get(p);
      double own = p == 0 ? 5.0 : 1.0;
      // what this process's rounds drained: at most half an interval behind its records
      Await.until(
          "process " + p + "'s own count",
          () -> {
            r.get("ringtail.window.keys").gauge().value();
            return r.get("ringtail.window.recorded").functionCounter().count() == own;
          });
      boolean exports = r.find("ringtail.fleet.window.samples").gauge() != null;
      assertThat(exports).isEqualTo(pods.get(p).owns());
    }
  }
}
