package io.ringtail.examples.dashboard;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisHistogramWindow;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.redis.RedisRollingWindow;
import io.ringtail.redis.RedisServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Fleet mode: the dashboard's windows live in Redis. Each simulated worker gets its own connection
 * and its own window objects, as separate processes would; all of them, and the reader behind the
 * page, name the same windows, so the page shows the fleet-wide statistics. So with the service
 * level: each worker records into its own {@link RedisServiceLevel} of one configuration, and the
 * page reads the fleet's counts through the reader's. The windows are {@link RedisHistogramWindow}s
 * (per-bucket histograms merged in Redis, any rate) unless the raw-sample {@link
 * RedisRollingWindow} is asked for. Thread-safe.
 */
final class FleetWindows extends DashboardWindows {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  /**
   * The percentiles a Redis snapshot fetches exactly; any other reads the next one above. The SLO
   * burn rule derives "fraction above the target" from percentiles, so the tail gets a grid of half
   * a percent (at most 64 values, each one O(log n) rank lookup in Redis).
   */
  static final double[] READ_PERCENTILES = readPercentiles();

  private final RedisClient client;
  private final List<StatefulRedisConnection<String, String>> connections;
  private final List<RollingWindow> recording;
  private final List<RedisKeyedHistogramWindows> keyed;
  private final List<RedisServiceLevel> serviceLevels;

  /**
   * Keyed histogram windows per route (the reader's last in {@code keyed}; none for raw windows),
   * and the workers' service levels, the reader's last in {@code serviceLevels}.
   */
  private FleetWindows(
      String mode,
      RollingWindow shortView,
      RollingWindow longView,
      List<List<RollingWindow>> perWorker,
      RedisClient client,
      List<StatefulRedisConnection<String, String>> connections,
      List<RollingWindow> recording,
      List<RedisKeyedHistogramWindows> keyed,
      List<RedisServiceLevel> serviceLevels) {
    super(
        mode,
        shortView,
        longView,
        perWorker,
        keyed.isEmpty() ? null : keyed.get(keyed.size() - 1),
        keyed.isEmpty() ? null : List.<KeyedWindows>copyOf(keyed.subList(0, keyed.size() - 1)),
        serviceLevels.get(serviceLevels.size() - 1),
        serviceLevels.subList(0, serviceLevels.size() - 1));
    this.client = client;
    this.connections = connections;
    this.recording = recording;
    this.keyed = keyed;
    this.serviceLevels = serviceLevels;
  }

  /**
   * {@link #connect(URI, String, int, int, boolean, double)} with histogram windows and the default
   * latency target.
   */
  static FleetWindows connect(URI redis, String fleet, int workers, int rate) {
    return connect(redis, fleet, workers, rate, false, Options.defaults().sloMillis());
  }

