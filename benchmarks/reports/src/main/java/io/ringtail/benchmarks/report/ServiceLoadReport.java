package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.benchmarks.toolkit.ChildJvm;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.Format;
import io.ringtail.benchmarks.toolkit.Machine;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.redis.testkit.RedisProcess;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What the starter costs a service's requests: the examples' load target ({@code
 * LoadTargetApplication}, two endpoints that do no work of their own) under a closed-loop HTTP
 * load, in three configurations interleaved round after round:
 *
 * <ul>
 *   <li>{@code plain}: every Ringtail auto-configuration excluded;
 *   <li>{@code starter}: the starter's defaults (each endpoint's rolling window, the meters);
 *   <li>{@code redis limit}: the starter with a Redis backend and a fleet rate limit per client
 *       address on {@code /orders/**} that no request reaches (every decision admitted).
 * </ul>
 *
 * The application runs pinned to {@code --app-cpus}, the load (this JVM's threads, one HTTP/1.1
 * client each, alternating the two endpoints) on the other CPUs, with redis-server at real-time
 * priority ({@code chrt}, as root) among them, as on a host of its own; each round starts each
 * configuration afresh, warms it for {@code --warmup} seconds, then measures {@code --seconds}.
 * Reported per configuration: throughput of every round, mean and spread, the application's CPU
 * time per request (its threads' but the JIT compiler's, over the measured seconds: what the
 * starter adds to each request, whether or not the load saturates the application's CPU) and
 * latency p50 / p99 over all rounds; then latency at a fixed rate ({@code --paced-rate}, well below
 * saturation, where a request waits for no other) after each round's closed loop, whose p50 against
 * plain is what a limit adds to a request; and the Redis round trip ({@code PING} from this JVM)
 * that is held to.
 *
 * <p>Run: {@code benchmarks/service-load.sh}, which builds the application and passes its
 * classpath. A main, not thread-safe.
 */
public final class ServiceLoadReport {
  private ServiceLoadReport() {}

  /** The command line. */
  @Command(name = "ServiceLoadReport", description = "What the starter costs a service's requests.")
  static final class Options {
    @Mixin ReportOptions common = ReportOptions.writing("service-load.md").acceptSeconds(20);

    @Option(
        names = "--app-classpath",
        required = true,
        description = "The load target's classpath.")
    String appClasspath;

    @Option(names = "--rounds", description = "Rounds; each runs every configuration once.")
    int rounds = 5;

    @Option(names = "--warmup", description = "Seconds of load before each measurement.")
    int warmup = 10;

    @Option(names = "--connections", description = "Concurrent clients (threads).")
    int connections = 16;

    @Option(names = "--app-cpus", description = "CPUs the application is pinned to (taskset).")
    String appCpus = "0";

    @Option(
        names = "--paced-rate",
        description = "Requests/s of the fixed-rate phase after each round's closed loop.")
    int rate = 400;

    @Option(names = "--paced-seconds", description = "Seconds of the fixed-rate phase.")
    int rateSeconds = 10;
  }

  /**
   * One measured round of one configuration: the closed loop's throughput, latencies and the
   * application's CPU time per request, and the fixed-rate phase's latencies (from each request's
   * scheduled time).
   */
  record Round(
      double perSecond, long[] latenciesNanos, double cpuMicrosPerRequest, long[] pacedNanos) {}

  /**
   * The load's HTTP clients, one per connection, kept for the whole run: a client's selector thread
   * lives as long as the client, so clients made per round would pile up threads on the load's
   * CPUs, round after round.
   */
  private static final List<HttpClient> CLIENTS = new ArrayList<>();

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    Instant began = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Map<String, List<Round>> results = new LinkedHashMap<>();
    double pingMicros;
    try (RedisProcess redis = RedisProcess.start()) {
      // as on a host of its own: the load's threads on its CPU never keep it waiting for it
      Machine.realtime(redis.pid());
      pingMicros = pingMicros(redis);
      Map<String, List<String>> configs = configs(redis.port());
      configs.keySet().forEach(c -> results.put(c, new ArrayList<>()));
      for (int r = 0; r < cli.rounds; r++) {
        for (Map.Entry<String, List<String>> c : configs.entrySet()) {
          System.err.printf("round %d, %s, load %s%n", r + 1, c.getKey(), Machine.loadAverage());
          results.get(c.getKey()).add(round(cli, c.getValue()));
        }
      }
    }
    StringBuilder md = new StringBuilder();
    md.append(
        Format.fmt(
            "ServiceLoadReport, %s to %s, %d cores, %s; the application on CPU %s, %d clients on the"
                + " others; %d rounds of %d s after %d s of warm-up, the configurations"
                + " interleaved. Redis round trip (PING from the load's JVM): %.0f µs p50.%n%n",
            began,
            Instant.now().truncatedTo(ChronoUnit.SECONDS),
            Machine.cores(),
            Machine.cpuModel(),
            cli.appCpus,
            cli.connections,
            cli.rounds,
            cli.common.wholeSeconds(),
            cli.warmup,
            pingMicros));
    md.append(
        "| configuration | requests/s per round | mean | spread (max - min) / mean | against plain"
            + " | application CPU per request, JIT compiler aside (against plain) | p50 / p99 |\n"
            + "|---|---|---:|---:|---:|---:|---:|\n");
    double plain = mean(results.get("plain"));
    double plainCpu = meanCpu(results.get("plain"));
    double plainP50 = 0;
    for (Map.Entry<String, List<Round>> e : results.entrySet()) {
      List<Round> rounds = e.getValue();
      double mean = mean(rounds);
      double min = rounds.stream().mapToDouble(Round::perSecond).min().orElse(0);
      double max = rounds.stream().mapToDouble(Round::perSecond).max().orElse(0);
      long[] all = pooled(rounds, Round::latenciesNanos);
      double p50 = quantileMicros(all, 0.5);
      if (e.getKey().equals("plain")) {
        plainP50 = p50;
      }
      double cpu = meanCpu(rounds);
      List<String> each = new ArrayList<>();
      rounds.forEach(x -> each.add(Format.fmt("%,.0f", x.perSecond())));
      List<String> eachCpu = new ArrayList<>();
      rounds.forEach(x -> eachCpu.add(Format.fmt("%.0f", x.cpuMicrosPerRequest())));
      md.append(
          Format.fmt(
              "| %s | %s | %,.0f | %.1f %% | %+.1f %% | %.1f µs (%+.1f %%; rounds %s) | %.0f / %.0f"
                  + " µs%s |%n",
              e.getKey(),
              String.join(", ", each),
              mean,
              100 * (max - min) / mean,
              100 * (mean - plain) / plain,
              cpu,
              100 * (cpu - plainCpu) / plainCpu,
              String.join(", ", eachCpu),
              p50,
              quantileMicros(all, 0.99),
              e.getKey().equals("plain") ? "" : Format.fmt(" (p50 %+.0f µs)", p50 - plainP50)));
    }
    md.append(
        Format.fmt(
            "%nAt a fixed rate of %d requests/s (%d s after each round's closed loop; latency from"
                + " each request's scheduled time, so a stall counts for every request it"
                + " delays):%n%n| configuration | p50 | p90 | p99 | p50 against plain |%n"
                + "|---|---:|---:|---:|---:|%n",
            cli.rate, cli.rateSeconds));
    double plainPaced = quantileMicros(pooled(results.get("plain"), Round::pacedNanos), 0.5);
    for (Map.Entry<String, List<Round>> e : results.entrySet()) {
      long[] paced = pooled(e.getValue(), Round::pacedNanos);
      double p50 = quantileMicros(paced, 0.5);
      md.append(
          Format.fmt(
              "| %s | %.0f µs | %.0f µs | %.0f µs | %+.0f µs |%n",
              e.getKey(),
              p50,
              quantileMicros(paced, 0.9),
              quantileMicros(paced, 0.99),
              p50 - plainPaced));
    }
    Path out = cli.common.out();
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, md.toString());
    System.out.print(md);
  }

  /** The three configurations: their argument to the application (its {@code configuration}). */
  private static Map<String, List<String>> configs(int redisPort) {
    Map<String, List<String>> configs = new LinkedHashMap<>();
    configs.put("plain", List.of("--configuration=plain"));
    configs.put("starter", List.of("--configuration=starter"));
    configs.put("redis limit", List.of("--configuration=redis-limit:" + redisPort));
    return configs;
  }

  /** Starts the application in a configuration, loads it, and stops it. */
  private static Round round(Options cli, List<String> config) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-cp",
                cli.appClasspath,
                "io.ringtail.examples.load.LoadTargetApplication",
                "--server.port=" + port,
                "--spring.main.banner-mode=off",
                "--logging.level.root=WARN"));
    command.addAll(config);
    ChildJvm app = new ChildJvm(command);
    try {
      Machine.pin(app.process.pid(), cli.appCpus);
      HttpClient probe = HttpClient.newHttpClient();
      URI ready = URI.create("http://127.0.0.1:" + port + "/orders/1");
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (true) {
        try {
          if (probe
                  .send(
                      HttpRequest.newBuilder(ready).build(), HttpResponse.BodyHandlers.discarding())
                  .statusCode()
              == 200) {
            break;
          }
        } catch (java.io.IOException e) {
          // not listening yet
        }
        if (System.nanoTime() > deadline || !app.process.isAlive()) {
          throw new IllegalStateException("the application did not start: " + app.lines);
        }
        Thread.sleep(200);
      }
      load(cli, port, cli.warmup, false);
      long cpuBefore = cpuTicksBesidesJit(app.process.pid());
      Round closed = load(cli, port, cli.common.wholeSeconds(), true);
      long cpuAfter = cpuTicksBesidesJit(app.process.pid());
      double cpuMicros =
          cpuBefore >= 0 && cpuAfter >= 0 && closed.latenciesNanos().length > 0
              ? (cpuAfter - cpuBefore) * 1e6 / TICKS_PER_SECOND / closed.latenciesNanos().length
              : Double.NaN;
      return new Round(closed.perSecond(), closed.latenciesNanos(), cpuMicros, paced(cli, port));
    } finally {
      app.process.destroy();
      app.process.waitFor();
    }
  }

  /** {@code connections} closed loops for {@code seconds}; the round's throughput and latencies. */
  private static Round load(Options cli, int port, int seconds, boolean keep) throws Exception {
    AtomicLong requests = new AtomicLong();
    List<long[]> latencies = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    while (CLIENTS.size() < cli.connections) {
      CLIENTS.add(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
    }
    long start = System.nanoTime();
    long end = start + Duration.ofSeconds(seconds).toNanos();
    for (int c = 0; c < cli.connections; c++) {
      int client = c;
      long[] mine = new long[keep ? 1 << 20 : 0];
      latencies.add(mine);
      Thread t =
          new Thread(
              () -> {
                HttpClient http = CLIENTS.get(client);
                HttpRequest[] requestsOf = {
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + port + "/orders/" + client))
                      .build(),
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + port + "/items/" + client + "/price"))
                      .build()
                };
                int n = 0;
                try {
                  while (System.nanoTime() < end) {
                    long t0 = System.nanoTime();
                    HttpResponse<Void> r =
                        http.send(requestsOf[n & 1], HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() != 200) {
                      throw new IllegalStateException("status " + r.statusCode());
                    }
                    if (n < mine.length) {
                      mine[n] = System.nanoTime() - t0;
                    }
                    n++;
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                requests.addAndGet(n);
                if (n < mine.length) {
                  latencies.set(client, Arrays.copyOf(mine, n));
                }
              });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    long[] all = latencies.stream().flatMapToLong(Arrays::stream).toArray();
    return new Round(requests.get() / elapsed, keep ? all : new long[0], Double.NaN, new long[0]);
  }

  /**
   * {@code rate} requests/s for {@code rateSeconds}, spread over the clients on a fixed schedule
   * (each client one request every {@code connections / rate} s, the clients staggered); each
   * latency runs from the request's scheduled time, so a late send counts as latency.
   */
  private static long[] paced(Options cli, int port) throws Exception {
    long interval = Duration.ofSeconds(cli.connections).toNanos() / cli.rate;
    long start = System.nanoTime() + Duration.ofMillis(100).toNanos();
    long end = start + Duration.ofSeconds(cli.rateSeconds).toNanos();
    List<long[]> latencies = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < cli.connections; c++) {
      int client = c;
      long[] mine = new long[(int) ((end - start) / interval) + 2];
      latencies.add(mine);
      Thread t =
          new Thread(
              () -> {
                HttpClient http = CLIENTS.get(client);
                HttpRequest request =
                    HttpRequest.newBuilder(
                            URI.create(
                                "http://127.0.0.1:"
                                    + port
                                    + (client % 2 == 0 ? "/orders/" : "/items/")
                                    + client
                                    + (client % 2 == 0 ? "" : "/price")))
                        .build();
                int n = 0;
                try {
                  for (long due = start + client * interval / cli.connections;
                      due < end && n < mine.length;
                      due += interval) {
                    long wait;
                    while ((wait = due - System.nanoTime()) > 0) {
                      LockSupport.parkNanos(wait);
                    }
                    HttpResponse<Void> r =
                        http.send(request, HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() != 200) {
                      throw new IllegalStateException("status " + r.statusCode());
                    }
                    mine[n++] = System.nanoTime() - due;
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                latencies.set(client, Arrays.copyOf(mine, n));
              });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    return latencies.stream().flatMapToLong(Arrays::stream).toArray();
  }

  /** The latencies of every round, pooled and sorted. */
  private static long[] pooled(List<Round> rounds, Function<Round, long[]> of) {
    long[] all = rounds.stream().flatMapToLong(x -> Arrays.stream(of.apply(x))).toArray();
    Arrays.sort(all);
    return all;
  }

  /** The {@code q} quantile of sorted nanoseconds, in µs (0 if none). */
  private static double quantileMicros(long[] sorted, double q) {
    return sorted.length == 0
        ? 0
        : sorted[(int) Math.min(sorted.length - 1, sorted.length * q)] / 1e3;
  }

  /** Linux's clock ticks per second of {@code /proc/PID/task/TID/stat} (USER_HZ). */
  private static final double TICKS_PER_SECOND = 100;

  /**
   * The CPU ticks (user and system) of the process's threads but its JIT compiler's, from {@code
   * /proc}; -1 where there is none. The compiler still works tens of seconds into a Spring Boot
   * application's load (on one CPU, a quarter of it), by a schedule of its own: left in, it would
   * be most of the difference between two rounds.
   */
  private static long cpuTicksBesidesJit(long pid) {
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    if (!Files.isDirectory(tasks)) {
      return -1;
    }
    long ticks = 0;
    try (var threads = Files.list(tasks)) {
      for (Path t : (Iterable<Path>) threads::iterator) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          int close = stat.lastIndexOf(')');
          String name = stat.substring(stat.indexOf('(') + 1, close);
          if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
            continue;
          }
          String[] f = stat.substring(close + 2).split(" ");
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
        } catch (java.io.IOException | RuntimeException e) {
          // the thread ended
        }
      }
    } catch (java.io.IOException e) {
      return -1;
    }
    return ticks;
  }

  private static double meanCpu(List<Round> rounds) {
    return rounds.stream().mapToDouble(Round::cpuMicrosPerRequest).average().orElse(Double.NaN);
  }

  /** The median round trip of a {@code PING} from this JVM, in µs. */
  private static double pingMicros(RedisProcess redis) {
    RedisClient client = RedisClient.create();
    try (StatefulRedisConnection<String, String> c = client.connect(redis.uri())) {
      long[] t = new long[2_000];
      for (int i = 0; i < t.length; i++) {
        long t0 = System.nanoTime();
        c.sync().ping();
        t[i] = System.nanoTime() - t0;
      }
      Arrays.sort(t);
      return t[t.length / 2] / 1e3;
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static double mean(List<Round> rounds) {
    return rounds.stream().mapToDouble(Round::perSecond).average().orElse(0);
  }
}
