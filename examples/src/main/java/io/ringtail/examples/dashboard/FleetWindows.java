package io.ringtail.examples.dashboard;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.RollingWindow;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisRollingWindow;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Fleet mode: the dashboard's windows live in Redis. Each simulated worker gets its own
 * connection and its own {@link RedisRollingWindow} objects, as separate processes would; all of
 * them, and the reader behind the page, name the same windows, so the page shows the fleet-wide
 * statistics. Thread-safe.
 */
final class FleetWindows extends DashboardWindows {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  /**
   * The percentiles a Redis snapshot fetches exactly; any other reads the next one above. The
   * SLO burn rule derives "fraction above the target" from percentiles, so the tail gets a
   * grid of half a percent (at most 64 values, each one O(log n) rank lookup in Redis).
   */
  static final double[] READ_PERCENTILES = readPercentiles();

  private final RedisClient client;
  private final List<StatefulRedisConnection<String, String>> connections;
  private final List<RedisRollingWindow> recording;

  private FleetWindows(String mode, RedisRollingWindow shortView, RedisRollingWindow longView,
      List<List<RollingWindow>> perWorker, RedisClient client,
      List<StatefulRedisConnection<String, String>> connections, List<RedisRollingWindow> recording) {
    super(mode, shortView, longView, perWorker);
    this.client = client;
    this.connections = connections;
    this.recording = recording;
  }

  /**
   * Connects to {@code redis} and builds the fleet windows {@code <fleet>:10s} and
   * {@code <fleet>:60s}: one connection per worker plus one for the reader.
   */
  static FleetWindows connect(URI redis, String fleet, int workers, int rate) {
    RedisClient client = RedisClient.create(RedisURI.create(redis));
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
    try {
      int maxSamples = (int) Math.min(10_000_000, Math.max(100_000, 2L * rate * LONG.toSeconds()));
      List<List<RollingWindow>> perWorker = new ArrayList<>();
      List<RedisRollingWindow> recording = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        RedisBackend backend = backend(client, connections);
        RedisRollingWindow s = backend.window(fleet + ":10s").length(SHORT).maxSamples(maxSamples).build();
        RedisRollingWindow l = backend.window(fleet + ":60s").length(LONG).maxSamples(maxSamples).build();
        perWorker.add(List.of(s, l));
        recording.add(s);
        recording.add(l);
      }
      RedisBackend reader = backend(client, connections);
      RedisRollingWindow shortView = reader.window(fleet + ":10s").length(SHORT)
          .maxSamples(maxSamples).percentiles(READ_PERCENTILES).build();
      RedisRollingWindow longView = reader.window(fleet + ":60s").length(LONG)
          .maxSamples(maxSamples).percentiles(READ_PERCENTILES).build();
      String mode = "fleet in Redis " + redis.getHost() + ":" + (redis.getPort() < 0 ? 6379 : redis.getPort())
          + " (window " + fleet + ", " + workers + " workers on their own connections)";
      return new FleetWindows(mode, shortView, longView, perWorker, client, connections, recording);
    } catch (RuntimeException e) {
      connections.forEach(StatefulRedisConnection::close);
      client.shutdown();
      throw e;
    }
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

  private static RedisBackend backend(RedisClient client,
      List<StatefulRedisConnection<String, String>> connections) {
    StatefulRedisConnection<String, String> c = client.connect();
    connections.add(c);
    return RedisBackend.builder(c).commandTimeout(TIMEOUT).build();
  }

  @Override
  boolean flush() {
    boolean done = true;
    for (RedisRollingWindow w : recording) {
      done &= w.flush(Duration.ofSeconds(10));
    }
    return done;
  }

  @Override
  public void close() {
    flush();
    connections.forEach(StatefulRedisConnection::close);
    client.shutdown();
  }
}