  /**
   * Connects to {@code redis} and builds the fleet windows {@code <fleet>:10s} and {@code
   * <fleet>:60s}: one connection per worker plus one for the reader; raw-sample windows if {@code
   * raw}, else histogram windows. The service level, {@code <fleet>:checkout}, holds requests to
   * {@code sloMillis}.
   */
  static FleetWindows connect(
      URI redis, String fleet, int workers, int rate, boolean raw, double sloMillis) {
    RedisClient client = RedisClient.create(RedisURI.create(redis));
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
    List<RedisServiceLevel> serviceLevels = new ArrayList<>();
    ServiceLevelConfig slo = DashboardSlo.config(fleet + ":checkout", sloMillis);
    try {
      if (!raw) {
        return histogram(redis, fleet, workers, client, connections, slo, serviceLevels);
      }
      int maxSamples = (int) Math.min(10_000_000, Math.max(100_000, 2L * rate * LONG.toSeconds()));
      List<List<RollingWindow>> perWorker = new ArrayList<>();
      List<RollingWindow> recording = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        RedisBackend backend = backend(client, connections);
        RedisRollingWindow s =
            backend.window(fleet + ":10s").length(SHORT).maxSamples(maxSamples).build();
        RedisRollingWindow l =
            backend.window(fleet + ":60s").length(LONG).maxSamples(maxSamples).build();
        perWorker.add(List.of(s, l));
        recording.add(s);
        recording.add(l);
        serviceLevels.add(backend.serviceLevel(slo));
      }
      RedisBackend reader = backend(client, connections);
      serviceLevels.add(reader.serviceLevel(slo));
      RedisRollingWindow shortView =
          reader
              .window(fleet + ":10s")
              .length(SHORT)
              .maxSamples(maxSamples)
              .percentiles(READ_PERCENTILES)
              .build();
      RedisRollingWindow longView =
          reader
              .window(fleet + ":60s")
              .length(LONG)
              .maxSamples(maxSamples)
              .percentiles(READ_PERCENTILES)
              .build();
      String mode =
          "fleet in Redis "
              + where(redis)
              + " (raw-sample window "
              + fleet
              + ", "
              + workers
              + " workers on their own connections)";
      return new FleetWindows(
          mode,
          shortView,
          longView,
          perWorker,
          client,
          connections,
          recording,
          List.of(),
          serviceLevels);
    } catch (RuntimeException e) {
      serviceLevels.forEach(RedisServiceLevel::close);
      connections.forEach(StatefulRedisConnection::close);
      client.shutdown();
      throw e;
    }
  }

  private static FleetWindows histogram(
      URI redis,
      String fleet,
      int workers,
      RedisClient client,
      List<StatefulRedisConnection<String, String>> connections,
      ServiceLevelConfig slo,
      List<RedisServiceLevel> serviceLevels) {
    WindowConfig shortConfig = WindowConfig.builder().length(SHORT).buckets(10).build();
    WindowConfig longConfig = WindowConfig.builder().length(LONG).buckets(60).build();
    List<List<RollingWindow>> perWorker = new ArrayList<>();
    List<RollingWindow> recording = new ArrayList<>();
    List<RedisKeyedHistogramWindows> keyed = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      RedisBackend backend = backend(client, connections);
      RedisHistogramWindow s = backend.histogramWindow(fleet + ":10s").config(shortConfig).build();
      RedisHistogramWindow l = backend.histogramWindow(fleet + ":60s").config(longConfig).build();
      perWorker.add(List.of(s, l));
      recording.add(s);
      recording.add(l);
      keyed.add(backend.keyedHistogramWindows(fleet + ":routes").config(ROUTE_WINDOW).build());
      serviceLevels.add(backend.serviceLevel(slo));
    }
    RedisBackend reader = backend(client, connections);
    keyed.add(reader.keyedHistogramWindows(fleet + ":routes").config(ROUTE_WINDOW).build());
    serviceLevels.add(reader.serviceLevel(slo));
    RedisHistogramWindow shortView =
        reader.histogramWindow(fleet + ":10s").config(shortConfig).build();
    RedisHistogramWindow longView =
        reader.histogramWindow(fleet + ":60s").config(longConfig).build();
    String mode =
        "fleet in Redis "
            + where(redis)
            + " (histogram window "
            + fleet
            + ", "
            + workers
            + " workers on their own connections, windows per route)";
    return new FleetWindows(
        mode, shortView, longView, perWorker, client, connections, recording, keyed, serviceLevels);
  }

  private static String where(URI redis) {
    return redis.getHost() + ":" + (redis.getPort() < 0 ? 6379 : redis.getPort());
  }

  private static double[] readPercentiles() {
    double[] ps = new double[4 + 48 + 3];
    int i = 0;
    for (double p = 50; p < 76; p += 10) {
      ps[i++] = p;
    }
    ps[i++] = 75;
    for (double p = 76; p < 99.9; p += 0.5) {
      ps[i++] = p;
    }
    ps[i++] = 99.7;
    ps[i++] = 99.8;
    ps[i++] = 99.9;
    return java.util.Arrays.copyOf(ps, i);
  }

  private static RedisBackend backend(
      RedisClient client, List<StatefulRedisConnection<String, String>> connections) {
    StatefulRedisConnection<String, String> c = client.connect();
    connections.add(c);
    return RedisBackend.builder(c).commandTimeout(TIMEOUT).build();
  }

  @Override
  boolean flush() {
    boolean done = true;
    for (RollingWindow w : recording) {
      if (w instanceof RedisRollingWindow raw) {
        done &= raw.flush(Duration.ofSeconds(10));
      } else {
        done &= ((RedisHistogramWindow) w).flush(Duration.ofSeconds(10));
      }
    }
    for (RedisKeyedHistogramWindows k : keyed) {
      done &= k.flush(Duration.ofSeconds(10));
    }
    for (RedisServiceLevel s : serviceLevels) {
      done &= s.flush(Duration.ofSeconds(10));
    }
    return done;
  }

  @Override
  String serviceLevelScope() {
    return "fleet-wide, every process merged in Redis";
  }

  /** The worker whose service level holds {@code objective}'s merger lease: the fleet's pager. */
  @Override
  Integer pagerOf(String objective) {
    for (int i = 0; i < serviceLevels.size() - 1; i++) {
      if (serviceLevels.get(i).owns(objective)) {
        return i;
      }
    }
    return null;
  }

  @Override
  public void close() {
    flush();
    serviceLevels.forEach(RedisServiceLevel::close);
    keyed.forEach(RedisKeyedHistogramWindows::close);
    connections.forEach(StatefulRedisConnection::close);
    client.shutdown();
  }
}
