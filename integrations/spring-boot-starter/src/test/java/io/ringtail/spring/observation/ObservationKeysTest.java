package io.ringtail.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.spring.ObservedWindows;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The request path's key resolution (ObservationKeys) against a naive join on random contexts, its
 * keys read back by the root's reader, its allocation per request, and the handler's record from
 * many threads on one endpoint.
 */
class ObservationKeysTest {
  private static final Set<String> EXCLUDED = Set.of("exception", "error", "window", "phi");
  private static final String[] NAMES = {
    "method", "uri", "status", "outcome", "exception", "error", "region", "window"
  };

  /** The key as the handler always joined it: sorted by name, excluded names left out. */
  private static String naive(Map<String, String> keyValues) {
    StringBuilder key = new StringBuilder();
    for (Map.Entry<String, String> e : new TreeMap<>(keyValues).entrySet()) {
      if (EXCLUDED.contains(e.getKey())) {
        continue;
      }
      if (key.length() > 0) {
        key.append('\u001f');
      }
      key.append(e.getKey().replace('\u001f', '_'))
          .append('\u001f')
          .append(e.getValue().replace('\u001f', '_'));
    }
    return key.length() == 0 ? "-" : key.toString();
  }

  @Test
  void aKeysValues_readBack_asTheRootsReaderReadsThem() {
    Map<String, String> keyValues = new TreeMap<>();
    keyValues.put("uri", "/orders/{id}");
    keyValues.put("method", "GET");
    keyValues.put("status", "");
    keyValues.put("region", "eu\u001fwest");
    keyValues.put("exception", "none");
    List<KeyValue> sorted = new ArrayList<>();
    keyValues.forEach((k, v) -> sorted.add(KeyValue.of(k, v)));

    assertThat(ObservedWindows.keyValues(ObservationKeys.joined(sorted, EXCLUDED)))
        .containsExactly(
            Map.entry("method", "GET"),
            Map.entry("region", "eu_west"),
            Map.entry("status", ""),
            Map.entry("uri", "/orders/{id}"));
    assertThat(ObservedWindows.keyValues(ObservationKeys.joined(List.of(), EXCLUDED))).isEmpty();
  }

  private static Observation.Context context(Map<String, String> keyValues) {
    Observation.Context c = new Observation.Context();
    c.setName("http.server.requests");
    keyValues.forEach((k, v) -> c.addLowCardinalityKeyValue(KeyValue.of(k, v)));
    return c;
  }

  @Test
  void valueOf_randomContexts_matchesTheNaiveJoin() {
    assertThat(ObservationKeys.countsKeyValues()).as("the request path resolves locally").isTrue();
    ObservationKeys<String> keys = new ObservationKeys<>(EXCLUDED, Function.identity());
    SplittableRandom random = new SplittableRandom(37);
    String[] values = {"GET", "POST", "/orders/{id}", "200", "500", "none", "a\u001fb", ""};
    // scratch arrays of every length up to the usual one, reused with what earlier steps left in
    // them: one too short for a shape reads into an array of its own
    String[][] scratches = new String[ObservationKeys.SCRATCH + 1][];
    for (int n = 0; n < scratches.length; n++) {
      scratches[n] = new String[n];
    }
    for (int i = 0; i < 20_000; i++) {
      Map<String, String> kv = new HashMap<>();
      // mostly the usual five, sometimes names left out or added: shapes the resolver must tell
      // apart by their count and by each name's presence
      for (int n = 0; n < NAMES.length; n++) {
        boolean usual = n < 5;
        if (usual ? random.nextInt(20) != 0 : random.nextInt(8) == 0) {
          kv.put(NAMES[n], values[random.nextInt(values.length)]);
        }
      }
      Observation.Context c = context(kv);
      String[] scratch = scratches[random.nextInt(scratches.length)];
      assertThat(keys.valueOf(c, scratch)).as("step %d: %s", i, kv).isEqualTo(naive(kv));
      if (random.nextInt(5) == 0) {
        // a key value changed or removed after the context was first resolved
        String name = NAMES[random.nextInt(NAMES.length)];
        if (random.nextBoolean()) {
          kv.remove(name);
          c.removeLowCardinalityKeyValue(name);
        } else {
          String v = values[random.nextInt(values.length)];
          kv.put(name, v);
          c.addLowCardinalityKeyValue(KeyValue.of(name, v));
        }
        assertThat(keys.valueOf(c, scratch)).as("step %d, changed: %s", i, kv).isEqualTo(naive(kv));
      }
    }
  }

