package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.Format;
import io.ringtail.benchmarks.toolkit.Machine;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.redis.testkit.RedisProcess;
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
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * What the starter costs a service's requests: the examples' load target ({@code
 * LoadTargetApplication}, two endpoints that do no work of their own) under a closed-loop HTTP
 * load, in four configurations interleaved round after round:
 *
 * <ul>
 *   <li>{@code plain}: every Ringtail auto-configuration excluded;
 *   <li>{@code plain, started again}: the same, a second start each round; what it differs from
 *       {@code plain} by is the run's floor, below which no difference between configurations tells
 *       anything;
 *   <li>{@code starter}: the starter's defaults (each endpoint's rolling window, the meters);
 *   <li>{@code redis limit}: the starter with a Redis backend and a fleet rate limit per client
 *       address on {@code /orders/**} that no request reaches (every decision admitted).
 * </ul>
 *
 * The application runs pinned to {@code --app-cpus}, the load on the other CPUs (those of this JVM,
 * which its child processes inherit), with redis-server at real-time priority ({@code chrt}, as
 * root) among them, as on a host of its own. The closed loop's load ({@code --load}) is either
 * {@code wrk} ({@link WrkLoad}: a process of its own, {@code --load-threads} threads, far less CPU
 * per request than Java clients take from the application's neighbours) or {@code java} ({@link
 * HttpLoad}: this JVM's threads, one HTTP/1.1 client each); both keep {@code --connections}
 * connections alternating the two endpoints. Each round starts each configuration afresh, warms it
 * for {@code --warmup} seconds, then measures {@code --seconds}. Reported per configuration:
 * throughput of every round, mean and spread, the application's CPU time per request (its threads'
 * but the JIT compiler's, over the measured seconds: what the starter adds to each request, whether
 * or not the load saturates the application's CPU) and latency p50 / p99 (with {@code java}, over
 * every request of every round; with {@code wrk}, which reports each run's percentiles, the median
 * of the rounds' p50 and the highest of their p99); then latency at a fixed rate ({@code
 * --paced-rate}, well below saturation, where a request waits for no other; always this JVM's
 * clients, since wrk cannot pace) after each round's closed loop, whose p50 against plain is what a
 * limit adds to a request; and the Redis round trip ({@code PING} from this JVM) that is held to,
 * back to back and at the fixed rate (each after an idle gap, as a request at that rate meets it).
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

    @Mixin LoadTarget.Options target = new LoadTarget.Options();

    @Option(names = "--rounds", description = "Rounds; each runs every configuration once.")
    int rounds = 5;

    @Option(names = "--warmup", description = "Seconds of load before each measurement.")
    int warmup = 10;

    @Option(
        names = "--load",
        converter = LoadConverter.class,
        description =
            "The closed loop's load generator: wrk (a process of its own) or java (this JVM's"
                + " HttpClient threads). The fixed-rate phase is always java.")
    Load load = Load.JAVA;

    @Option(
        names = "--paced-rate",
        description = "Requests/s of the fixed-rate phase after each round's closed loop.")
    int rate = 400;

    @Option(names = "--paced-seconds", description = "Seconds of the fixed-rate phase.")
    int rateSeconds = 10;
  }

  /** The closed loop's load generator. */
  enum Load {
    WRK,
    JAVA
  }

  /** {@code --load}: {@code wrk} or {@code java}. */
  static final class LoadConverter implements ITypeConverter<Load> {
    @Override
    public Load convert(String value) {
      return switch (value) {
        case "wrk" -> Load.WRK;
        case "java" -> Load.JAVA;
        default ->
            throw new TypeConversionException("must be wrk or java, but was \"" + value + "\"");
      };
    }
  }

  /**
   * One measured round of one configuration: the closed loop's throughput, its latency p50 and p99
   * (in µs) and each of its latencies where the load keeps them (none with wrk), the application's
   * CPU time per request, and the fixed-rate phase's latencies (from each request's scheduled
   * time).
   */
  record Round(
      double perSecond,
      double p50Micros,
      double p99Micros,
      long[] latenciesNanos,
      double cpuMicrosPerRequest,
      long[] pacedNanos) {}

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    Instant began = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Map<String, List<Round>> results = new LinkedHashMap<>();
    WrkLoad wrk =
        cli.load == Load.WRK ? new WrkLoad(cli.target.loadThreads, cli.target.connections) : null;
    HttpLoad load = new HttpLoad(cli.target.connections);
    double pingMicros;
    long[] pacedBefore;
    long[] pacedAfter;
    int pacedCount = cli.rate * cli.rateSeconds;
    try (RedisProcess redis = RedisProcess.start()) {
      // as on a host of its own: the load's threads on its CPU never keep it waiting for it
      Machine.realtime(redis.pid());
      pingMicros = quantileMicros(pings(redis, 2_000, 0), 0.5);
      pacedBefore = pings(redis, pacedCount, cli.rate);
      Map<String, List<String>> configs = configs(redis.port());
      configs.keySet().forEach(c -> results.put(c, new ArrayList<>()));
      for (int r = 0; r < cli.rounds; r++) {
        for (Map.Entry<String, List<String>> c : configs.entrySet()) {
          System.err.printf("round %d, %s, load %s%n", r + 1, c.getKey(), Machine.loadAverage());
          // with wrk, this JVM's clients warm up once, with the first application, so that the
          // fixed-rate phase runs compiled client code from the first round on
          boolean warmClients = wrk != null && r == 0 && results.get(PLAIN).isEmpty();
          results.get(c.getKey()).add(round(cli, load, wrk, warmClients, c.getValue()));
        }
      }
      pacedAfter = pings(redis, pacedCount, cli.rate);
    }
    double pacedPingMicros =
        quantileMicros(pooled(List.of(pacedBefore, pacedAfter), Function.identity()), 0.5);
    StringBuilder md = new StringBuilder();
    md.append(
        Format.fmt(
            "ServiceLoadReport, %s to %s, %d cores, %s; the application on CPU %s, the load on the"
                + " others; load generator: %s; %d rounds of %d s after %d s of warm-up, the"
                + " configurations interleaved. Redis round trip (PING from the load's JVM): %.0f"
                + " µs p50 back to back, %.0f µs p50 at %d/s (before the first round and after the"
                + " last, like a request at the fixed rate below: one call after an idle gap)."
                + " p50 / p99: %s.%n%n",
            began,
            Instant.now().truncatedTo(ChronoUnit.SECONDS),
            Machine.cores(),
            Machine.cpuModel(),
            cli.target.appCpus,
            wrk != null
                ? Format.fmt(
                    "%s (%d threads, %d connections) in the closed loop, %d Java HttpClient"
                        + " clients at the fixed rate",
                    WrkLoad.version(),
                    cli.target.loadThreads,
                    cli.target.connections,
                    cli.target.connections)
                : Format.fmt("%d Java HttpClient clients (a thread each)", cli.target.connections),
            cli.rounds,
            cli.common.wholeSeconds(),
            cli.warmup,
            pingMicros,
            pacedPingMicros,
            cli.rate,
            wrk != null
                ? "wrk's, per round; the median of the rounds' p50 and the highest of their p99"
                : "over every request of every round"));
    md.append(
        "| configuration | requests/s per round | mean | spread (max - min) / mean | against plain"
            + " | application CPU per request, JIT compiler aside (against plain) | p50 / p99 |\n"
            + "|---|---|---:|---:|---:|---:|---:|\n");
    double plain = mean(results.get(PLAIN));
    double plainCpu = meanCpu(results.get(PLAIN));
    double plainP50 = 0;
    for (Map.Entry<String, List<Round>> e : results.entrySet()) {
      List<Round> rounds = e.getValue();
      double mean = mean(rounds);
      double min = rounds.stream().mapToDouble(Round::perSecond).min().orElse(0);
      double max = rounds.stream().mapToDouble(Round::perSecond).max().orElse(0);
      double p50;
      double p99;
      List<String> notes = new ArrayList<>();
      if (wrk != null) {
        double[] p50s = rounds.stream().mapToDouble(Round::p50Micros).sorted().toArray();
        int half = p50s.length / 2;
        p50 =
            p50s.length == 0
                ? 0
                : p50s.length % 2 == 1 ? p50s[half] : (p50s[half - 1] + p50s[half]) / 2;
        p99 = rounds.stream().mapToDouble(Round::p99Micros).max().orElse(0);
        List<String> eachP50 = new ArrayList<>();
        rounds.forEach(x -> eachP50.add(Format.fmt("%.0f", x.p50Micros())));
        notes.add("rounds' p50 " + String.join(", ", eachP50));
      } else {
        long[] all = pooled(rounds, Round::latenciesNanos);
        p50 = quantileMicros(all, 0.5);
        p99 = quantileMicros(all, 0.99);
      }
      if (e.getKey().equals(PLAIN)) {
        plainP50 = p50;
      } else {
        notes.add(Format.fmt("p50 %+.0f µs", p50 - plainP50));
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
              p99,
              notes.isEmpty() ? "" : " (" + String.join("; ", notes) + ")"));
    }
    md.append(
        Format.fmt(
            "%nAt a fixed rate of %d requests/s (%d s after each round's closed loop; latency from"
                + " each request's scheduled time, so a stall counts for every request it"
                + " delays):%n%n| configuration | p50 | p90 | p99 | p50 against plain | rounds'"
                + " p50 |%n|---|---:|---:|---:|---:|---|%n",
            cli.rate, cli.rateSeconds));
    double plainPaced = quantileMicros(pooled(results.get(PLAIN), Round::pacedNanos), 0.5);
    for (Map.Entry<String, List<Round>> e : results.entrySet()) {
      long[] paced = pooled(e.getValue(), Round::pacedNanos);
      double p50 = quantileMicros(paced, 0.5);
      List<String> eachP50 = new ArrayList<>();
      e.getValue()
          .forEach(
              x ->
                  eachP50.add(
                      Format.fmt(
                          "%.0f", quantileMicros(pooled(List.of(x), Round::pacedNanos), 0.5))));
      md.append(
          Format.fmt(
              "| %s | %.0f µs | %.0f µs | %.0f µs | %+.0f µs | %s µs |%n",
              e.getKey(),
              p50,
              quantileMicros(paced, 0.9),
              quantileMicros(paced, 0.99),
              p50 - plainPaced,
              String.join(", ", eachP50)));
    }
    Path out = cli.common.out();
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, md.toString());
    System.out.print(md);
  }

  /** The configuration every other is compared with, and its second start. */
  static final String PLAIN = "plain";

  static final String PLAIN_AGAIN = "plain, started again";

  /** The configurations: their argument to the application (its {@code configuration}). */
  private static Map<String, List<String>> configs(int redisPort) {
    Map<String, List<String>> configs = new LinkedHashMap<>();
    configs.put(PLAIN, List.of("--configuration=plain"));
    // the same application started again: how far two starts of one build differ in this run,
    // the floor under any difference between configurations
    configs.put(PLAIN_AGAIN, List.of("--configuration=plain"));
    configs.put("starter", List.of("--configuration=starter"));
    configs.put("redis limit", List.of("--configuration=redis-limit:" + redisPort));
    return configs;
  }

  /**
   * Starts the application in a configuration, loads it (the closed loop with {@code wrk} if not
   * null, else with {@code load}; first {@code load}'s closed loop too, if {@code warmClients}),
   * and stops it.
   */
  private static Round round(
      Options cli, HttpLoad load, WrkLoad wrk, boolean warmClients, List<String> config)
      throws Exception {
    try (LoadTarget app = LoadTarget.start(cli.target, config)) {
      int port = app.port();
      if (wrk == null || warmClients) {
        load.closedLoop(port, cli.warmup, false);
      }
      if (wrk != null && cli.warmup > 0) {
        warmUp(wrk, port, cli.warmup);
      }
      int seconds = cli.common.wholeSeconds();
      double cpuBefore = Machine.cpuSecondsBesidesJit(app.pid());
      double perSecond;
      double p50;
      double p99;
      long[] latencies;
      long n;
      double cpuAfter;
      if (wrk != null) {
        WrkLoad.Result closed = wrk.closedLoop(port, seconds);
        cpuAfter = Machine.cpuSecondsBesidesJit(app.pid());
        perSecond = closed.perSecond();
        p50 = closed.p50Micros();
        p99 = closed.p99Micros();
        latencies = new long[0];
        n = closed.requests();
      } else {
        HttpLoad.Result closed = load.closedLoop(port, seconds, true);
        cpuAfter = Machine.cpuSecondsBesidesJit(app.pid());
        perSecond = closed.perSecond();
        latencies = closed.latenciesNanos().clone();
        Arrays.sort(latencies);
        p50 = quantileMicros(latencies, 0.5);
        p99 = quantileMicros(latencies, 0.99);
        n = latencies.length;
      }
      double cpuMicros = n == 0 ? Double.NaN : (cpuAfter - cpuBefore) * 1e6 / n;
      return new Round(
          perSecond, p50, p99, latencies, cpuMicros, load.paced(port, cli.rate, cli.rateSeconds));
    }
  }

  /**
   * wrk's warm-up: a freshly started application may answer some requests with errors while it is
   * still compiling (a Redis limit's breaker opening on calls slowed past their timeout, its outage
   * policy then denying); that is said and the warm-up goes on. Measured phases fail on any error.
   */
  private static void warmUp(WrkLoad wrk, int port, int seconds) throws Exception {
    try {
      wrk.closedLoop(port, seconds);
    } catch (WrkLoad.ErrorAnswers e) {
      System.err.println("warm-up, not measured: " + e.getMessage().lines().findFirst().orElse(""));
    }
  }

  /** The latencies of every part (a round, a set of pings), pooled and sorted. */
  private static <T> long[] pooled(List<T> parts, Function<T, long[]> of) {
    long[] all = parts.stream().flatMapToLong(x -> Arrays.stream(of.apply(x))).toArray();
    Arrays.sort(all);
    return all;
  }

  /** The {@code q} quantile of sorted nanoseconds, in µs (0 if none). */
  private static double quantileMicros(long[] sorted, double q) {
    return sorted.length == 0
        ? 0
        : sorted[(int) Math.min(sorted.length - 1, sorted.length * q)] / 1e3;
  }

  private static double meanCpu(List<Round> rounds) {
    return rounds.stream().mapToDouble(Round::cpuMicrosPerRequest).average().orElse(Double.NaN);
  }

  /**
   * The round trips (ns) of {@code count} {@code PING}s from this JVM, sorted: back to back if
   * {@code rate} is 0, else at {@code rate} per second, each after an idle gap as a request at that
   * rate meets Redis.
   */
  private static long[] pings(RedisProcess redis, int count, int rate) {
    RedisClient client = RedisClient.create();
    try (StatefulRedisConnection<String, String> c = client.connect(redis.uri())) {
      long[] t = new long[count];
      long start = System.nanoTime();
      for (int i = 0; i < count; i++) {
        long at = rate == 0 ? 0 : start + i * 1_000_000_000L / rate;
        long wait;
        while ((wait = at - System.nanoTime()) > 0) {
          LockSupport.parkNanos(wait);
        }
        long t0 = System.nanoTime();
        c.sync().ping();
        t[i] = System.nanoTime() - t0;
      }
      Arrays.sort(t);
      return t;
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static double mean(List<Round> rounds) {
    return rounds.stream().mapToDouble(Round::perSecond).average().orElse(0);
  }
}
