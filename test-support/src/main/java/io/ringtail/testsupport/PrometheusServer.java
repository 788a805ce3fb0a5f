package io.ringtail.testsupport;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.DoublePredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real Prometheus server for tests (Debian's {@code prometheus} package, or {@code
 * -Dringtail.prometheus}) on a free loopback port, scraping the given targets every 500 ms, with
 * its own storage in a temporary directory; stopped and removed on {@link #close()}. The build
 * installs the package where a module's tests need it ({@code test-support/install-prometheus.sh}).
 */
public final class PrometheusServer implements AutoCloseable {
  private final Process process;
  private final Path dir;
  private final String url;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private PrometheusServer(Process process, Path dir, String url) {
    this.process = process;
    this.dir = dir;
    this.url = url;
  }

  /** The server binary: -Dringtail.prometheus, $PROMETHEUS, or the Debian package's. */
  public static Path binary() {
    for (String candidate :
        new String[] {
          System.getProperty("ringtail.prometheus"),
          System.getenv("PROMETHEUS"),
          "/usr/bin/prometheus",
          "/usr/local/bin/prometheus"
        }) {
      if (candidate != null && !candidate.isBlank() && Files.isExecutable(Path.of(candidate))) {
        return Path.of(candidate);
      }
    }
    throw new AssertionError(
        "no prometheus server binary: mvn verify installs Debian's package where it is missing"
            + " (test-support/install-prometheus.sh), or pass"
            + " -Dringtail.prometheus=/path/to/prometheus");
  }

  /**
   * Starts a server scraping {@code metricsPath} (such as {@code /metrics}) of {@code targets}
   * (host:port), with the given feature flags ({@code native-histograms}, {@code
   * exemplar-storage}).
   */
  public static PrometheusServer start(List<String> targets, String metricsPath, String... features)
      throws Exception {
    return launch(targets, metricsPath, null, features);
  }

  /**
   * Starts a server as {@link #start(List, String, String...)} does, which also loads the rule file
   * {@code rules} (recording and alerting rules, YAML) and evaluates it every 500 ms.
   */
  public static PrometheusServer startWithRules(
      List<String> targets, String metricsPath, String rules, String... features) throws Exception {
    return launch(targets, metricsPath, rules, features);
  }

  private static PrometheusServer launch(
      List<String> targets, String metricsPath, String rules, String... features) throws Exception {
    Path dir = Files.createTempDirectory("ringtail-prometheus");
    StringBuilder config = new StringBuilder();
    config.append("global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\n");
    if (rules != null) {
      Files.writeString(dir.resolve("rules.yml"), rules);
      config.append("  evaluation_interval: 500ms\n");
      config.append("rule_files:\n  - ").append(dir.resolve("rules.yml")).append('\n');
    }
    config.append("scrape_configs:\n  - job_name: pods\n");
    config.append("    metrics_path: ").append(metricsPath).append('\n');
    config.append("    static_configs:\n      - targets: [");
    for (int i = 0; i < targets.size(); i++) {
      config.append(i == 0 ? "" : ", ").append('"').append(targets.get(i)).append('"');
    }
    config.append("]\n");
    Files.writeString(dir.resolve("prometheus.yml"), config);
    int port = freePort();
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    command.add("--config.file=" + dir.resolve("prometheus.yml"));
    command.add("--storage.tsdb.path=" + dir.resolve("data"));
    command.add("--web.listen-address=127.0.0.1:" + port);
    command.add("--log.level=warn");
    for (String feature : features) {
      command.add("--enable-feature=" + feature);
    }
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start();
    PrometheusServer server = new PrometheusServer(process, dir, "http://127.0.0.1:" + port);
    try {
      server.awaitReady();
    } catch (Exception | AssertionError e) {
      server.close();
      throw e;
    }
    return server;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private void awaitReady() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError("prometheus exited: " + log());
      }
      try {
        HttpResponse<String> r = get("/-/ready");
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(100); // polling an external process's readiness, not letting time pass
    }
    throw new AssertionError("prometheus not ready in 60 s: " + log());
  }

  private static final Pattern SERIES = Pattern.compile("\\{\"metric\":");
  private static final Pattern VALUE = Pattern.compile("\"value\":\\[[^,]+,\"([^\"]+)\"\\]");

  /** The value of an instant query that answers with exactly one series, else NaN. */
  public double value(String promql) throws IOException, InterruptedException {
    String answer = query(promql);
    Matcher value = VALUE.matcher(answer);
    long series = SERIES.matcher(answer).results().count();
    return series == 1 && value.find() ? Double.parseDouble(value.group(1)) : Double.NaN;
  }

  /** Polls {@code promql} until it reads {@code expected}, for at most 60 s. */
  public void awaitValue(String promql, double expected) throws Exception {
    await(promql, v -> v == expected, "read " + expected);
  }

  /**
   * Waits, at most 60 s, until the server has scraped every target {@code scrapes} more times than
   * it had when called: so a {@code rate()} has points after what the test just did.
   */
  public void awaitScrapes(int scrapes) throws Exception {
    String promql = "min(count_over_time(up[1h]))";
    double before = value(promql);
    double target = (Double.isNaN(before) ? 0 : before) + scrapes;
    await(promql, v -> v >= target, "reach " + target);
  }

  private void await(String promql, DoublePredicate done, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    double last;
    while (!done.test(last = value(promql))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            promql + " did not " + what + " in 60 s; last " + last + "\n" + log());
      }
      Thread.sleep(100); // waiting for the server's next scrape, not letting time pass
    }
  }

  /** What the server logged (warnings and errors). */
  public String log() throws IOException {
    return Files.readString(dir.resolve("prometheus.log"));
  }

  private HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url + pathAndQuery))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** The raw JSON answer of {@code /api/v1/<endpoint>?<params>}; fails on an HTTP error. */
  public String api(String endpoint, String... namesAndValues)
      throws IOException, InterruptedException {
    StringBuilder query = new StringBuilder("/api/v1/").append(endpoint).append('?');
    for (int i = 0; i < namesAndValues.length; i += 2) {
      query
          .append(i == 0 ? "" : "&")
          .append(namesAndValues[i])
          .append('=')
          .append(URLEncoder.encode(namesAndValues[i + 1], StandardCharsets.UTF_8));
    }
    HttpResponse<String> r = get(query.toString());
    if (r.statusCode() != 200) {
      throw new AssertionError(
          "prometheus answered " + r.statusCode() + " to " + query + ": " + r.body());
    }
    return r.body();
  }

  /** The instant query's answer, as JSON. */
  public String query(String promql) throws IOException, InterruptedException {
    return api("query", "query", promql);
  }

  @Override
  public void close() throws IOException {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
