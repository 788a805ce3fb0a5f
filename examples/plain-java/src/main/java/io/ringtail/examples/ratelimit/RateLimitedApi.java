package io.ringtail.examples.ratelimit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.TimeSource;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.examples.Flags;
import io.ringtail.redis.RedisBackend;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An HTTP API rate-limited per API key with Ringtail's sliding-log {@link RateLimiter}: at most
 * {@code limit} requests per key in any rolling window, exactly; a denied request gets {@code 429
 * Too Many Requests} with a {@code Retry-After} header saying when the key's next request will be
 * admitted. Serves on the JDK's built-in HTTP server, bound to 127.0.0.1.
 *
 * <p>Run: {@code mvn -q -pl examples/plain-java -am compile exec:java
 * -Dexec.mainClass=io.ringtail.examples.ratelimit.RateLimitedApi -Dexec.args="--requests 12"}:
 * starts the API, sends a burst from one client and a few requests from another, prints every
 * answer and exits. With {@code --redis redis://HOST:PORT} the limiter lives in Redis, shared by
 * every API instance: the only change is the line that builds it. Thread-safe: the server handles
 * requests on several threads.
 */
public final class RateLimitedApi implements AutoCloseable {
  static final String KEY_HEADER = "X-Api-Key";

  private final RateLimiter limiter;
  private final HttpServer server;
  private final ExecutorService executor;

  RateLimitedApi(int port, int limit, Duration window, TimeSource time) throws IOException {
    this(
        port,
        RateLimiter.inProcess(
            RateLimitConfig.builder().limit(limit).window(window).timeSource(time).build()));
  }

  /** An API in front of any limiter: in-process, or shared by a fleet through Redis. */
  RateLimitedApi(int port, RateLimiter limiter) throws IOException {
    this.limiter = limiter;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    executor =
        Executors.newFixedThreadPool(
            4,
            r -> {
              Thread t = new Thread(r, "api-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/api/quote", this::quote);
  }

  private void quote(HttpExchange exchange) throws IOException {
    try (exchange) {
      String key = exchange.getRequestHeaders().getFirst(KEY_HEADER);
      if (key == null || key.isBlank()) {
        send(exchange, 401, "missing " + KEY_HEADER + " header\n");
        return;
      }
      RateDecision d = limiter.tryAcquire(key);
      exchange.getResponseHeaders().set("RateLimit-Limit", Integer.toString(d.limit()));
      exchange.getResponseHeaders().set("RateLimit-Remaining", Integer.toString(d.remaining()));
      if (d.allowed()) {
        send(exchange, 200, "{\"quote\":\"what happened in the last N seconds\"}\n");
      } else {
        // whole seconds, rounded up, so a client that waits exactly this long is admitted
        long seconds = Math.max(1, (d.retryAfter().toNanos() + 999_999_999L) / 1_000_000_000L);
        exchange.getResponseHeaders().set("Retry-After", Long.toString(seconds));
        send(
            exchange,
            429,
            "rate limit of "
                + d.limit()
                + " requests per "
                + limiter.config().window().toSeconds()
                + " s exceeded; retry in "
                + seconds
                + " s\n");
      }
    }
  }

  private static void send(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange
        .getResponseHeaders()
        .set("Content-Type", status == 200 ? "application/json" : "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  void start() {
    server.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/quote");
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  public static void main(String[] args) throws Exception {
    Flags flags;
    try {
      flags = Flags.parse(args, "--requests", "--limit", "--redis");
    } catch (Flags.HelpRequested e) {
      System.out.println(
          "flags: --requests N (burst size, default 12), --limit N (per key per minute, default"
              + " 10), --redis redis://HOST:PORT (a limit shared by every API instance)");
      return;
    }
    int requests = flags.positive("--requests", 12);
    int limit = flags.positive("--limit", 10);
    String redis = flags.string("--redis").orElse(null);
    if (redis == null) {
      run(RateLimiter.inProcess(config(limit, TimeSource.system())), requests, System.out);
      return;
    }
    RedisClient client = RedisClient.create(redis);
    client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(1)));
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisBackend backend = RedisBackend.builder(connection).build();
      run(
          backend.rateLimiter("api-quota", config(limit, backend.serverClock())),
          requests,
          System.out);
    } finally {
      client.shutdown();
    }
  }

  static RateLimitConfig config(int limit, TimeSource time) {
    return RateLimitConfig.builder()
        .limit(limit)
        .window(Duration.ofMinutes(1))
        .timeSource(time)
        .build();
  }

  /** Starts the API, sends the demo traffic, prints each answer and returns the status counts. */
  static Map<Integer, Integer> run(RateLimiter limiter, int requests, PrintStream out)
      throws Exception {
    if (requests < 1) {
      throw new IllegalArgumentException("requests must be positive, but was " + requests);
    }
    Map<Integer, Integer> statuses = new LinkedHashMap<>();
    try (RateLimitedApi api = new RateLimitedApi(0, limiter)) {
      api.start();
      out.printf(
          "API on %s: at most %d requests per API key in any rolling %d s%n",
          api.uri(), limiter.config().limit(), limiter.config().window().toSeconds());
      HttpClient http = HttpClient.newHttpClient();
      for (int i = 1; i <= requests; i++) {
        statuses.merge(call(http, api.uri(), "client-a", "burst " + i, out), 1, Integer::sum);
      }
      for (int i = 1; i <= 3; i++) {
        statuses.merge(call(http, api.uri(), "client-b", "calm " + i, out), 1, Integer::sum);
      }
    }
    out.println("Answers by status: " + statuses);
    return statuses;
  }

  private static int call(HttpClient http, URI uri, String key, String label, PrintStream out)
      throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(uri)
                .header(KEY_HEADER, key)
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    out.printf(
        "%-9s %-9s -> %d  remaining %s%s%n",
        key,
        label,
        r.statusCode(),
        r.headers().firstValue("RateLimit-Remaining").orElse("-"),
        r.headers().firstValue("Retry-After").map(s -> "  Retry-After: " + s + " s").orElse(""));
    return r.statusCode();
  }
}