  @Test
  void valueOf_seenValues_allocatesNothing() {
    ObservationKeys<String> keys = new ObservationKeys<>(EXCLUDED, Function.identity());
    List<Observation.Context> contexts = endpoints();
    String[] scratch = new String[ObservationKeys.SCRATCH]; // the handler's, from its start holder
    contexts.forEach(c -> keys.valueOf(c, scratch));
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long bytes = 0;
    for (int round = 0; round < 200; round++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < 1_000; i++) {
        keys.valueOf(contexts.get(i % contexts.size()), scratch);
      }
      long used = threads.getCurrentThreadAllocatedBytes() - before;
      if (round >= 150) { // the rounds before warm the JIT
        bytes += used;
      }
    }
    assertThat(bytes).as("bytes over 50,000 resolutions").isLessThanOrEqualTo(256);
  }

  @Test
  void onStop_ofAStartedRequest_allocatesNothing_andCountsExactly() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    WindowConfig config = WindowConfig.builder().length(Duration.ofMinutes(1)).buckets(12).build();
    ObservationWindows windows =
        new ObservationWindows(
            List.of("http.server.requests"),
            Set.of("exception", "error"),
            config,
            100,
            List.of(0.5),
            time);
    List<Observation.Context> contexts = endpoints();
    Observation.Context[] stopped = contexts.toArray(Observation.Context[]::new);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long bytes = 0;
    int rounds = 200;
    for (int round = 0; round < rounds; round++) {
      contexts.forEach(windows::onStart);
      time.advanceNanos(1_000);
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < stopped.length; i++) { // no iterator: what is counted is the stops'
        windows.onStop(stopped[i]);
      }
      long used = threads.getCurrentThreadAllocatedBytes() - before;
      if (round >= 150) {
        bytes += used;
      }
    }
    // the key resolution finds the key's recorder, which records without reading the cache
    assertThat(bytes).as("bytes over 50 x %d stops", contexts.size()).isZero();
    KeyedWindows http = windows.windows().get("http.server.requests");
    assertThat(http.snapshots()).hasSize(3);
    assertThat(http.snapshots().values().stream().mapToLong(s -> s.count()).sum())
        .isEqualTo(rounds * 100L);
    windows.close();
  }

  /** Threads stopping requests of one endpoint: every one is counted once. */
  @Test
  void manyThreadsOnOneEndpoint_everyRequestCountedOnce() throws Exception {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    WindowConfig config = WindowConfig.builder().length(Duration.ofMinutes(1)).buckets(12).build();
    ObservationWindows windows =
        new ObservationWindows(
            List.of("http.server.requests"),
            Set.of("exception", "error"),
            config,
            100,
            List.of(0.5),
            time);
    int threads = 4;
    int each = 50_000;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                for (int i = 0; i < each; i++) {
                  Observation.Context c =
                      context(Map.of("method", "GET", "uri", "/hot", "status", "200"));
                  windows.onStart(c);
                  windows.onStop(c);
                }
              });
      thread.start();
      started.add(thread);
    }
    go.countDown();
    for (Thread t : started) {
      t.join();
    }
    KeyedWindows http = windows.windows().get("http.server.requests");
    assertThat(http.snapshots()).hasSize(1);
    assertThat(http.snapshots().values().iterator().next().count())
        .isEqualTo((long) threads * each);
    windows.close();
  }

  /** 100 contexts over three endpoints, as Spring MVC's convention names them. */
  private static List<Observation.Context> endpoints() {
    String[][] endpoints = {
      {"GET", "/orders/{id}", "200", "SUCCESS"},
      {"POST", "/checkout", "200", "SUCCESS"},
      {"GET", "/orders/{id}", "500", "SERVER_ERROR"}
    };
    List<Observation.Context> contexts = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      String[] e = endpoints[i % endpoints.length];
      Map<String, String> kv = new HashMap<>();
      // fresh strings, as a request's convention builds them
      kv.put("method", new String(e[0]));
      kv.put("uri", new String(e[1]));
      kv.put("status", new String(e[2]));
      kv.put("outcome", new String(e[3]));
      kv.put("exception", "none");
      contexts.add(context(kv));
    }
    return contexts;
  }
}
